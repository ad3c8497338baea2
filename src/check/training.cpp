#include "check/training.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace attn {

namespace {

const Tensor* step_of(const Walk& walk, const std::string& name) {
  for (const auto& s : walk.steps)
    if (s.name == name) return &s.value;
  return nullptr;
}

const Tensor* given_of(const DiagnosisInput& in, const std::string& name) {
  for (const auto& [n, t] : in.given)
    if (n == name) return &t;
  return nullptr;
}

// The loop with one choice flipped, and the evidence every training mistake shows: the
// first step (counted from 1) where the learner's losses leave the chapter's, and both losses
// there; else the losses of the first step, from `loss`.
template <typename F>
Variant loop_slip(const DiagnosisInput& in, F flip) {
  Variant v{{}, in.cfg, {{"losses", ""}}};
  flip(v.loop);
  const Tensor* mine = given_of(in, "losses");
  const Tensor* chapter = step_of(in.walk, "losses");
  if (!mine || !chapter || mine->shape != chapter->shape) {
    mine = given_of(in, "loss");
    chapter = step_of(in.walk, "loss");
  }
  if (!mine || !chapter || mine->shape != chapter->shape || mine->numel() == 0) return v;
  int64_t k = 0;
  while (k + 1 < mine->numel() &&
         compare(Tensor({}, {mine->data[k]}), Tensor({}, {chapter->data[k]}), in.tol).grade != Grade::Differs)
    ++k;
  v.vars = {{"losses", "check.losses_leave"},  // its words in src/lang/, with these
            {"loss_step", std::to_string(k + 1)},
            {"your_loss", fmt::format("{:.5g}", mine->data[k])},
            {"chapter_loss", fmt::format("{:.5g}", chapter->data[k])}};
  return v;
}

// V, the labels, and N = B * T, the positions the loss averages over, from the walk's logits.
std::pair<int64_t, int64_t> labels_and_positions(const Walk& walk) {
  const Tensor* logits = step_of(walk, "logits");
  if (!logits || logits->dim() == 0 || logits->size(-1) == 0) return {0, 0};
  return {logits->size(-1), logits->numel() / logits->size(-1)};
}

}  // namespace

std::vector<Variant> grad_not_zeroed(const DiagnosisInput& in) {
  if (in.stage != "backward") return {};
  return {loop_slip(in, [](TrainChoices& c) { c.zero_grad = false; })};
}

std::vector<Variant> softmax_before_cross_entropy(const DiagnosisInput& in) {
  if (in.stage != "backward") return {};
  Variant v = loop_slip(in, [](TrainChoices& c) { c.softmax_before_cross_entropy = true; });
  // Probabilities in [0, 1] as logits: the best the loss can reach is one label at 1 and the
  // others at 0, -log(e / (e + V - 1)) = log(1 + (V - 1) / e).
  const int64_t V = labels_and_positions(in.walk).first;
  v.vars["V"] = std::to_string(V);
  v.vars["floor"] = fmt::format("{:.4g}", std::log1p(static_cast<double>(V - 1) / std::exp(1.0)));
  return {v};
}

std::vector<Variant> targets_not_shifted(const DiagnosisInput& in) {
  if (in.stage != "backward") return {};
  return {loop_slip(in, [](TrainChoices& c) { c.shift_targets = false; })};
}

std::vector<Variant> adam_instead_of_adamw(const DiagnosisInput& in) {
  // Without weight decay, or with SGD, Adam and AdamW are the same loop.
  if (in.stage != "backward" || in.cfg.train.weight_decay == 0.0 || in.cfg.train.optimizer != OptimizerKind::AdamW)
    return {};
  Variant v = loop_slip(in, [](TrainChoices& c) { c.decoupled_weight_decay = false; });
  v.vars["wd"] = fmt::format("{}", in.cfg.train.weight_decay);
  return {v};
}

std::vector<Variant> loss_summed(const DiagnosisInput& in) {
  if (in.stage != "backward") return {};
  Variant v = loop_slip(in, [](TrainChoices& c) { c.loss_reduction_sum = true; });
  // The first loss is N times the mean's: measured on the learner's loss.
  const int64_t N = labels_and_positions(in.walk).second;
  v.vars["N"] = std::to_string(N);
  v.vars["ratio_text"] = "";
  const Tensor* mine = given_of(in, "loss");
  const Tensor* chapter = step_of(in.walk, "loss");
  if (!mine || mine->numel() != 1) mine = given_of(in, "losses");
  if (!chapter || chapter->numel() < 1) chapter = step_of(in.walk, "losses");
  if (mine && chapter && mine->numel() >= 1 && chapter->numel() >= 1 && chapter->data[0] != 0.0f)
    v.vars["ratio"] = fmt::format("{:.4g}", static_cast<double>(mine->data[0]) / chapter->data[0]),
    v.vars["ratio_text"] = "check.loss_ratio";
  return {v};
}

// optimizer.step() left out: nothing is updated. Its numbers are the loop's with lr = 0
// (AdamW's decay is lr * weight_decay, its step lr / bias_correction: both 0).
std::vector<Variant> optimizer_step_forgotten(const DiagnosisInput& in) {
  if (in.stage != "backward") return {};
  Variant v = loop_slip(in, [](TrainChoices&) {});
  v.config.train.lr = 0.0;
  // Evidence: how far the learner's losses move from their first (only dropout moves them).
  if (const Tensor* mine = given_of(in, "losses"); mine && mine->numel() > 0) {
    double spread = 0.0;
    for (const float l : mine->data) spread = std::max(spread, std::fabs(static_cast<double>(l) - mine->data[0]));
    v.vars["spread"] = fmt::format("{:.3g}", spread);
    v.vars["spread_text"] = "check.losses_spread";
  } else {
    v.vars["spread_text"] = "";
  }
  return {v};
}

// optimizer.zero_grad() between loss.backward() and optimizer.step(): the step is run, on
// zero gradients (AdamW then only decays the weights; SGD decays them by its weight_decay).
// Gradients printed right after backward() are the chapter's; the losses are not.
std::vector<Variant> grad_zeroed_before_step(const DiagnosisInput& in) {
  if (in.stage != "backward") return {};
  return {loop_slip(in, [](TrainChoices& c) { c.zero_grad_before_step = true; })};
}

// model.eval() (to look at the weights, say) and no model.train() after it: the loop trains
// without dropout. Its numbers are the loop's with the attention dropout at 0.
std::vector<Variant> dropout_off_in_training(const DiagnosisInput& in) {
  if (in.stage != "backward" || in.cfg.attn_dropout == 0.0) return {};
  Variant v = loop_slip(in, [](TrainChoices&) {});
  v.config.attn_dropout = 0.0;
  v.vars["attn_p"] = fmt::format("{}", in.cfg.attn_dropout);
  return {v};
}

}  // namespace attn
