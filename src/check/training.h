// Mistakes of chapter 5's training loop (--stage backward), each chapter 5's own loop
// (modules/train.h) run with one TrainChoices flipped, or with the configuration that gives
// the same numbers (no optimizer.step(): lr 0; model.eval() left on: no attention dropout). Their evidence is read off the
// learner's losses: the step where they leave the chapter's, and what the loss became.
#pragma once

#include <vector>

#include "check/variant.h"

namespace attn {

std::vector<Variant> grad_not_zeroed(const DiagnosisInput& in);               // no optimizer.zero_grad()
std::vector<Variant> softmax_before_cross_entropy(const DiagnosisInput& in);  // cross_entropy(softmax(logits))
std::vector<Variant> targets_not_shifted(const DiagnosisInput& in);           // targets = the inputs
std::vector<Variant> adam_instead_of_adamw(const DiagnosisInput& in);         // torch.optim.Adam(..., weight_decay)
std::vector<Variant> loss_summed(const DiagnosisInput& in);                   // reduction="sum"
std::vector<Variant> optimizer_step_forgotten(const DiagnosisInput& in);      // no optimizer.step()
std::vector<Variant> grad_zeroed_before_step(const DiagnosisInput& in);       // zero_grad() between backward() and step()
std::vector<Variant> dropout_off_in_training(const DiagnosisInput& in);       // model.eval(), no model.train()

}  // namespace attn
