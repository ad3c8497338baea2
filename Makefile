# The two commands a newcomer needs: `make run` and `make test`.
# Both install whatever Debian packages are missing (we run as root), then build.

BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
# fonts-noto-cjk: Noto Sans CJK SC, so that the browser tests' Chinese pages (and their
# screenshots) show characters rather than empty boxes; the page names it in its font stack.
PACKAGES  := cmake g++ make libeigen3-dev libcli11-dev libfmt-dev nlohmann-json3-dev \
             libgtest-dev libgmock-dev libbenchmark-dev chromium tmux man-db \
             emscripten node-acorn node-ws unicode-data nodejs fonts-noto-cjk \
             clang libfuzzer-14-dev libclang-rt-14-dev python3 universal-ctags
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

SAN_DIR      ?= build-sanitize
FUZZ_SECONDS ?= 300
# Under the sanitizers the whole suite runs except the browser tests (minutes of browser time
# on the same HTML the unit tests check); SANITIZE_SKIP=none runs them too.
SANITIZE_SKIP ?= browser_html_chromium|browser_web_page|browser_web_simd
SAN_ENV := ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: all deps build run test clean torch-deps goldens text-goldens difftest bench-deps bench-compare web \
        sanitize sanitize-build fuzz

all: build

# chromium renders the HTML page in the browser tests; tmux drives --step in the terminal test;
# emscripten (with node-acorn for its optimizer) compiles the web page's engine, and node-ws
# lets the web page's test drive chromium through the DevTools protocol.
# unicode-data: the \p{L}, \p{N} and \s classes of --text's tokenizer, generated at build time.
# nodejs, npm: the tokenizer's differential test runs tiktoken (@dqbd/tiktoken) and
# gpt-3-encoder from tests/node/package-lock.json. Debian's npm only if there is no npm yet
# (a NodeSource nodejs ships its own, and Debian's npm package would conflict with it).
# clang, libFuzzer and clang's sanitizer runtimes build `make sanitize` and the fuzzers.
# python3 runs the include-rules test (tests/layers/); universal-ctags finds the functions
# tools/measure_src.py measures (docs/architecture.md).
# Install only what is missing, so a set-up machine does not touch the network.
# $(call install-missing,PACKAGES): apt-get install those not installed yet.
define install-missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

deps:
	$(call install-missing,$(PACKAGES))
	@command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq npm
	@[ -d tests/node/node_modules ] || (cd tests/node && npm ci --ignore-scripts --no-audit --no-fund)

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/attn-walk --stage causal --input data/journey.json

# The whole suite in the ordinary build. The sanitizer build (make sanitize) is a second clang
# build of everything and would double make test's time (about 8 minutes more on 2 cores, against
# the 10 minutes make test may take), so CI (.ci/run) runs it after make test instead.
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# One clang build with -fsanitize=address,undefined and libFuzzer's coverage (fuzz/):
# the unit and CLI tests under the sanitizers, and each fuzzer for 12 s. No unity build here
# (CMakeLists.txt): each of the library's files compiles on its own includes.
$(SAN_DIR)/CMakeCache.txt: | deps
	CXX=clang++ cmake -S . -B $(SAN_DIR) -DCMAKE_BUILD_TYPE=Release -DATTN_WALK_FUZZ=ON -DATTN_WALK_UNITY_BUILD=OFF

sanitize-build: deps $(SAN_DIR)/CMakeCache.txt
	cmake --build $(SAN_DIR) -j $(JOBS)

sanitize: sanitize-build
	cd $(SAN_DIR) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) -E '$(SANITIZE_SKIP)'

# Longer fuzzing on demand: FUZZ_SECONDS per target (default 300); crashing inputs land in
# fuzz/findings/ (then copy them into fuzz/corpus/<target>/ as regression inputs).
fuzz: sanitize-build
	cd $(SAN_DIR) && ATTN_WALK_FUZZ_TIME=$(FUZZ_SECONDS) ATTN_WALK_FUZZ_ARTIFACTS=$(CURDIR)/fuzz/findings \
	  ctest -L fuzz -V

# The web page: one self-contained file, the same engine compiled to WebAssembly.
web: build
	cmake/build_web.sh $(BUILD_DIR)

# The PyTorch the goldens and the differential test come from: Debian's PyTorch 1.13 and the
# OpenBLAS whose kernels attn-walk reproduces (the scripts pick the kernel, tests/golden/torch_env.py).
TORCH_PACKAGES := python3-torch libopenblas0-pthread
torch-deps:
	$(call install-missing,$(TORCH_PACKAGES))

# Regenerate every PyTorch golden the suite reads (see README).
goldens: torch-deps
	/usr/bin/python3 tests/golden/make_goldens.py
	/usr/bin/python3 tests/golden/make_rng_goldens.py
	/usr/bin/python3 tests/golden/make_print_goldens.py
	/usr/bin/python3 tests/golden/make_check_goldens.py
	/usr/bin/python3 tests/golden/make_bonus_goldens.py
	/usr/bin/python3 tests/golden/make_sleef_goldens.py
	/usr/bin/python3 tests/golden/make_softmax_dim_goldens.py
	/usr/bin/python3 tests/golden/make_sgemm_goldens.py
	/usr/bin/python3 tests/golden/make_backward_goldens.py
	/usr/bin/python3 tests/golden/make_backward_primitives.py
	/usr/bin/python3 tests/golden/make_bench_backward_goldens.py
	/usr/bin/python3 tests/golden/make_check_training_goldens.py

# The --text goldens: tiktoken's and gpt-3-encoder's ids (node), embeddings and walks (PyTorch).
text-goldens: deps torch-deps
	/usr/bin/python3 tests/golden/make_text_goldens.py

# Compare against PyTorch directly on random configurations (needs python3-torch).
difftest: build torch-deps
	/usr/bin/python3 tests/golden/difftest.py --binary $(BUILD_DIR)/attn-walk
	/usr/bin/python3 tests/golden/make_check_goldens.py --random 40 --binary $(BUILD_DIR)/attn-walk

# attn-walk against PyTorch at its best and ONNX Runtime (tests/bench/bench_compare.py).
# python3-torch and python3-onnx run and export the chapter's module; tcmalloc and jemalloc are
# the caching allocators PyTorch is measured with; onnxruntime-node is ONNX Runtime's CPU build,
# installed with --ignore-scripts because its install script downloads (its binaries ship in
# the package). npm is the machine's own where it has one, else Debian's.
BENCH_PACKAGES := $(TORCH_PACKAGES) python3-onnx libtcmalloc-minimal4 libjemalloc2 nodejs
ORT_VERSION    := 1.30.0
bench-deps:
	$(call install-missing,$(BENCH_PACKAGES))
	@command -v npm >/dev/null || { $(SUDO) apt-get install -y -qq npm; }
	@[ -d $(BUILD_DIR)/bench-node/node_modules/onnxruntime-node ] || \
	  npm install --prefix $(BUILD_DIR)/bench-node --ignore-scripts --no-audit --no-fund \
	    onnxruntime-node@$(ORT_VERSION)

bench-compare: build bench-deps
	/usr/bin/python3 tests/bench/bench_compare.py --binary $(BUILD_DIR)/attn-walk \
	  --ort $(BUILD_DIR)/bench-node/node_modules

clean:
	rm -rf $(BUILD_DIR) $(SAN_DIR)
