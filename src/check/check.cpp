#include "check/check.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

#include "check/diagnoses.h"
#include "check/gpt.h"
#include "input/embeddings.h"
#include "stages/common.h"
#include "stages/stages.h"

namespace attn {

namespace {

// The dump's tensors that belong to `stage` (all of them unless the dump is attn-walk's
// output for several stages).
std::vector<std::pair<std::string, Tensor>> tensors_of(const Dump& dump, const std::string& stage) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t i = 0; i < dump.tensors.size(); ++i)
    if (dump.stages[i].empty() || dump.stages[i] == stage) out.push_back(dump.tensors[i]);
  return out;
}

bool runnable(const StageInfo& s, const Config& cfg) { return !s.misuse || s.misuse(cfg).empty(); }

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The walk's checks that hold for the chapter's tensor, run on the learner's.
std::vector<CheckReport::OwnCheck> own_checks(const Tensor& got, const Tensor& expected) {
  std::vector<CheckReport::OwnCheck> out;
  if (got.shape != expected.shape || expected.dim() < 1 || expected.numel() == 0) return out;
  if (rows_sum_to_one(expected).passed) {
    const Comparison c = rows_sum_to_one(got);
    out.push_back({"rows_sum_to_1", c.passed, c.max_diff});
  }
  if (expected.dim() >= 2 && expected.size(-1) == expected.size(-2) && expected.size(-1) > 1 &&
      zero_above_diagonal(expected).passed) {
    const Comparison c = zero_above_diagonal(got);
    out.push_back({"zero_above_diagonal", c.passed, c.max_diff});
  }
  return out;
}

bool is_grad(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".grad") == 0;
}

// --stage backward: the step whose gradients the learner gave when they are not --grad-step's
// but the last step's (what a .grad printed after the loop holds), with that step's walk in
// *walk_out; nothing when some .grad given is --grad-step's, or none is the last step's.
std::optional<int64_t> other_grad_step(const Walk& walk, const std::vector<std::pair<std::string, Tensor>>& given,
                                       const std::vector<StepGrade>& results, const Config& cfg,
                                       const Tolerance& tol, std::optional<Walk>* walk_out) {
  if (walk.stage != "backward" || cfg.train.grad_step == cfg.train.steps) return std::nullopt;
  size_t grads = 0;
  for (const auto& s : results)
    if (is_grad(s.name) && s.diff.grade != Grade::NotGiven) {
      if (s.diff.grade != Grade::Differs) return std::nullopt;  // step --grad-step's, as the walk has it
      ++grads;
    }
  if (grads == 0) return std::nullopt;
  Config last = cfg;
  last.train.grad_step = cfg.train.steps;
  Walk at_last = find_stage("backward")->run(last);
  for (const auto& s : grade_walk(at_last, given, tol))
    if (is_grad(s.name) && s.diff.grade == Grade::Differs) return std::nullopt;
  *walk_out = std::move(at_last);
  return last.train.grad_step;
}

// "\"out_head.weight.grad\"": the steps whose names end in ".<name>" (a module's own
// named_parameters() leaves out the module's name: "weight.grad"), else the closest name.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& names) {
  std::vector<std::string> ending;
  for (const auto& n : names)
    if (n.size() > name.size() + 1 && n.compare(n.size() - name.size() - 1, std::string::npos, "." + name) == 0 &&
        std::find(ending.begin(), ending.end(), n) == ending.end())
      ending.push_back(n);
  if (ending.empty()) return "\"" + closest_name(name, names) + "\"";
  std::string out;
  for (size_t i = 0; i < ending.size(); ++i)
    out += (i == 0 ? "" : i + 1 == ending.size() ? " or "
                                                 : ", ") +
           ("\"" + ending[i] + "\"");
  return out + " (grads(module.named_parameters(), prefix=\"<module>.\") names them so)";
}

}  // namespace

std::string closest_name(const std::string& name, const std::vector<std::string>& names) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& n : names) {
    const size_t d = edit_distance(name, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best;
}

StageChoice choose_stage(const Dump& dump, const Config& cfg, std::string* chosen_by) {
  StageChoice choice = StageChoice::DotProduct;
  if (!dump.stage.empty() && dump.stage != "all" && find_stage(dump.stage) && parse_stage_choice(dump.stage, &choice)) {
    *chosen_by = "dump";
    return choice;
  }
  *chosen_by = "names";
  std::string best;
  std::pair<size_t, size_t> best_score{0, 0};
  for (const auto& s : all_stages()) {
    if (!runnable(s, cfg)) continue;
    const Walk walk = s.run(cfg);
    std::pair<size_t, size_t> score{0, 0};  // (names found, of which shapes agree)
    // Each given name counts once, though a stage may record a name many times (kv-cache and
    // flash repeat their steps per token or block).
    for (const auto& [name, tensor] : tensors_of(dump, s.name))
      for (const auto& step : walk.steps)
        if (step.name == name) {
          ++score.first;
          if (step.value.shape == tensor.shape) ++score.second;
          break;
        }
    if (best.empty() || score > best_score) best = s.name, best_score = score;
  }
  parse_stage_choice(best, &choice);  // every stage has its choice (tests/test_request.cpp)
  return choice;
}

NotebookStages notebook_stages(const Dump& dump, const Config& cfg) {
  if (!dump.stage.empty() && dump.stage != "all") return {};  // attn-walk's output for one stage
  // A dump that one stage explains wholly is that stage's (as choose_stage has it).
  if (dump.stage.empty()) {
    std::string by;
    if (const StageInfo* best = find_stage(enum_name(choose_stage(dump, cfg, &by)))) {
      const Walk walk = best->run(cfg);
      const auto is_step = [&](const std::string& name) {
        return std::any_of(walk.steps.begin(), walk.steps.end(), [&](const Step& s) { return s.name == name; });
      };
      if (std::all_of(dump.tensors.begin(), dump.tensors.end(), [&](const auto& t) { return is_step(t.first); }))
        return {};
    }
  }
  // The chapter's stages (3.3 to 3.6) and their walks.
  std::vector<const StageInfo*> chapter;
  std::vector<Walk> walks;
  for (const auto& s : all_stages())
    if (s.group == StageGroup::Chapter && s.in_all && runnable(s, cfg)) {
      chapter.push_back(&s);
      walks.push_back(s.run(cfg));
    }
  const auto value_in = [](const Walk& walk, const std::string& name) -> const Tensor* {
    for (const auto& s : walk.steps)
      if (s.name == name) return &s.value;
    return nullptr;
  };
  // Each name's candidate stages (indices into `chapter`): those with a step of its name.
  std::vector<std::vector<size_t>> candidates(dump.tensors.size());
  std::vector<bool> reached(chapter.size(), false);  // by a name no other stage has
  for (size_t i = 0; i < dump.tensors.size(); ++i) {
    for (size_t k = 0; k < chapter.size(); ++k)
      if ((dump.stages[i].empty() || dump.stages[i] == chapter[k]->name) && value_in(walks[k], dump.tensors[i].first))
        candidates[i].push_back(k);
    if (candidates[i].empty()) return {};  // no chapter stage's step: check_dump names the closest
    if (candidates[i].size() == 1) reached[candidates[i][0]] = true;
  }
  // Each name's stages: those whose chapter value it equals (or is close to); else the last
  // stage of its shape (the notebook's later binding; a stage the dump reaches first), with
  // every stage whose chapter value is that one's; else the last stage.
  std::vector<std::vector<size_t>> owners(dump.tensors.size());
  for (size_t i = 0; i < dump.tensors.size(); ++i) {
    const auto& [name, tensor] = dump.tensors[i];
    std::vector<size_t> shaped;
    for (const size_t k : candidates[i]) {
      const Difference d = compare(tensor, *value_in(walks[k], name), Tolerance{});
      if (d.grade != Grade::Differs) owners[i].push_back(k);
      if (!d.shape_differs) shaped.push_back(k);
    }
    if (!owners[i].empty()) continue;
    if (shaped.empty()) {
      owners[i] = {candidates[i].back()};
      continue;
    }
    size_t last = shaped.back();
    for (const size_t k : shaped)
      if (reached[k] || !std::any_of(shaped.begin(), shaped.end(), [&](size_t r) { return reached[r]; })) last = k;
    for (const size_t k : shaped)
      if (compare(*value_in(walks[k], name), *value_in(walks[last], name), Tolerance{0.0, 0.0}).grade == Grade::Equal)
        owners[i].push_back(k);
  }
  // Graded: the stages holding a name no other stage holds; a name that only stages not graded
  // hold makes the last of them graded (the notebook's later binding).
  std::vector<bool> graded(chapter.size(), false);
  for (const auto& o : owners)
    if (o.size() == 1) graded[o[0]] = true;
  for (const auto& o : owners)
    if (std::none_of(o.begin(), o.end(), [&](size_t k) { return graded[k]; })) graded[o.back()] = true;
  NotebookStages out;
  for (size_t k = 0; k < chapter.size(); ++k) {
    if (!graded[k]) continue;
    Dump d;
    for (size_t i = 0; i < dump.tensors.size(); ++i)
      if (std::find(owners[i].begin(), owners[i].end(), k) != owners[i].end()) {
        d.tensors.push_back(dump.tensors[i]);
        d.stages.push_back("");
      }
    StageChoice choice = StageChoice::DotProduct;
    parse_stage_choice(chapter[k]->name, &choice);
    out.stages.push_back(choice);
    out.dumps.push_back(std::move(d));
  }
  if (out.stages.size() < 2) return {};
  return out;
}

CheckReport check_dump(const Dump& dump, const Config& cfg, const std::string& stage,
                       const std::string& chosen_by, const Tolerance& tol, const std::string& source,
                       const NotebookStages* whole) {
  const StageInfo* info = find_stage(stage);
  const auto given = tensors_of(dump, stage);
  std::set<std::string> given_names;
  for (const auto& [name, tensor] : given) given_names.insert(name);
  // Chapter 4's GPTModel: module paths (every block opened) and state-dict names (check/gpt.h).
  const Walk walk = stage == "gpt" ? gpt_check_walk(cfg, GptCells{}, &given_names) : info->run(cfg);
  if (given.empty())
    throw InputError(fmt::format("{}: no tensor of stage {} (the dump is attn-walk's output for stage {})",
                                 source, stage, dump.stage));
  std::vector<std::string> names;
  for (const auto& step : walk.steps) names.push_back(step.name);
  std::set<std::string> seen;
  for (const auto& [name, tensor] : given) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw InputError(fmt::format(
          "{}: \"{}\" is not a step of stage {}; did you mean {}? (attn-walk --stage {} --list-steps "
          "lists them)",
          source, name, stage, did_you_mean(name, names), stage));
    if (!seen.insert(name).second)
      throw InputError(fmt::format("{}: \"{}\" is given twice", source, name));
  }

  CheckReport r;
  r.stage = stage;
  r.chosen_by = chosen_by;
  r.names_given = r.names_matched = given.size();
  r.config = cfg;
  r.tol = tol;
  if (whole)
    for (const StageChoice s : whole->stages) r.stages_graded.push_back(enum_name(s));
  r.results = grade_walk(walk, given, tol);
  // --stage backward: a .grad printed after the loop is the last step's, the walk's are
  // --grad-step's (1 by default). Gradients that differ from those but match the last step's
  // are graded against the last step's, and the report says so.
  std::optional<Walk> moved;
  if (const auto last = other_grad_step(walk, given, r.results, cfg, tol, &moved)) {
    r.grad_step_from = cfg.train.grad_step;
    r.config.train.grad_step = *last;
    r.results = grade_walk(*moved, given, tol);
  }
  const Walk& graded = moved ? *moved : walk;
  const Config& graded_cfg = r.config;
  for (size_t i = 0; i < r.results.size(); ++i) {
    if (r.results[i].diff.grade != Grade::Differs) continue;
    r.first = i;
    r.expected = graded.steps[i].value;
    for (const auto& [name, tensor] : given)
      if (name == r.results[i].name) r.got = tensor;
    // A whole notebook: the other stages' walks and tensors, against which a mistake is tested too.
    std::vector<OtherStage> others;
    if (whole)
      for (size_t k = 0; k < whole->stages.size(); ++k)
        if (enum_name(whole->stages[k]) != stage)
          others.push_back({enum_name(whole->stages[k]), find_stage(enum_name(whole->stages[k]))->run(cfg),
                            whole->dumps[k].tensors});
    for (Diagnosis& d : diagnose({stage, graded_cfg, graded, given, r.results[i].name, r.got, r.expected, tol,
                                  whole ? &others : nullptr})) {
      r.diagnoses.push_back(d.id);
      r.evidence.push_back(std::move(d.vars));
    }
    r.own_checks = own_checks(r.got, r.expected);
    // The gradients differ from this step's and from the last's: maybe another step's.
    r.ask_grad_step = r.diagnoses.empty() && is_grad(r.results[i].name) && !r.grad_step_from;
    break;
  }
  return r;
}

}  // namespace attn
