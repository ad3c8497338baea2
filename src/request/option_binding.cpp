// The option table bound to CLI11: the command line's walk options, check's, and the page's
// arguments are all parsed by this one binding; options_json() describes it to the page.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "request/option_table.h"
#include "stages/stages.h"

namespace attn {

namespace {

// 1 -> "1", 0.5 -> "0.5", 1e12 -> "1e12" (a power of ten past a million, as one writes it).
template <class T>
std::string number_words(T x) {
  const double d = static_cast<double>(x);
  if (d >= 1e6 && std::pow(10.0, std::round(std::log10(d))) == d) return fmt::format("1e{}", std::lround(std::log10(d)));
  return fmt::format("{}", x);
}

// "a number from 0 to 1", "a number ≥ 0", "a whole number from 1 to 65536"
template <class T>
std::string range_words(T min, T max) {
  const char* kind = std::is_integral<T>::value ? "a whole number" : "a number";
  if (static_cast<double>(max) >= kNoUpperBound) return fmt::format("{} ≥ {}", kind, number_words(min));
  return fmt::format("{} from {} to {}", kind, number_words(min), number_words(max));
}

template <class T>
CLI::Option* add_value(CLI::App& app, const OptionRow& row, T& value) {
  CLI::Option* opt = app.add_option(row.names, value, row.help);
  if constexpr (std::is_arithmetic<T>::value)
    if (row.has_range) opt->check(range_check<T>(static_cast<T>(row.min), static_cast<T>(row.max)));
  if (row.choices) {
    if constexpr (std::is_same<T, int64_t>::value) {
      std::vector<int64_t> numbers;
      for (const auto& c : row.choices()) numbers.push_back(std::stoll(c));
      opt->check(CLI::IsMember(numbers));
    } else {
      opt->check(CLI::IsMember(row.choices()));
    }
  }
  if (row.show_default) opt->capture_default_str();
  return opt;
}

CLI::Option* add_row(CLI::App& app, const OptionRow& row, Options& o) {
  return std::visit(
      [&](auto field) -> CLI::Option* {
        auto& value = field(o);
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same<T, bool>::value) {
          return app.add_flag(row.names, value, row.help);
        } else if constexpr (std::is_enum<T>::value) {
          // Shown as the text it is ("TEXT:{rand,randn}", default "rand"), not as its number.
          CLI::Option* opt = app.add_option(row.names, value, row.help)->transform(enum_check<T>())->type_name("TEXT");
          if (row.show_default) opt->default_str(enum_name(value));
          return opt;
        } else if constexpr (std::is_same<T, std::vector<std::string>>::value) {
          return app.add_option(row.names, value, row.help)->delimiter(row.delimiter);
        } else {
          CLI::Option* opt = add_value(app, row, value);
          if (row.validator) opt->check(row.validator());
          return opt;
        }
      },
      row.field);
}

// CLI11 writes IsMember's choices into the type name: "TEXT:{rand,randn}".
std::vector<std::string> split_choices(std::string& type) {
  std::vector<std::string> choices;
  const auto brace = type.find(":{");
  if (brace == std::string::npos || type.back() != '}') return choices;
  const std::string inner = type.substr(brace + 2, type.size() - brace - 3);
  for (size_t p = 0; p <= inner.size();) {
    const size_t comma = std::min(inner.find(',', p), inner.size());
    choices.push_back(inner.substr(p, comma - p));
    p = comma + 1;
  }
  type = type.substr(0, brace);
  return choices;
}

}  // namespace

std::vector<std::string> option_choices(const CLI::Option& opt) {
  std::string type = opt.get_type_name();
  return split_choices(type);
}

template <class T>
CLI::Validator range_check(T min, T max) {
  return CLI::Validator(
      [min, max](std::string& input) {
        T value;
        const bool converted = CLI::detail::lexical_cast(input, value);
        // CLI11's own Range lets nan through; a nan is in no range.
        if (converted && !(value < min || value > max) && value == value) return std::string();
        return fmt::format("must be {}, got {}", range_words(min, max), converted ? input : "'" + input + "'");
      },
      CLI::Range(min, max).get_description());  // --help shows CLI11's own "INT in [1 - 65536]"
}

template CLI::Validator range_check<int64_t>(int64_t, int64_t);
template CLI::Validator range_check<uint64_t>(uint64_t, uint64_t);
template CLI::Validator range_check<double>(double, double);

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& input) {
        uint64_t seed;
        if (CLI::detail::lexical_cast(input, seed)) return std::string();
        return "must be a whole number from 0 to 2^64-1, the argument of torch.manual_seed (a negative "
               "one wraps around as in PyTorch), got '" +
               input + "'";
      },
      "");
}

void bind_options(CLI::App& app, Options& o, OptionScope scope) {
  for (const OptionRow& row : option_table())
    if (scope == OptionScope::Walk || row.in_check) add_row(app, row, o);
  for (const OptionRow& row : option_table())
    for (const auto& other : row.excludes)
      if (CLI::Option* a = app.get_option_no_throw("--" + row.long_name()))
        if (CLI::Option* b = app.get_option_no_throw("--" + other)) a->excludes(b);
}

void mark_given(const CLI::App& app, Options& o) {
  for (const OptionRow& row : option_table())
    if (row.given) {
      const CLI::Option* opt = app.get_option_no_throw("--" + row.long_name());
      if (opt && opt->count() > 0) row.given(o) = true;
    }
}

std::vector<UnusedOption> unused_by_stage(const CLI::App& app, StageChoice stage) {
  const auto given = [&app](const std::string& name) {
    const CLI::Option* opt = app.get_option_no_throw("--" + name);
    return opt && opt->count() > 0;
  };
  const bool drawn_inputs = given("random-input") || given("text") || given("text-file");
  std::vector<UnusedOption> notes;
  for (const OptionRow& row : option_table()) {
    if (row.stages == "*" || !given(row.long_name()) || (row.draws_inputs && drawn_inputs)) continue;
    std::istringstream names(row.stages);
    std::vector<std::string> changes;
    bool used = false;
    for (std::string name; names >> name;) {
      changes.push_back(name);
      for (const auto& s : all_stages()) used |= s.name == name && stage_selected(s, stage);
    }
    if (!used)
      notes.push_back({row.long_name(), std::string(enum_name(stage)), fmt::format("{}", fmt::join(changes, ", "))});
  }
  return notes;
}

Options parse_walk_options(const std::vector<std::string>& args) {
  CLI::App app{"", "attn-walk"};
  Options o;
  bind_options(app, o, OptionScope::Walk);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  mark_given(app, o);
  return o;
}

std::string options_json() {
  CLI::App app{"", "attn-walk"};
  app.set_version_flag("--version", std::string("attn-walk ") + ATTN_WALK_VERSION);
  Options o;
  bind_options(app, o, OptionScope::Walk);
  nlohmann::json list = nlohmann::json::array();
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty()) continue;
    std::string type = opt->get_type_name();
    const std::vector<std::string> choices = split_choices(type);
    nlohmann::json entry = {{"name", opt->get_lnames().front()},
                            {"flag", opt->get_expected_min() == 0},
                            {"type", type},
                            {"choices", choices},
                            {"default", opt->get_default_str()},
                            {"help", opt->get_description()}};
    if (const OptionRow* row = find_option(opt->get_lnames().front())) {
      entry["label"] = row->label;
      entry["group"] = to_string(row->group);
      entry["stages"] = row->stages;
      entry["on_page"] = row->on_page;
    }
    list.push_back(entry);
  }
  return list.dump();
}

}  // namespace attn
