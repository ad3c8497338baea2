// Chapter 5's data loader and training loop (train_model_simple), with the learner's choices.
#include <algorithm>
#include <map>
#include <string>

#include "modules/train.h"
#include "ops/ops.h"
#include "ops/ops_backward.h"

namespace attn {

namespace {

// The inputs' labels as a vocabulary, in order of first appearance: each token's id.
std::vector<int64_t> label_ids(const std::vector<std::string>& labels, int64_t* vocab_size) {
  std::map<std::string, int64_t> vocab;
  std::vector<int64_t> ids;
  for (const auto& label : labels) ids.push_back(vocab.emplace(label, static_cast<int64_t>(vocab.size())).first->second);
  *vocab_size = static_cast<int64_t>(vocab.size());
  return ids;
}

Optimizer make_optimizer(const TrainConfig& tc, const TrainChoices& choices) {
  Optimizer o;
  o.kind = tc.optimizer == OptimizerKind::AdamW ? Optimizer::Kind::AdamW : Optimizer::Kind::SGD;
  o.lr = tc.lr;
  o.weight_decay = tc.weight_decay;
  o.decoupled_weight_decay = choices.decoupled_weight_decay;
  return o;
}

}  // namespace

TrainData chapter_data(const Config& cfg, const TrainChoices& choices) {
  TrainData d;
  if (cfg.token_ids.empty()) {
    d.ids = label_ids(cfg.tokens, &d.vocab);
  } else {
    d.ids = cfg.token_ids;  // --text: GPT-2's ids, GPT-2's vocabulary
    d.vocab = kGpt2Vocab;
  }
  d.batch_size = cfg.batch;
  const int64_t T = d.num_inputs(), B = d.batch_size;
  // Chapter 5's shift: the targets are the inputs moved one token on (or, the mistake, the
  // inputs themselves).
  const int64_t first_target = choices.shift_targets ? 1 : 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) d.targets.push_back(d.ids[static_cast<size_t>(t + first_target)]);
  if (cfg.token_ids.empty()) d.batch = stack_copies(narrow(cfg.inputs, 0, 0, T), B);  // (B, T, d_in)
  return d;
}

Tensor input_batch(const AttentionLM& m, const TrainData& data) {
  if (!m.tok_emb) return data.batch;
  const int64_t T = data.num_inputs();
  std::vector<int64_t> positions(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) positions[static_cast<size_t>(t)] = t;  // torch.arange(T)
  const std::vector<int64_t> inputs(data.ids.begin(), data.ids.end() - 1);
  // tok_emb(in_ids) + pos_emb(torch.arange(T)): the (T, D) positions broadcast over the copies.
  return stack_copies(add(embedding(*m.tok_emb, inputs), embedding(*m.pos_emb, positions)), data.batch_size);
}

void embeddings_backward(const AttentionLM& m, const TrainData& data, Gradients& g) {
  if (!m.tok_emb) return;
  const Tensor& batch_grad = g.at("batch");  // (B, T, D)
  const int64_t B = data.batch_size, T = data.num_inputs(), D = batch_grad.size(-1);
  // pos_emb: the broadcast's backward sums over the copies (sum_to_size), then
  // nn.Embedding's backward adds each position's row to zeros.
  const Tensor pos_sum = sum_dim0(view(batch_grad, {B, T * D}));
  Tensor pos_grad = Tensor::zeros(m.pos_emb->shape);
  for (int64_t k = 0; k < T * D; ++k) pos_grad.data[k] = 0.0f + pos_sum.data[k];
  g.add("pos_emb.weight", std::move(pos_grad));
  // tok_emb: embedding_dense_backward over the B * T input ids in order, into a table of
  // zeros: a repeated token's row gets the sum of its positions' gradients.
  std::vector<int64_t> ids, rows;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) ids.push_back(data.ids[static_cast<size_t>(t)]);
  for (int64_t id : ids)
    if (std::find(rows.begin(), rows.end(), id) == rows.end()) rows.push_back(id);
  const Tensor row_grads = embedding_backward_rows(view(batch_grad, {B * T, D}), ids, rows);
  Tensor tok_grad = Tensor::zeros(m.tok_emb->shape);
  for (size_t r = 0; r < rows.size(); ++r)
    std::copy_n(row_grads.data.begin() + static_cast<int64_t>(r) * D, D, tok_grad.data.begin() + rows[r] * D);
  g.add("tok_emb.weight", std::move(tok_grad));
}

ChapterTraining::ChapterTraining(const Config& cfg, const TrainChoices& choices_)
    : choices(choices_),
      data(chapter_data(cfg, choices_)),
      gen(cfg.seed1),  // torch.manual_seed(seed), then the model's parameters in order
      model(gen, cfg.d_in(), cfg.d_out, data.num_inputs(), cfg.attn_dropout, cfg.heads, cfg.qkv_bias,
            cfg.dropout_rng, data.vocab),
      optimizer(make_optimizer(cfg.train, choices_)) {
  if (cfg.token_ids.empty()) return;
  // --text: torch.manual_seed(seed); tok_emb = nn.Embedding(50257, D); pos_emb =
  // nn.Embedding(T + 1, D), the tables --text drew the walk's input embeddings from, whole.
  TorchGenerator text_gen(cfg.seed1);
  model.tok_emb = randn(text_gen, {data.vocab, cfg.d_in()});
  model.pos_emb = randn(text_gen, {data.num_inputs() + 1, cfg.d_in()});
}

std::vector<float> ChapterTraining::run(int64_t steps, const TrainObserver& observe) {
  const auto params = model.parameters();
  std::vector<Tensor> grads(params.size());  // each parameter's .grad (None until the first backward)
  std::vector<float> losses;
  for (int64_t step = 0; step < steps; ++step) {
    // optimizer.zero_grad() (1.13: set_to_none=False, the .grad filled with zeros; the next
    // backward adds to them: 0 + g is g, but for -0, which becomes +0).
    if (choices.zero_grad)
      for (Tensor& g : grads)
        if (!g.data.empty()) g = Tensor::zeros(g.shape);
    // loss = calc_loss_batch(...); loss.backward()
    const Activations a = forward(model, gen, input_batch(model, data), data.targets, /*training=*/true, choices);
    losses.push_back(a.loss.item());
    Gradients computed = backward(model, a);
    embeddings_backward(model, data, computed);
    for (size_t i = 0; i < params.size(); ++i) {
      Tensor& g = computed.at_mut(params[i].first);
      // AccumulateGrad: .grad += the new gradient when there is one already.
      if (!grads[i].data.empty()) g = add(grads[i], g);
      grads[i] = g;
    }
    if (observe.after_backward) observe.after_backward(step, a, computed);
    if (choices.zero_grad_before_step)  // the learner's optimizer.zero_grad() here
      for (Tensor& g : grads) g = Tensor::zeros(g.shape);
    // optimizer.step()
    std::vector<Tensor> before;
    if (observe.after_step)
      for (const auto& [name, p] : params) before.push_back(*p);
    std::vector<Tensor*> ptrs;
    std::vector<const Tensor*> gptrs;
    for (size_t i = 0; i < params.size(); ++i) {
      ptrs.push_back(params[i].second);
      gptrs.push_back(&grads[i]);
    }
    optimizer.step(ptrs, gptrs);
    if (observe.after_step) observe.after_step(step, before);
  }
  return losses;
}

}  // namespace attn
