#!/usr/bin/env bash
# models.sh — `v10sim models`, `profile` and `npu` end to end: JSON and CSV
# shapes, the profile -> trace CSV -> profile round trip on every zoo model,
# and --help / --version on every sub-command.
# Usage: models.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"

min_models=${MIN_MODELS:-13}


# ---- models: json -----------------------------------------------------------
"$bin" models --format json >"$tmp/models.json"
python3 - "$tmp/models.json" "$min_models" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["npu"]["name"] == "v10-isca23", d["npu"]
assert "version" in d
models = d["models"]
assert len(models) >= int(sys.argv[2]), f"{len(models)} models, expected >= {sys.argv[2]}"
names = [m["name"] for m in models]
assert len(set(names)) == len(names), names
keys = ["name", "batch", "ops", "sa_ops", "vu_ops", "macs", "hbm_bytes",
        "latency_cycles", "latency_us", "sa_busy", "vu_busy"]
for m in models:
    for k in keys:
        assert k in m, (m["name"], k)
    for k in ("sa_op_len_us", "vu_op_len_us"):
        s = m[k]
        assert set(s) == {"min", "p50", "mean", "p95", "max"}, (m["name"], k, s)
        assert s["min"] <= s["mean"] + 0.01 and s["mean"] <= s["max"] + 0.01, (m["name"], k, s)
        assert s["min"] <= s["p50"] + 0.01 <= s["p95"] + 0.02 <= s["max"] + 0.03, (m["name"], k, s)
    for k in ("sa_op_len_cv", "vu_op_len_cv"):
        assert m[k] >= 0, (m["name"], k, m[k])
    assert m["batch"] >= 1 and m["ops"] >= 1, m
    assert m["ops"] == m["sa_ops"] + m["vu_ops"], m
    assert m["sa_ops"] >= 1, (m["name"], "no SA operator")
    assert abs(m["sa_busy"] + m["vu_busy"] - 1) < 0.002, m
    assert abs(m["latency_us"] * 700 - m["latency_cycles"]) <= 0.05 * 700 + 1, m
    assert m["macs"] > 0 and m["hbm_bytes"] > 0, m
print(f"models json: {len(models)} models ok")
PY

# ---- models: length statistics of a model computed by hand -------------------
# SA operators of 100, 200, 300 and 400 cycles and one VU operator of 65
# (a trace's cycles are whole, issue included; no HBM).
printf 'name,fu,cycles\na,SA,300\nv,VU,65\nb,SA,100\nc,SA,400\nd,SA,200\n' >"$tmp/hand.csv"
"$bin" models "$tmp/hand.csv" --format json >"$tmp/hand.json"
python3 - "$tmp/hand.json" <<'PY'
import json, math, sys
m = json.load(open(sys.argv[1]))["models"][0]
def near(got, want):
    assert set(got) == set(want) and all(abs(got[k] - want[k] / 700) < 1e-9 for k in want), (got, want)
near(m["sa_op_len_us"], {"min": 100, "p50": 200, "mean": 250, "p95": 400, "max": 400})
near(m["vu_op_len_us"], {"min": 65, "p50": 65, "mean": 65, "p95": 65, "max": 65})
assert abs(m["sa_op_len_cv"] - math.sqrt(12500) / 250) < 1e-9, m["sa_op_len_cv"]
assert m["vu_op_len_cv"] == 0, m
PY
"$bin" profile "$tmp/hand.csv" | grep -q '^SA operator lengths (us): min 0.14  p50 0.29  mean 0.36  p95 0.57  max 0.57  CV 0.447$' ||
    fail "profile table: SA length statistics of the hand-computed model"

# ---- models: csv and table agree with json ----------------------------------
"$bin" models --format csv >"$tmp/models.csv"
python3 - "$tmp/models.csv" "$tmp/models.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))["models"]
assert len(rows) == len(d), (len(rows), len(d))
for r, j in zip(rows, d):
    assert r["name"] == j["name"]
    assert int(r["latency_cycles"]) == j["latency_cycles"]
    assert int(r["ops"]) == j["ops"]
    for k in ("min", "p50", "mean", "p95", "max"):
        assert abs(float(r["sa_op_len_us." + k]) - j["sa_op_len_us"][k]) < 1e-9, (r["name"], k)
    assert abs(float(r["vu_op_len_cv"]) - j["vu_op_len_cv"]) < 1e-9, r["name"]
PY
"$bin" models >"$tmp/models.txt"
for name in $(python3 -c 'import json,sys; print(" ".join(m["name"] for m in json.load(open(sys.argv[1]))["models"]))' "$tmp/models.json"); do
    grep -q "^$name " "$tmp/models.txt" || fail "table lacks $name"
done

# a bigger array changes the profile; explicit specs list only those models
"$bin" models --npu configs/big-array.json --format csv >"$tmp/big.csv"
cmp -s "$tmp/models.csv" "$tmp/big.csv" && fail "--npu configs/big-array.json changed nothing"
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["models"][0]["name"])' "$tmp/models.json")
"$bin" models "$first:batch=1" --format csv >"$tmp/one.csv"
[ "$(wc -l <"$tmp/one.csv")" -eq 2 ] || fail "models $first:batch=1 did not give one row"
grep -q "^$first,1," "$tmp/one.csv" || fail "models $first:batch=1: batch not 1"

# ---- profile: table, json, and the trace-CSV round trip on every model -------
"$bin" profile "$first" >"$tmp/p.txt"
grep -q ' total ' "$tmp/p.txt" || fail "profile table has no total row"
"$bin" profile "$first" --format json >"$tmp/p.json"
python3 - "$tmp/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ops, tot = d["ops"], d["totals"]
for o in ops:
    for k in ("index", "name", "fu", "cycles", "us", "compute_cycles", "mem_cycles",
              "hbm_bytes", "bound", "tiles", "macs"):
        assert k in o, k
    assert o["fu"] in ("SA", "VU") and o["bound"] in ("compute", "memory"), o
    assert o["cycles"] > max(o["compute_cycles"], o["mem_cycles"]), o
    assert (o["bound"] == "compute") == (o["compute_cycles"] >= o["mem_cycles"]), o
assert [o["index"] for o in ops] == list(range(len(ops)))
assert tot["latency_cycles"] == sum(o["cycles"] for o in ops)
assert tot["ops"] == len(ops)
PY

# Every model but the detectors: their 10^4..10^6 operators (post-processing
# of every image and class) make JSON too big to compare here.
python3 -c 'import json,sys; print("\n".join(m["name"] for m in json.load(open(sys.argv[1]))["models"] if m["ops"] < 20000))' \
    "$tmp/models.json" >"$tmp/names"
[ "$(wc -l <"$tmp/names")" -ge 18 ] || fail "round trip: too few models under 20,000 operators"
while read -r name; do
    file="$tmp/${name//\//_}.csv"
    "$bin" profile "$name" --format csv >"$file"
    "$bin" profile "$name" --format json >"$tmp/a.json"
    "$bin" profile "$file" --format json >"$tmp/b.json"
    python3 - "$tmp/a.json" "$tmp/b.json" "$name" <<'PY' || fail "profile round trip of $name"
import json, sys
a, b = (json.load(open(p))["ops"] for p in sys.argv[1:3])
assert len(a) == len(b), (len(a), len(b))
for x, y in zip(a, b):  # a trace keeps whole cycles, not their compute/memory split
    for k in ("cycles", "hbm_bytes", "tiles", "fu", "macs"):
        assert x[k] == y[k], (sys.argv[3], x["index"], k, x[k], y[k])
PY
    # CSV of the CSV: identical but for the comment naming the model
    "$bin" profile "$file" --format csv >"$tmp/again.csv"
    diff <(grep -v '^#' "$file") <(grep -v '^#' "$tmp/again.csv") >/dev/null ||
        fail "trace CSV of $name is not a fixed point"
done <"$tmp/names"

# on another NPU the round trip holds too
"$bin" profile "$first" --npu tpuv4-core --format csv >"$tmp/t4.csv"
a=$("$bin" profile "$first" --npu tpuv4-core --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["latency_cycles"])')
b=$("$bin" profile "$tmp/t4.csv" --npu tpuv4-core --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["latency_cycles"])')
# tpuv4-core maps an operator over its four SAs (op_mapping all): a trace's
# operator splits its whole cycles, issue and memory-bound part included,
# where the costed one splits only its compute: within 0.5%.
python3 -c 'import sys; a, b = map(int, sys.argv[1:]); sys.exit(abs(a - b) > 0.005 * a)' "$a" "$b" ||
    fail "tpuv4 round trip: $a != $b"

# profile and models honour op_mapping: tpuv4-core runs an operator over its
# four SAs ("all"), so a model's latency is what a lone run of it measures,
# and below its one-engine latency ("one", the same NPU otherwise)
echo '{"base": "tpuv4-core", "name": "v4-one", "op_mapping": "one"}' >"$tmp/v4one.json"
for spec in resnet50 isca23/bert llm/llama2-7b:prefill=1024 llm/llama2-7b:decode=4x512; do
    lat() { "$bin" profile "$spec" --npu "$1" --format json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["latency_us"])'; }
    all=$(lat tpuv4-core)
    one=$(lat "$tmp/v4one.json")
    ran=$("$bin" run --tenant "$spec" --policy solo --requests 1 --warmup 0 --npu tpuv4-core \
        --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["tenants"][0]["latency_us"]["avg"])')
    [ "$all" = "$ran" ] || fail "profile $spec on tpuv4-core: $all us, a lone run $ran us"
    # (a decode step's 4-row products run on the VU, memory-bound either
    # way: no faster over four SAs)
    case "$spec" in *decode=*) op="<=" ;; *) op="<" ;; esac
    python3 -c "import sys; sys.exit(not float('$all') $op float('$one'))" ||
        fail "profile $spec: all $all us not $op one $one us"
    m=$("$bin" models "$spec" --npu tpuv4-core --format json |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["models"][0]["latency_us"])')
    [ "$m" = "$all" ] || fail "models $spec: $m us, profile $all us"
done

# ---- npu --------------------------------------------------------------------
"$bin" npu --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["sa_rows"] == 128 and d["hbm_gbps"] == 330 and d["clock_mhz"] == 700, d
x = d["derived"]
assert abs(x["peak_sa_tflops"] - 2 * 128 * 128 * 700e6 / 1e12) < 1e-9, x
assert abs(x["hbm_bytes_per_cycle"] - 330e9 / 700e6) < 1e-9, x
assert x["pmt_switch_cycles"] == round(d["pmt_switch_us"] * 700), x
' || fail "npu --format json"
"$bin" npu --npu configs/isca23-64mib.json | grep -q '^vmem_bytes  *67108864' || fail "npu table vmem"
"$bin" npu --npu configs/big-array.json --format json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["sa_rows"] == d["sa_cols"] == 256' ||
    fail "big-array config"
"$bin" npu --list | grep -q '^v10-isca23-8x ' || fail "npu --list"
"$bin" npu --list --format csv | head -n1 | grep -q '^name,' || fail "npu --list csv"

# ---- --help on every sub-command, --version ----------------------------------
"$bin" --help >"$tmp/help"
cmds=$(awk '/^commands:/{on=1; next} on && /^$/{exit} on {print $1}' "$tmp/help")
[ -n "$cmds" ] || fail "no commands in v10sim --help"
for c in $cmds; do
    set +e
    "$bin" "$c" --help >"$tmp/h" 2>"$tmp/e"; rc=$?
    set -e
    [ "$rc" -eq 0 ] || fail "$c --help exit $rc"
    grep -qi usage "$tmp/h" || fail "$c --help does not mention usage"
done
"$bin" --version | grep -Eq '^v10sim [0-9]+\.[0-9]+' || fail "--version"

echo "cli models: ok"
