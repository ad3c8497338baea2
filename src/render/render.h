// Renderers turn a finished Walk into text. They never compute; stages never print.
#pragma once

#include <string>

#include "walk.h"

namespace attn {

// Headings plus every tensor exactly as print(tensor) shows it in PyTorch.
std::string render_text(const Walk& walk);

// One JSON document: {"tool", "version", "stage", "config", "tokens", "notes", "steps": [...]}.
// Schema: docs/json-schema.md.
std::string render_json(const Walk& walk);

// The text block PyTorch prints for a step (with "Parameter containing:" and suffixes).
std::string printed_step(const Step& step);

}  // namespace attn
