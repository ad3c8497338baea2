#include "modules/train.h"

#include <cmath>
#include <stdexcept>

#include "ops/ops.h"
#include "ops/ops_backward.h"
#include "torch/fma32.h"

namespace attn {

AttentionLM::AttentionLM(TorchGenerator& gen, int64_t d_in, int64_t d_out, int64_t T, double attn_dropout,
                         int64_t heads, bool qkv_bias, DropoutKernel kernel, int64_t vocab)
    : mha(gen, d_in, d_out, T, attn_dropout, heads, qkv_bias, kernel),
      out_head(gen, d_out, vocab, /*bias=*/false) {}

std::vector<std::pair<std::string, Tensor*>> AttentionLM::parameters() {
  std::vector<std::pair<std::string, Tensor*>> out;
  if (tok_emb) {
    out.emplace_back("tok_emb.weight", &*tok_emb);
    out.emplace_back("pos_emb.weight", &*pos_emb);
  }
  for (auto [name, layer] : {std::pair<const char*, Linear*>{"W_query", &mha.W_query},
                             {"W_key", &mha.W_key},
                             {"W_value", &mha.W_value},
                             {"out_proj", &mha.out_proj}}) {
    out.emplace_back(std::string(name) + ".weight", &layer->weight);
    if (layer->bias) out.emplace_back(std::string(name) + ".bias", &*layer->bias);
  }
  out.emplace_back("out_head.weight", &out_head.weight);
  return out;
}

const Tensor& Gradients::at(const std::string& name) const {
  for (const auto& [n, t] : in_order)
    if (n == name) return t;
  throw std::logic_error("no gradient " + name);
}

Tensor& Gradients::at_mut(const std::string& name) {
  return const_cast<Tensor&>(static_cast<const Gradients&>(*this).at(name));
}

// ---- forward ---------------------------------------------------------------------------------

Activations forward(const AttentionLM& m, TorchGenerator& gen, const Tensor& batch,
                    const std::vector<int64_t>& targets, bool training, const TrainChoices& choices) {
  const MultiHeadAttention& mha = m.mha;
  Activations a;
  a.batch = batch;
  a.targets = targets;
  const int64_t b = batch.size(0), T = batch.size(1), H = mha.num_heads, hd = mha.head_dim;
  // MultiHeadAttention.forward, as chapter.cpp computes it.
  a.keys = mha.W_key(batch);  // (b, T, d_out)
  a.queries = mha.W_query(batch);
  a.values = mha.W_value(batch);
  const Shape heads_shape{b, T, H, hd};
  a.keys_t = transpose(view(a.keys, heads_shape), 1, 2);  // (b, H, T, hd)
  a.queries_t = transpose(view(a.queries, heads_shape), 1, 2);
  a.values_t = transpose(view(a.values, heads_shape), 1, 2);
  a.softmax = causal_attention_weights(a.queries_t, a.keys_t, mha.mask, [&](const char* name, const Tensor& t) {
    (std::string(name) == "attn_scores" ? a.attn_scores : a.attn_scores_masked) = t;
  });
  a.p = training ? mha.dropout.p : 0.0;
  a.attn_weights = a.softmax;
  if (a.p == 1.0) {
    a.attn_weights = mul_scalar(a.softmax, 0.0);
  } else if (a.p > 0.0) {
    // nn.Dropout: the mask drawn now, in forward order; the backward multiplies by it again.
    a.keep = dropout_keep_mask(gen, a.softmax.numel(), a.p, mha.dropout.kernel);
    a.attn_weights = dropout_backward(a.softmax, a.keep, a.p);  // the same product: x * noise
  }
  a.context_vec = transpose(matmul(a.attn_weights, a.values_t), 1, 2);  // (b, T, H, hd)
  a.context_vec_merged = view(a.context_vec, {b, T, mha.d_out});
  a.context_vecs = mha.out_proj(a.context_vec_merged);
  // The loss: out_head, then cross_entropy(logits.flatten(0, 1), targets.flatten()).
  a.logits = m.out_head(a.context_vecs);  // (b, T, V)
  const int64_t V = a.logits.size(-1);
  a.softmax_before_cross_entropy = choices.softmax_before_cross_entropy;
  a.loss_reduction_sum = choices.loss_reduction_sum;
  // The mistake: cross_entropy(torch.softmax(logits, -1), ...) takes the softmax's output
  // for logits and applies its own log_softmax to it.
  if (a.softmax_before_cross_entropy) a.probs = softmax_lastdim(view(a.logits, {b * T, V}));
  a.log_probs = log_softmax_lastdim(a.softmax_before_cross_entropy ? a.probs : view(a.logits, {b * T, V}));
  a.loss = a.loss_reduction_sum ? nll_loss_sum(a.log_probs, targets) : nll_loss_mean(a.log_probs, targets);
  return a;
}

// ---- backward --------------------------------------------------------------------------------

namespace {

// The strides autograd's gradient tensors carry: a view keeps them, and reshape copies only
// when no view can express the new shape. Which layout a gradient reaches a Linear's backward
// in decides the transposes sgemm gets and the order its bias is summed in.
struct Strided {
  Shape shape, strides;
};

Strided contiguous(Shape shape) {
  Shape strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return {std::move(shape), std::move(strides)};
}

Strided transposed(Strided t, size_t d0, size_t d1) {
  std::swap(t.shape[d0], t.shape[d1]);
  std::swap(t.strides[d0], t.strides[d1]);
  return t;
}

// t.reshape(shape): ATen's computeStride, else a contiguous copy.
Strided reshaped(const Strided& t, const Shape& shape) {
  Shape out(shape.size());
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = t.strides.back(), tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(t.shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= t.shape[d];
    if (d == 0 || (t.shape[d - 1] != 1 && t.strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return contiguous(shape);
      if (d > 0) {
        chunk_base_stride = t.strides[d - 1];
        tensor_numel = view_numel = 1;
      }
    }
  }
  if (view_d != -1) return contiguous(shape);
  return {shape, out};
}

// Whether the (b*T, d_out) gradient of a projection reaches its Linear's backward
// column-major. It leaves bmm as a contiguous (b*H, T, hd) block (queries, values) or
// (b*H, hd, T) block (keys, the transposed operand), goes back through the transposes of
// the forward pass as views, then is reshaped to (b, T, d_out) and to (b*T, d_out).
bool grad_is_column_major(int64_t b, int64_t T, int64_t H, int64_t hd, bool keys) {
  Strided g = keys ? transposed(contiguous({b, H, hd, T}), 2, 3) : contiguous({b, H, T, hd});  // (b, H, T, hd)
  g = reshaped(reshaped(transposed(g, 1, 2), {b, T, H * hd}), {b * T, H * hd});
  const int64_t rows = b * T, cols = H * hd;
  // One column (d_out 1): W.grad = grad.t().mm(x).t() hands addmm grad.t(), (1, rows) with
  // strides (s, 1). With s = 1 (queries, values) addmm takes it as a transposed operand; any
  // other s (the keys' column, strided by T) it takes as is, or copies: as a column-major grad.
  if (cols == 1) return rows > 1 && g.strides[1] != 1;
  if (rows == 1 || g.strides[1] == 1) return false;  // row-major (or a vector)
  if (g.strides[0] == 1) return true;
  throw std::logic_error("a projection's gradient in an unexpected layout");
}

}  // namespace

Gradients backward(const AttentionLM& m, const Activations& a) {
  const MultiHeadAttention& mha = m.mha;
  const int64_t b = a.batch.size(0), T = a.batch.size(1), H = mha.num_heads, hd = mha.head_dim;
  const int64_t V = a.logits.size(-1), N = b * T;
  Gradients g;
  // cross_entropy: logits.grad = (softmax - one_hot) / N, through nll_loss and log_softmax
  // (not divided by N with reduction="sum"; through the softmax's backward too when it came first).
  Tensor ce_grad = log_softmax_backward(nll_loss_backward(N, V, a.targets, a.loss_reduction_sum), a.log_probs);
  if (a.softmax_before_cross_entropy) ce_grad = softmax_backward(ce_grad, a.probs);
  const Tensor logits_grad = view(ce_grad, {b, T, V});
  g.add("logits", logits_grad);
  // out_head: logits = context_vecs @ W.T
  LinearGrads head = linear_backward(logits_grad, a.context_vecs, m.out_head.weight, false);
  g.add("out_head.weight", std::move(head.weight));
  g.add("context_vecs", head.input);
  // out_proj: context_vecs = context_vec_merged @ W.T + b
  LinearGrads proj = linear_backward(head.input, a.context_vec_merged, mha.out_proj.weight, true);
  g.add("out_proj.weight", std::move(proj.weight));
  g.add("out_proj.bias", std::move(*proj.bias));
  g.add("context_vec_merged", proj.input);
  // (b, T, d_out) -> (b, T, H, hd) -> (b, H, T, hd): the heads' context vectors' gradient.
  const Tensor context_grad = transpose(view(proj.input, {b, T, H, hd}), 1, 2);
  // context = attn_weights @ values: grad_weights = grad @ values.T, grad_values = weights.T @ grad
  const Tensor weights_grad = matmul_transposed(context_grad, a.values_t);  // (b, H, T, T)
  g.add("attn_weights", weights_grad);
  const Tensor values_t_grad = matmul_at(a.attn_weights, context_grad);  // (b, H, T, hd)
  // Dropout, softmax, the scaling by 1/sqrt(d_k), the mask: back to the scores.
  const Tensor softmax_grad = dropout_backward(weights_grad, a.keep, a.p);
  Tensor scaled_grad = softmax_backward(softmax_grad, a.softmax);
  div_scalar_(scaled_grad, std::sqrt(static_cast<double>(hd)));
  // The book masks in place (attn_scores.masked_fill_(mask_bool, -torch.inf)), so its
  // attn_scores is the masked tensor and attn_scores.grad is this one, before the mask's
  // backward: at a masked entry the softmax's backward gave +0 * (g - sum), which is -0.0
  // where g - sum < 0. MaskedFillBackward0 then hands queries and keys +0 there.
  g.add("attn_scores", scaled_grad);
  const Tensor scores_grad = masked_fill_backward(scaled_grad, T == mha.mask.size(0) ? mha.mask : triu_ones(T, 1));
  // scores = queries @ keys.T: grad_queries = grad @ keys, grad_keys = (queries.T @ grad).T.
  // matmul reshapes keys.T (b, H, hd, T) to (b*H, hd, T): a view when b or H is 1, a
  // contiguous copy otherwise, whose transpose autograd then passes to sgemm as a transposed
  // view. With one head of one dimension the view is that same (1, T) block per batch, and
  // addmm sees the copy's strides.
  const bool copied = (b > 1 && H > 1) || (H == 1 && hd == 1);
  const Tensor queries_t_grad = copied ? matmul_transposed(scores_grad, transpose(a.keys_t, -2, -1))
                                       : matmul(scores_grad, a.keys_t);
  const Tensor keys_t_grad = transpose(matmul_at(a.queries_t, scores_grad), -2, -1);  // (b, H, T, hd)
  // (b, H, T, hd) -> (b, T, H, hd) -> (b, T, d_out), then each projection's Linear.
  const auto merge = [&](const Tensor& t) { return view(transpose(t, 1, 2), {b, T, mha.d_out}); };
  Tensor input_grad;
  const auto projection = [&](const char* name, const std::string& layer_name, const Tensor& out_grad,
                              const Linear& layer, bool column_major) {
    g.add(name, out_grad);
    LinearGrads lg = linear_backward(out_grad, a.batch, layer.weight, layer.bias.has_value(), column_major);
    g.add(layer_name + ".weight", std::move(lg.weight));
    if (lg.bias) g.add(layer_name + ".bias", std::move(*lg.bias));
    // The input's gradient: the three projections' added up as they arrive.
    input_grad = input_grad.data.empty() ? std::move(lg.input) : add(input_grad, lg.input);
  };
  // Whether each reaches its Linear row by row or column-major depends on the reshapes
  // that are views (a batch of one, head_dim 1): grad_is_column_major.
  projection("values", "W_value", merge(values_t_grad), mha.W_value, grad_is_column_major(b, T, H, hd, false));
  projection("queries", "W_query", merge(queries_t_grad), mha.W_query, grad_is_column_major(b, T, H, hd, false));
  projection("keys", "W_key", merge(keys_t_grad), mha.W_key, grad_is_column_major(b, T, H, hd, true));
  g.add("batch", std::move(input_grad));
  return g;
}

// ---- optimizers ------------------------------------------------------------------------------

void Optimizer::step(const std::vector<Tensor*>& params, const std::vector<const Tensor*>& grads) {
  ++steps_taken;
  if (kind == Kind::SGD) {
    // _single_tensor_sgd: with weight_decay, d_p = grad.add(param, alpha=wd) (L2, as Adam's);
    // then param.add_(d_p, alpha=-lr). Each add is one fused multiply-add per element.
    const float alpha = static_cast<float>(-lr), wd = static_cast<float>(weight_decay);
    for (size_t i = 0; i < params.size(); ++i)
      for (int64_t k = 0; k < params[i]->numel(); ++k) {
        float& p = params[i]->data[k];
        const float d_p = weight_decay != 0.0 ? fma32(p, wd, grads[i]->data[k]) : grads[i]->data[k];
        p = fma32(d_p, alpha, p);
      }
    return;
  }
  if (exp_avg.empty())
    for (const Tensor* p : params) {
      exp_avg.push_back(Tensor::zeros(p->shape));
      exp_avg_sq.push_back(Tensor::zeros(p->shape));
    }
  // The step's scalars, in Python doubles as _single_tensor_adamw computes them.
  const double step = static_cast<double>(steps_taken);
  const double bias_correction1 = 1.0 - std::pow(beta1, step);
  const double bias_correction2 = 1.0 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  const float decay = static_cast<float>(1.0 - lr * weight_decay), wd = static_cast<float>(weight_decay);
  const float b1 = static_cast<float>(beta1), one_minus_b1 = static_cast<float>(1.0 - beta1);
  const float b2 = static_cast<float>(beta2), one_minus_b2 = static_cast<float>(1.0 - beta2);
  const float bc2_sqrt = static_cast<float>(bias_correction2_sqrt), eps_f = static_cast<float>(eps);
  const float neg_step_size = static_cast<float>(-step_size);
  for (size_t i = 0; i < params.size(); ++i) {
    float* p = params[i]->data.data();
    const float* gr = grads[i]->data.data();
    float* m = exp_avg[i].data.data();
    float* v = exp_avg_sq[i].data.data();
    for (int64_t k = 0; k < params[i]->numel(); ++k) {
      float g = gr[k];
      if (decoupled_weight_decay) {
        p[k] = p[k] * decay;  // param.mul_(1 - lr * wd)
      } else if (weight_decay != 0.0) {
        g = fma32(p[k], wd, g);  // Adam: grad = grad.add(param, alpha=wd)
      }
      m[k] = fma32(g, one_minus_b1, m[k] * b1);                // exp_avg.mul_(b1).add_(g, alpha=1-b1)
      v[k] = fma32(one_minus_b2 * g, g, v[k] * b2);            // exp_avg_sq.mul_(b2).addcmul_(g, g, 1-b2)
      const float denom = std::sqrt(v[k]) / bc2_sqrt + eps_f;  // (sqrt(v) / sqrt(bc2)).add_(eps)
      p[k] = p[k] + neg_step_size * m[k] / denom;              // param.addcdiv_(m, denom, -step_size)
    }
  }
}

}  // namespace attn
