# Thin wrapper over CMake.  `make` builds build/v10sim; `make test` builds and
# runs every test twice: a strict-warnings build and an ASan+UBSan build (the
# test executables, fuzz replays and v10sim-mpi build under the `tests`
# target, the benchmarks under `benches`: CMakeLists.txt).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all release asan test test-release test-asan bench clean deps docs-deps fuzz valgrind install

all: release

# The release build is profile-guided (docs/benchmarks.md, "Profile-guided
# build"): an instrumented v10sim in build-pgo/ runs tools/pgo-train.sh
# (again only when it was rebuilt), and build/ compiles with its counts.
# PGO=0 builds without them: one build instead of two while editing.
PGO ?= 1
PGO_DIR := $(CURDIR)/build-pgo/counts

release:
ifeq ($(PGO),1)
	@cmake -S . -B build-pgo -DCMAKE_BUILD_TYPE=RelWithDebInfo -DV10_WERROR=ON \
	  -DV10_PGO=generate -DV10_PGO_DIR=$(PGO_DIR) >/dev/null
	@cmake --build build-pgo -j $(JOBS) --target v10sim
	@if [ ! $(PGO_DIR)/trained.stamp -nt build-pgo/v10sim ]; then \
	  echo "pgo: training (tools/pgo-train.sh)"; rm -rf $(PGO_DIR) && \
	  sh tools/pgo-train.sh build-pgo/v10sim && mkdir -p $(PGO_DIR) && \
	  touch $(PGO_DIR)/trained.stamp; fi
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DV10_WERROR=ON \
	  -DV10_PGO=use -DV10_PGO_DIR=$(PGO_DIR) >/dev/null
else
	@cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DV10_WERROR=ON -DV10_PGO=OFF >/dev/null
endif
	@cmake --build build -j $(JOBS)

# The sanitizer build is for the tests: it builds them too.
asan:
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DV10_SANITIZE=ON -DV10_WERROR=ON >/dev/null
	@cmake --build build-asan -j $(JOBS) --target all tests

test-release: release
	@cmake --build build -j $(JOBS) --target tests
	cd build && ctest --output-on-failure -j $(JOBS)

test-asan: asan
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

test: test-release test-asan

bench: release
	@cmake --build build -j $(JOBS) --target benches
	bash bench/run.sh

# libFuzzer on every parser, FUZZ_SECONDS each (default 60); new corpus
# entries stay in build-fuzz/, crashes land in fuzz/crashes/NAME/ (commit them).
FUZZ_SECONDS ?= 60
fuzz:
	bash fuzz/run.sh $(FUZZ_SECONDS)

valgrind: release
	bash tests/valgrind.sh

# make install PREFIX=DIR: the CLI, libv10sim.so, its headers, a pkg-config
# file and the Python package (docs/python.md).
PREFIX ?= /usr/local
install: release
	cmake --install build --prefix "$(PREFIX)"

# Installs the Debian packages the build and tests need (run as root).
deps:
	apt-get update
	apt-get install -y cmake gcc make libcjson-dev libcmocka-dev libopenmpi-dev openmpi-bin \
	  libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata python3-onnx zlib1g-dev \
	  libsqlite3-dev libgsl-dev libcsv-dev pkgconf python3-pip python3-pytest python3-pandas chromium

# Optional: what the docs' examples use beyond the build (docs/sweep.md's pandas).
docs-deps:
	apt-get install -y python3-pandas

clean:
	rm -rf build build-asan build-pgo
