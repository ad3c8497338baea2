#include "web/walk_values.h"

#include <algorithm>
#include <string>

#include "core/stage_place.h"
#include "request/option_table.h"

namespace attn {

nlohmann::json walk_values(const std::vector<Walk>& walks) {
  nlohmann::json out = nlohmann::json::object();
  if (walks.empty()) return out;
  const Config& c = walks[0].config;
  nlohmann::json used = nlohmann::json::object(), defaults = nlohmann::json::object();
  for (const OptionRow& row : option_table())
    if (row.from_config)
      if (const std::string v = row.from_config(c); !v.empty()) used[row.long_name()] = v;
  // The bonus stages walk their own sizes (Config::bonus), not the chapter's d_out and heads.
  const bool bonus = std::all_of(walks.begin(), walks.end(), [](const Walk& w) {
    const StagePlace* s = find_place(w.stage);
    return s && s->group == StageGroup::Bonus;
  });
  if (bonus) {
    used["d-out"] = std::to_string(c.bonus.d_out);
    used["heads"] = std::to_string(c.bonus.heads);
    defaults["d-out"] = std::to_string(BonusConfig{}.d_out);
    defaults["heads"] = std::to_string(BonusConfig{}.heads);
  }
  out["used"] = used;
  out["defaults"] = defaults;
  out["tokens"] = c.num_tokens();
  return out;
}

}  // namespace attn
