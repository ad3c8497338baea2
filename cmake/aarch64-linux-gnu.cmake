# Cross-compiling for aarch64 Linux (make test-aarch64): Debian's g++-aarch64-linux-gnu and the
# :arm64 libraries, the binaries run under qemu-user (CMake runs tests and build-time tools
# through CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# The loader and libc at run time come from the :arm64 packages (libc6:arm64, which the :arm64
# libraries above pull in), under `-L /`. Not from the cross toolchain's /usr/aarch64-linux-gnu:
# its ld.so (libc6-arm64-cross) is another build of glibc than the :arm64 libc.so.6 the libraries
# resolve to, and the two disagree on glibc's private layout; there the first pthread_create loops
# for ever in the thread-stack cache (every stage that starts a worker thread hung under qemu).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/)
