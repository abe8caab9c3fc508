#!/usr/bin/env bash
# Energy and power (docs/energy.md, issue 25): two isca23 models under
# every policy print energy, power and inferences/J in the table, the JSON
# and the CSV, which agree and add up; V10-Full spends less per inference
# than PMT; the trace has the power counter track, whose energy is the
# run's, and one per unit, which sum to it at every change and each
# carry its unit's energy; the NPU's power keys are checked like any other.
source "$(dirname "$0")/lib.sh"

pair=(--tenant isca23/efficientnet --tenant isca23/resnet50 --requests 6)
"$bin" run "${pair[@]}" --policy all --check --format json > "$tmp/all.json"
"$bin" run "${pair[@]}" --policy all --format csv > "$tmp/all.csv"
"$bin" run "${pair[@]}" --policy all > "$tmp/all.txt"
grep -q '^energy over the window' "$tmp/all.txt"
grep -Eq '^v10-full +[0-9.]+ +[0-9.]+ +[0-9.]+ ' "$tmp/all.txt"
python3 - "$tmp/all.json" "$tmp/all.csv" <<'PY'
import csv, json, sys
runs = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
per_inf = {}
for r in runs:
    s, e = r["system"], r["energy"]
    total = s["energy_j"]
    cells = sum(v for u in ("sa", "vu", "vmem", "hbm", "other") for v in e[u].values())
    assert abs(cells - total) <= 1e-9 * total, (r["policy"], cells, total)
    assert abs(e["static_j"] + e["dynamic_j"] - total) <= 1e-9 * total
    tenants = sum(t["energy_j"] for t in r["tenants"])
    assert abs(tenants + s["energy_unattributed_j"] - total) <= 1e-4 * total
    secs = r["window_cycles"] / 700e6
    assert abs(s["power_w"] * secs - total) <= 1e-9 * total
    reqs = sum(t["throughput_rps"] * secs for t in r["tenants"])
    assert abs(s["inferences_per_j"] * total - reqs) <= 1e-9 * reqs
    # between the preset's idle and TDP figures (26.5 W and 140 W per core)
    assert 26.5 < s["power_w"] < 140, s["power_w"]
    per_inf[r["policy"]] = 1 / s["inferences_per_j"]
    for t in r["tenants"]:
        row = [x for x in rows if x["policy"] == r["policy"] and x["tenant"] == t["name"]]
        assert len(row) == 1
        assert abs(float(row[0]["tenant_energy_j"]) - t["energy_j"]) <= 1e-9 * total
        assert abs(float(row[0]["energy_per_request_j"]) - t["energy_per_request_j"]) <= 1e-9
        assert abs(float(row[0]["energy_j"]) - total) <= 1e-9 * total
assert per_inf["v10-full"] < per_inf["pmt"], per_inf
PY

# The trace's power counter: its energy over the run is the run's.
"$bin" run "${pair[@]}" --requests 3 --warmup 0 --policy v10-full --trace "$tmp/t.json" \
    --format json > "$tmp/one.json"
python3 - "$tmp/t.json" "$tmp/one.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
r = json.load(open(sys.argv[2]))
c = [e for e in ev if e.get("ph") == "C" and e["name"] == "power_w"]
assert len(c) > 10, len(c)
end_us = r["window"]["run_end_cycle"] / 700
j = 0
for a, b in zip(c, c[1:] + [{"ts": end_us}]):
    assert b["ts"] >= a["ts"]
    j += a["args"]["W"] * (b["ts"] - a["ts"]) * 1e-6
total = r["system"]["energy_j"]
assert abs(j - total) <= 1e-3 * total, (j, total)  # mW and 0.1 ns rounding
# Per-unit tracks (one record per run of equal values of each): at every
# timestamp at which any changes, the units' milliwatts sum to power_w's
# exactly; each track's energy is its unit's.
units = ["sa", "vu", "vmem", "hbm", "other"]
names = ["power_w"] + ["power_%s_w" % u for u in units]
pw = sorted((e for e in ev if e.get("ph") == "C"), key=lambda e: e["ts"])
assert {e["name"] for e in pw} == set(names), {e["name"] for e in pw}
assert all(e["ts"] == 0 for e in pw[:len(names)]), pw[:len(names)]
now, steps = {}, []
for i, e in enumerate(pw):
    now[e["name"]] = round(e["args"]["W"] * 1000)
    if i + 1 == len(pw) or pw[i + 1]["ts"] != e["ts"]:
        assert sum(now["power_%s_w" % u] for u in units) == now["power_w"], (e["ts"], now)
        steps.append((e["ts"], dict(now)))
ts = [t for t, _ in steps] + [end_us]
for u in units:
    ju = sum(v["power_%s_w" % u] * 1e-3 * (b - a) * 1e-6 for (a, v), b in zip(steps, ts[1:]))
    want = sum(r["energy"][u].values())
    assert abs(ju - want) <= 1e-3 * total, (u, ju, want)
# Not constants: the SA's and the HBM's power move as they work and idle.
assert sum(e["name"] == "power_sa_w" for e in pw) > 10
assert sum(e["name"] == "power_hbm_w" for e in pw) > 10
PY

# Bad power keys: named, with the range.
echo '{"sa_static_w": -1}' > "$tmp/neg.json"
if "$bin" npu --npu "$tmp/neg.json" 2> "$tmp/err"; then exit 1; fi
grep -q "sa_static_w" "$tmp/err"
echo '{"pg_gated_frac": 2}' > "$tmp/frac.json"
if "$bin" npu --npu "$tmp/frac.json" 2> "$tmp/err"; then exit 1; fi
grep -q "pg_gated_frac.*out of range" "$tmp/err"
# The presets carry their power figures.
"$bin" npu --npu tpuv4-core --format json | python3 -c '
import json, sys
n = json.load(sys.stdin)
assert n["idle_w"] == 45 and n["tdp_w"] == 150, n
static = n["sa_count"] * n["sa_static_w"] + n["vu_count"] * n["vu_static_w"] + \
    n["vmem_static_w"] + n["hbm_static_w"] + n["other_static_w"]
assert abs(static - n["idle_w"]) < 1e-6, static
assert n["max_w"] == 96, n
d = n["derived"]
assert abs(d["sa_dynamic_w"] - n["sa_pj_per_mac"] * 1e-12 * 128 * 128 * 1050e6) < 1e-9, d
'
# A larger array draws more: 256 x 256 PEs at the same energy per MAC draw
# four times the 128 x 128 array's dynamic power.
echo '{"base": "tpuv4-core", "sa_rows": 256, "sa_cols": 256}' > "$tmp/big.json"
a=$("$bin" npu --npu tpuv4-core --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["derived"]["sa_dynamic_w"])')
b=$("$bin" npu --npu "$tmp/big.json" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["derived"]["sa_dynamic_w"])')
python3 -c "assert abs($b - 4 * $a) < 1e-9 * $b, ($a, $b)"

# No workload draws more than its TPU's published measured maximum (max_w,
# per core; tpuv4-8: per chip, an LLM its tensor-parallel shard): every
# zoo, isca23 and LLM model alone on each TPU preset that has one (run
# --format json's system.power_w over the window).
# One sweep (one process: each model loaded once) runs them all.
models=$("$bin" models --format json | python3 -c '
import json, sys
print(" ".join(m["name"] for m in json.load(sys.stdin)["models"]))')
[ "$(echo $models | wc -w)" -ge 24 ] || { echo "too few models: $models"; exit 1; }
npus="tpuv3-core tpuv4-core tpuv4-8"
for npu in $npus; do
    "$bin" npu --npu $npu --format json > "$tmp/max_$npu.json"
done
python3 - "$tmp" $npus -- $models llm/llama3.2-1b:prefill=4096 llm/llama3.2-1b:decode=64x1024 \
    llm/llama2-7b:prefill=1024 llm/llama2-7b:prefill=4096 llm/llama2-7b:decode=4x1024 \
    llm/llama3-8b:prefill=2048 llm/llama3-8b:decode=1x512 <<'PY'
import json, sys
tmp, rest = sys.argv[1], sys.argv[2:]
npus, models = rest[:rest.index("--")], rest[rest.index("--") + 1:]
json.dump({"name": "power", "axes": {"mix": [[m] for m in models], "npu": npus,
                                     "policy": ["solo"]},
           "fixed": {"requests": 2, "warmup": 0, "seed": 1}}, open(tmp + "/power.json", "w"))
PY
"$bin" sweep "$tmp/power.json" --out "$tmp/power" --quiet > /dev/null
python3 - "$tmp" $npus <<'PY'
import csv, json, sys
tmp, npus = sys.argv[1], sys.argv[2:]
top = {n: json.load(open("%s/max_%s.json" % (tmp, n)))["max_w"] for n in npus}
assert all(w > 0 for w in top.values()), top
rows = list(csv.DictReader(open(tmp + "/power/results.csv")))
assert len(rows) == len({r["mix"] for r in rows}) * len(npus) >= 31 * 3, len(rows)
for r in rows:
    w = float(r["power_w"])
    assert 0 < w <= top[r["npu"]], "%s on %s draws %s W, above the measured maximum %s W" % (
        r["mix"], r["npu"], w, top[r["npu"]])
PY
# gpt2-xl alone: its 25 heads do not split over tpuv4-8's 4 chips
for npu in tpuv3-core tpuv4-core; do
    max=$(python3 -c "import json; print(json.load(open('$tmp/max_$npu.json'))['max_w'])")
    w=$("$bin" run --tenant llm/gpt2-xl:prefill=1024 --policy solo --requests 2 --warmup 0 \
        --npu $npu --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["system"]["power_w"])')
    python3 -c "import sys; sys.exit(not 0 < $w <= $max)" ||
        { echo "gpt2-xl on $npu draws $w W, above the measured maximum $max W"; exit 1; }
done
# and an LLM server at saturation beside a zoo model under V10-Full
w=$("$bin" run --tenant "llm/llama3.2-1b:trace=tests/data/llm/azure_code_200.csv:rate_scale=5" \
    --tenant bert --policy v10-full --requests 30 --warmup 0 --npu tpuv4-core --format json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["system"]["power_w"])')
python3 -c "import sys; sys.exit(not 0 < $w <= 96)" || { echo "server + bert: $w W"; exit 1; }
echo ok
