# The two commands a newcomer needs: `make run` and `make test`.
# Both install whatever Debian packages are missing (we run as root), then build.

BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
PACKAGES  := cmake g++ make libeigen3-dev libcli11-dev libfmt-dev nlohmann-json3-dev \
             libgtest-dev libgmock-dev libbenchmark-dev chromium tmux man-db \
             clang libfuzzer-14-dev libclang-rt-14-dev
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

SAN_DIR      ?= build-sanitize
FUZZ_SECONDS ?= 300
# Under the sanitizers the whole suite runs except the chromium test (about a minute of
# browser time on the same HTML the unit tests check); SANITIZE_SKIP=none runs it too.
SANITIZE_SKIP ?= browser_html_chromium
SAN_ENV := ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: all deps build run test clean goldens difftest sanitize sanitize-build fuzz

all: build

# chromium renders the HTML page in the browser test; tmux drives --step in the terminal test;
# clang, libFuzzer and clang's sanitizer runtimes build `make sanitize` and the fuzzers.
# Install only what is missing, so a set-up machine does not touch the network.
deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/attn-walk --stage causal --input data/journey.json

# The whole suite, then the sanitizer build's unit, CLI and fuzz tests (make sanitize).
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) sanitize

# One clang build with -fsanitize=address,undefined and libFuzzer's coverage (fuzz/):
# the unit and CLI tests under the sanitizers, and each fuzzer for 12 s.
$(SAN_DIR)/CMakeCache.txt: | deps
	CXX=clang++ cmake -S . -B $(SAN_DIR) -DCMAKE_BUILD_TYPE=Release -DATTN_WALK_FUZZ=ON

sanitize-build: deps $(SAN_DIR)/CMakeCache.txt
	cmake --build $(SAN_DIR) -j $(JOBS)

sanitize: sanitize-build
	cd $(SAN_DIR) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) -E '$(SANITIZE_SKIP)'

# Longer fuzzing on demand: FUZZ_SECONDS per target (default 300); crashing inputs land in
# fuzz/findings/ (then copy them into fuzz/corpus/<target>/ as regression inputs).
fuzz: sanitize-build
	cd $(SAN_DIR) && ATTN_WALK_FUZZ_TIME=$(FUZZ_SECONDS) ATTN_WALK_FUZZ_ARTIFACTS=$(CURDIR)/fuzz/findings \
	  ctest -L fuzz -V

# Regenerate the PyTorch goldens (needs Debian's python3-torch; see README).
goldens:
	/usr/bin/python3 tests/golden/make_goldens.py

# Compare against PyTorch directly on random configurations (needs python3-torch).
difftest: build
	/usr/bin/python3 tests/golden/difftest.py --binary $(BUILD_DIR)/attn-walk

clean:
	rm -rf $(BUILD_DIR) $(SAN_DIR)
