// The weights reader's notes (weights/gpt_weights.h) on a walk: each text's key among the walk's
// notes and the values it quotes among its vars (texts: src/lang/gpt_*.cpp, "note.weights.*").
#pragma once

#include "core/walk.h"
#include "weights/gpt_weights.h"

namespace attn {

void add_weights_notes(Walk& walk, const GptParams& params);

}  // namespace attn
