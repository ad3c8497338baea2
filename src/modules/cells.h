// The one seam between the book's code and a learner's: the lines of chapter 3 where a
// learner's code may differ from the book's (project, score, mask, scale and softmax,
// renormalise, dropout, split and merge the heads, ...), each a Cell whose default is the
// book's function (namespace book, below). The modules (modules/chapter.h) and the chapter's
// stages call the cells where the book has the line; `attn-walk check` (src/check/) assigns a
// cell to recompute a learner's line with this very code. Cells::book() says every cell is
// the book's: only then do the fused fast kernels run.
//
// Chapter 4's GPTModel has its own cells of the same kind (GptCells, below: LayerNorm, GELU,
// the two shortcuts, and the parameters as the loading code leaves them), used by
// modules/gpt.cpp; Cells::gpt holds them beside chapter 3's.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/ops_gpt.h"
#include "weights/gpt_weights.h"

namespace attn {

class TorchGenerator;
struct Linear;
struct Dropout;

// One line of the book: its function, or a learner's in its place.
template <typename Sig>
class Cell;
template <typename R, typename... Args>
class Cell<R(Args...)> {
 public:
  using Fn = std::function<R(Args...)>;
  Cell(R (*book)(Args...)) : book_(book) {}  // NOLINT: a cell is made from the book's function
  Cell& operator=(Fn learner) {              // check/: the learner's line
    learner_ = std::move(learner);
    return *this;
  }
  R operator()(Args... args) const {
    return learner_ ? learner_(std::forward<Args>(args)...) : book_(std::forward<Args>(args)...);
  }
  bool is_book() const { return !learner_; }

 private:
  // clang-format off
  R (*book_)(Args...);
  // clang-format on
  Fn learner_;
};

// x -> x @ W (a parameter matrix) or W(x) (an nn.Linear layer).
using Layer = std::function<Tensor(const Tensor&)>;
// nn.Dropout applied (the draws from the module's generator).
using DropoutFn = std::function<Tensor(const Tensor&)>;

// What the attention core's cells see of their module, as the book's lines read it:
// keys.shape[-1], self.mask[:T, :T] (hidden where 1), self.dropout.
struct Self {
  const Tensor& keys;  // (..., T, d_k)
  const Tensor& mask;  // (T, T)
  const DropoutFn& dropout;
};

// Section 3.5.1's tensors, which section 3.5.2's cells reuse.
struct CausalWeights {
  Tensor queries, keys;        // (T, d_out)
  Tensor attn_scores;          // queries @ keys.T
  Tensor attn_weights;         // softmax(attn_scores / sqrt(d_k)), no mask
  Tensor mask;                 // triu(ones(T, T), diagonal=1)
  Tensor attn_weights_causal;  // the -inf method's weights
};

namespace book {

// The order __init__ declares W_query (0), W_key (1) and W_value (2): the order they draw.
std::array<int, 3> declaration_order();
// nn.Linear(d_in, d_out, bias=qkv_bias): whether W_query, W_key and W_value have a bias.
bool bias(bool qkv_bias);
Tensor queries(const Tensor& x, const Layer& W_query, const Layer& W_key);  // W_query(x)
Tensor keys(const Tensor& x, const Layer& W_query, const Layer& W_key);     // W_key(x)
// attn_scores = queries @ keys.T (keys.transpose(-2, -1) for batches and heads).
Tensor score(const Tensor& queries, const Tensor& keys);
Tensor mask_simple(int64_t T);  // torch.tril(torch.ones(T, T)): the weights kept
Tensor mask(int64_t T);         // torch.triu(torch.ones(T, T), diagonal=1): the scores hidden
// attn_scores.masked_fill_(self.mask.bool()[:T, :T], -torch.inf)
Tensor masked(Tensor attn_scores, const Self& self);
// torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
Tensor softmax(Tensor attn_scores, const Self& self);
// self.dropout(attn_weights)
Tensor dropout(Tensor attn_weights, const Self& self);
// attn_weights @ values
Tensor context(const Tensor& attn_weights, const Tensor& values);
// MultiHeadAttention: keys.view(b, num_tokens, num_heads, head_dim), then .transpose(1, 2).
Tensor view_heads(Tensor x, int64_t b, int64_t num_tokens, int64_t num_heads, int64_t head_dim);
Tensor heads_first(Tensor viewed);
// (attn_weights @ values).transpose(1, 2): tokens before heads again.
Tensor tokens_first(Tensor context_vec);
// context_vec.contiguous().view(b, num_tokens, self.d_out)
Tensor merge(Tensor context_vec, int64_t b, int64_t num_tokens, int64_t d_out);
// self.out_proj(context_vec)
Tensor project_out(const Linear& out_proj, const Tensor& context_vec);
// torch.cat([head(x) for head in self.heads], dim=-1)
Tensor concat(std::vector<Tensor> heads);

// The notebook's cells around the modules.
// torch.manual_seed(seed) before `module` ("sa_v1", "sa_v2", "exercise_3_1_v2",
// "dropout_attn_weights", "causal_attention", "wrapper", "mha", "exercise_3_2").
void seed(TorchGenerator& gen, uint64_t seed, const char* module);
// x_2 = inputs[1]: the chapter's 2nd token (`token` counts from 1).
Tensor token_row(const Tensor& inputs, int64_t token);
// row_sums = masked_simple.sum(dim=-1, keepdim=True); masked_simple_norm = masked_simple / row_sums.
std::pair<Tensor, Tensor> renormalize(const Tensor& attn_weights, const Tensor& mask_simple,
                                      const Tensor& masked_simple);
// dropout(x) with section 3.5.2's torch.nn.Dropout(p).
Tensor nn_dropout(const Tensor& x, const Dropout& dropout, TorchGenerator& gen);
// dropout(attn_weights): section 3.5.1's causal weights, dropped.
Tensor drop_weights(const CausalWeights& w, const DropoutFn& dropout);
// Exercise 3.1: sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T), likewise W_key, W_value.
std::array<Tensor, 3> copy_weights(const Tensor& W_query, const Tensor& W_key, const Tensor& W_value);
// second_head = a[0, 1, :, :]
Tensor second_head(const Tensor& a);

// Chapter 4 (ch04/01_main-chapter-code/gpt.py), the lines where a learner's GPTModel may differ.
// LayerNorm.forward: mean = x.mean(dim=-1, keepdim=True); var = x.var(dim=-1, keepdim=True,
// unbiased=False); norm_x = (x - mean) / torch.sqrt(var + self.eps); self.scale * norm_x + self.shift
Tensor layer_norm(const Tensor& x, const MatView& scale, const MatView& shift);
// GELU.forward: 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))
Tensor gelu(const Tensor& x);
// TransformerBlock.forward: x = x + shortcut, after the attention (`which` 1) and after the
// feed-forward (2).
Tensor shortcut(const Tensor& x, const Tensor& shortcut, int which);
// A parameter as the model holds it once loaded, by its state-dict name: load_state_dict's
// copy, or load_weights_into_gpt's assign(left, right.T) of a Hugging Face Conv1D weight (a
// transposed view).
MatView param(const std::string& name, const ParamView& p);

}  // namespace book

// Every line of chapter 4's GPTModel a learner's code may change, by default the book's.
struct GptCells {
  Cell<Tensor(const Tensor&, const MatView&, const MatView&)> layer_norm = book::layer_norm;
  Cell<Tensor(const Tensor&)> gelu = book::gelu;
  Cell<Tensor(const Tensor&, const Tensor&, int)> shortcut = book::shortcut;
  Cell<MatView(const std::string&, const ParamView&)> param = book::param;

  bool book() const { return layer_norm.is_book() && gelu.is_book() && shortcut.is_book() && param.is_book(); }
};

// Every line of chapter 3 a learner's code may change, by default the book's.
struct Cells {
  // The modules' lines (modules/chapter.h), in the order forward() runs them.
  Cell<std::array<int, 3>()> declare = book::declaration_order;
  Cell<bool(bool)> bias = book::bias;
  Cell<Tensor(const Tensor&, const Layer&, const Layer&)> queries = book::queries;
  Cell<Tensor(const Tensor&, const Layer&, const Layer&)> keys = book::keys;
  Cell<Tensor(const Tensor&, const Tensor&)> score = book::score;
  Cell<Tensor(int64_t)> mask_simple = book::mask_simple;
  Cell<Tensor(int64_t)> mask = book::mask;
  Cell<Tensor(Tensor, const Self&)> masked = book::masked;
  Cell<Tensor(Tensor, const Self&)> softmax = book::softmax;
  Cell<Tensor(Tensor, const Self&)> dropout = book::dropout;
  Cell<Tensor(const Tensor&, const Tensor&)> context = book::context;
  Cell<Tensor(Tensor, int64_t, int64_t, int64_t, int64_t)> view_heads = book::view_heads;
  Cell<Tensor(Tensor)> heads_first = book::heads_first;
  Cell<Tensor(Tensor)> tokens_first = book::tokens_first;
  Cell<Tensor(Tensor, int64_t, int64_t, int64_t)> merge = book::merge;
  Cell<Tensor(const Linear&, const Tensor&)> project_out = book::project_out;
  Cell<Tensor(std::vector<Tensor>)> concat = book::concat;
  // The notebook's cells (src/stages/).
  Cell<void(TorchGenerator&, uint64_t, const char*)> seed = book::seed;
  Cell<Tensor(const Tensor&, int64_t)> token_row = book::token_row;
  Cell<std::pair<Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&)> renormalize = book::renormalize;
  Cell<Tensor(const Tensor&, const Dropout&, TorchGenerator&)> nn_dropout = book::nn_dropout;
  Cell<Tensor(const CausalWeights&, const DropoutFn&)> drop_weights = book::drop_weights;
  Cell<std::array<Tensor, 3>(const Tensor&, const Tensor&, const Tensor&)> copy_weights = book::copy_weights;
  Cell<Tensor(const Tensor&)> second_head = book::second_head;
  // Chapter 4's GPTModel (modules/gpt.h).
  GptCells gpt;

  bool book() const;  // every chapter 3 cell the book's (gpt.book() says it of chapter 4's)
};

// The book's cells, for defaults.
const Cells& book_cells();

// What the cells see outside a module (the notebook's own lines): the keys, no mask, no dropout.
Self notebook_self(const Tensor& keys);

}  // namespace attn
