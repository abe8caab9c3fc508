#!/usr/bin/env bash
# The README says what the build does: its sample table is what the main
# job prints, its operator-trace example is what `profile --format csv`
# writes, and its claims about outputs hold (once the table lacked the
# promised columns, the example named operators that do not exist, JSON
# with several policies was called one object, context switches instants,
# and the MPI line missed the flag root needs).
source "$(dirname "$0")/lib.sh"

# The block that follows the line containing $1.
block_after() { awk -v key="$1" 'index($0, key) { found = 1 } found && /^```/ { if (on) exit; on = 1; next }
                                 on' README.md; }

# 1. The sample table: every shown line, in order, is in the output of the
#    main job (the `build/v10sim run ...` of the README's first command line).
main_job=$(grep -m1 '^make deps && make && build/v10sim run ' README.md | sed 's/^make deps && make && build\/v10sim //')
[ -n "$main_job" ]
# shellcheck disable=SC2086 # the README's arguments, split as a shell would
"$bin" $main_job > "$tmp/main.out"
block_after "The main job prints" | grep -v '^\.\.\.$' > "$tmp/sample"
[ "$(wc -l < "$tmp/sample")" -ge 6 ]
python3 - "$tmp/sample" "$tmp/main.out" <<'PY'
import sys
sample = open(sys.argv[1]).read().splitlines()
out = open(sys.argv[2]).read().splitlines()
i = 0
for line in sample:
    while i < len(out) and out[i] != line:
        i += 1
    assert i < len(out), "README sample line not in the output (in order): %r" % line
for col in ["thru_rps", "lat_p50_us", "lat_p99_us", "slo"]:
    assert col in sample[2].split(), col
PY

# 2. The operator-trace example is the start of what profile writes.
block_after "reproduces every operator's cycles" > "$tmp/trace_example"
"$bin" profile resnet50 --format csv > "$tmp/profile.csv" # whole: head would cut the pipe
head -n "$(wc -l < "$tmp/trace_example")" "$tmp/profile.csv" > "$tmp/trace_real"
diff "$tmp/trace_example" "$tmp/trace_real"

# 3. Several policies in JSON: an array, as the README says.
"$bin" run --tenant mnist --tenant ncf --policy pmt,v10-full --requests 3 --format json |
  python3 -c 'import json,sys; r=json.load(sys.stdin); assert isinstance(r, list) and len(r) == 2'
grep -q "with several policies, an array" README.md

# 4. Context switches are slices in the trace, and the README says so.
"$bin" run --tenant resnet50 --tenant mnist --policy pmt --requests 3 --trace "$tmp/t.json" > /dev/null
python3 -c 'import json,sys; ev=json.load(open(sys.argv[1]))["traceEvents"]
sw=[e for e in ev if e.get("cat") == "switch"]
assert sw and all(e["ph"] == "X" and e["dur"] > 0 for e in sw)' "$tmp/t.json"
grep -q "context switches as slices" README.md
if grep -q "instant events for preemptions and context switches" README.md; then exit 1; fi

# 5. Running Open MPI as root needs --allow-run-as-root: said beside the MPI line.
grep -A3 'mpirun -np K --hostfile hosts' README.md | grep -q -- '--allow-run-as-root'
echo ok
