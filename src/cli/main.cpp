// attn-walk: parse, run, and map errors to exit codes (0 ok, 1 bad data, 2 misuse).
#include <malloc.h>

#include <exception>
#include <iostream>

#include "cli/cli.h"
#include "input/embeddings.h"
#include "core/output.h"

int main(int argc, char** argv) {
  // Walks at GPT-2 size create and drop many tensors of several MB. Keep freed memory in
  // the heap for reuse instead of returning it to the kernel, which zeroes every page again
  // (32 MiB is the largest mmap threshold glibc accepts).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  try {
    return attn::run_cli(argc, argv);
  } catch (const attn::UsageError& e) {
    std::cerr << "attn-walk: error: " << e.what() << "\nRun 'attn-walk --help' for usage.\n";
    return 2;
  } catch (const attn::InputError& e) {
    std::cerr << "attn-walk: error: " << e.what() << "\n";
    return 1;
  } catch (const attn::OutputError& e) {
    std::cerr << "attn-walk: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "attn-walk: error: out of memory (the input or the sizes chosen are too large)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "attn-walk: internal error: " << e.what() << "\n";
    return 4;  // 3 is check's "some tensor differs"
  }
}
