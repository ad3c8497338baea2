// --stage backward with chapter 5's loop written another way (modules/train.h, TrainChoices):
// the same walk, with the learner's mistake in it. run_backward (stages.h) is this with the
// chapter's loop.
#pragma once

#include "core/config.h"
#include "core/walk.h"
#include "modules/train.h"

namespace attn {

Walk run_backward_with(const Config& cfg, const TrainChoices& choices);

}  // namespace attn
