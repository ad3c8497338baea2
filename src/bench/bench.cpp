#include "bench/bench.h"

#include <stdexcept>

namespace attn {

std::string run_bench(const BenchOptions&) { throw std::runtime_error("bench is not implemented yet"); }

}  // namespace attn
