// Chapter 5's data loader and training loop (train_model_simple), with the learner's choices.
#include <map>
#include <string>

#include "modules/train.h"
#include "ops/ops.h"

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
  d.ids = label_ids(cfg.tokens, &d.vocab);
  d.batch_size = cfg.batch;
  const int64_t T = d.num_inputs(), B = d.batch_size;
  // Chapter 5's shift: the targets are the inputs moved one token on (or, the mistake, the
  // inputs themselves).
  const int64_t first_target = choices.shift_targets ? 1 : 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) d.targets.push_back(d.ids[static_cast<size_t>(t + first_target)]);
  d.batch = stack_copies(narrow(cfg.inputs, 0, 0, T), B);  // (B, T, d_in)
  return d;
}

ChapterTraining::ChapterTraining(const Config& cfg, const TrainChoices& choices_)
    : choices(choices_),
      data(chapter_data(cfg, choices_)),
      gen(cfg.seed1),  // torch.manual_seed(seed), then the model's parameters in order
      model(gen, cfg.d_in(), cfg.d_out, data.num_inputs(), cfg.attn_dropout, cfg.heads, cfg.qkv_bias,
            cfg.dropout_rng, data.vocab),
      optimizer(make_optimizer(cfg.train, choices_)) {}

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
    const Activations a = forward(model, gen, data.batch, data.targets, /*training=*/true, choices);
    losses.push_back(a.loss.item());
    Gradients computed = backward(model, a);
    for (size_t i = 0; i < params.size(); ++i) {
      Tensor& g = computed.at_mut(params[i].first);
      // AccumulateGrad: .grad += the new gradient when there is one already.
      if (!grads[i].data.empty()) g = add(grads[i], g);
      grads[i] = g;
    }
    if (observe.after_backward) observe.after_backward(step, a, computed);
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
