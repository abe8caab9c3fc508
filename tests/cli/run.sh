#!/usr/bin/env bash
# `v10sim run` end to end: JSON schema, table and CSV, the Perfetto trace,
# determinism, --check, and bad input (exit codes and messages).
source "$(dirname "$0")/lib.sh"
D=tests/data/engine

"$bin" run --help | grep -q usage

# Policy parameters: --param sets a table's field, the report prints it
# under its flat key, and the older option is the same setting.
"$bin" run --tenant mnist --tenant ncf --policy pmt --requests 4 --format json \
  --param pmt.slice_us=250 --param pmt.share=equal --param v10-full.slice_cycles=4096 \
  > "$tmp/param.json"
"$bin" run --tenant mnist --tenant ncf --policy pmt --requests 4 --format json \
  --pmt-slice-us 250 --pmt-share equal --slice-cycles 4096 > "$tmp/alias.json"
"$bin" run --tenant mnist --tenant ncf --policy pmt --requests 4 --format json > "$tmp/dflt.json"
python3 - "$tmp/param.json" "$tmp/alias.json" "$tmp/dflt.json" <<'PY'
import json, sys
p, a, d = (json.load(open(f)) for f in sys.argv[1:])
assert p["config"]["params"] == {"slice_cycles": 4096, "pmt_slice_us": 250,
                                 "pmt_share": "equal", "prema_drain_frac": 0.25,
                                 "full_preempt": "tick", "quantum_cycles": 0}, p["config"]["params"]
assert d["config"]["params"] == {"slice_cycles": 32768, "pmt_slice_us": 1000,
                                 "pmt_share": "priority", "prema_drain_frac": 0.25,
                                 "full_preempt": "tick", "quantum_cycles": 0}, d["config"]["params"]
for r in (p, a, d):
    r.pop("perf", None)
assert p == a
assert p["overheads"]["context_switches"] > d["overheads"]["context_switches"]
PY
# A parameter no chosen policy reads is a warning on stderr (the run goes
# on, its report unchanged); one that some chosen policy reads is silent.
"$bin" run --tenant mnist --tenant ncf --policy v10-full,fcfs --requests 4 --format json \
  --param pmt.slice_us=250 --slice-cycles 4096 > "$tmp/unread.json" 2> "$tmp/unread.err"
grep -q "^v10sim run: warning: pmt.slice_us is read by none of the chosen policies (v10-full, fcfs); it has no effect$" "$tmp/unread.err"
test "$(wc -l < "$tmp/unread.err")" -eq 1
"$bin" run --tenant mnist --tenant ncf --policy prema --requests 4 --format json \
  --param pmt.slice_us=250 > /dev/null 2> "$tmp/read.err"
test ! -s "$tmp/read.err"
# `policies` lists every parameter from the tables, with default and range.
"$bin" policies --params --format csv > "$tmp/params.csv"
python3 - "$tmp/params.csv" <<'PY'
import csv, sys
rows = {r["param"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert set(rows) == {"pmt.slice_us", "pmt.share", "prema.slice_us", "prema.drain_frac",
                     "v10-full.slice_cycles", "v10-full.preempt", "v10-full.quantum_cycles"}, rows
assert rows["pmt.slice_us"]["default"] == "1000" and rows["pmt.slice_us"]["range"] == "[0.01, 1000000000]"
assert rows["pmt.share"]["default"] == "priority" and rows["pmt.share"]["range"] == "equal|priority"
assert rows["prema.drain_frac"]["default"] == "0.25"
PY
"$bin" policies | grep -q "^prema.drain_frac  *0.25 "

# JSON carries every documented key.
"$bin" run --tenant bert --tenant ncf --policy v10-full --requests 6 --format json --check \
  > "$tmp/run.json"
python3 - "$tmp/run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for k in ["version", "config", "seed", "policy", "window_cycles", "utilization", "system",
          "overheads", "tenants", "perf"]:
    assert k in r, k
for k in ["sa", "vu", "hbm", "overall", "overlap", "sa_flops"]:
    assert 0 <= r["utilization"][k] <= 1, (k, r["utilization"][k])
for k in ["stp", "antt", "fairness", "jain"]:
    assert k in r["system"], k
for k in ["preemptions", "context_switches", "switch_cycles"]:
    assert k in r["overheads"], k
assert [t["model"] for t in r["tenants"]] == ["bert", "ncf"]
for t in r["tenants"]:
    for k in ["name", "model", "batch", "priority", "completed", "throughput_rps", "np",
              "latency_us", "slo_attainment"]:
        assert k in t, k
    assert t["completed"] >= 6
    for k in ["avg", "p50", "p95", "p99"]:
        assert t["latency_us"][k] > 0
assert r["tenants"][0]["batch"] == 32
assert set(r["perf"]) >= {"events", "wall_seconds"}
# Numbers in their shortest exact form, as in CSV (util/num.h).
import re
for tok in re.findall(r'(?<=[:\[,\s])-?\d[\d.eE+-]*(?=[,\s\]}])', open(sys.argv[1]).read()):
    x = float(tok)
    digits = len(tok.lstrip("-").split("e")[0].split("E")[0].replace(".", "").lstrip("0"))
    if digits > 15:
        assert float("%.*g" % (digits - 1, x)) != x, tok
PY

# 'npu --format json' reads back as an override file: same configuration
# (issue 12: its "derived" block was refused as an unknown key).
for n in v10-isca23 tpuv4-core configs/big-array.json; do
  "$bin" npu --npu $n --format json > "$tmp/npu.json"
  "$bin" npu --npu "$tmp/npu.json" --format json > "$tmp/npu2.json"
  cmp "$tmp/npu.json" "$tmp/npu2.json"
done
"$bin" run --tenant mnist --requests 2 --npu "$tmp/npu.json" > /dev/null

# Trace timestamps come from rounded endpoints: on every FU track a slice
# starts no earlier than the previous one ends (once 1,350 of 8,065 SA
# slices of such a run overlapped by 0.1 ns, and Perfetto nested them), and
# ts / ts + dur are the start / end cycles rounded to 0.1 ns.  One request:
# the Transformer's beam search is some 19,000 operators.
one="--tenant transformer --tenant mnist --requests 1 --warmup 0"
"$bin" run $one --trace "$tmp/tm.json" > /dev/null
"$bin" run $one --trace "$tmp/tm.json.gz" > /dev/null
gzip -dc "$tmp/tm.json.gz" | cmp - "$tmp/tm.json"   # .gz: the same trace, gzip'd
"$bin" run $one --trace "$tmp/win.json" --trace-window 2000:3000 > /dev/null
python3 - "$tmp/tm.json" "$tmp/win.json" <<'PY'
import collections, json, sys
from decimal import Decimal, ROUND_HALF_EVEN
t = json.load(open(sys.argv[1]), parse_float=Decimal)
mhz = Decimal(700)
q = Decimal("0.0001")
tracks = collections.defaultdict(list)
for e in t["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") == "op":
        tracks[e["tid"]].append(e)
        a = e["args"]
        assert abs(e["ts"] - Decimal(a["start_cycle"]) / mhz) <= q / 2, e
        assert abs(e["ts"] + e["dur"] - Decimal(a["end_cycle"]) / mhz) <= q / 2, e
n = 0
for tid, sl in tracks.items():
    sl.sort(key=lambda e: e["ts"])
    for a, b in zip(sl, sl[1:]):
        assert b["ts"] >= a["ts"] + a["dur"], (a, b)
        n += 1
assert n > 5000, n
# --trace-window 2000:3000: only what overlaps 2000..3000 us, metadata kept.
w = json.load(open(sys.argv[2]), parse_float=Decimal)
ev = [e for e in w["traceEvents"] if e.get("ph") in ("X", "i")]
assert ev and len(ev) < len(t["traceEvents"]) / 10, len(ev)
for e in ev:
    assert e["ts"] < 3000 and e["ts"] + e.get("dur", 0) >= 2000, e
assert {"SA0", "VU0"} <= {e["args"]["name"] for e in w["traceEvents"] if e.get("name") == "thread_name"}
PY
set +e
"$bin" run --tenant mnist --trace "$tmp/x.json" --trace-window 5:3 2> "$tmp/err"; [ $? = 2 ] || exit 1
"$bin" run --tenant mnist --trace-window 1:3 2> "$tmp/err"; [ $? = 2 ] || exit 1
set -e
grep -q "trace-window needs --trace" "$tmp/err"

# Same seed, same output (perf aside).
strip() { python3 -c 'import json,sys; r=json.load(sys.stdin); r.pop("perf"); print(json.dumps(r, sort_keys=True))'; }
a=$("$bin" run --tenant $D/sa_vu.csv:rate=20000 --tenant ncf:batch=8 --policy v10-fair --requests 8 --seed 5 --format json | strip)
b=$("$bin" run --tenant $D/sa_vu.csv:rate=20000 --tenant ncf:batch=8 --policy v10-fair --requests 8 --seed 5 --format json | strip)
[ "$a" = "$b" ]

# Table and CSV.
"$bin" run --tenant resnet50:batch=4 --tenant ncf --policy pmt --requests 4 | grep -q "STP"
"$bin" run --tenant resnet50:batch=4 --tenant ncf --policy all --requests 4 --format csv > "$tmp/all.csv"
python3 - "$tmp/all.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pols = sorted({r["policy"] for r in rows})
assert pols == sorted(["fcfs", "pmt", "prema", "spatial", "v10-base", "v10-fair", "v10-full"]), pols
assert len(rows) == 14
# What the README promises per tenant (issue 12: p50, p99, throughput and
# SLO attainment were missing).
for k in ["np", "thru_rps", "lat_avg_us", "lat_p50_us", "lat_p95_us", "lat_p99_us", "slo"]:
    assert k in rows[0], k
# Numbers in their shortest exact form: 0.39, not 0.39000000000000001.
for r in rows:
    for k, v in r.items():
        if k in ("policy", "tenant") or v in ("nan", "inf", "-inf"):
            continue
        x = float(v)
        digits = len(v.lstrip("-").split("e")[0].replace(".", "").lstrip("0"))
        assert digits <= 17, (k, v)
        if digits > 15:
            assert float("%.*g" % (digits - 1, x)) != x, (k, v)
PY
"$bin" run --tenant resnet50:batch=4:slo_us=1e6 --tenant ncf --policy pmt,v10-full --requests 4 \
  | grep -q "lat_p50_us  lat_p95_us  lat_p99_us    slo"
"$bin" run --tenant resnet50:batch=4:slo_us=1e6 --tenant ncf --policy pmt --requests 4 --format csv \
  | python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); assert r[0]["slo"] == "1" and r[1]["slo"] == "nan", r'

# 'all' inside a list (issue 12: 'all,solo' was refused); a name twice runs once.
"$bin" run --tenant mnist --policy all,solo,pmt --requests 2 --format csv | cut -d, -f1 | uniq \
  | tr '\n' ' ' | grep -qx "policy fcfs pmt prema spatial v10-base v10-fair v10-full solo "

# One policy refusing the mix (fcfs leaves NCF no progress beside an
# overloaded MNIST: the event budget stops it)
# does not cost the others' output; the exit status says something failed.
set +e
"$bin" run --tenant mnist:rate=1000000 --tenant ncf --policy fcfs,v10-full --format csv \
  > "$tmp/part.csv" 2> "$tmp/part.err"
[ $? = 1 ] || exit 1
set -e
grep -q "policy fcfs: run too long: .*(none since .*tenant 1 (ncf)" "$tmp/part.err"
[ "$(cut -d, -f1 "$tmp/part.csv" | sort | uniq -c | awk '{print $1 $2}' | tr '\n' ' ')" = "1policy 2v10-full " ]

# The trace opens as Chrome trace-event JSON with named FU tracks.
"$bin" run --tenant $D/long_sa.csv --tenant $D/sa_vu.csv --policy v10-full --requests 4 \
  --trace "$tmp/t.json" > /dev/null
python3 - "$tmp/t.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
names = {e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
assert {"SA0", "VU0"} <= names, names
ops = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "op"]
assert ops and all(":" in e["name"] for e in ops)
assert any("preempt" in e["name"] for e in ev if e.get("ph") == "i")
assert any(e.get("cat") == "request" for e in ev)
PY

# Bad input: clear message, right exit code, no partial trace file.
expect() { # code, pattern, command...
  local code=$1 pat=$2; shift 2
  set +e; "$@" > /dev/null 2> "$tmp/err"; local rc=$?; set -e
  if [ "$rc" -ne "$code" ] || ! grep -q -- "$pat" "$tmp/err"; then
    echo "expected exit $code and '$pat' from: $*"; echo "got $rc:"; cat "$tmp/err"; exit 1
  fi
}
expect 2 "at least one --tenant" "$bin" run
expect 1 "nosuchmodel" "$bin" run --tenant nosuchmodel
expect 1 "priority" "$bin" run --tenant bert:priority=0
expect 1 "unknown option 'speed'" "$bin" run --tenant bert:speed=2
expect 2 "unknown policy 'fast'" "$bin" run --tenant bert --policy fast
expect 2 "requests" "$bin" run --tenant bert --requests 0
# Options that do not go together: a command-line error (2), what was got said.
expect 2 "--policy solo: expected one --tenant (it runs one alone), got 2" \
  "$bin" run --tenant ncf --tenant ncf --policy solo
expect 2 "--policy solo: expected one --tenant" "$bin" run --tenant ncf --tenant ncf --policy all,solo
expect 2 "--warmup: expected fewer than --requests (5), got 5" \
  "$bin" run --tenant ncf --requests 5 --warmup 5
expect 2 "--warmup: expected fewer than --requests (1), got 9" \
  "$bin" run --tenant ncf --requests 1 --warmup 9
expect 2 "--trace: expected a single --policy, got 2" \
  "$bin" run --tenant ncf --tenant mnist --policy pmt,fcfs --trace "$tmp/never.json"
[ ! -e "$tmp/never.json" ]
expect 2 "Try 'v10sim run --help'" "$bin" run --tenant ncf --requests 5 --warmup 5
expect 1 "no/such/dir" "$bin" run --tenant ncf --requests 2 --trace no/such/dir/t.json
[ ! -e no/such/dir ]

# --preempt: drain by default, tile on request; recorded in the config.
for m in drain tile; do
  opt=(); [ "$m" = tile ] && opt=(--preempt tile)
  "$bin" run --tenant $D/one_fold.csv --tenant $D/sa_vu.csv --policy v10-full --requests 3 \
    --format json --check "${opt[@]}" > "$tmp/$m.json"
  python3 - "$tmp/$m.json" "$m" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["config"]["preempt"] == sys.argv[2], r["config"]["preempt"]
# A one-fold operator is preempted only under the drain model.
n = r["tenants"][0]["preemptions"]
assert (n > 0) == (sys.argv[2] == "drain"), n
PY
done
expect 2 "expected drain or tile, got 'fold'" "$bin" run --tenant ncf --preempt fold
echo "cli run: ok"
