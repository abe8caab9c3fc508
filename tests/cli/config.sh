#!/usr/bin/env bash
# `run --config FILE`: every run's JSON report records the settings it ran
# ("settings"); fed back (the report itself, or its settings object) they
# reproduce the run byte for byte, all but perf's wall-clock seconds; a
# sweep point's settings reproduce the sweep's row; flags override the
# file; bad settings are errors naming the file and key (exit 1).
source "$(dirname "$0")/lib.sh"
# A report without its wall-clock time, the one figure no run repeats (the
# table's "N events in S s" line, JSON's perf.wall_seconds).
nowall() { grep -v -e '"wall_seconds":' -e ' events in ' "$1"; }
same() { cmp -s <(nowall "$1") <(nowall "$2") || { diff <(nowall "$1") <(nowall "$2") | head -20; fail "$3"; }; }
settings() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d=d[int(sys.argv[2])] if isinstance(d,list) else d; json.dump(d["settings"],open(sys.argv[3],"w"))' "$@"; }

# 1. Flags of every kind, then their report fed back, then its settings alone.
flags=(--tenant isca23/bert:priority=2.5 --tenant isca23/ncf:slo_us=900 --policy v10-full
       --npu tpuv4-core --requests 6 --warmup 2 --seed 7 --pmt-slice-us 500 --preempt tile
       --no-contention)
"$bin" run "${flags[@]}" --format json > "$tmp/a.json"
"$bin" run --config "$tmp/a.json" --format json > "$tmp/b.json"
same "$tmp/a.json" "$tmp/b.json" "a report fed back did not reproduce the run"
settings "$tmp/a.json" 0 "$tmp/s.json"
"$bin" run --config "$tmp/s.json" --format json > "$tmp/c.json"
same "$tmp/a.json" "$tmp/c.json" "a report's settings did not reproduce the run"
"$bin" run "${flags[@]}" > "$tmp/a.txt"
"$bin" run --config "$tmp/s.json" > "$tmp/c.txt"
same "$tmp/a.txt" "$tmp/c.txt" "the table of a run from its settings differs"
python3 - "$tmp/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["tenants"] == ["isca23/bert:priority=2.5", "isca23/ncf:slo_us=900"], s["tenants"]
assert s["npu"] == "tpuv4-core" and s["policy"] == "v10-full", s
assert (s["requests"], s["warmup"], s["seed"]) == (6, 2, 7), s
assert s["pmt_slice_us"] == 500 and s["preempt"] == "tile" and s["contention"] is False, s
PY

# 2. An NPU from a file is recorded field by field; a seed past 2^53 as a string.
npu=$(ls configs/*.json | head -1)
"$bin" run --tenant mnist --tenant ncf --npu "$npu" --seed 18446744073709551615 --requests 4 \
    --format json > "$tmp/n.json"
"$bin" run --config "$tmp/n.json" --format json > "$tmp/n2.json"
same "$tmp/n.json" "$tmp/n2.json" "an NPU file's run was not reproduced"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["settings"]; assert isinstance(s["npu"], dict) and s["seed"] == "18446744073709551615", s' "$tmp/n.json"

# 2b. op_mapping "reclaim" from a file is recorded in the settings, and its
# JSON report and table reproduce: the NPU's derived power fields (its
# hbm_w_per_gbps, 0.008162526703534238, has 16 digits) read back exactly.
rc=(--tenant isca23/efficientnet --tenant isca23/resnet50 --policy v10-full
    --npu configs/tpuv4-core-reclaim.json --requests 4)
"$bin" run "${rc[@]}" --format json > "$tmp/rc.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["settings"]; assert s["npu"]["op_mapping"] == "reclaim", s' "$tmp/rc.json"
grep -q '"hbm_w_per_gbps":.0.008162526703534238,' "$tmp/rc.json" ||
    fail "tpuv4-core's hbm_w_per_gbps is not 0.008162526703534238 (the case this checks)"
"$bin" run --config "$tmp/rc.json" --format json > "$tmp/rc2.json"
same "$tmp/rc.json" "$tmp/rc2.json" "an NPU file's derived power fields did not read back exactly"
"$bin" run "${rc[@]}" > "$tmp/rc.txt"
"$bin" run --config "$tmp/rc.json" > "$tmp/rc2.txt"
same "$tmp/rc.txt" "$tmp/rc2.txt" "the table of an op_mapping \"reclaim\" run from its settings differs"
grep -q "npu tpuv4-core-reclaim" "$tmp/rc2.txt" || fail "the reclaim NPU's name is not in the table"

# 3. Several policies: each run of the list reproduces alone.
"$bin" run --tenant mnist --tenant ncf --policy pmt,v10-fair --requests 4 --format json \
    > "$tmp/m.json"
for i in 0 1; do
    settings "$tmp/m.json" "$i" "$tmp/m$i.json"
    "$bin" run --config "$tmp/m$i.json" --format json > "$tmp/r$i.json"
    python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))[int(sys.argv[2])], open(sys.argv[3],"w"), indent=2)' \
        "$tmp/m.json" "$i" "$tmp/e$i.json"
    python3 - "$tmp/e$i.json" "$tmp/r$i.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("perf"); b.pop("perf")
assert a == b, "policy %s: not reproduced" % a["policy"]
PY
done
printf '{"tenants": ["mnist", "ncf"], "policy": ["pmt", "v10-fair"], "requests": 4}' > "$tmp/l.json"
"$bin" run --config "$tmp/l.json" --format json > "$tmp/l.out"
same "$tmp/m.json" "$tmp/l.out" "a list of policies in the file differs from --policy a,b"

# 4. Flags override the file's keys; --tenant replaces its tenants.
"$bin" run --config "$tmp/s.json" --seed 9 --format json > "$tmp/o.json"
"$bin" run "${flags[@]}" --seed 9 --format json > "$tmp/o2.json"
same "$tmp/o.json" "$tmp/o2.json" "--seed over --config is not the flags' run"
"$bin" run --config "$tmp/s.json" --tenant mnist --format json > "$tmp/t.json"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["settings"]; assert s["tenants"]==["mnist"] and s["npu"]=="tpuv4-core", s' "$tmp/t.json"

# 5. A sweep point's settings ("mix", npu objects, ...) reproduce its row.
"$bin" sweep tests/data/sweep/tiny.json -j 2 --out "$tmp/sw" --quiet > /dev/null
python3 - "$tmp/sw/results.jsonl" "$tmp" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for i in (0, 13, 47):
    json.dump(rows[i]["point"], open("%s/p%d.json" % (sys.argv[2], i), "w"))
    json.dump(rows[i]["result"], open("%s/w%d.json" % (sys.argv[2], i), "w"))
PY
for i in 0 13 47; do
    "$bin" run --config "$tmp/p$i.json" --format json > "$tmp/q$i.json"
    python3 - "$tmp/w$i.json" "$tmp/q$i.json" <<'PY'
import json, sys
want, got = (json.load(open(p)) for p in sys.argv[1:])
got.pop("perf")
assert want == got, "a sweep point's settings did not reproduce its row"
PY
done

# 6. Bad settings: exit 1, naming the file and the key.
bad() { # JSON, expected message
    printf '%s' "$1" > "$tmp/bad.json"
    set +e
    "$bin" run --config "$tmp/bad.json" > /dev/null 2> "$tmp/err"
    rc=$?
    set -e
    [ $rc -eq 1 ] || fail "'$1': exit $rc, expected 1"
    grep -qF -- "$2" "$tmp/err" || fail "'$1': expected '$2', got: $(cat "$tmp/err")"
}
bad '{"tenants": ["mnist"], "polcy": "pmt"}' "bad.json: polcy: unknown key (expected tenants"
bad '{"tenants": ["mnist"], "requests": 0}' "bad.json: requests: expected an integer in [1, 10000000]"
bad '{"policy": "pmt"}' "bad.json: tenants: missing"
bad '{"tenants": ["mnist"], "policy": "pmtt"}' "unknown policy 'pmtt'"
bad '{"tenants": ["mnist", "ncf"], "priority": [1]}' "bad.json: priority: 1 priorities for 2 tenants"
bad '{"tenants": ["mnist"], "slice_cycles": 8, "v10-full.slice_cycles": 16}' "given twice"
bad '{"tenants": ["mnist:batch=0"]}' "bad.json: tenants[0]: tenant 'mnist:batch=0'"
bad '{"tenants": ["mnist"], "npu.hbm_gbps": -1}' "bad.json: npu.hbm_gbps"
bad '[1, 2]' "a list of 2 runs' reports"
bad '{"tenants": ["mnist"]' "bad.json:1: malformed JSON"
set +e
"$bin" run --config "$tmp/none.json" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "none.json" "$tmp/err" || fail "a missing file: exit $rc"
echo "config: reports reproduce byte for byte from their settings; sweep points too; errors name keys"
