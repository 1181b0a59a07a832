# Front door. `make demo` and `make test` install what is missing, build, then run.
BUILD    ?= build
JOBS     ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps build demo test bench clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@rm -rf $(BUILD)/demo && mkdir -p $(BUILD)/demo
	@cc -shared -fPIC -O2 -o $(BUILD)/demo/libdemo.so tools/demo_native.c
	@nvcc=$$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); gpu=""; \
	  if [ -x "$$nvcc" ] && "$$nvcc" -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 \
	       -gencode arch=compute_90,code=[sm_90,compute_90] tools/demo_kernel.cu -o $(BUILD)/demo/libdemo_gpu.so; then \
	    gpu="--gpu-so $(BUILD)/demo/libdemo_gpu.so"; else echo "(no nvcc: the GPU samples are left out)"; fi; \
	  $(BUILD)/tools/make-sample-wheelhouse $(BUILD)/demo/wheelhouse --so $(BUILD)/demo/libdemo.so $$gpu
	@echo
	@echo "== wheelcheck check $(BUILD)/demo/wheelhouse (exit 1 is expected: the broken samples fail) =="
	@$(BUILD)/wheelcheck check $(BUILD)/demo/wheelhouse --report json:$(BUILD)/demo/report.json; \
	  rc=$$?; echo; echo "exit code $$rc; JSON report in $(BUILD)/demo/report.json"; \
	  [ $$rc -eq 1 ]

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	bash bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
