// attn-walk: parse, run, and map errors to exit codes (0 ok, 1 bad data, 2 misuse), each error
// said in --lang's language.
#include <malloc.h>

#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "cli/cli.h"
#include "core/output.h"
#include "input/embeddings.h"
#include "lang/lang.h"
#include "web/page_errors.h"

namespace {

// The --lang of the command line, read before its options are parsed, so that an error in
// them is said in that language too (English if none, or not one the tool speaks).
attn::Lang lang_of(int argc, char** argv) {
  attn::Lang lang = attn::Lang::En;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--lang") == 0 && i + 1 < argc) attn::parse_lang(argv[i + 1], &lang);
    if (std::strncmp(argv[i], "--lang=", 7) == 0) attn::parse_lang(argv[i] + 7, &lang);
  }
  return lang;
}

// A misused option's error as the learner reads it: English as the library words it; in
// another language, in the words the page says it with (web/page_errors.h: an option's range or
// choice, heads that do not divide d_out, ...). Other messages keep their words: a weights
// file's come in the learner's language already, a file's name and the system's reason as they
// are.
std::string said(attn::Lang lang, const std::string& message) {
  if (lang == attn::Lang::En || message.rfind("--", 0) != 0) return message;
  return attn::page_error(message, lang).text;
}

}  // namespace

int main(int argc, char** argv) {
  // Walks at GPT-2 size create and drop many tensors of several MB. Keep freed memory in
  // the heap for reuse instead of returning it to the kernel, which zeroes every page again
  // (32 MiB is the largest mmap threshold glibc accepts).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  const attn::Lang lang = lang_of(argc, argv);
  const std::string error = attn::ui_text(lang, "cli.error");
  try {
    return attn::run_cli(argc, argv);
  } catch (const attn::UsageError& e) {
    std::cerr << error << said(lang, e.what()) << "\n"
              << attn::ui_text(lang, "cli.usage_hint") << "\n";
    return 2;
  } catch (const attn::InputError& e) {
    std::cerr << error << e.what() << "\n";
    return 1;
  } catch (const attn::OutputError& e) {
    std::cerr << error << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << error << attn::ui_text(lang, "cli.out_of_memory") << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << attn::ui_text(lang, "cli.internal_error") << e.what() << "\n";
    return 4;  // 3 is check's "some tensor differs"
  }
}
