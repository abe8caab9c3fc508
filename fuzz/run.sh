#!/usr/bin/env bash
# Builds every harness with clang's libFuzzer + ASan + UBSan and runs each
# for $1 seconds, seeded from fuzz/corpus/NAME.  Prints executions and
# findings per harness.  Not part of the test run.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
out=build-fuzz
mkdir -p "$out"
# The ONNX importer's protobuf code is generated here from Debian's onnx.proto
# (as CMake does), compiled once without warnings, and linked with -lprotobuf-c.
# fuzz/corpus/onnx/ seeds are written by tests/onnx/make_models.py (ours).
mkdir -p "$out/gen"
protoc-c --c_out="$out/gen" -I/usr/include onnx/onnx.proto
clang -std=c11 -g -O1 -fsanitize=address,undefined -w -I"$out/gen" \
  -c "$out/gen/onnx/onnx.pb-c.c" -o "$out/onnx.pb-c.o"
srcs="$(ls src/*/*.c | grep -v 'src/cli/') $out/onnx.pb-c.o"
flags="-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -D_POSIX_C_SOURCE=200809L -DV10_VERSION=\"fuzz\" -Iinclude -Isrc -Ifuzz -I$out/gen"
for h in fuzz/fuzz_${FUZZ_ONLY:-*}.c; do
  name=$(basename "$h" .c); short=${name#fuzz_}
  # shellcheck disable=SC2086
  clang $flags $srcs "$h" -o "$out/$name" -lcjson -lprotobuf-c -lm -lpthread
  mkdir -p "$out/corpus/$short" "fuzz/crashes/$short"
  cp -n fuzz/corpus/"$short"/* "$out/corpus/$short/" 2>/dev/null || true
  log="$out/$short.log"
  set +e
  "$out/$name" -max_total_time="$secs" -artifact_prefix="fuzz/crashes/$short/" \
    -print_final_stats=1 "$out/corpus/$short" > "$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  found=$(ls "fuzz/crashes/$short" | wc -l)
  rate=$(grep -o 'exec/s: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo '?')
  echo "$short: $runs executions in ${secs}s ($rate exec/s), exit $rc, $found crash files"
done
