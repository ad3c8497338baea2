#include "text/bpe.h"

#include <limits>

#include "text/vocab.h"

namespace attn::text {

std::vector<int64_t> bpe_encode(std::string_view piece) {
  if (const auto whole = rank_of(piece)) return {*whole};

  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  // starts[k] is where part k begins; starts.back() == piece.size().
  std::vector<size_t> starts;
  for (size_t i = 0; i <= piece.size(); ++i) starts.push_back(i);
  // The rank of the token that parts k and k + 1 would form together, kNone if none.
  auto pair_rank = [&](size_t k) -> int64_t {
    if (k + 2 >= starts.size()) return kNone;
    const auto r = rank_of(piece.substr(starts[k], starts[k + 2] - starts[k]));
    return r ? *r : kNone;
  };
  std::vector<int64_t> ranks(starts.size());
  for (size_t k = 0; k < starts.size(); ++k) ranks[k] = pair_rank(k);

  while (starts.size() > 2) {
    size_t best = 0;
    for (size_t k = 1; k + 2 < starts.size(); ++k)
      if (ranks[k] < ranks[best]) best = k;
    if (ranks[best] == kNone) break;
    // Merge parts best and best + 1; only the pairs around the new part change.
    starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    ranks.erase(ranks.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    ranks[best] = pair_rank(best);
    if (best > 0) ranks[best - 1] = pair_rank(best - 1);
  }

  std::vector<int64_t> ids;
  for (size_t k = 0; k + 1 < starts.size(); ++k)
    ids.push_back(*rank_of(piece.substr(starts[k], starts[k + 1] - starts[k])));
  return ids;
}

}  // namespace attn::text
