// Reading the backward stage's goldens (tests/golden/backward*/, made by
// tests/golden/make_backward_goldens.py): their Config and the loop's choices.
#pragma once

#include "modules/train.h"
#include "test_util.h"

namespace attn::test {

// A backward golden's Config: its inputs and the options it names (as the CLI's flags).
inline Config backward_config(const nlohmann::json& doc) {
  Config c = inputs_from_golden(doc);
  const auto& o = doc["options"];
  c.seed1 = c.seed2 = o["seed"].get<uint64_t>();
  c.d_out = o["d_out"].get<int64_t>();
  c.heads = o["heads"].get<int64_t>();
  c.attn_dropout = o["attn_dropout"].get<double>();
  c.batch = o["batch"].get<int64_t>();
  c.qkv_bias = o["qkv_bias"].get<bool>();
  c.train.steps = o["steps"].get<int64_t>();
  c.train.lr = o["lr"].get<double>();
  c.train.weight_decay = o["weight_decay"].get<double>();
  c.train.optimizer = o["optimizer"].get<std::string>() == "sgd" ? OptimizerKind::SGD : OptimizerKind::AdamW;
  c.train.grad_step = o.value("grad_step", int64_t{1});  // --grad-step (goldens before it: step 1)
  return c;
}

// The golden's options["choices"] (every one spelled out), as TrainChoices.
inline TrainChoices backward_choices(const nlohmann::json& doc) {
  const auto& c = doc["options"]["choices"];
  TrainChoices t;
  t.zero_grad = c["zero_grad"].get<bool>();
  t.softmax_before_cross_entropy = c["softmax_before_cross_entropy"].get<bool>();
  t.shift_targets = c["shift_targets"].get<bool>();
  t.decoupled_weight_decay = c["decoupled_weight_decay"].get<bool>();
  t.loss_reduction_sum = c["loss_reduction_sum"].get<bool>();
  return t;
}

}  // namespace attn::test
