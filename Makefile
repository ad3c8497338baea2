# The two commands a newcomer needs: `make run` and `make test`.
# Both install whatever Debian packages are missing (we run as root), then build.

BUILD_DIR ?= build
JOBS      ?= $(shell nproc)
PACKAGES  := cmake g++ make libeigen3-dev libcli11-dev libfmt-dev nlohmann-json3-dev \
             libgtest-dev libgmock-dev libbenchmark-dev chromium tmux man-db \
             emscripten node-acorn node-ws
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build run test clean goldens difftest web

all: build

# chromium renders the HTML page in the browser tests; tmux drives --step in the terminal test;
# emscripten (with node-acorn for its optimizer) compiles the web page's engine, and node-ws
# lets the web page's test drive chromium through the DevTools protocol.
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

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The web page: one self-contained file, the same engine compiled to WebAssembly.
web: build
	cmake/build_web.sh $(BUILD_DIR)

# Regenerate the PyTorch goldens (needs Debian's python3-torch; see README).
goldens:
	/usr/bin/python3 tests/golden/make_goldens.py

# Compare against PyTorch directly on random configurations (needs python3-torch).
difftest: build
	/usr/bin/python3 tests/golden/difftest.py --binary $(BUILD_DIR)/attn-walk

clean:
	rm -rf $(BUILD_DIR)
