#include "input/size_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "input/input_types.h"

namespace attn {

namespace {

// Bytes per element of a (T, T) matrix that each stage's walk holds at its peak, once
// (fixed) and once per batch x head (per_bh), for text output and for JSON/HTML (which spell
// every element out while the tensors are still alive). Measured as the growth of the peak
// RSS (--stats, /usr/bin/time) from T = 512 to T = 1024, and with --batch 2 --heads 2,
// then rounded up: causal keeps the scores, the mask, the masked scores and the weights of
// both methods; the multi-head stage keeps scores, weights and context per head.
struct StageCost {
  CostedWalk walk;
  double text_fixed, text_per_bh, doc_fixed, doc_per_bh;
};
// clang-format off
constexpr StageCost kCosts[] = {
    {CostedWalk::DotProduct, 10, 0, 128, 0}, {CostedWalk::Softmax, 10, 0, 72, 0},
    {CostedWalk::Trainable, 16, 0, 24, 0},   {CostedWalk::Causal, 44, 0, 232, 0},
    {CostedWalk::Dropout, 20, 0, 84, 0},     {CostedWalk::MultiHead, 32, 16, 60, 80},
    {CostedWalk::Bench, 0, 16, 0, 16},
};
// clang-format on

bool runs(const WalkSize& w, CostedWalk c) { return std::find(w.walks.begin(), w.walks.end(), c) != w.walks.end(); }

// A number from /proc/meminfo-style "Key:   1234 kB" lines, in bytes; -1 if absent.
double meminfo_bytes(const char* key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      std::istringstream fields(line.substr(std::string(key).size()));
      double kb = -1;
      fields >> kb;
      return kb < 0 ? -1 : kb * 1024;
    }
  }
  return -1;
}

// A cgroup v2 file holding a byte count ("max" or missing: -1).
double cgroup_bytes(const char* file) {
  std::ifstream in(std::string("/sys/fs/cgroup/") + file);
  std::string word;
  if (!(in >> word) || word == "max") return -1;
  try {
    return std::stod(word);
  } catch (...) {
    return -1;
  }
}

}  // namespace

double estimate_walk_bytes(const WalkSize& w) {
  const bool text = w.document.empty();
  const double T = w.tokens, bh = w.batch * w.heads;
  double per_t2 = 0;
  for (const auto& c : kCosts)
    if (runs(w, c.walk)) per_t2 += text ? c.text_fixed + c.text_per_bh * bh : c.doc_fixed + c.doc_per_bh * bh;
  // Inputs, batches, projections and context vectors: a few dozen float32 (B, T, d) tensors.
  const double vectors = 4.0 * (16 * w.batch * T * (w.d_in + w.d_out) + 8 * w.d_in * w.d_out);
  return per_t2 * T * T + vectors * (text ? 1 : 8);
}

double available_memory_bytes() {
  double avail = std::numeric_limits<double>::infinity();
  if (const double m = meminfo_bytes("MemAvailable:"); m >= 0) avail = m;
  const double max = cgroup_bytes("memory.max"), used = cgroup_bytes("memory.current");
  if (max >= 0) avail = std::min(avail, std::max(0.0, max - std::max(0.0, used)));
  struct rlimit r {};
  if (::getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) avail = std::min(avail, static_cast<double>(r.rlim_cur));
  return avail;
}

std::string human_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} bytes", bytes) : fmt::format("{:.1f} {}", bytes, units[u]);
}

void check_fits(const WalkSize& w, const std::string& what) {
  const double need = estimate_walk_bytes(w), avail = available_memory_bytes();
  if (need <= avail) return;
  const std::string bh = runs(w, CostedWalk::MultiHead) || runs(w, CostedWalk::Bench)  // B x H matrices
                             ? fmt::format(", batch {:.0f} x {:.0f} heads", w.batch, w.heads)
                             : "";
  const std::string need_bytes = need < 1e18 ? fmt::format("{:.0f} bytes", need) : fmt::format("{:.3g} bytes", need);
  throw InputError(fmt::format(
      "{}: the {} walk on {:.0f} tokens x {:.0f}{} needs about {} ({}) of memory for its ({:.0f}, {:.0f}) attention matrices{}, "
      "but only {} is available; use fewer tokens{}",
      what, w.name, w.tokens, w.d_in, bh, need_bytes, human_bytes(need), w.tokens, w.tokens,
      w.document.empty() ? "" : " and the " + w.document + " document",
      human_bytes(avail), bh.empty() ? "" : ", a smaller --batch or fewer --heads"));
}

}  // namespace attn
