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

// Runs fn(begin, end) on runs of items that together cover [0, n) once, spread over the
// pool as parallel_for does, but in contiguous shares, one per thread: a thread takes runs
// of up to `run` items from the front of its share, in order; once its share is done it
// takes runs from the back of the share with the most left. Near a share's end a run is at
// most half of what is left, so the last items go one by one to whichever thread is free.
// Neighbouring items (rows of one product) thus stay together on one thread, and a thread
// slowed by a neighbour on its core hands its last items to the other.
void parallel_for_shares(int64_t n, int64_t run, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace attn::kernels
