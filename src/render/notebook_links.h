// Where a step is in the book's own code (rasbt/LLMs-from-scratch): the section of chapter
// 2's or chapter 3's notebook, or a bonus stage's reference file. The page's § links; a
// link only, the page fetches nothing.
#pragma once

#include <optional>
#include <string>

#include "core/walk.h"

namespace attn {

struct NotebookLink {
  std::string url;      // the notebook with its section's anchor, or the reference file
  std::string label;    // "3.4.2", "2.5", or the bonus stage's place ("ch04/03_kv-cache")
  std::string chapter;  // "2" or "3" for a notebook section, "" for a bonus reference
};

// The link of walk.steps[index], or nothing (a stage with no code in the book's repository:
// flash, whose reference is attn-walk's own).
std::optional<NotebookLink> notebook_link(const Walk& walk, size_t index);

// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens
// ("3.5.1 Applying a causal attention mask" -> "351-applying-a-causal-attention-mask").
std::string github_anchor(const std::string& heading);

}  // namespace attn
