// A small thread pool for the numeric kernels.
//
// The walk uses every core; `attn-walk bench --threads N` picks N. Work is split into
// independent tasks (tiles of a matrix product, heads of attention); which thread runs a
// task never changes a result, because every output element is computed by exactly one
// task in a fixed order.
#pragma once

#include <cstdint>
#include <functional>

namespace attn::kernels {

// How many threads the kernels may use; 0 means every core (the default).
void set_num_threads(int n);
int num_threads();

// Runs fn(i) for every i in [0, n), spread over the pool; the calling thread takes part.
// Returns when all calls have finished. Called from inside a task, it runs serially.
// The first exception thrown by fn is rethrown here.
void parallel_for(int64_t n, const std::function<void(int64_t)>& fn);

}  // namespace attn::kernels
