// Chinese text as a Chinese reader expects it (issue 12, point 2): full-width punctuation
// next to Chinese characters, in every text and in what the renderers add around them,
// and 维度 where a width is meant, never a literal 宽.
#include <gtest/gtest.h>

#include "lang/lang.h"
#include "render/render.h"
#include "stages/stages.h"
#include "test_util.h"

namespace attn {
namespace {

// Code points of a UTF-8 string (the texts are valid UTF-8), with their byte offsets.
std::vector<char32_t> code_points(const std::string& s, std::vector<size_t>* offsets) {
  std::vector<char32_t> out;
  for (size_t i = 0; i < s.size();) {
    offsets->push_back(i);
    const auto c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 1 : c < 0xE0 ? 2
                             : c < 0xF0   ? 3
                                          : 4;
    char32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
    for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

bool is_han(char32_t c) { return c >= 0x4E00 && c <= 0x9FFF; }

// Every half-width , : ; ( ) ! ? that touches a Chinese character, with its surroundings.
std::vector<std::string> half_width_next_to_han(const std::string& text) {
  std::vector<size_t> at;
  const auto cps = code_points(text, &at);
  std::vector<std::string> bad;
  for (size_t i = 0; i < cps.size(); ++i) {
    if (std::u32string(U",:;()!?").find(cps[i]) == std::u32string::npos) continue;
    const bool before = i > 0 && is_han(cps[i - 1]);
    const bool after = i + 1 < cps.size() && is_han(cps[i + 1]);
    if (before || after) bad.push_back(text.substr(at[i] > 24 ? at[i] - 24 : 0, 48));
  }
  return bad;
}

TEST(ZhText, HalfWidthPunctuationNeverTouchesChineseInTheTables) {
  const LangTable& zh = lang_zh();
  for (const auto& [key, t] : zh.steps)
    for (const auto& s : {t.title, t.explanation})
      EXPECT_TRUE(half_width_next_to_han(s).empty()) << key << ": " << half_width_next_to_han(s)[0];
  for (const auto& [key, s] : zh.checks) EXPECT_TRUE(half_width_next_to_han(s).empty()) << key;
  for (const auto& [key, s] : zh.ui) EXPECT_TRUE(half_width_next_to_han(s).empty()) << key << ": " << s;
}

TEST(ZhText, HalfWidthPunctuationNeverTouchesChineseInTheRenderedWalk) {
  // What the renderer adds (header, notes, check lines) counts as much as the tables.
  for (const auto& info : all_stages()) {
    Walk w = info.run(test::book_config());
    localize(w, Lang::Zh, true);
    RenderOptions o;
    o.lang = Lang::Zh;
    o.explain = true;
    const std::string out = render_text(w, o);
    const auto bad = half_width_next_to_han(out);
    EXPECT_TRUE(bad.empty()) << info.name << ": " << bad.size() << " places, first: " << bad[0];
  }
}

TEST(ZhText, TheRenderedHeaderUsesFullWidthMarks) {
  Walk w = run_dropout(test::book_config());
  localize(w, Lang::Zh, false);
  RenderOptions o;
  o.lang = Lang::Zh;
  const std::string out = render_text(w, o);
  EXPECT_NE(out.find("attn-walk dropout（第 3 章 3.5.2–3.5.3 节）："), std::string::npos) << out;
  EXPECT_NE(out.find("\n注：dropout 掩码："), std::string::npos) << out;
  EXPECT_NE(out.find("\n输入："), std::string::npos) << out;
  EXPECT_NE(out.find("（最大差值 0）"), std::string::npos) << out;
}

TEST(ZhText, WidthsAreDimensionsNotAWord) {
  const LangTable& zh = lang_zh();
  for (const auto& [key, t] : zh.steps) {
    EXPECT_EQ(t.title.find("宽"), std::string::npos) << key;
    EXPECT_EQ(t.explanation.find("宽"), std::string::npos) << key;
  }
  // The review's phrases are gone.
  for (const auto& [key, t] : zh.steps) {
    EXPECT_EQ(t.explanation.find("丢弃（dropout）以概率"), std::string::npos) << key;
    EXPECT_EQ(t.explanation.find("就会让 exp 溢出的、最小的"), std::string::npos) << key;
  }
}

}  // namespace
}  // namespace attn
