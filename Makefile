# Thin front door over CMake. `make` builds, `make test` runs the suite, `make run` the main job.
# Each first runs scripts/deps.sh, which installs what is missing (silent when nothing is).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

# The CUDA toolkit's usual home, for machines where nvcc is not on PATH.
ifeq ($(shell command -v nvcc 2>/dev/null),)
export PATH := $(PATH):/usr/local/cuda/bin
endif

.PHONY: all deps build test run clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
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
