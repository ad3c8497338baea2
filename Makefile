# The two commands a newcomer needs: `make run` and `make test`.
# Both install whatever Debian packages are missing (we run as root), then build.

BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
# fonts-noto-cjk: Noto Sans CJK SC, so that the browser tests' Chinese pages (and their
# screenshots) show characters rather than empty boxes; the page names it in its font stack.
PACKAGES  := cmake g++ make libeigen3-dev libcli11-dev libfmt-dev nlohmann-json3-dev \
             libgtest-dev libgmock-dev libbenchmark-dev chromium tmux man-db \
             emscripten node-acorn node-ws unicode-data nodejs fonts-noto-cjk \
             clang libfuzzer-14-dev libclang-rt-14-dev python3 universal-ctags clang-format \
             python3-nbclient python3-ipykernel python3-nbformat
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

SAN_DIR      ?= build-sanitize
FUZZ_SECONDS ?= 300
# Under the sanitizers the whole suite runs except the browser tests (minutes of browser time
# on the same HTML the unit tests check); SANITIZE_SKIP=none runs them too. browser_web_backward
# runs: it compares the page with the sanitized CLI. (It was skipped once for failing here; the
# cause was a stale object in build-sanitize/wasm, compiled while a merge changed a header it
# includes: src/modules/train.h's TrainChoices gained a field, the object kept the old layout and
# read the new flag from beyond it. A build that runs while sources change can keep such objects;
# `rm -rf build-sanitize/wasm` rebuilds the page. Nothing in the sanitizer build itself.)
SANITIZE_SKIP ?= browser_html_chromium|browser_web_page|browser_web_simd|browser_web_tour|browser_web_gpt
SAN_ENV := ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1:abort_on_error=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: all deps build run test clean torch-deps goldens text-goldens difftest bench-deps bench-compare web \
        sanitize sanitize-build fuzz docs format check-format aarch64-deps test-aarch64

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
# tools/measure_src.py measures (docs/architecture.md). clang-format (Debian's 14): make format,
# make check-format and the ctest format_check, which fails on a file it would change (.clang-format).
# python3-nbclient, python3-ipykernel, python3-nbformat: the notebook tests (tests/notebook/)
# execute learners' notebooks that `import attn_walk` in a real Jupyter kernel.
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

# The option lists of the man page (synopsis, OPTIONS), the README (usage, options table), the
# bash, fish and zsh completions and docs/json-schema.md (the option behind each config key),
# written from the options' declarations (src/cli/docs.h), and docs/architecture.md's picture of the layers, printed from tests/layers/check_layers.py.
# tests/test_docs.cpp and layers_picture_in_docs fail until they are rewritten after a change.
docs: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) --target make_docs -j $(JOBS)
	./$(BUILD_DIR)/make_docs .
	python3 tests/layers/check_layers.py --picture-into docs/architecture.md

# clang-format with the house's .clang-format: FORMAT_FILES (default the C++ files git tracks
# under src/, tests/, tools/ and fuzz/; every such file there outside a checkout) rewritten in
# place, or checked by tests/format/check_format.sh (exit 1 naming each file that would change;
# the ctest format_check runs it too). Give FORMAT_FILES="$$(git diff --name-only main -- '*.cpp' '*.h')"
# to format your own.
FORMAT_DIRS  := src tests tools fuzz
FORMAT_FILES ?= $(shell git ls-files -- $(foreach d,$(FORMAT_DIRS),'$(d)/*.cpp' '$(d)/*.h') 2>/dev/null || \
                  find $(FORMAT_DIRS) \( -name '*.cpp' -o -name '*.h' \) -not -path '*/node_modules/*')
format:
	$(call install-missing,clang-format)
	clang-format -i --style=file $(FORMAT_FILES)

check-format:
	$(call install-missing,clang-format)
	tests/format/check_format.sh . $(FORMAT_FILES)

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
	/usr/bin/python3 tests/golden/make_learner_notebook_goldens.py
	/usr/bin/python3 tests/golden/make_bonus_goldens.py
	/usr/bin/python3 tests/golden/make_sleef_goldens.py
	/usr/bin/python3 tests/golden/make_softmax_dim_goldens.py
	/usr/bin/python3 tests/golden/make_sgemm_goldens.py
	/usr/bin/python3 tests/golden/make_haswell_fast_goldens.py
	/usr/bin/python3 tests/golden/make_backward_goldens.py
	/usr/bin/python3 tests/golden/make_backward_primitives.py
	/usr/bin/python3 tests/golden/make_bench_backward_goldens.py
	/usr/bin/python3 tests/golden/make_check_training_goldens.py
	/usr/bin/python3 tests/golden/make_gpt_models.py
	/usr/bin/python3 tests/golden/make_gpt_goldens.py
	/usr/bin/python3 tests/golden/make_gpt_multi_head_goldens.py
	/usr/bin/python3 tests/golden/make_learner_gpt_goldens.py

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
# the package). npm is the machine's own where it has one, else Debian's. GNU time (/usr/bin/time,
# not in every Debian image) reads each peer's own peak RSS: a child's wait4 figure would carry
# the script's over exec.
BENCH_PACKAGES := $(TORCH_PACKAGES) python3-onnx libtcmalloc-minimal4 libjemalloc2 nodejs time
ORT_VERSION    := 1.30.0
bench-deps:
	$(call install-missing,$(BENCH_PACKAGES))
	@command -v npm >/dev/null || { $(SUDO) apt-get install -y -qq npm; }
	@[ -d $(BUILD_DIR)/bench-node/node_modules/onnxruntime-node ] || \
	  npm install --prefix $(BUILD_DIR)/bench-node --ignore-scripts --no-audit --no-fund \
	    onnxruntime-node@$(ORT_VERSION)

# The GPT rows (bench_compare_gpt.py): the whole GPTModel forward against PyTorch's, and the 20-token
# --stage gpt walk against PyTorch loading the same file; its GPT-2-small-shaped model (random weights,
# about 700 MB) is made by PyTorch into $(BUILD_DIR) on the first run and never committed.
bench-compare: build bench-deps
	/usr/bin/python3 tests/bench/bench_compare.py --binary $(BUILD_DIR)/attn-walk \
	  --ort $(BUILD_DIR)/bench-node/node_modules
	/usr/bin/python3 tests/bench/bench_compare_gpt.py --binary $(BUILD_DIR)/attn-walk \
	  --model $(BUILD_DIR)/gpt2-small-random.safetensors

# aarch64 (Apple silicon under Linux, Graviton, Raspberry Pi): the whole suite cross-compiled with
# Debian's g++-aarch64-linux-gnu against the :arm64 libraries, each test run under qemu-user
# (cmake/aarch64-linux-gnu.cmake; CMake runs the tests and the build-time table generator through
# qemu-aarch64). The browser, notebook, node and tmux tests drive the x86 tools around the binary
# and are left out. Slow (each test starts qemu; the gtest suite in one process took 15 minutes on
# 2 loaded cores), so not part of CI; docs/performance.md
# records its last run.
ARM_DIR          ?= build-aarch64
AARCH64_PACKAGES := g++-aarch64-linux-gnu qemu-user libfmt-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
AARCH64_SKIP     ?= browser|page_|tokenizer_difftest|terminal_step|notebook

aarch64-deps:
	@dpkg --print-foreign-architectures | grep -qx arm64 || { $(SUDO) dpkg --add-architecture arm64 && $(SUDO) apt-get update -qq; }
	$(call install-missing,$(AARCH64_PACKAGES))

$(ARM_DIR)/CMakeCache.txt: | deps aarch64-deps
	cmake -S . -B $(ARM_DIR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake

test-aarch64: deps aarch64-deps $(ARM_DIR)/CMakeCache.txt
	cmake --build $(ARM_DIR) -j $(JOBS)
	cd $(ARM_DIR) && ctest --output-on-failure -j $(JOBS) -E '$(AARCH64_SKIP)'

clean:
	rm -rf $(BUILD_DIR) $(SAN_DIR) $(ARM_DIR)
