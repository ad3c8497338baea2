# The two commands a newcomer needs: `make run` and `make test`.
# Both install whatever Debian packages are missing (we run as root), then build.

BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
PACKAGES  := cmake g++ make libeigen3-dev libcli11-dev libfmt-dev nlohmann-json3-dev \
             libgtest-dev libgmock-dev libbenchmark-dev chromium tmux man-db \
             unicode-data nodejs
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build run test clean goldens text-goldens difftest

all: build

# chromium renders the HTML page in the browser test; tmux drives --step in the terminal test.
# unicode-data: the \p{L}, \p{N} and \s classes of --text's tokenizer, generated at build time.
# nodejs, npm: the tokenizer's differential test runs tiktoken (@dqbd/tiktoken) and
# gpt-3-encoder from tests/node/package-lock.json. Debian's npm only if there is no npm yet
# (a NodeSource nodejs ships its own, and Debian's npm package would conflict with it).
# Install only what is missing, so a set-up machine does not touch the network.
deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq npm
	@[ -d tests/node/node_modules ] || (cd tests/node && npm ci --ignore-scripts --no-audit --no-fund)

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/attn-walk --stage causal --input data/journey.json

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# Regenerate the PyTorch goldens (needs Debian's python3-torch; see README).
goldens:
	/usr/bin/python3 tests/golden/make_goldens.py

# The --text goldens: tiktoken's and gpt-3-encoder's ids (node), embeddings and walks (PyTorch).
text-goldens:
	/usr/bin/python3 tests/golden/make_text_goldens.py

# Compare against PyTorch directly on random configurations (needs python3-torch).
difftest: build
	/usr/bin/python3 tests/golden/difftest.py --binary $(BUILD_DIR)/attn-walk

clean:
	rm -rf $(BUILD_DIR)
