# Thin front door over CMake. `make` builds, `make test` runs the suite, `make run` the main job.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build test run clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# check then bench on the default presets: on the GPU when one is present, otherwise on the
# CPU backend (the tool says so in one line).
run: build
	$(BUILD)/fp8attn check
	$(BUILD)/fp8attn bench

clean:
	rm -rf $(BUILD)
