#!/usr/bin/env bash
# Where the time went (docs/attribution.md, issue 27): two isca23 models
# under every policy, as JSON: per tenant the states sum to the window
# within a cycle, executing is the progress made, and lost_to lists the
# partner; the CSV carries the same states, the table its section, the
# trace a state track per tenant.
source "$(dirname "$0")/lib.sh"

pair=(--tenant isca23/efficientnet --tenant isca23/resnet50 --requests 4 --warmup 1)
"$bin" run "${pair[@]}" --policy all --check --format json > "$tmp/all.json"
"$bin" run "${pair[@]}" --policy all --format csv > "$tmp/all.csv"
python3 - "$tmp/all.json" "$tmp/all.csv" <<'PY'
import csv, json, sys
runs = json.load(open(sys.argv[1]))
states = ["exec", "hbm", "partition", "wait_sa", "wait_vu", "wait_ici", "held", "switch", "switch_by",
          "preempted", "idle"]
pols = {r["policy"] for r in runs}
assert {"fcfs", "pmt", "prema", "spatial", "v10-base", "v10-fair", "v10-full"} <= pols, pols
rows = list(csv.DictReader(open(sys.argv[2])))
for r in runs:
    W = r["window_cycles"]
    names = [t["name"] for t in r["tenants"]]
    for t in r["tenants"]:
        s = t["states_cycles"]
        assert sorted(s) == sorted(states), s
        assert abs(sum(s.values()) - W) <= 1, (r["policy"], t["name"], sum(s.values()), W)
        # executing is the standalone work done, on a partition too
        assert abs(s["exec"] - t["np"] * W) <= 1e-3 * W, (r["policy"], s["exec"], t["np"] * W)
        other = [n for n in names if n != t["name"]]
        assert list(t["lost_to"]) == other, t["lost_to"]
        lost = t["lost_to"][other[0]]
        assert abs(lost["total"] - sum(v for k, v in lost.items() if k != "total")) <= 1e-6 * W + 1
        assert lost["total"] > 0, (r["policy"], t["name"])
        # the CSV row of this policy and tenant says the same
        row = [x for x in rows if x["policy"] == r["policy"] and x["tenant"] == t["name"]]
        assert len(row) == 1
        for k in states:
            assert abs(float(row[0][k + "_cycles"]) - s[k]) <= 1e-6 * W, (k, row[0][k + "_cycles"], s[k])
        j = names.index(other[0])
        assert abs(float(row[0]["lost_to_t%d_cycles" % j]) - lost["total"]) <= 1e-6 * W
# PMT takes turns: the tenant off the core is preempted or held, never beside the other
pmt = [r for r in runs if r["policy"] == "pmt"][0]
for t in pmt["tenants"]:
    s = t["states_cycles"]
    assert s["preempted"] + s["held"] > 0.3 * pmt["window_cycles"], s
full = [r for r in runs if r["policy"] == "v10-full"][0]
for t in full["tenants"]:
    assert t["states_cycles"]["exec"] > 0.5 * full["window_cycles"], t["states_cycles"]
PY

# The table's section, one row per tenant.
"$bin" run "${pair[@]}" --policy v10-full > "$tmp/t.txt"
grep -q '^where the time went' "$tmp/t.txt"
[ "$(grep -c '^v10-full  t[01]:isca23/' "$tmp/t.txt")" -eq 2 ]
# One chip has no link engine: no wait_ici column.  Two tensor-parallel
# servers over four chips take turns on it: the column, and time in it.
! grep -q 'wait_ici' "$tmp/t.txt" || { echo "one chip's table shows wait_ici"; exit 1; }
llm=(--npu tpuv4-8 --policy v10-full --requests 3)
for k in 0 1; do llm+=(--tenant "llm/llama2-7b:trace=@azure_conv_200:requests=3:start_s=0.00$k"); done
"$bin" run "${llm[@]}" > "$tmp/llm.txt"
grep -q '^policy  *tenant  *exec  *hbm  *partition  *wait_sa  *wait_vu  *wait_ici  *held' "$tmp/llm.txt" ||
  { echo "several chips: no wait_ici column"; cat "$tmp/llm.txt"; exit 1; }
"$bin" run "${llm[@]}" --check --format json > "$tmp/llm.json"
python3 - "$tmp/llm.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
waits = [t["states_cycles"]["wait_ici"] for t in run["tenants"]]
assert all(w > 0 for w in waits), waits
for t, o in zip(run["tenants"], reversed(run["tenants"])):
    assert abs(t["lost_to"][o["name"]]["wait_ici"] - t["states_cycles"]["wait_ici"]) <= 1e-6, t
PY

# The trace: a state track per tenant whose slices tile the run.
"$bin" run "${pair[@]}" --requests 2 --policy pmt --trace "$tmp/tr.json" > /dev/null
python3 - "$tmp/tr.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
st = [e for e in ev if e.get("cat") == "state"]
assert st and all(e["pid"] == 3 for e in st)
for tid in (0, 1):
    sl = sorted((e for e in st if e["tid"] == tid), key=lambda e: float(e["ts"]))
    assert sl, tid
    names = {e["args"]["state"] for e in sl}
    assert "exec" in names and names & {"preempted", "held"}, names
    for a, b in zip(sl, sl[1:]):  # contiguous: each starts where the previous ended
        assert abs(float(a["ts"]) + float(a["dur"]) - float(b["ts"])) < 2e-4, (a, b)
PY
# Per operator (--per-op): each tenant's operators' states add up to its
# own states over the window, and with one tenant alone an operator runs
# whole at its standalone length (exec a multiple of its cycles, nothing
# stalled); an unwritable path fails and leaves nothing behind.
"$bin" run "${pair[@]}" --policy pmt,v10-full --check --format json --per-op "$tmp/ops.csv" \
  > "$tmp/two.json"
"$bin" run --tenant resnet50 --requests 3 --warmup 1 --per-op "$tmp/solo.csv" > /dev/null
python3 - "$tmp/two.json" "$tmp/ops.csv" "$tmp/solo.csv" <<'PY'
import csv, json, sys
runs = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
states = ["exec", "hbm", "partition", "wait_sa", "wait_vu", "wait_ici", "held", "switch", "switch_by",
          "preempted"]
for run in runs:
    for t in run["tenants"]:
        mine = [r for r in rows if r["policy"] == run["policy"] and r["tenant"] == t["name"]]
        assert mine, (run["policy"], t["name"])
        for s in states:
            by_op = sum(float(r[s + "_cycles"]) for r in mine)
            assert abs(by_op - t["states_cycles"][s]) <= 1 + 1e-9 * by_op, (s, by_op, t)
        for r in mine:
            stalled = sum(float(r[s + "_cycles"]) for s in states[1:])
            assert abs(stalled - float(r["stalled_cycles"])) < 1, r
assert any(float(r["stalled_cycles"]) > 0 for r in rows)
solo = list(csv.DictReader(open(sys.argv[3])))
assert len(solo) == 59, len(solo)  # resnet50: 54 SA and 5 VU operators
for r in solo:
    n = float(r["exec_cycles"]) / int(r["cycles"])
    assert abs(n - round(n)) < 1e-9 and round(n) == 2, r  # the window's two requests
    assert float(r["stalled_cycles"]) == 0, r
PY
if "$bin" run --tenant resnet50 --requests 2 --per-op "$tmp/no/such/ops.csv" > /dev/null 2> "$tmp/err"; then
  echo "--per-op to a missing folder succeeded"; exit 1
fi
grep -q "ops.csv" "$tmp/err" || { echo "--per-op error does not name the file"; cat "$tmp/err"; exit 1; }
[ ! -e "$tmp/no" ] || { echo "--per-op created a folder"; exit 1; }
echo "attrib: ok"
