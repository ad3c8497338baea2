// The § links of the page (notebook_links.h). The headings are the notebooks' own
// (ch02.ipynb and ch03.ipynb of rasbt/LLMs-from-scratch); a stage spans a section, and its
// steps fall in that section's subsections: each step's Step::section, which its stage set
// (Walk::section) where the notebook has the heading.
#include "render/notebook_links.h"

#include <cctype>
#include <map>

#include "core/stage_place.h"

namespace attn {

namespace {

constexpr const char* kRepo = "https://github.com/rasbt/LLMs-from-scratch/blob/main/";
constexpr const char* kChapter2 = "ch02/01_main-chapter-code/ch02.ipynb";
constexpr const char* kChapter3 = "ch03/01_main-chapter-code/ch03.ipynb";

// The notebooks' headings, by section number.
const std::map<std::string, std::string>& headings() {
  static const std::map<std::string, std::string> h = {
      {"2.5", "2.5 BytePair encoding"},
      {"2.7", "2.7 Creating token embeddings"},
      {"2.8", "2.8 Encoding word positions"},
      {"3.3.1", "3.3.1 A simple self-attention mechanism without trainable weights"},
      {"3.3.2", "3.3.2 Computing attention weights for all input tokens"},
      {"3.4.1", "3.4.1 Computing the attention weights step by step"},
      {"3.4.2", "3.4.2 Implementing a compact SelfAttention class"},
      {"3.5.1", "3.5.1 Applying a causal attention mask"},
      {"3.5.2", "3.5.2 Masking additional attention weights with dropout"},
      {"3.5.3", "3.5.3 Implementing a compact causal self-attention class"},
      {"3.6.1", "3.6.1 Stacking multiple single-head attention layers"},
      {"3.6.2", "3.6.2 Implementing multi-head attention with weight splits"},
  };
  return h;
}

// The bonus stages' reference code in the same repository.
const std::map<std::string, std::string>& bonus_files() {
  static const std::map<std::string, std::string> f = {
      {"efficient", "ch03/02_bonus_efficient-multihead-attention/mha-implementations.ipynb"},
      {"kv-cache", "ch04/03_kv-cache/gpt_with_kv_cache.py"},
      {"gqa", "ch04/04_gqa/gpt_with_kv_gqa.py"},
      {"swa", "ch04/06_swa/gpt_with_kv_swa.py"},
      {"rope", "pkg/llms_from_scratch/llama3.py"},
      {"mla", "ch04/05_mla/gpt_with_kv_mla.py"},
  };
  return f;
}

// A section the headings do not have (a stage's typo) gets no link rather than a wrong one;
// Html.SectionLinksGoToTheirSectionOfTheNotebook counts a link for every chapter step.
std::optional<NotebookLink> section_link(const std::string& notebook, const std::string& section) {
  const auto heading = headings().find(section);
  if (heading == headings().end()) return std::nullopt;
  return NotebookLink{kRepo + notebook + "#" + github_anchor(heading->second), section, section.substr(0, 1)};
}

}  // namespace

std::string github_anchor(const std::string& heading) {
  std::string out;
  for (const char ch : heading) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
    else if (c == ' ' || c == '-') out += '-';
    else if (c >= 0x80) out += ch;  // GitHub keeps letters beyond ASCII
  }
  return out;
}

std::optional<NotebookLink> notebook_link(const Walk& walk, size_t index) {
  // Chapter 2's steps (the tokens stage's, and those --text puts before a stage's own).
  const std::string& section = walk.steps.at(index).section;
  if (section.rfind("2.", 0) == 0) return section_link(kChapter2, section);
  const StagePlace* info = find_place(walk.stage);
  if (!info) return std::nullopt;
  if (info->group == StageGroup::Bonus) {
    const auto f = bonus_files().find(walk.stage);
    if (f == bonus_files().end()) return std::nullopt;
    return NotebookLink{kRepo + f->second, info->section, ""};
  }
  if (section.empty()) return std::nullopt;
  return section_link(kChapter3, section);
}

}  // namespace attn
