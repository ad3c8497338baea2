#include "kernels/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace attn::kernels {

namespace {

thread_local bool inside_task = false;

int hardware_threads() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  return 1;  // the page's engine is single-threaded: no pool, every task runs inline
#endif
  static const int n = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));  // asked once
  return n;
}

// Workers wait for a job, then take task indices from a shared counter. Waiting spins
// for a few tens of microseconds before sleeping on a condition variable: jobs come in
// quick succession (the steps of one forward pass), and waking a sleeping thread costs
// more than a small job.
class Pool {
 public:
  explicit Pool(int threads) {
    for (int t = 1; t < threads; ++t) workers_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void run(int64_t n, const std::function<void(int64_t)>& fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      n_ = n;
      next_.store(0);
      busy_.store(static_cast<int>(workers_.size()));
      error_ = nullptr;
      generation_.fetch_add(1);
    }
    wake_.notify_all();
    take_tasks();
    if (!spin_until([this] { return busy_.load() == 0; })) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return busy_.load() == 0; });
    }
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  template <class Ready>
  static bool spin_until(Ready ready) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    do {
      for (int i = 0; i < 64; ++i)
        if (ready()) return true;
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < until);
    return ready();
  }

  void take_tasks() {
    inside_task = true;
    for (int64_t i; (i = next_.fetch_add(1)) < n_;) {
      try {
        (*fn_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        next_.store(n_);  // stop handing out work
      }
    }
    inside_task = false;
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      if (!spin_until([&] { return stop_.load() || generation_.load() != seen; })) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
      }
      if (stop_.load()) return;
      seen = generation_.load();
      take_tasks();
      if (busy_.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);  // pairs with the caller's wait
        done_.notify_one();
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> generation_{0};
  const std::function<void(int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int64_t> next_{0};
  std::atomic<int> busy_{0};
  std::exception_ptr error_;
};

std::mutex pool_mutex;  // guards the pool pointer (set_num_threads vs parallel_for)
// Atomic, so that num_threads() needs no lock: it is asked from inside tasks too, while
// parallel_for holds pool_mutex.
std::atomic<int> requested_threads{0};
std::unique_ptr<Pool> pool;

int effective_threads() {
  const int n = requested_threads.load();
  return n > 0 ? n : hardware_threads();
}

}  // namespace

void set_num_threads(int n) {
  std::lock_guard<std::mutex> lock(pool_mutex);
  requested_threads = std::max(0, n);
  if (pool && pool->size() != effective_threads()) pool.reset();
}

int num_threads() { return effective_threads(); }

void parallel_for(int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  if (n == 1 || inside_task) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::unique_lock<std::mutex> lock(pool_mutex);
  const int threads = effective_threads();
  if (threads == 1) {
    lock.unlock();
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
  if (!pool) pool = std::make_unique<Pool>(threads);
  // Holding pool_mutex serialises callers from different threads; the pool runs one job at a time.
  pool->run(n, fn);
}

namespace {

// One thread's share of parallel_for_shares: the items [front, back) not yet taken, in one
// word, so that its owner (taking from the front) and a helper (taking from the back) claim
// runs with one compare-and-swap each and never get the same item.
struct alignas(64) Share {  // one cache line each: the owners do not slow each other
  std::atomic<uint64_t> range{0};

  static uint64_t pack(uint64_t front, uint64_t back) { return front << 32 | back; }
  int64_t left() const {
    const uint64_t r = range.load();
    return static_cast<int64_t>(r & 0xffffffffu) - static_cast<int64_t>(r >> 32);
  }
  // Up to `run` items, at most half of those left (at least one), from the front or the
  // back: [begin, end), empty when the share is.
  std::pair<int64_t, int64_t> take(bool from_back, int64_t run) {
    uint64_t r = range.load();
    for (;;) {
      const uint64_t front = r >> 32, back = r & 0xffffffffu;
      if (front >= back) return {0, 0};
      const uint64_t count = std::max<uint64_t>(1, std::min<uint64_t>(static_cast<uint64_t>(run), (back - front) / 2));
      const uint64_t next = from_back ? pack(front, back - count) : pack(front + count, back);
      if (range.compare_exchange_weak(r, next)) {
        const int64_t begin = static_cast<int64_t>(from_back ? back - count : front);
        return {begin, begin + static_cast<int64_t>(count)};
      }
    }
  }
};

}  // namespace

void parallel_for_shares(int64_t n, int64_t run, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  run = std::max<int64_t>(1, run);
  const int64_t shares = std::min<int64_t>(n, num_threads());
  if (shares <= 1 || inside_task || n > int64_t{0xffffffff}) {
    // One thread (or too many items for a share's word): the same runs, in order.
    for (int64_t begin = 0; begin < n; begin += run) fn(begin, std::min(n, begin + run));
    return;
  }
  std::unique_ptr<Share[]> share(new Share[static_cast<size_t>(shares)]);
  for (int64_t s = 0; s < shares; ++s)
    share[s].range = Share::pack(static_cast<uint64_t>(n * s / shares), static_cast<uint64_t>(n * (s + 1) / shares));
  // A run that throws empties every share, so that the other threads stop too; parallel_for
  // rethrows the exception.
  const auto call = [&](std::pair<int64_t, int64_t> r) {
    try {
      fn(r.first, r.second);
    } catch (...) {
      for (int64_t s = 0; s < shares; ++s) share[s].range = 0;
      throw;
    }
  };
  // Task s works through share s, then helps with the others until every share is empty. A
  // worker that starts late finds its share taken from the back already, or nothing left.
  parallel_for(shares, [&](int64_t s) {
    for (auto r = share[s].take(false, run); r.first < r.second; r = share[s].take(false, run)) call(r);
    for (;;) {
      int64_t most = 0, from = -1;
      for (int64_t o = 0; o < shares; ++o)
        if (const int64_t left = share[o].left(); left > most) most = left, from = o;
      if (from < 0) return;
      const auto r = share[from].take(true, run);
      if (r.first < r.second) call(r);
    }
  });
}

}  // namespace attn::kernels
