#include <fmt/format.h>

#include "render/render.h"
#include "render/torch_print.h"
#include "stages/stages.h"

namespace attn {

std::string printed_step(const Step& step) {
  return step.is_parameter ? torch_parameter_str(step.value, step.suffixes)
                           : torch_str(step.value, step.suffixes);
}

std::string render_text(const Walk& walk) {
  std::string out;
  const StageInfo* info = find_stage(walk.stage);
  out += fmt::format("attn-walk {}", walk.stage);
  if (info) out += fmt::format(" (chapter 3, section {}): {}", info->section, info->summary);
  out += "\n";
  std::string tokens;
  for (const auto& t : walk.tokens) tokens += (tokens.empty() ? "" : " ") + t;
  out += fmt::format("input: {}, {} tokens x {} dims: {}\n", walk.config.input_name,
                     walk.config.num_tokens(), walk.config.d_in(), tokens);
  for (const auto& note : walk.notes) out += "note: " + note + "\n";

  int number = 0;
  for (const auto& step : walk.steps) {
    // Heading: number, the chapter's name, what it is, and its shape.
    out += fmt::format("\n[{}] {} — {} — {}\n", ++number, step.name, step.title,
                       torch_size_str(step.value.shape));
    out += printed_step(step);
    out += "\n";
  }
  return out;
}

}  // namespace attn
