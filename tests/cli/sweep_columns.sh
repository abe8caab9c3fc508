#!/usr/bin/env bash
# sweep_columns.sh — a sweep's results.csv names what `run --format csv`
# reports as run names it: the run's energy columns as they are, and each
# tenant's where-the-time-went and energy columns as tK_ + run's name
# (t0_exec_cycles, t0_lost_to_t1_cycles, t0_tenant_energy_j); and a point
# holds the same figures as the run with the same settings.
# Usage: sweep_columns.sh PATH/TO/v10sim
source "$(dirname "$0")/lib.sh"

cat >"$tmp/spec.json" <<'JSON'
{"name": "cols", "axes": {"policy": ["pmt", "v10-full"]},
 "fixed": {"mix": ["isca23/resnet50", "isca23/bert"], "requests": 6, "warmup": 1, "seed": 3}}
JSON
"$bin" sweep "$tmp/spec.json" --out "$tmp/sw" -j 1 --quiet >/dev/null 2>"$tmp/err" ||
    fail "sweep: $(cat "$tmp/err")"
"$bin" run --tenant isca23/resnet50 --tenant isca23/bert --policy pmt,v10-full --requests 6 \
    --warmup 1 --seed 3 --format csv >"$tmp/run.csv"
python3 - "$tmp/sw/results.csv" "$tmp/run.csv" <<'PY'
import csv, sys
sweep = list(csv.DictReader(open(sys.argv[1])))
run = list(csv.DictReader(open(sys.argv[2])))
head = list(sweep[0].keys())
# run's columns from exec_cycles on: the states, lost_to_tJ_cycles, energy
cols = list(run[0].keys())
attr = cols[cols.index("exec_cycles"):]
point_level = {"energy_j", "power_w", "inferences_per_j", "energy_unattributed_j"}
assert point_level <= set(attr), attr
assert "lost_to_t1_cycles" in attr and "partition_cycles" in attr, attr
for c in attr:
    if c in point_level:
        assert c in head, ("results.csv lacks", c)
    else:
        for t in (0, 1):
            assert f"t{t}_{c}" in head, ("results.csv lacks", f"t{t}_{c}")
old = [h for h in head if "states_cycles" in h or h.endswith(("_lost_to_t0", "_lost_to_t1"))]
assert not old, ("old names", old)
# the same figures, point by point and tenant by tenant
for p in sweep:
    rows = [r for r in run if r["policy"] == p["policy"]]
    assert len(rows) == 2, p["policy"]
    for t, r in enumerate(rows):
        for c in attr:
            key = c if c in point_level else f"t{t}_{c}"
            a, b = float(p[key]), float(r[c])
            assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), (p["policy"], key, a, b)
PY
echo "sweep_columns: ok"
