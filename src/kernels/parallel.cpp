#include "kernels/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace attn::kernels {

namespace {

thread_local bool inside_task = false;

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

// Workers sleep until a job is posted, then take task indices from a shared counter.
class Pool {
 public:
  explicit Pool(int threads) {
    for (int t = 1; t < threads; ++t) workers_.emplace_back([this] { work(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
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
      busy_ = static_cast<int>(workers_.size());
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    take_tasks();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
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
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      take_tasks();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  bool stop_ = false;
  uint64_t generation_ = 0;
  const std::function<void(int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  std::atomic<int64_t> next_{0};
  int busy_ = 0;
  std::exception_ptr error_;
};

std::mutex pool_mutex;  // guards the pool pointer (set_num_threads vs parallel_for)
int requested_threads = 0;
std::unique_ptr<Pool> pool;

int effective_threads() { return requested_threads > 0 ? requested_threads : hardware_threads(); }

}  // namespace

void set_num_threads(int n) {
  std::lock_guard<std::mutex> lock(pool_mutex);
  requested_threads = std::max(0, n);
  if (pool && pool->size() != effective_threads()) pool.reset();
}

int num_threads() {
  std::lock_guard<std::mutex> lock(pool_mutex);
  return effective_threads();
}

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

}  // namespace attn::kernels
