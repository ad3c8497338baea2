#include "stages/weights_notes.h"

namespace attn {

void add_weights_notes(Walk& walk, const GptParams& params) {
  for (const WeightsNote& n : params.notes) {
    walk.notes.push_back(n.key);
    walk.vars.insert(n.vars.begin(), n.vars.end());
  }
}

}  // namespace attn
