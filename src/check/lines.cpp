#include "check/lines.h"

#include <cmath>
#include <limits>
#include <utility>

#include "modules/chapter.h"
#include "ops/ops.h"
#include "stages/causal_weights.h"
#include "torch/torch_random.h"

namespace attn::lines {

namespace {

constexpr float kLearnerMinusInf = -std::numeric_limits<float>::infinity();

// softmax over dim (counted from the front, or -2) of x: the last dimension moved there and back.
Tensor learner_softmax_along(const Tensor& x, int64_t dim) { return transpose(softmax_lastdim(transpose(x, dim, -1)), dim, -1); }

// Rows softmaxed in place, as the book's softmax does after its division.
Tensor learner_softmax_rows(Tensor x) { return softmax_lastdim(x); }

// x / sums where sums lost its keepdim, (T,), or summed the columns, (1, T): the division
// broadcasts along the rows, so column j is divided by sums[j].
Tensor learner_div_broadcast_rows(const Tensor& x, const Tensor& sums) {
  Tensor out = x;
  const int64_t n = x.size(-1);
  for (int64_t i = 0; i < x.numel(); ++i) out.data[i] = x.data[i] / sums.data[i % n];
  return out;
}

// torch.tril(torch.ones(T, T), diagonal=-1): strictly below the diagonal.
Tensor learner_strictly_lower(int64_t T) { return transpose2d(triu_ones(T, 1)); }

}  // namespace

void queries_from_W_key(Cells& c) {
  c.queries = [](const Tensor& x, const Layer&, const Layer& W_key) { return W_key(x); };
  c.keys = [](const Tensor& x, const Layer& W_query, const Layer&) { return W_query(x); };
}

void keys_times_queries(Cells& c) {
  c.score = [](const Tensor& queries, const Tensor& keys) { return book::score(keys, queries); };
}

void exercise_copies_swapped(Cells& c) {
  c.copy_weights = [](const Tensor& W_query, const Tensor& W_key, const Tensor& W_value) {
    return std::array<Tensor, 3>{transpose2d(W_key), transpose2d(W_query), transpose2d(W_value)};
  };
}

void exercise_copies_not_transposed(Cells& c) {
  c.copy_weights = [](const Tensor& W_query, const Tensor& W_key, const Tensor& W_value) {
    return std::array<Tensor, 3>{W_query, W_key, W_value};
  };
}

void queries_transposed(Cells& c) {
  c.score = [](const Tensor& queries, const Tensor& keys) {
    return queries.dim() >= 2 ? matmul(transpose(queries, -2, -1), keys) : book::score(queries, keys);
  };
}

void weights_transposed(Cells& c) {
  // attn_weights.T of a 1-D tensor is itself (PyTorch warns, and multiplies the same).
  c.context = [](const Tensor& attn_weights, const Tensor& values) {
    return attn_weights.dim() >= 2 ? matmul(transpose(attn_weights, -2, -1), values) : matmul(attn_weights, values);
  };
}

void softmax_unscaled(Cells& c) {
  c.softmax = [](Tensor attn_scores, const Self&) { return learner_softmax_rows(std::move(attn_scores)); };
}

void softmax_divided(Cells& c, Size size, double power, double factor, bool after_softmax) {
  c.softmax = [=](Tensor attn_scores, const Self& self) {
    const Tensor& keys = self.keys;
    const int64_t d_k = keys.size(-1);
    const int64_t n = size == Size::Tokens                    ? keys.size(-2)
                      : size == Size::DOut && keys.dim() == 4 ? keys.size(1) * d_k
                                                              : d_k;
    const double divisor = power == 0.5 && factor == 1.0 ? std::sqrt(static_cast<double>(n))
                                                         : factor * std::pow(static_cast<double>(n), power);
    if (after_softmax) return div_scalar(learner_softmax_rows(std::move(attn_scores)), divisor);
    div_scalar_(attn_scores, divisor);
    return learner_softmax_rows(std::move(attn_scores));
  };
}

void softmax_over_queries(Cells& c) {
  c.softmax = [](Tensor attn_scores, const Self& self) {
    div_scalar_(attn_scores, std::sqrt(static_cast<double>(self.keys.size(-1))));
    // A 1-D tensor has one dimension only: dim=-2 does not exist there.
    return attn_scores.dim() < 2 ? learner_softmax_rows(std::move(attn_scores)) : learner_softmax_along(attn_scores, -2);
  };
}

void softmax_over_dim(Cells& c, int64_t dim) {
  c.softmax = [dim](Tensor attn_scores, const Self& self) {
    div_scalar_(attn_scores, std::sqrt(static_cast<double>(self.keys.size(-1))));
    // Only a dimension before the last is another; the last is the book's.
    return dim < attn_scores.dim() - 1 ? learner_softmax_along(attn_scores, dim) : learner_softmax_rows(std::move(attn_scores));
  };
}

void renormalized_mask_simple(Cells& c) {
  c.renormalize = [](const Tensor&, const Tensor& mask_simple, const Tensor&) {
    Tensor row_sums = sum_lastdim(mask_simple, true);
    Tensor norm = div_keepdim(mask_simple, row_sums);
    return std::pair<Tensor, Tensor>{std::move(row_sums), std::move(norm)};
  };
}

void renormalized_attn_weights(Cells& c) {
  c.renormalize = [](const Tensor& attn_weights, const Tensor&, const Tensor&) {
    Tensor row_sums = sum_lastdim(attn_weights, true);
    Tensor norm = div_keepdim(attn_weights, row_sums);
    return std::pair<Tensor, Tensor>{std::move(row_sums), std::move(norm)};
  };
}

void row_sums_without_keepdim(Cells& c) {
  c.renormalize = [](const Tensor&, const Tensor&, const Tensor& masked_simple) {
    Tensor row_sums = sum_lastdim(masked_simple, false);  // (T,)
    Tensor norm = learner_div_broadcast_rows(masked_simple, row_sums);
    return std::pair<Tensor, Tensor>{std::move(row_sums), std::move(norm)};
  };
}

void column_sums(Cells& c) {
  c.renormalize = [](const Tensor&, const Tensor&, const Tensor& masked_simple) {
    Tensor sums = transpose2d(sum_lastdim(transpose2d(masked_simple), true));  // (1, T)
    Tensor norm = learner_div_broadcast_rows(masked_simple, sums);
    return std::pair<Tensor, Tensor>{std::move(sums), std::move(norm)};
  };
}

void kept_mask_past(Cells& c) {
  c.mask_simple = [](int64_t T) { return triu_ones(T, 0); };  // torch.triu(ones)
}

void hidden_mask_past(Cells& c) {
  c.mask = [](int64_t T) { return learner_strictly_lower(T); };  // tril(ones, diagonal=-1)
}

void kept_mask_diagonal_too(Cells& c) {
  c.mask_simple = [](int64_t T) { return learner_strictly_lower(T); };  // tril(ones, diagonal=-1)
}

void hidden_mask_diagonal_too(Cells& c) {
  c.mask = [](int64_t T) { return triu_ones(T, 0); };  // triu(ones): the diagonal too
}

void mask_past(Cells& c) {
  kept_mask_past(c);
  hidden_mask_past(c);
}

void mask_diagonal_too(Cells& c) {
  kept_mask_diagonal_too(c);
  hidden_mask_diagonal_too(c);
}

void masked_fill_discarded(Cells& c) {
  c.masked = [](Tensor attn_scores, const Self&) { return attn_scores; };
}

void masked_with(Cells& c, float fill) {
  c.masked = [fill](Tensor attn_scores, const Self& self) {
    masked_fill_(attn_scores, self.mask, fill);
    return attn_scores;
  };
}

void masked_after_softmax(Cells& c, float fill) {
  c.masked = [](Tensor attn_scores, const Self&) { return attn_scores; };
  c.softmax = [fill](Tensor attn_scores, const Self& self) {
    Tensor attn_weights = book::softmax(std::move(attn_scores), self);
    if (self.mask.numel() > 0) masked_fill_(attn_weights, self.mask, fill);  // (no mask yet: nothing)
    return attn_weights;
  };
}

void dropout_scaled_by_p(Cells& c) {
  c.nn_dropout = [](const Tensor& x, const Dropout& dropout, TorchGenerator& gen) {
    const double p = dropout.p;
    if (p == 0.0 || x.numel() == 0) return x;
    if (p == 1.0) return mul_scalar(x, 0.0);
    const auto keep = dropout_keep_mask(gen, x.numel(), p, dropout.kernel);
    const float scale = static_cast<float>(1.0 / p);  // where 1 / (1 - p) belongs
    Tensor out = x;
    for (int64_t i = 0; i < x.numel(); ++i) out.data[i] *= keep[static_cast<size_t>(i)] ? scale : 0.0f;
    return out;
  };
}

void dropout_on_scores(Cells& c, bool after_mask) {
  if (after_mask) {
    c.softmax = [](Tensor attn_scores, const Self& self) { return book::softmax(self.dropout(attn_scores), self); };
  } else {
    c.masked = [](Tensor attn_scores, const Self& self) {
      Tensor dropped = self.dropout(attn_scores);
      masked_fill_(dropped, self.mask, kLearnerMinusInf);
      return dropped;
    };
  }
  c.dropout = [](Tensor attn_weights, const Self&) { return attn_weights; };
  // Section 3.5.2's cells: 3.5.1's weights computed again, dropped where the learner's lines drop.
  const Cells core = c;
  c.drop_weights = [core](const CausalWeights& w, const DropoutFn& dropout) {
    return causal_attention_weights(w.queries, w.keys, w.mask, nullptr, {}, core, dropout);
  };
}

void dropout_on_unmasked_weights(Cells& c, bool renormalised) {
  if (!renormalised) {
    c.drop_weights = [](const CausalWeights& w, const DropoutFn& dropout) { return dropout(w.attn_weights); };
    return;
  }
  c.drop_weights = [](const CausalWeights& w, const DropoutFn& dropout) {
    const Tensor masked_simple = mul(dropout(w.attn_weights), book::mask_simple(w.attn_weights.size(-1)));
    return div_keepdim(masked_simple, sum_lastdim(masked_simple, true));
  };
}

void heads_by_view(Cells& c) {
  c.view_heads = [](Tensor x, int64_t b, int64_t num_tokens, int64_t num_heads, int64_t head_dim) {
    return view(std::move(x), {b, num_heads, num_tokens, head_dim});
  };
  c.heads_first = [](Tensor viewed) { return viewed; };
}

void context_not_transposed(Cells& c) {
  c.tokens_first = [](Tensor context_vec) { return context_vec; };
}

void merge_discarded(Cells& c) {
  c.merge = [](Tensor context_vec, int64_t, int64_t, int64_t) { return context_vec; };
  // nn.Linear(d_out, d_out) takes the 4-D context_vec only when head_dim == d_out; PyTorch
  // stops with an error otherwise: nothing to return.
  c.project_out = [](const Linear& out_proj, const Tensor& context_vec) {
    return context_vec.size(-1) == out_proj.weight.size(0) ? out_proj(context_vec) : Tensor();
  };
}

void out_proj_missing(Cells& c) {
  c.project_out = [](const Linear&, const Tensor& context_vec) { return context_vec; };
}

void cat_along(Cells& c, int64_t dim) {
  c.concat = [dim](std::vector<Tensor> heads) { return cat(heads, dim); };
}

void same_head_twice(Cells& c) {
  c.second_head = [](const Tensor& a) { return a[0][0]; };
}

void bias_kept(Cells& c) {
  c.bias = [](bool) { return true; };
}

void declared(Cells& c, std::array<int, 3> order) {
  c.declare = [order] { return order; };
}

void seed_not_reset(Cells& c, const std::string& module, const Config& cfg) {
  c.seed = [module, cfg](TorchGenerator& gen, uint64_t seed, const char* before) {
    if (module != before) return gen.manual_seed(seed);
    // The wrapper's cell follows section 3.5.3's in the notebook: the generator as it left it.
    if (module == "wrapper") continue_after_causal_attention(gen, cfg);
  };
}

void row_counted_from_0(Cells& c) {
  c.token_row = [](const Tensor& inputs, int64_t token) { return inputs[token]; };
}

}  // namespace attn::lines
