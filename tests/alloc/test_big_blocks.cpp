// The executable's allocator (src/alloc/big_blocks.cpp), linked into this test binary as it
// is into attn-walk: its operator new and delete replace the standard ones here too, which is
// why this test is a program of its own (tests/CMakeLists.txt), built without the sanitizers,
// whose malloc would not lay out the heap as the first test needs.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace {

constexpr uintptr_t kTwoMiB = uintptr_t{2} << 20;
constexpr size_t kBlock = size_t{4} << 20;  // served by the allocator's own 2 MiB-aligned mappings

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// Arranges for glibc's next malloc(24) (a node of the allocator's table of live blocks: a
// next pointer, the block and its size) to return a pointer on a 2 MiB boundary. Returns that
// address, freed again so that it is the first in its cache bin, or 0. `keep` holds the
// chunks allocated on the way; it must have room for all of them already.
uintptr_t two_mib_aligned_small_chunk(std::vector<void*>& keep) {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);                             // the fillers below from the heap, not from mmap
  for (int i = 0; i < 2000; ++i) keep.push_back(std::malloc(24));  // use up the freed chunks of this size
  for (int attempt = 0; attempt < 8; ++attempt) {
    void* p = std::malloc(24);
    const uintptr_t at = address(p);
    if (at % kTwoMiB == 0) {
      std::free(p);
      return at;
    }
    keep.push_back(p);
    // The next chunk from the heap's top starts 32 bytes after p's; a filler of `chunk`
    // bytes in front of it puts the one after on the boundary.
    const uintptr_t next = address(p) + 32;
    uintptr_t chunk = (kTwoMiB - next % kTwoMiB) % kTwoMiB;
    if (chunk < 32) chunk += kTwoMiB;
    keep.push_back(std::malloc(chunk - 8));  // a request of n bytes takes a chunk of n + 8
  }
  return 0;
}

}  // namespace

// The allocator inserts and erases its table's nodes with its mutex held. When those nodes
// came from operator new, freeing a block whose node started on a 2 MiB boundary (which is
// how the allocator tells its own blocks from malloc's) went back into the allocator and
// waited on its own mutex: the process hung. The alarm turns a hang into a failure.
TEST(BigBlocks, FreeingABlockWhoseTableNodeStartsOnATwoMiBBoundaryReturns) {
  alarm(20);
  // One block allocated and freed: the table has its buckets, and the block is cached.
  ::operator delete(::operator new(kBlock));
  std::vector<void*> keep;
  keep.reserve(4096);
  const uintptr_t aligned = two_mib_aligned_small_chunk(keep);
  ASSERT_NE(aligned, 0u) << "glibc's heap did not give a 2 MiB-aligned chunk of 24 bytes";

  void* block = ::operator new(kBlock);  // the cached block again; its table node is `aligned`
  EXPECT_EQ(address(block) % kTwoMiB, 0u);
  ::operator delete(block);  // erases that node: the old allocator hung here

  // The node really was there: freed again, it is the first chunk malloc(24) hands out.
  void* again = std::malloc(24);
  EXPECT_EQ(address(again), aligned) << "the block's table node was elsewhere; the test did not test";
  std::free(again);
  alarm(0);
  for (void* p : keep) std::free(p);
}

// The allocator's own job: big blocks on 2 MiB boundaries, reused once freed, and small
// requests left to malloc.
TEST(BigBlocks, BigBlocksAreTwoMiBAlignedAndReused) {
  void* a = ::operator new(kBlock);
  EXPECT_EQ(address(a) % kTwoMiB, 0u);
  static_cast<char*>(a)[kBlock - 1] = 1;  // all of it is usable
  ::operator delete(a);
  void* b = ::operator new(kBlock - 100);  // fits the cached block
  EXPECT_EQ(b, a);
  ::operator delete(b);
  void* small = ::operator new(100);
  EXPECT_NE(address(small) % kTwoMiB, 0u);
  ::operator delete(small);
}
