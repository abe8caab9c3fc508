#!/usr/bin/env bash
# Builds every harness with clang's libFuzzer + ASan + UBSan and runs each
# for $1 seconds (FUZZ_JOBS at a time, default 2), seeded from
# fuzz/corpus/NAME (and fuzz/NAME.dict if present).  Prints executions,
# exec/s and findings per harness.  Not part of the test run.
# Usage: fuzz/run.sh [SECONDS] [NAME...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
jobs=${FUZZ_JOBS:-2}
out=build-fuzz
mkdir -p "$out"
srcs=$(ls src/*/*.c | grep -v 'src/cli/')
# The ONNX importer's protobuf code is generated here from Debian's onnx.proto
# (as CMake does), compiled once without warnings, and linked with -lprotobuf-c.
# fuzz/corpus/onnx/ seeds are written by tests/onnx/make_models.py (ours).
mkdir -p "$out/gen"
protoc-c --c_out="$out/gen" -I/usr/include onnx/onnx.proto
clang -std=c11 -g -O1 -fsanitize=address,undefined -fsanitize=fuzzer-no-link -w -I"$out/gen" \
  -c "$out/gen/onnx/onnx.pb-c.c" -o "$out/onnx.pb-c.o"
flags="-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -D_POSIX_C_SOURCE=200809L -DV10_VERSION=\"fuzz\" -DV10_SOURCE_DIR=\"$PWD\"
       -Iinclude -Isrc -Ifuzz -I$out/gen"
if [ $# -gt 0 ]; then names="$*"; else
  names=$(for h in fuzz/fuzz_*.c; do n=$(basename "$h" .c); echo "${n#fuzz_}"; done)
fi
# The reference data the binary carries (data/tpu-profiles), embedded as CMake does.
objs="$out/onnx.pb-c.o"
for pair in "utilization.csv v10_isca23_utilization_csv" "op_lengths.csv v10_isca23_op_lengths_csv"; do
  set -- $pair
  cmake -DIN="data/tpu-profiles/$1" -DOUT="$out/gen/$2.c" -DNAME="$2" -P cmake/embed.cmake
  clang -std=c11 -g -O1 -c "$out/gen/$2.c" -o "$out/$2.o"
  objs="$objs $out/$2.o"
done
# Build the library objects once, then link each harness.
mkdir -p "$out/obj"
for s in $srcs; do
  o="$out/obj/$(echo "$s" | tr / _).o"
  # shellcheck disable=SC2086
  [ "$o" -nt "$s" ] || clang $flags -fsanitize=fuzzer-no-link -c "$s" -o "$o" 2>/dev/null ||
    clang $flags -c "$s" -o "$o"
  objs="$objs $o"
done
for short in $names; do
  # shellcheck disable=SC2086
  clang $flags $objs "fuzz/fuzz_$short.c" -o "$out/fuzz_$short" -lcjson -lprotobuf-c -lz -lm -lpthread
  mkdir -p "$out/corpus/$short" "fuzz/crashes/$short"
  cp -n fuzz/corpus/"$short"/* "$out/corpus/$short/" 2>/dev/null || true
done
one() {
  short=$1; secs=$2; out=$3
  log="$out/$short.log"
  dict=""
  [ -f "fuzz/$short.dict" ] && dict="-dict=fuzz/$short.dict"
  set +e
  # shellcheck disable=SC2086
  "$out/fuzz_$short" -max_total_time="$secs" -artifact_prefix="fuzz/crashes/$short/" \
    -print_final_stats=1 -rss_limit_mb=2048 -timeout=20 $dict "$out/corpus/$short" > "$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  found=$(ls "fuzz/crashes/$short" | wc -l)
  echo "$short: $runs executions in ${secs}s ($rate exec/s), exit $rc, $found crash files"
}
export -f one
# shellcheck disable=SC2086
printf '%s\n' $names | xargs -P "$jobs" -I{} bash -c 'one {} '"$secs $out"
