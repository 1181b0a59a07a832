# Front door. `make demo` and `make test` install what is missing, build, then run; `make build`
# only builds (no apt). Warnings are errors here (-DWHEELCHECK_WERROR=ON), as in CI; a plain
# `cmake -DCMAKE_BUILD_TYPE=Release` build leaves them warnings.
BUILD        ?= build
JOBS         ?= $(shell nproc)
CMAKE_ARGS   ?=
FUZZ_SECONDS ?= 60
PREFIX       ?= /usr/local

.PHONY: all deps build demo test test-sanitize bench fuzz install clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWHEELCHECK_WERROR=ON $(CMAKE_ARGS)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: deps
	@$(MAKE) --no-print-directory build
	@bash scripts/demo.sh $(BUILD)

test: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (CUDA left out: nvcc and
# the sanitizers do not mix). CI runs it as a second job.
test-sanitize: deps
	cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWHEELCHECK_WERROR=ON -DWHEELCHECK_CUDA=OFF \
	  "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
	  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" $(CMAKE_ARGS)
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# Every libFuzzer target for FUZZ_SECONDS each (clang), seeded by the tests.
fuzz: deps
	@bash scripts/install-deps.sh --fuzz
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DWHEELCHECK_FUZZ=ON -DWHEELCHECK_CUDA=OFF "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined"
	cmake --build build-fuzz -j $(JOBS)
	WHEELCHECK_FUZZ_SEEDS=$(CURDIR)/build-fuzz/seeds build-fuzz/tests/wheelcheck_tests --gtest_filter=FuzzCorpus.Seeds
	bash fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

bench: deps
	@$(MAKE) --no-print-directory build
	bash bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) build-sanitize build-fuzz
