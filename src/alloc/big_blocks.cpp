// Large blocks of memory (tensor storage at GPT-2 size) for the attn-walk executable.
//
// Why: in the VMs attn-walk is measured on, the first touch of a fresh 4 KiB page costs
// about 6.5 µs (the kernel zeroes it and the hypervisor maps it). A walk at 1024 x 768 makes
// and drops tensors of 2 to 48 MiB; glibc hands blocks of 32 MiB and more back to the
// kernel when they are freed, so every such tensor faults in all its pages again, and none
// of its memory is eligible for transparent huge pages, which these machines give only to
// memory marked with madvise (/sys/kernel/mm/transparent_hugepage/enabled = madvise).
//
// What: every operator new of at least kMinBlock bytes gets its own mapping, 2 MiB aligned
// and marked MADV_HUGEPAGE (one fault per 2 MiB instead of 512), rounded up to whole 2 MiB
// pages. A freed block is kept and handed to the next request that fits it (at most twice
// its size), up to kMaxCached bytes, so the pages a walk has touched are touched again
// rather than faulted in anew. Smaller requests go to malloc as usual. Only the executable
// links this file (CMakeLists.txt); the library and the tests use the standard allocator.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

namespace {

constexpr size_t kMinBlock = size_t{1} << 20;  // 1 MiB: tensors of 256 Ki floats up
constexpr size_t kHugePage = size_t{2} << 20;  // the x86-64 transparent huge page
// Freed blocks kept for reuse, at most. A 1024-token GPT-2 forward's logits alone are 206 MB
// (1024 x 50257 floats): with 256 MiB they did not fit beside the blocks' tensors, and every
// forward of `bench --gpt` faulted them in afresh (19 % of its time in the kernel zeroing pages).
constexpr size_t kMaxCached = size_t{768} << 20;

// The bookkeeping's own nodes come from malloc, never from operator new: BigBlocks inserts
// and erases them with its mutex held, and an operator delete of a node that happened to
// start on a 2 MiB boundary would come back into release() and wait on that mutex forever.
template <class T>
struct MallocAllocator {
  using value_type = T;
  MallocAllocator() = default;
  template <class U>
  MallocAllocator(const MallocAllocator<U>&) {}
  T* allocate(size_t n) {
    if (void* p = std::malloc(n * sizeof(T))) return static_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <class U>
  bool operator==(const MallocAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const MallocAllocator<U>&) const { return false; }
};

class BigBlocks {
 public:
  void* allocate(size_t size) {
    if (size > (size_t{1} << 46)) return nullptr;  // more than any machine has: bad_alloc
    const size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // The smallest cached block that holds the request without wasting more than its size.
      auto it = cached_.lower_bound(rounded);
      if (it != cached_.end() && it->first <= 2 * rounded) {
        void* p = it->second;
        live_[p] = it->first;
        cached_bytes_ -= it->first;
        cached_.erase(it);
        return p;
      }
    }
    void* p = map_aligned(rounded);
    if (!p) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    live_[p] = rounded;
    return p;
  }

  // Whether p came from allocate(); if so it is now cached (or unmapped past kMaxCached).
  bool release(void* p) {
    // Blocks start on 2 MiB boundaries; malloc's pointers almost never do, and those skip the lock.
    if (reinterpret_cast<uintptr_t>(p) % kHugePage != 0) return false;
    size_t size = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = live_.find(p);
      if (it == live_.end()) return false;
      size = it->second;
      live_.erase(it);
      if (cached_bytes_ + size <= kMaxCached) {
        cached_.emplace(size, p);
        cached_bytes_ += size;
        return true;
      }
    }
    ::munmap(p, size);
    return true;
  }

 private:
  // `size` bytes (a multiple of 2 MiB) starting on a 2 MiB boundary, so whole huge pages fit.
  static void* map_aligned(size_t size) {
    const size_t span = size + kHugePage;
    void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto base = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (base + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
    if (aligned > base) ::munmap(raw, aligned - base);
    const uintptr_t end = base + span, used_end = aligned + size;
    if (end > used_end) ::munmap(reinterpret_cast<void*>(used_end), end - used_end);
    void* p = reinterpret_cast<void*>(aligned);
    ::madvise(p, size, MADV_HUGEPAGE);  // a hint: without THP the block still works
    return p;
  }

  std::mutex mutex_;
  // block -> its mapped size
  std::unordered_map<void*, size_t, std::hash<void*>, std::equal_to<void*>,
                     MallocAllocator<std::pair<void* const, size_t>>>
      live_;
  // freed blocks by size
  std::multimap<size_t, void*, std::less<size_t>, MallocAllocator<std::pair<const size_t, void*>>> cached_;
  size_t cached_bytes_ = 0;
};

// Built on first use and never destroyed: operator delete may run after static destructors.
BigBlocks& blocks() {
  static BigBlocks* b = new (std::malloc(sizeof(BigBlocks))) BigBlocks();
  return *b;
}

void* allocate(size_t size) {
  return size >= kMinBlock ? blocks().allocate(size) : std::malloc(size ? size : 1);
}

void deallocate(void* p) {
  if (!p) return;
  if (blocks().release(p)) return;
  std::free(p);
}

}  // namespace

// The replaceable global allocation functions ([new.delete]); aligned forms are left to the
// standard library, as tensors need no more than malloc's alignment.
void* operator new(std::size_t size) {
  if (void* p = allocate(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* p) noexcept { deallocate(p); }
void operator delete[](void* p) noexcept { deallocate(p); }
void operator delete(void* p, std::size_t) noexcept { deallocate(p); }
void operator delete[](void* p, std::size_t) noexcept { deallocate(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { deallocate(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { deallocate(p); }
