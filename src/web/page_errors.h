// What the page shows when the engine refuses a walk: the CLI's message (an option's, or the
// embeddings' JSON), said in the page's language and in plain words, and the option it is about,
// so that the page can mark that field and put the message beside it.
#pragma once

#include <string>

#include "lang/lang.h"

namespace attn {

struct PageError {
  std::string option;  // the option's long name ("heads"), "input" for the embeddings, or ""
  std::string text;    // what the learner reads
};

// `message` is the CLI's (UsageError or InputError). A message of a known kind (a range, a
// choice, heads that do not divide d_out, the query past the last token, a JSON syntax error)
// is said again from the page's texts (src/lang/page_tour_*.cpp); any other keeps its words,
// after the option's name in the page's language.
PageError page_error(const std::string& message, Lang lang);

}  // namespace attn
