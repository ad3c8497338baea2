#include "web/page_errors.h"

#include <cstdlib>
#include <map>
#include <string>

namespace attn {

namespace {

using Vars = std::map<std::string, std::string>;

std::string said(Lang lang, const std::string& key, const Vars& vars) {
  return fill_placeholders(ui_text(lang, "web.err." + key), vars);
}

// The text between `before` and `after` in s (after: the end if empty or absent); "" if
// `before` is not there.
std::string between(const std::string& s, const std::string& before, const std::string& after) {
  const size_t b = s.find(before);
  if (b == std::string::npos) return "";
  const size_t from = b + before.size();
  const size_t e = after.empty() ? std::string::npos : s.find(after, from);
  return s.substr(from, e == std::string::npos ? std::string::npos : e - from);
}

std::string unquoted(std::string s) {
  if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') s = s.substr(1, s.size() - 2);
  return s;
}

// The range as the binding words it ("a whole number from 1 to 65536", "a number ≥ 1", maybe
// followed by ", the argument of ...") in the page's words; "" if it is not one of those.
std::string range_said(const std::string& words, Lang lang) {
  const bool whole = words.rfind("a whole number ", 0) == 0;
  if (!whole && words.rfind("a number ", 0) != 0) return "";
  std::string rest = words.substr(whole ? 15 : 9);
  const size_t comma = rest.find(',');
  if (comma != std::string::npos) rest = rest.substr(0, comma);
  if (rest.rfind("from ", 0) == 0 && rest.find(" to ") != std::string::npos) {
    const size_t to = rest.find(" to ");
    return said(lang, whole ? "whole_range" : "number_range", {{"min", rest.substr(5, to - 5)}, {"max", rest.substr(to + 4)}});
  }
  if (rest.rfind("\xE2\x89\xA5 ", 0) == 0)  // "≥ "
    return said(lang, whole ? "whole_at_least" : "number_at_least", {{"min", rest.substr(4)}});
  return "";
}

bool looks_like_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

PageError option_error(const std::string& opt, const std::string& detail, Lang lang) {
  PageError e{opt, ""};
  const Vars named = {{"opt", opt}};
  if (detail.rfind("must be ", 0) == 0 && detail.find(", got ") != std::string::npos) {
    const size_t got_at = detail.rfind(", got ");
    const std::string got = detail.substr(got_at + 6);
    if (opt == "query") {
      const std::string n = between(detail, "between 1 and ", " ");
      if (!n.empty()) {
        e.text = said(lang, "query", {{"n", n}, {"got", got}});
        return e;
      }
    }
    if (!looks_like_number(unquoted(got))) {
      e.text = said(lang, "not_number", {{"opt", opt}, {"got", unquoted(got)}});
      return e;
    }
    if (const std::string range = range_said(detail.substr(8, got_at - 8), lang); !range.empty()) {
      e.text = said(lang, "range", {{"opt", opt}, {"range", range}, {"got", unquoted(got)}});
      return e;
    }
  }
  if (const size_t not_in = detail.find(" not in {"); not_in != std::string::npos) {
    e.text = said(lang, "not_choice", {{"opt", opt}, {"got", detail.substr(0, not_in)}, {"choices", detail.substr(not_in + 8)}});
    return e;
  }
  // The chapter's MultiHeadAttention, and the bonus stages: heads that do not divide d_out.
  std::string d_out = between(detail, "got d_out ", " and "), heads = between(detail, " and ", " heads");
  if (d_out.empty()) d_out = between(detail, "split d_out ", " into "), heads = between(detail, " into ", " heads");
  if (!d_out.empty() && !heads.empty() && detail.find("divisible") != std::string::npos) {
    e.text = said(lang, "divisible", {{"opt", opt}, {"d_out", d_out}, {"heads", heads}});
    return e;
  }
  // Any other: English keeps the CLI's words; another language says whose setting it is.
  e.text = lang == Lang::En ? "--" + opt + ": " + detail : said(lang, "option", {{"opt", opt}, {"detail", detail}});
  return e;
}

// "invalid JSON: syntax error while parsing value - invalid literal; last read: '1, h'": what
// the parser stopped at, in plain words. Not JSON syntax (a row too short, a value too large):
// English keeps the loader's words, which are plain already.
std::string json_detail(const std::string& detail, Lang lang) {
  if (detail.rfind("invalid JSON: ", 0) != 0) return lang == Lang::En ? detail : said(lang, "input_other", {{"detail", detail}});
  const std::string what = detail.substr(14);
  if (what.find("invalid literal") != std::string::npos) {
    // nlohmann's "last read" runs from the value before it: the literal is its last word.
    std::string token = between(what, "last read: '", "");
    if (!token.empty()) token.pop_back();
    const size_t cut = token.find_last_of(" ,[{:");
    if (cut != std::string::npos) token = token.substr(cut + 1);
    return said(lang, "json_literal", {{"token", token.empty() ? "?" : token}});
  }
  if (what.find("unexpected end of input") != std::string::npos) return said(lang, "json_end", {});
  if (const std::string token = between(what, "unexpected ", ";"); !token.empty()) {
    // The loader's own hint (a trailing comma, single quotes, a comment) says more in English.
    const size_t hint = what.find(" (");
    if (lang == Lang::En && hint != std::string::npos && what.back() == ')')
      return "'" + unquoted(token) + "' was not expected here" + what.substr(hint);
    return said(lang, "json_unexpected", {{"token", unquoted(token)}});
  }
  return lang == Lang::En ? detail : said(lang, "json_other", {{"detail", what}});
}

}  // namespace

PageError page_error(const std::string& message, Lang lang) {
  if (message.rfind("--", 0) == 0) {
    const size_t colon = message.find(": ");
    const std::string opt = message.substr(2, colon == std::string::npos ? 0 : colon - 2);
    if (colon != std::string::npos && opt.find(' ') == std::string::npos)
      return option_error(opt, message.substr(colon + 2), lang);
  }
  // The embeddings: "input: line 1, column 35: ..."
  if (message.rfind("input: line ", 0) == 0) {
    const std::string line = between(message, "input: line ", ",");
    const std::string column = between(message, ", column ", ":");
    const size_t rest = message.find(": ", message.find(", column "));
    if (!line.empty() && !column.empty() && rest != std::string::npos)
      // clang-format off
      return {"input", said(lang, "json_at", {{"line", line}, {"column", column},
                                              {"detail", json_detail(message.substr(rest + 2), lang)}})};
    // clang-format on
  }
  if (message.rfind("input: ", 0) == 0)
    return {"input", lang == Lang::En ? message : said(lang, "input_other", {{"detail", message}})};
  // Any other (--stage backward's limits on --text, ...): its words, said to be the CLI's. An
  // option named first ("--stage backward with ...") is still the one to mark.
  std::string opt;
  if (message.rfind("--", 0) == 0) opt = message.substr(2, message.find_first_of(" :") - 2);
  return {opt, lang == Lang::En ? message : said(lang, "other", {{"detail", message}})};
}

}  // namespace attn
