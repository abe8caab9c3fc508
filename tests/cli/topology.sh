#!/usr/bin/env bash
# topology.sh — `v10sim topology` on the shared ResNet-50 topology in all three
# formats, plus bad-input (exit 1) and bad-flag (exit 2) cases.
# Usage: topology.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"

shared=${V10_SHARED:-tests/data/shared}
csv=$shared/data/topologies/Resnet50.csv


# table: header, rule, 54 layers, rule, total
"$bin" topology "$csv" >"$tmp/out.txt"
grep -q '^total' "$tmp/out.txt" || fail "table has no total row"
grep -q '^Conv1 ' "$tmp/out.txt" || fail "table lacks Conv1"
grep -q '^FC6 ' "$tmp/out.txt" || fail "table lacks FC6"

# csv: header + 54 layers + total; Conv1 = SCALE-Sim's 24963 + 1
"$bin" topology "$csv" --array 128x128 --dataflow ws --format csv >"$tmp/out.csv"
lines=$(wc -l <"$tmp/out.csv")
[ "$lines" -eq 56 ] || fail "csv has $lines lines, expected 56"
head -n1 "$tmp/out.csv" | grep -qx 'layer,M,N,K,macs,folds,cycles,util' || fail "csv header"
grep -q '^Conv1,12100,64,147,113836800,2,24964,' "$tmp/out.csv" || fail "csv Conv1 row"
tail -n1 "$tmp/out.csv" | grep -q '^total,' || fail "csv last row is not the total"

# json parses and has the documented shape
"$bin" topology "$csv" --format json >"$tmp/out.json"
python3 -c 'import json,sys; json.load(sys.stdin)' <"$tmp/out.json" || fail "json does not parse"
python3 - "$tmp/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["array"] == {"rows": 128, "cols": 128}, d["array"]
assert d["dataflow"] == "ws" and d["mode"] == "scalesim"
assert len(d["layers"]) == 54, len(d["layers"])
assert d["totals"]["cycles"] == sum(l["cycles"] for l in d["layers"])
assert d["totals"]["macs"] == sum(l["macs"] for l in d["layers"])
PY

# other dataflows and TPU mode run; TPU never slower
for df in os is; do
    "$bin" topology "$csv" --dataflow "$df" --format csv >/dev/null || fail "dataflow $df"
done
s=$("$bin" topology "$csv" --format csv | tail -n1 | cut -d, -f7)
t=$("$bin" topology "$csv" --mode tpu --format csv | tail -n1 | cut -d, -f7)
[ "$t" -le "$s" ] || fail "tpu total $t > scalesim total $s"

# --help goes to stdout, exit 0
"$bin" topology --help | grep -q 'usage: v10sim topology' || fail "--help"

# bad input: exit 1, file name (and line) on stderr
bad=tests/data/topology/filter_big.csv
set +e
"$bin" topology "$bad" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "bad file exit $rc, expected 1"
grep -q "filter_big.csv:3:" "$tmp/err" || fail "stderr lacks file:line: $(cat "$tmp/err")"
set +e
"$bin" topology "$tmp/no_such.csv" >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ "$rc" -eq 1 ] || fail "missing file exit $rc, expected 1"
grep -q "no_such.csv" "$tmp/err" || fail "stderr lacks the missing file's name"

# bad flags: exit 2
for args in "--bogus" "--array 0x128" "--array 12" "--dataflow xy" "--format xml" \
            "--gemm --conv" "--mode fast" ""; do
    set +e
    # shellcheck disable=SC2086
    "$bin" topology $args "$csv" >/dev/null 2>&1; rc=$?
    set -e
    if [ -z "$args" ]; then
        [ "$rc" -eq 0 ] || fail "plain run exit $rc"
    else
        [ "$rc" -eq 2 ] || fail "'$args' exit $rc, expected 2"
    fi
done
set +e
"$bin" topology >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "missing FILE exit $rc, expected 2"
set +e
"$bin" topology "$csv" --array >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--array without value exit $rc, expected 2"

echo "cli topology: ok"
