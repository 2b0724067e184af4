# The commands a user types. Every target that needs packages runs scripts/bootstrap.sh first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local

.PHONY: all build bootstrap demo test test-unit test-integration test-asan test-docker test-v2 fuzz bench install clean format

all: build

bootstrap:
	@bash scripts/bootstrap.sh

build:
	@cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# bootstrap strictly before build, also under make -j: the build needs what bootstrap installs.
demo: bootstrap
	@$(MAKE) --no-print-directory build
	@bash scripts/demo.sh $(BUILD)

# All tests, then the unit and runtime tests again under ASan+UBSan, then a short run of every
# fuzz target.
test: bootstrap
	@$(MAKE) --no-print-directory build
	@cd $(BUILD) && ctest --output-on-failure -j 1 --timeout 900
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$${FUZZ_SECONDS:-10}

test-unit: build
	@cd $(BUILD) && ctest --output-on-failure -L unit

test-integration: build
	@cd $(BUILD) && ctest --output-on-failure -L integration

test-asan:
	@cmake -S . -B $(ASAN_BUILD) -DASB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -L unit
	@# The runtime's host side (clone, pool, event loop, cgroups) under the sanitizers too: real
	@# sandboxes, so root only (the tests print their own skip otherwise).
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure \
	  -R 'integration\.test_(runtime_.*|cgroup)$$'

# A real engine for the docker tests; the daemon this target started is stopped however they end.
test-docker: bootstrap
	@$(MAKE) --no-print-directory build
	@bash -c 'trap "bash $(CURDIR)/scripts/docker-setup.sh --stop" EXIT; bash scripts/docker-setup.sh && \
	  cd $(BUILD) && ASB_REQUIRE_DOCKER=1 ctest --output-on-failure -L docker'

# The runtime on a pure cgroup v2 host: a qemu guest (scripts/v2vm/README.md). Not part of `test`:
# building the guest downloads ~600 MB. Timing-bound tests stay out (the guest is emulated).
V2VM_TESTS ?= unit|integration\.test_(runtime_.*|cgroup|cli|idslot|chaos_reap|bench_forge|bench_sandboxes|attest_tamper)$$
test-v2: bootstrap
	@$(MAKE) --no-print-directory build
	@bash scripts/v2vm/build-rootfs.sh
	@bash scripts/v2vm/run.sh -c systemd -t 2400 'cd $(BUILD) && ctest --output-on-failure -R "$(V2VM_TESTS)"'

FUZZ_SECONDS ?= 30
fuzz:
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DASB_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@bash scripts/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: bootstrap
	@$(MAKE) --no-print-directory build
	@bash scripts/bench.sh $(BUILD)

install: build
	@cmake --install $(BUILD)

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	@rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
