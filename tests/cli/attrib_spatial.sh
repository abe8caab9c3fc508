#!/usr/bin/env bash
# attrib_spatial.sh — spatial sharing's loss in "where the time went"
# (docs/attribution.md, state `partition`): a tenant whose operator runs on a
# slice of an FU loses, of each cycle, what the slice's rate lacks of the
# whole FU's, to the tenants holding the rest of the FU by their share.
# Closed forms on the one-SA NPU with SA-bound operators (no HBM traffic):
# two identical tenants split half and half each lose half the window to
# the other; priorities 3:1 give losses of 1/4 and 3/4; three tenants each
# lose 1/3 to each partner; a memory-bound operator, as fast on half the
# array, loses nothing.  Every case: the states sum to the window, exec is
# the normalized progress, and the table and CSV carry the state.
# Usage: attrib_spatial.sh PATH/TO/v10sim   (run from the repository root)
source "$(dirname "$0")/lib.sh"

# SA-bound: three SA operators, no HBM bytes (the SA computes every cycle).
printf 'name,fu,cycles,hbm_bytes\nmm0,SA,200000,0\nmm1,SA,300000,0\nmm2,SA,100000,0\n' \
  > "$tmp/sa.csv"
# Memory-bound: 100,000 cycles of compute under 141,428,571 bytes, 300,000
# cycles at 330 GB/s and 700 MHz; on half the array its compute takes
# 200,000, still under its memory time.
printf 'name,fu,cycles,hbm_bytes\nld,SA,100000,141428571\n' > "$tmp/mem.csv"

# check CASE TENANTS... -- EXPECTED: expected is a Python dict, per tenant
# index, of {"partition": fraction of the window, "to": {partner: fraction}}.
check() {
  local name=$1 want=$2; shift 2
  "$bin" run "$@" --policy spatial --requests 4 --warmup 0 --check --format json \
    > "$tmp/$name.json" || fail "$name: run failed"
  python3 - "$tmp/$name.json" "$want" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want, name = eval(sys.argv[2]), sys.argv[3]
W = r["window_cycles"]
names = [t["name"] for t in r["tenants"]]
for i, t in enumerate(r["tenants"]):
    s, w = t["states_cycles"], want[i]
    assert abs(sum(s.values()) - W) <= 1, (name, i, sum(s.values()), W)
    assert abs(s["partition"] - w["partition"] * W) <= 1e-6 * W + 1, (name, i, s["partition"] / W, w)
    assert abs(s["exec"] - t["np"] * W) <= 1e-6 * W + 1, (name, i, s["exec"] / W, t["np"])
    assert abs(s["exec"] - (1 - w["partition"]) * W) <= 1e-6 * W + 1, (name, i, s)
    for j, frac in w["to"].items():
        lost = t["lost_to"][names[j]]
        assert abs(lost.get("partition", 0) - frac * W) <= 1e-6 * W + 1, (name, i, j, lost, frac)
        assert abs(lost["total"] - frac * W) <= 1e-6 * W + 1, (name, i, j, lost, frac)
PY
}

check half '{0: {"partition": 0.5, "to": {1: 0.5}}, 1: {"partition": 0.5, "to": {0: 0.5}}}' \
  --tenant "$tmp/sa.csv" --tenant "$tmp/sa.csv"
check prio '{0: {"partition": 0.25, "to": {1: 0.25}}, 1: {"partition": 0.75, "to": {0: 0.75}}}' \
  --tenant "$tmp/sa.csv:priority=3" --tenant "$tmp/sa.csv"
third=1/3
check three "{i: {'partition': 2/3, 'to': {j: $third for j in range(3) if j != i}} for i in range(3)}" \
  --tenant "$tmp/sa.csv" --tenant "$tmp/sa.csv" --tenant "$tmp/sa.csv"
check membound '{0: {"partition": 0, "to": {1: 0}}, 1: {"partition": 0.5, "to": {0: 0.5}}}' \
  --tenant "$tmp/mem.csv" --tenant "$tmp/sa.csv"

# The table's column and the CSV's: the same figures.
pair=(--tenant "$tmp/sa.csv" --tenant "$tmp/sa.csv" --policy spatial --requests 4 --warmup 0)
"$bin" run "${pair[@]}" > "$tmp/t.txt"
grep -Eq '^policy +tenant +exec +hbm +partition ' "$tmp/t.txt" || fail "table has no partition column"
grep -Eq '^spatial +t0:sa.csv +50\.0 +0\.0 +50\.0 ' "$tmp/t.txt" || fail "table row: $(grep '^spatial' "$tmp/t.txt")"
"$bin" run "${pair[@]}" --format csv > "$tmp/t.csv"
python3 - "$tmp/t.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    W = float(r["exec_cycles"]) + float(r["partition_cycles"])
    assert abs(float(r["partition_cycles"]) - W / 2) <= 1, r
    other = "lost_to_t1_cycles" if r["tenant"].startswith("t0") else "lost_to_t0_cycles"
    assert abs(float(r[other]) - W / 2) <= 1, r
PY
echo "attrib_spatial: ok"
