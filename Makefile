# Front door. `make demo` and `make test` install what is missing, build, then run; `make build`
# only builds (no apt). Warnings are errors here (-DWHEELCHECK_WERROR=ON), as in CI; a plain
# `cmake -DCMAKE_BUILD_TYPE=Release` build leaves them warnings.
BUILD        ?= build
JOBS         ?= $(shell nproc)
CMAKE_ARGS   ?=
FUZZ_SECONDS ?= 60
PREFIX       ?= /usr/local

.PHONY: all deps build demo test test-large test-crosscheck test-torch test-sanitize bench fuzz install clean

all: build

deps:
	@bash scripts/install-deps.sh

# Configured once; after that the build regenerates itself when a CMakeLists.txt changes.
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWHEELCHECK_WERROR=ON $(CMAKE_ARGS)

build: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# Only what the demo runs (the checker and the sample builder), not the test suite.
demo: deps
	@$(MAKE) --no-print-directory $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target wheelcheck make-sample-wheelhouse
	@bash scripts/demo.sh $(BUILD)

# The default suite (minutes), then the packaging suite (pip builds the whole project into a wheel:
# about five minutes more on 2 cores). docs/development.md lists where the time goes.
test: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE "large|torch|crosscheck|packaging"
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L packaging

# The opt-in real wheels over ~50 MB (torch, NVIDIA's CUDA wheels; downloaded into a cache once).
test-large: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -L large

# PEP 740 verdicts against pypi-attestations, installed from PyPI into a cached venv.
test-crosscheck: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -L crosscheck

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (CUDA left out: nvcc and
# the sanitizers do not mix). CI runs it as a second job. The configurations are CMakePresets.json's.
test-sanitize: deps
	cmake --preset sanitize $(CMAKE_ARGS)
	cmake --build build-sanitize -j $(JOBS)
	ctest --preset sanitize -j $(JOBS)

# Every libFuzzer target for FUZZ_SECONDS each (clang), seeded by the tests; then the installer
# differential harness (wheelcheck against zipfile + installer and libarchive) as long.
fuzz: deps
	@bash scripts/install-deps.sh --fuzz
	cmake --preset fuzz
	cmake --build build-fuzz -j $(JOBS)
	WHEELCHECK_FUZZ_SEEDS=$(CURDIR)/build-fuzz/seeds build-fuzz/tests/wheelcheck_tests --gtest_filter=FuzzCorpus.Seeds
	bash fuzz/run.sh build-fuzz $(FUZZ_SECONDS)
	WHEELCHECK_DIFF_SECONDS=$(FUZZ_SECONDS) build-fuzz/tests/wheelcheck_tests --gtest_filter='InstallerDifferential.*'

# The dtensor_view model against real PyTorch (the pinned torch in a cached venv; CPU is enough).
test-torch: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && WHEELCHECK_TORCH_PYTHON=$$(bash $(CURDIR)/tools/torch_venv.sh) ctest --output-on-failure -L torch

bench: deps
	@$(MAKE) --no-print-directory build
	bash bench/run.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) build-sanitize build-fuzz
