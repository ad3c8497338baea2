// Where each stage stands in the book: its section and its group, in the order the stages
// are walked. Data only, so that a renderer can head a walk ("chapter 3, section 3.5.1") and
// link it to its notebook without knowing the stages' code; src/stages/stages.cpp pairs each
// place with the function that runs it.
#pragma once

#include <string>
#include <vector>

#include "core/config.h"  // EnumName

namespace attn {

enum class StageGroup {
  Chapter,
  Bonus,
  Training
};

struct StagePlace {
  const char* name;     // "--stage" value
  const char* section;  // where it is: the chapter's section, or the bonus code's folder
  StageGroup group = StageGroup::Chapter;
  bool in_all = true;  // part of --stage all (chapter 3); chapter 2's tokens stage is not
};

// --stage: one stage of the places below, in their order, or a group of them (the chapter's,
// the bonus stages). Here, beside the places it names, so that every layer that chooses a
// stage holds it as this type: the request (--stage), and check, which chooses the stage of a
// learner's dump. Names: enum_names (tests/test_request.cpp holds them to stage_places()).
enum class StageChoice {
  Tokens,
  DotProduct,
  Softmax,
  Trainable,
  Causal,
  Dropout,
  MultiHead,
  Efficient,
  KvCache,
  Gqa,
  Swa,
  Rope,
  Flash,
  Mla,
  Backward,
  Gpt,
  All,
  Bonus,
};
const std::vector<EnumName<StageChoice>>& enum_names(StageChoice);
// The stage or group named `name`; false if there is none.
bool parse_stage_choice(const std::string& name, StageChoice* choice);

// Every stage: the chapter's in order, then the bonus stages, then training.
const std::vector<StagePlace>& stage_places();
const StagePlace* find_place(const std::string& name);

// "3" for section "3.5.1": the chapter a stage belongs to.
inline std::string chapter_of(const std::string& section) { return section.substr(0, section.find('.')); }
// Whether --stage `choice` walks stage s: its own name, "all" (the chapter) or "bonus".
bool stage_selected(const StagePlace& s, const std::string& choice);
// The key of the heading's section text in src/lang/: "section" ("chapter 3, section 3.4")
// or "bonus_section" ("beyond chapter 3: ch04/03_kv-cache").
const char* section_text_key(const StagePlace& s);

}  // namespace attn
