// The option lists of the docs, read off the command line's CLI11 binding (docs.h): what each
// option is called, what it takes, its default and its text come from where it is declared.
#include "cli/docs.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli_detail.h"
#include "request/option_table.h"

namespace attn {

using namespace cli_detail;

namespace {

// One option as the docs show it.
struct DocOption {
  std::vector<std::string> names;    // "-s", "--stage"; a positional's own name ("DUMP")
  std::string long_name;             // "stage"
  std::string metavar;               // "STAGE"; empty for a flag or a closed set
  std::vector<std::string> choices;  // a closed set's values
  std::string text;                  // what it does, with `code`
  std::string help;                  // --help's line
  std::string default_value;         // empty: none worth showing
  bool flag = false;
  bool positional = false;
  bool walk_option = false;  // check: one of the walk's options it takes (the table's in_check rows)
};

// A sentence ends in a full stop.
std::string docs_sentence(std::string s) {
  if (!s.empty() && s.back() != '.') s += '.';
  return s;
}

std::string docs_metavar_from_type(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) return "N";
  if (type.rfind("FLOAT", 0) == 0) return "X";
  return "TEXT";
}

// The options of `app` (the walk's, bench's or check's), in --help's order.
std::vector<DocOption> docs_options_of(const CLI::App& app, const std::string& command) {
  std::vector<DocOption> list;
  for (const CLI::Option* opt : app.get_options()) {
    DocOption d;
    d.flag = opt->get_expected_min() == 0;
    d.positional = opt->get_lnames().empty() && opt->get_snames().empty();
    d.long_name = d.positional ? opt->get_name() : opt->get_lnames().front();
    const OptionRow* row = d.positional ? nullptr : find_option(d.long_name);
    if (command == "check" && row && row->in_check && d.long_name != "stage") {
      d.walk_option = true;
    } else if (command == "check" || command == "bench") {
      row = nullptr;  // their own options, not the walk's of the same name
    }
    for (const auto& s : opt->get_snames()) d.names.push_back("-" + s);
    for (const auto& l : opt->get_lnames()) d.names.push_back("--" + l);
    d.choices = option_choices(*opt);
    d.metavar = row ? row->metavar : own_metavar(command, d.long_name);
    if (d.positional) d.names = {d.metavar.empty() ? opt->get_name() : d.metavar};
    if (!d.flag && d.metavar.empty() && d.choices.empty()) d.metavar = docs_metavar_from_type(*opt);
    d.help = opt->get_description();
    d.text = docs_sentence(row ? (row->doc.empty() ? row->help : row->doc) : d.help);
    if (!d.flag && (!row || row->show_default)) d.default_value = opt->get_default_str();
    list.push_back(d);
  }
  // --help and --version last, after what the command does.
  std::stable_partition(list.begin(), list.end(),
                        [](const DocOption& d) { return d.long_name != "help" && d.long_name != "version"; });
  return list;
}

struct DocCommands {
  std::vector<DocOption> walk, bench, check;
  std::string bench_about, check_about;
};

int docs_no_command(ParsedArgs&) { return 0; }

DocCommands docs_commands() {
  CLI::App app{"", "attn-walk"};
  ParsedArgs p;
  bind_all(app, p, Commands{docs_no_command, docs_no_command, docs_no_command});
  DocCommands c;
  c.walk = docs_options_of(app, "walk");
  c.bench = docs_options_of(*app.get_subcommand("bench"), "bench");
  c.check = docs_options_of(*app.get_subcommand("check"), "check");
  c.bench_about = app.get_subcommand("bench")->get_description();
  c.check_about = app.get_subcommand("check")->get_description();
  return c;
}

// The walk's inputs that exclude one another: --input FILE | --random-input TxD | ...
std::vector<const OptionRow*> docs_input_choices() {
  std::vector<const OptionRow*> rows;
  for (const auto& row : option_table()) {
    bool excluding = !row.excludes.empty();
    for (const auto& other : option_table())
      for (const auto& e : other.excludes) excluding |= e == row.long_name();
    if (excluding && row.group == OptionGroup::Input) rows.push_back(&row);
  }
  return rows;
}

// ---- roff (the man page) ------------------------------------------------------------------

// Text for roff: hyphens as \-, backslashes as \e, `code` in bold.
std::string roff_text(const std::string& s) {
  std::string out;
  bool code = false;
  for (char ch : s) {
    if (ch == '`') {
      out += code ? "\\fR" : "\\fB";
      code = !code;
    } else if (ch == '-') {
      out += "\\-";
    } else if (ch == '\\') {
      out += "\\e";
    } else {
      out += ch;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string roff_bold(const std::string& s) { return "\\fB" + roff_text(s) + "\\fR"; }
std::string roff_italic(const std::string& s) { return "\\fI" + roff_text(s) + "\\fR"; }

// "\fB\-\-init\fR rand|randn", "\fB\-s\fR, \fB\-\-stage\fR \fISTAGE\fR"
std::string roff_usage(const DocOption& d, bool all_names) {
  if (d.positional) return roff_italic(d.names.front());
  std::string out;
  if (all_names) {
    for (size_t i = 0; i < d.names.size(); ++i) out += (i ? ", " : "") + roff_bold(d.names[i]);
  } else {
    out = roff_bold(d.names.back());
  }
  if (!d.metavar.empty()) {
    out += " " + roff_italic(d.metavar);
  } else if (!d.choices.empty()) {
    out += " " + roff_text(fmt::format("{}", fmt::join(d.choices, "|")));
  }
  return out;
}

std::string roff_entries(const std::vector<DocOption>& options, bool walk_options) {
  std::string out;
  for (const auto& d : options) {
    if (d.walk_option != walk_options) continue;
    out += ".TP\n" + roff_usage(d, true) + "\n" + roff_text(d.text);
    if (!d.default_value.empty()) out += " Default: " + roff_bold(d.default_value) + ".";
    out += "\n";
  }
  return out;
}

std::string man_synopsis(const DocCommands& c) {
  std::string inputs;
  for (const OptionRow* row : docs_input_choices())
    inputs += (inputs.empty() ? "" : " | ") + roff_bold("--" + row->long_name()) + " " + roff_italic(row->metavar);
  std::string out = ".B attn-walk\n[" + roff_bold("--stage") + " " + roff_italic("STAGE") + "] [" + inputs + "] [" +
                    roff_italic("OPTIONS") + "]\n.br\n.B attn-walk bench\n";
  std::string line;
  for (const auto& d : c.bench)
    if (d.long_name != "help") line += (line.empty() ? "[" : " [") + roff_usage(d, false) + "]";
  out += line + "\n.br\n.B attn-walk check\n";
  line.clear();
  for (const auto& d : c.check)
    if (d.long_name != "help" && !d.walk_option)
      line += (line.empty() ? "" : " ") + (d.positional ? roff_usage(d, false) : "[" + roff_usage(d, false) + "]");
  return out + line + " [" + roff_italic("the walk's options") + "]\n";
}

std::string man_options(const DocCommands& c) {
  std::string out = roff_entries(c.walk, false);
  out += ".SS \"attn-walk bench\"\n" + roff_text(docs_sentence(c.bench_about)) + "\n" + roff_entries(c.bench, false);
  out += ".SS \"attn-walk check\"\n" + roff_text(docs_sentence(c.check_about)) + "\n" + roff_entries(c.check, false);
  std::string walk;
  for (const auto& d : c.check)
    if (d.walk_option) walk += (walk.empty() ? "" : ", ") + roff_bold(d.names.back());
  out += ".PP\nAnd the walk's options that decide its numbers, as above: " + walk + ".\n";
  return out;
}

// ---- Markdown (the README) ----------------------------------------------------------------

// A table cell: pipes escaped (also inside code spans, as GitHub's tables need).
std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

std::string md_usage(const DocOption& d) {
  if (d.positional) return d.names.front();
  std::string out = d.names.back();
  if (!d.metavar.empty()) {
    out += " " + d.metavar;
  } else if (!d.choices.empty()) {
    out += " " + fmt::format("{}", fmt::join(d.choices, "|"));
  }
  return out;
}

std::string readme_usage(const DocCommands& c) {
  std::string inputs;
  for (const OptionRow* row : docs_input_choices())
    inputs += (inputs.empty() ? "" : " | ") + ("--" + row->long_name()) + " " + row->metavar;
  std::string out = "```\nattn-walk [--stage STAGE] [" + inputs + "] [options]\nattn-walk bench";
  for (const auto& d : c.bench)
    if (d.long_name != "help") out += " [" + md_usage(d) + "]";
  out += "\nattn-walk check";
  for (const auto& d : c.check)
    if (d.long_name != "help" && !d.walk_option) out += d.positional ? " " + md_usage(d) : " [" + md_usage(d) + "]";
  return out + " [the walk's options]\n```\n";
}

std::string readme_options(const DocCommands& c) {
  std::string out = "| option | default | meaning |\n|---|---|---|\n";
  for (const auto& d : c.walk) {
    if (d.long_name == "help" || d.long_name == "version") continue;
    std::string def = d.flag ? "off" : "";
    if (!d.default_value.empty()) def = "`" + d.default_value + "`";
    out += "| `" + md_cell(md_usage(d)) + "` | " + md_cell(def) + " | " + md_cell(d.text) + " |\n";
  }
  return out + "| `--help`, `--version` | | print the help (every option, its default and range) or the version |\n";
}

// ---- completions --------------------------------------------------------------------------

bool takes_files(const DocOption& d) {
  return d.metavar.find("FILE") != std::string::npos || d.metavar == "DUMP";
}

std::string words_of(const std::vector<DocOption>& options) {
  std::string out;
  for (const auto& d : options)
    if (!d.positional) out += (out.empty() ? "" : " ") + d.names.back();
  return out;
}

// The `case "$cmd $prev"` arms of one command: choices, file names, or nothing to offer.
// clang-format off
std::string bash_value_arms(const std::string& cmd, const std::vector<DocOption>& options) {
  std::string out, typed;  // typed: the values to type, with nothing to offer
  for (const auto& d : options) {
    if (d.flag || d.positional) continue;
    std::string pattern;
    for (const auto& n : d.names) pattern += (pattern.empty() ? "" : "|") + ("\"" + cmd + " " + n + "\"");
    if (cmd == "walk" && d.long_name == "only") {
      out += "    " + pattern + ")  # the step names of the --stage given\n"
             "      local stage=\"dot-product\" i\n"
             "      for ((i = 1; i < COMP_CWORD; i++)); do\n"
             "        [[ ${COMP_WORDS[i]} == --stage || ${COMP_WORDS[i]} == -s ]] && stage=\"${COMP_WORDS[i+1]}\"\n"
             "      done\n"
             "      COMPREPLY=($(compgen -W \"$(attn-walk --stage \"$stage\" --list-steps 2>/dev/null)\" -- "
             "\"${cur##*,}\"))\n"
             "      return ;;\n";
    } else if (!d.choices.empty()) {
      out += fmt::format("    {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n", pattern,
                         fmt::join(d.choices, " "));
    } else if (takes_files(d)) {
      out += "    " + pattern + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
    } else {
      typed += (typed.empty() ? "" : "|") + pattern;
    }
  }
  if (!typed.empty()) out += "    " + typed + ")\n      return ;;  # a value to type\n";
  return out;
}
// clang-format on

std::string bash_completion(const DocCommands& c) {
  std::string out =
      "# bash completion for attn-walk. Written by `make docs` from the command line's options\n"
      "# (src/request/option_table.cpp, src/cli/cli_options.cpp): edit those, not this file.\n"
      "_attn_walk() {\n"
      "  local cur prev cmd=walk w\n"
      "  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
      "  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  for w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n"
      "    case \"$w\" in bench|check) cmd=$w ;; esac\n"
      "  done\n"
      "  case \"$cmd $prev\" in\n";
  out += bash_value_arms("walk", c.walk) + bash_value_arms("bench", c.bench) + bash_value_arms("check", c.check);
  out += fmt::format(R"(  esac
  case $cmd in
    walk)
      if (( COMP_CWORD == 1 )) && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "bench check" -- "$cur"))
      else COMPREPLY=($(compgen -W "{}" -- "$cur")); fi ;;
    bench) COMPREPLY=($(compgen -W "{}" -- "$cur")) ;;
    check)  # an option, or the dump
      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "{}" -- "$cur"))
      else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
  esac
}}
complete -F _attn_walk attn-walk
)",
                     words_of(c.walk), words_of(c.bench), words_of(c.check));
  return out;
}

// fish: single-quoted words, \' and \\ escaped.
std::string fish_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "'";
}

// A description a shell shows beside a completion: the first sentence, at most 70 characters.
std::string completion_description(const std::string& text) {
  const std::string first = text.substr(0, text.find(". "));
  return first.size() > 70 ? first.substr(0, 67) + "..." : first;
}

std::string fish_description(const std::string& text) { return fish_quote(completion_description(text)); }

std::string fish_lines(const std::string& condition, const std::vector<DocOption>& options) {
  std::string out;
  for (const auto& d : options) {
    if (d.positional) continue;
    std::string line = "complete -c attn-walk -n " + fish_quote(condition);
    for (const auto& n : d.names) line += n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1);
    if (!d.flag) line += takes_files(d) ? " -r -F" : " -x";
    if (!d.choices.empty()) line += " -a " + fish_quote(fmt::format("{}", fmt::join(d.choices, " ")));
    out += line + " -d " + fish_description(d.help) + "\n";
  }
  return out;
}

std::string fish_completion(const DocCommands& c) {
  std::string out =
      "# fish completion for attn-walk. Written by `make docs` from the command line's options\n"
      "# (src/request/option_table.cpp, src/cli/cli_options.cpp): edit those, not this file.\n"
      "complete -c attn-walk -f\n";
  out += "complete -c attn-walk -n __fish_use_subcommand -a bench -d " + fish_description(c.bench_about) + "\n";
  out += "complete -c attn-walk -n __fish_use_subcommand -a check -d " + fish_description(c.check_about) + "\n";
  out += fish_lines("not __fish_seen_subcommand_from bench check", c.walk);
  out += fish_lines("__fish_seen_subcommand_from bench", c.bench);
  out += fish_lines("__fish_seen_subcommand_from check", c.check);
  out += "complete -c attn-walk -n '__fish_seen_subcommand_from check' -F\n";  // the dump
  return out;
}

// zsh: _arguments specs, single-quoted ('\'' for a quote), with the description's brackets
// and colons escaped as _arguments reads them (_describe's descriptions take them as they are).
std::string zsh_quote(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out;
}
std::string zsh_description(const std::string& text) {
  std::string out;
  for (char ch : completion_description(text)) {
    if (ch == '[' || ch == ']' || ch == ':' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

// "'(-s --stage)'{-s,--stage}'[Which part...]:STAGE:(tokens dot-product ...)'"
std::string zsh_spec(const std::string& cmd, const DocOption& d) {
  if (d.positional) return "':" + zsh_quote(d.names.front()) + ":_files'";  // check's dump
  const std::string about = "[" + zsh_description(d.help) + "]";
  std::string value;  // none for a flag
  if (!d.flag) {
    const std::string name = d.metavar.empty() ? d.long_name : d.metavar;
    std::string action = " ";  // a value to type: its name alone
    if (cmd == "walk" && d.long_name == "only") {
      action = "_attn_walk_steps";
    } else if (!d.choices.empty()) {
      action = fmt::format("({})", fmt::join(d.choices, " "));
    } else if (takes_files(d)) {
      action = "_files";
    }
    value = ":" + name + ":" + action;
  }
  if (d.names.size() == 1) return "'" + zsh_quote(d.names.front() + about + value) + "'";
  const std::string names = fmt::format("{}", fmt::join(d.names, " "));
  return "'(" + names + ")'{" + fmt::format("{}", fmt::join(d.names, ",")) + "}'" + zsh_quote(about + value) + "'";
}

std::string zsh_arguments(const std::string& cmd, const std::vector<DocOption>& options, const std::string& indent) {
  std::string out = "_arguments -S :";
  for (const auto& d : options) out += " \\\n" + indent + "  " + zsh_spec(cmd, d);
  return out;
}

// clang-format off
std::string zsh_completion(const DocCommands& c) {
  std::string out =
      "#compdef attn-walk\n"
      "# zsh completion for attn-walk. Written by `make docs` from the command line's options\n"
      "# (src/request/option_table.cpp, src/cli/cli_options.cpp): edit those, not this file.\n"
      "\n"
      "# --only: the step names of the --stage given, separated by commas.\n"
      "_attn_walk_steps() {\n"
      "  local stage=dot-product i\n"
      "  for (( i = 2; i < CURRENT; i++ )); do\n"
      "    [[ ${words[i]} == (-s|--stage) ]] && stage=${words[i+1]}\n"
      "  done\n"
      "  _values -s , step ${(f)\"$(attn-walk --stage \"$stage\" --list-steps 2>/dev/null)\"}\n"
      "}\n"
      "\n"
      "_attn_walk() {\n"
      "  local cmd=walk\n"
      "  if (( CURRENT > 2 )) && [[ ${words[2]} == (bench|check) ]]; then\n"
      "    cmd=${words[2]}\n"
      "    words=(\"${words[1]}\" \"${(@)words[3,-1]}\")\n"
      "    (( CURRENT-- ))\n"
      "  fi\n"
      "  case $cmd in\n"
      "    walk)\n"
      "      if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then\n"
      "        local -a commands=('bench:" + zsh_quote(completion_description(c.bench_about)) + "' 'check:" +
      zsh_quote(completion_description(c.check_about)) + "')\n"
      "        _describe -t commands command commands\n"
      "      else\n"
      "        " + zsh_arguments("walk", c.walk, "        ") + "\n"
      "      fi ;;\n"
      "    bench)\n"
      "      " + zsh_arguments("bench", c.bench, "      ") + " ;;\n"
      "    check)\n"
      "      " + zsh_arguments("check", c.check, "      ") + " ;;\n"
      "  esac\n"
      "}\n"
      "\n"
      "_attn_walk \"$@\"\n";
  return out;
}
// clang-format on

// ---- docs/json-schema.md ----------------------------------------------------------------

// Each key of the JSON output's "config" beside the option it records (OptionRow::recorded_as).
std::string schema_config_keys() {
  std::string out = "| `config` key | option |\n|---|---|\n";
  for (const auto& row : option_table()) {
    if (row.recorded_as.empty()) continue;
    std::string keys;
    for (const auto& key : row.recorded_as) keys += (keys.empty() ? "`" : ", `") + key.key + "`";
    out += "| " + keys + " | `--" + row.long_name() + "` |\n";
  }
  return out;
}

}  // namespace

std::vector<GeneratedDoc> generated_docs() {
  const DocCommands c = docs_commands();
  return {
      {"docs/attn-walk.1", "synopsis", man_synopsis(c)},
      {"docs/attn-walk.1", "options", man_options(c)},
      {"README.md", "usage", readme_usage(c)},
      {"README.md", "options", readme_options(c)},
      {"completions/attn-walk.bash", "", bash_completion(c)},
      {"completions/attn-walk.fish", "", fish_completion(c)},
      {"completions/attn-walk.zsh", "", zsh_completion(c)},
      {"docs/json-schema.md", "config", schema_config_keys()},
  };
}

std::string with_generated(const std::string& file_text, const GeneratedDoc& doc) {
  if (doc.region.empty()) return doc.text;
  const std::string begin = "BEGIN GENERATED " + doc.region, end = "END GENERATED " + doc.region;
  const size_t b = file_text.find(begin), e = file_text.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b)
    throw std::runtime_error(fmt::format("{}: no lines '{}' and '{}' around the generated {}", doc.file, begin,
                                         end, doc.region));
  const size_t from = file_text.find('\n', b) + 1;  // after the BEGIN line
  const size_t to = file_text.rfind('\n', e) + 1;   // the start of the END line
  return file_text.substr(0, from) + doc.text + file_text.substr(to);
}

}  // namespace attn
