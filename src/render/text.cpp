#include <fmt/format.h>

#include "render/details.h"
#include "render/heatmap.h"
#include "render/render.h"
#include "render/torch_print.h"
#include "core/stage_place.h"

namespace attn {

std::string printed_step(const Step& step) {
  if (const auto* w = std::get_if<WordsPayload>(&step.payload)) return w->printed;
  if (const auto* t = std::get_if<PrintedTextPayload>(&step.payload)) return t->text;
  std::string value;
  if (const auto* number = std::get_if<PythonNumberPayload>(&step.payload)) {
    value = number->printed;
  } else {
    const auto& part = std::get<TensorPayload>(step.payload).printed_part;
    value = part              ? torch_str(*part, step.suffixes, step.is_int64)
            : step.summarized ? torch_str_shown(step.value, step.full_shape, step.suffixes, step.is_int64)
                              : torch_str(step.value, step.suffixes, step.is_int64);
    if (step.role == Role::Parameter) value = "Parameter containing:\n" + value;
  }
  // print("Sum:", t) joins its arguments with one space.
  return step.print_label.empty() ? value : step.print_label + " " + value;
}

namespace {

// " (text)" in English, "（text）" in Chinese: the language's own parentheses.
std::string parenthesized(Lang lang, const std::string& text) {
  return fill_placeholders(ui_text(lang, "parenthesized"), {{"text", text}});
}

std::string check_line(const Check& c, const RenderOptions& opts) {
  const char* mark = c.passed ? "✓" : "✗";
  const std::string measure = c.measure.empty() ? ui_text(opts.lang, "max_diff") : c.measure;
  std::string line = fmt::format("{} {}{}", mark, c.label,
                                 parenthesized(opts.lang, fmt::format("{} {:.3g}", measure, c.max_diff)));
  line = wrap_words(line, opts.width, "  ");  // on a terminal: at words, under the label
  if (opts.color) line = fmt::format("\033[{}m{}\033[0m", c.passed ? 32 : 31, line);
  return line + "\n";
}

}  // namespace

std::string render_text_header(const Walk& walk, const RenderOptions& opts) {
  std::string out;
  const StagePlace* info = find_place(walk.stage);
  std::string title = fmt::format("attn-walk {}", walk.stage);
  if (info)
    title += parenthesized(opts.lang, fill_placeholders(ui_text(opts.lang, section_text_key(*info)),
                                                        {{"section", info->section}, {"chapter", chapter_of(info->section)}})) +
             ui_text(opts.lang, "colon") + ui_text(opts.lang, std::string("stage.") + walk.stage);
  out += wrap_words(title, opts.width, "  ") + "\n";
  std::string tokens;
  // Tokens come from the user's file: no escape sequences reach the terminal.
  for (const auto& t : walk.config.tokens) tokens += (tokens.empty() ? "" : " ") + sanitize_label(t);
  out += wrap_words(fmt::format("{}{}{}, {} x {}: {}", ui_text(opts.lang, "input"), ui_text(opts.lang, "colon"),
                                walk.config.input_name, walk.config.num_tokens(), walk.config.d_in(), tokens),
                    opts.width, "  ") +
         "\n";
  out += wrap_words(fill_placeholders(ui_text(opts.lang, "blas_kernel"),
                                      {{"kernel", walk.config.blas_kernel_used},
                                       {"threads", std::to_string(walk.config.blas_threads)}}),
                    opts.width, "  ") +
         "\n";
  for (const auto& note : walk.notes)
    out += wrap_words(ui_text(opts.lang, "note") + ui_text(opts.lang, "colon") + note, opts.width, "  ") + "\n";
  return out;
}

std::string render_text_step(const Walk& walk, size_t index, const RenderOptions& opts) {
  const Step& step = walk.steps[index];
  std::string out;
  // Heading: number, the chapter's name, what it is, and its shape.
  // A Python number shows its type as type() prints it, a tensor its torch.Size; words have none.
  std::string heading = fmt::format("[{}] {} — {}", index + 1, step.name, step.title);
  if (const auto* number = std::get_if<PythonNumberPayload>(&step.payload))
    heading += fmt::format(" — <class '{}'>", number->type);
  else if (!std::holds_alternative<WordsPayload>(step.payload))
    heading += " — " + torch_size_str(step.shape());
  heading = wrap_words(heading, opts.width, "    ");  // on a terminal: at words, not mid-word
  out += "\n" + (opts.color ? "\033[1m" + heading + "\033[0m" : heading) + "\n";
  out += printed_step(step) + "\n";
  for (const auto& line : detail_lines(step)) out += line + "\n";
  // The explanation follows the tensor, set off by a bar (dimmed in colour).
  if (opts.explain && !step.explanation.empty()) {
    const std::string expl = wrap_words("│ " + step.explanation, opts.width, "│ ");
    out += opts.color ? "\033[2m" + expl + "\033[0m\n" : expl + "\n";
  }
  if (opts.heatmap && wants_heatmap(walk, step)) out += render_heatmap(walk, step, opts);
  for (const auto& c : walk.checks)
    if (c.after_step == index + 1) out += check_line(c, opts);
  return out;
}

std::string render_text(const Walk& walk, const RenderOptions& opts) {
  std::string out = render_text_header(walk, opts);
  for (size_t i = 0; i < walk.steps.size(); ++i) out += render_text_step(walk, i, opts);
  // Checks placed after the last step (or with after_step 0) close the walk.
  for (const auto& c : walk.checks)
    if (c.after_step == 0 || c.after_step > walk.steps.size()) out += check_line(c, opts);
  return out;
}

}  // namespace attn
