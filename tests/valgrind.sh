#!/usr/bin/env bash
# `make valgrind`: representative commands under memcheck -- run (every
# policy, trace output), sweep (threads, resume of a partial store), fleet
# (services file), npu, models, profile, topology, and error paths (bad
# input, unwritable output, /dev/full); any error or any leaked byte fails.
# Not part of the test run (it takes a minute or two).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/v10sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vg() {
  echo "== v10sim $*"
  valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
    --errors-for-leak-kinds=all "$bin" "$@" > /dev/null
}
vg --help
vg npu --npu configs/isca23-64mib.json --format json
vg models --format json
vg profile resnet50 --format csv
vg topology tests/data/shared/data/topologies/Resnet50.csv --format json
vg run --tenant bert --tenant ncf --policy v10-full --requests 4 --trace "$tmp/t.json" --check
vg run --tenant resnet50:batch=8 --tenant dlrm --policy all --requests 3 --format csv
vg run --tenant tests/data/engine/sa_vu.csv:rate=20000 --tenant mnist --policy prema --requests 5
vg run --tenant mnist:priority=2 --tenant ncf --tenant tests/data/engine/membound.csv --policy pmt,spatial,v10-base,v10-fair,fcfs --requests 3 --format json
vg run --tenant vit:batch=2 --policy solo --requests 2 --trace "$tmp/solo.json"
# Sweep: threads, then a resume of a store that lost all but 5 rows.
cat > "$tmp/s.json" <<'JSON'
{"name": "vg", "axes": {"policy": ["fcfs", "v10-full"], "seed": [1, 2],
 "npu.vmem_bytes": [16777216, 33554432]},
 "fixed": {"mix": ["tests/data/engine/sa_vu.csv", "mnist:batch=4"], "requests": 3}}
JSON
vg sweep "$tmp/s.json" --out "$tmp/sw" -j 2 --quiet
python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("DELETE FROM points WHERE idx >= 5"); d.commit()' "$tmp/sw/results.db"
vg sweep "$tmp/s.json" --out "$tmp/sw" --resume -j 1 --quiet
vg sweep "$tmp/s.json" --list
# Fleet from a services file.
cat > "$tmp/svc.csv" <<'CSV'
name,model,batch,rate_rps,priority
a,tests/data/engine/sa_heavy.csv,0,0,1
b,tests/data/engine/vu_heavy.csv,0,0,1
c,mnist,4,0,2
d,ncf,8,1000,1
CSV
vg fleet --services "$tmp/svc.csv" --npus 2 --requests 3 --k 2 -j 2 --format json
vg npu --list
vg npu --npu tpuv4-core --format json
vg models --format csv
vg profile tests/data/engine/sa_vu.csv --format json
vg topology tests/data/topology/ok_mixed.csv --format csv
# Bad input takes the error paths, which must not leak either.
printf 'name,model,batch,rate_rps\na,bert,0,0\na,ncf,0,0\n' > "$tmp/dup.csv"
for args in "run --tenant nosuch" "npu --npu tests/data/npu/wrong_type_string.json" \
            "topology tests/data/topology/negative.csv" "run --tenant bert --policy solo --tenant ncf" \
            "run --tenant tests/data/trace/overflow_cycles.csv" "run --tenant mnist --trace /nonexistent/t.json" \
            "sweep tests/data/sweep/bad_npu_field.json --list" "sweep tests/data/sweep/bad_json.json" \
            "fleet --services $tmp/dup.csv --npus 1" "fleet --services /nonexistent.csv --npus 1" \
            "run --tenant tests/data/limits/huge_op.csv --requests 10000"; do
  echo "== v10sim $args (expected to fail)"
  set +e
  # shellcheck disable=SC2086
  valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
    --errors-for-leak-kinds=all "$bin" $args > /dev/null 2>&1
  rc=$?
  set -e
  if [ "$rc" -eq 99 ] || [ "$rc" -eq 0 ]; then echo "memcheck error or unexpected success ($rc)"; exit 1; fi
done
echo "== v10sim run ... > /dev/full (expected to fail)"
set +e
valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
  --errors-for-leak-kinds=all "$bin" run --tenant mnist --requests 2 --format json > /dev/full 2>/dev/null
rc=$?
set -e
if [ "$rc" -ne 1 ]; then echo "expected exit 1 writing to /dev/full, got $rc"; exit 1; fi
echo "valgrind: clean"
