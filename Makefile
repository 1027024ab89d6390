# Thin wrapper over CMake. `make demo` and `make test` install what is missing first.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: deps configure build demo test bench fuzz clean

deps:
	@tools/setup-deps

configure: deps
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DGSTACK_WITH_MPI=ON >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@tools/demo $(BUILD)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: build
	@cmake --build $(BUILD) --target benchmarks -j $(JOBS)
	@tools/run-bench $(BUILD)

# Every libFuzzer target under ASan+UBSan for FUZZ_SECONDS each (tests/fuzz/run-fuzz.sh, docs/testing.md).
FUZZ_SECONDS ?= 600
fuzz:
	@tests/fuzz/run-fuzz.sh all $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
