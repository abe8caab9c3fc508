#!/usr/bin/env bash
# `v10sim fleet`: every service placed exactly once under each placement,
# two or more per NPU, consistent per-service records, determinism, and bad
# services files named by file and line.
source "$(dirname "$0")/lib.sh"
D=tests/data/engine

cat > "$tmp/svc.csv" <<CSV
# a small fleet
name,model,batch,rate_rps,priority
a,$D/sa_heavy.csv,0,0,1
b,$D/vu_heavy.csv,0,0,1
c,$D/sa_vu.csv,0,0,2
d,$D/membound.csv,0,0,1
e,ncf,32,0,1
f,dlrm,8,0,1
g,mnist,0,0,1
CSV

"$bin" fleet --help | grep -q "name,model,batch,rate_rps"
"$bin" fleet --services "$tmp/svc.csv" --npus 3 --requests 4 --format json > "$tmp/a.json"
"$bin" fleet --services "$tmp/svc.csv" --npus 3 --requests 4 --format json -j 1 > "$tmp/b.json"
cmp "$tmp/a.json" "$tmp/b.json"
python3 - "$tmp/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
names = ["a", "b", "c", "d", "e", "f", "g"]
pl = {p["placement"]: p for p in r["placements"]}
assert sorted(pl) == ["cluster", "greedy", "random"]
for name, p in pl.items():
    members = [s for n in p["npus"] for s in n["services"]]
    assert sorted(members) == names, (name, members)        # each placed exactly once
    assert len(p["npus"]) == 3
    assert all(len(n["services"]) >= 2 for n in p["npus"]), name
    for s in p["services"]:
        npu = p["npus"][s["npu"]]
        assert s["name"] in npu["services"], (name, s)
        assert s["np"] > 0 and s["lat_p95_us"] > 0
    assert abs(sum(n["stp"] for n in p["npus"]) - p["stp_total"]) < 1e-9
    assert 0 < p["util_overall"] <= 1
PY
"$bin" fleet --services "$tmp/svc.csv" --npus 2 --requests 4 | grep -q "placement"
"$bin" fleet --services examples/services.csv --npus 4 --requests 3 --format json > "$tmp/ex.json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert all(len([s for n in p['npus'] for s in n['services']])==10 for p in r['placements'])" "$tmp/ex.json"

# The documented maximum: 4096 services on 2048 NPUs.  Placement is O(n m)
# plus O(n^2) a swap pass (docs/repro.md, "How the time grows"); the bound
# below is ~50x what it needs, where the old O(n^4) placement took hours.
{ echo "name,model,batch,rate_rps,priority"
  for i in $(seq 0 4095); do
      case $((i % 5)) in 0) m=$D/sa_heavy.csv;; 1) m=$D/vu_heavy.csv;; 2) m=$D/sa_vu.csv;;
                         3) m=$D/membound.csv;; *) m=mnist;; esac
      echo "s$i,$m,0,0,1"
  done; } > "$tmp/max.csv"
( ulimit -t 120; V10_PROGRESS=0 "$bin" fleet --services "$tmp/max.csv" --npus 2048 --requests 2 \
      --format json -j 1 > "$tmp/max.json" )
python3 - "$tmp/max.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["placements"]:
    assert len(p["npus"]) == 2048
    assert all(len(n["services"]) == 2 for n in p["npus"]), p["placement"]
    assert sorted(int(s[1:]) for n in p["npus"] for s in n["services"]) == list(range(4096))
    assert all(s["np"] > 0 for s in p["services"])
# NPUs with the same services are simulated once and report the same figures
for p in r["placements"]:
    seen = {}
    for n in p["npus"]:
        key = tuple(int(s[1:]) % 5 for s in n["services"])
        if key in seen:
            assert seen[key] == (n["util_overall"], n["stp"]), (p["placement"], key)
        seen[key] = (n["util_overall"], n["stp"])
PY
# Every stage shows its progress, placing too.
V10_PROGRESS_EVERY=0 "$bin" fleet --services "$tmp/svc.csv" --npus 3 --requests 4 2> "$tmp/prog" > /dev/null
for stage in profiling "scoring clusters" placing "simulating NPUs"; do
    grep -q "fleet: $stage: " "$tmp/prog" || { echo "no progress for $stage"; cat "$tmp/prog"; exit 1; }
done

# The services file is CSV as every other input (RFC 4180 through libcsv):
# quoted fields (a comma, a doubled quote inside), no quotes kept, blanks
# around fields dropped; control bytes in a name are escaped where it enters.
printf 'name,model,batch,rate_rps,priority\n"search, v2",ncf,32,0,1\n"say ""hi""", "mnist" ,0,0,"2"\n' > "$tmp/q.csv"
printf 'tags\033[31m,%s,0,0,1\n' "$D/sa_heavy.csv" >> "$tmp/q.csv"
printf '"x\001y",%s,0,0,1\n' "$D/vu_heavy.csv" >> "$tmp/q.csv"
V10_PROGRESS=0 "$bin" fleet --services "$tmp/q.csv" --npus 2 --requests 2 --format json > "$tmp/q.json"
python3 - "$tmp/q.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["placements"][0]
names = sorted(s["name"] for s in p["services"])
assert names == ['say "hi"', "search, v2", "tags\\x1b[31m", "x\\x01y"], names
models = {s["name"]: s["model"] for s in p["services"]}
assert models['say "hi"'] == "mnist", models
PY
V10_PROGRESS=0 "$bin" fleet --services "$tmp/q.csv" --npus 2 --requests 2 > "$tmp/q.txt"
if LC_ALL=C grep -q "$(printf '[\001\033]')" "$tmp/q.txt"; then
    echo "a control byte reached the table"; exit 1
fi
grep -q 'tags\\x1b\[31m' "$tmp/q.txt"

expect_fail() { # rc message args...
    local want=$1 msg=$2; shift 2
    set +e
    "$bin" fleet "$@" > /dev/null 2> "$tmp/err"; local rc=$?
    set -e
    [ $rc -eq "$want" ] && grep -q -- "$msg" "$tmp/err" || { echo "fleet $*: rc=$rc"; cat "$tmp/err"; exit 1; }
}
expect_fail 1 "need at least two per NPU" --services "$tmp/svc.csv" --npus 4 --requests 4
expect_fail 2 "give --services" --npus 2
expect_fail 2 "give --npus" --services "$tmp/svc.csv"
expect_fail 1 "cannot open" --services "$tmp/none.csv" --npus 1
printf 'name,model,batch,rate_rps\nx,ncf,32,0\nx,ncf,32,0\n' > "$tmp/dup.csv"
expect_fail 1 "dup.csv:3: duplicate" --services "$tmp/dup.csv" --npus 1
printf 'name,model,batch,rate_rps\nx,ncf,-3,0\n' > "$tmp/neg.csv"
expect_fail 1 "neg.csv:2: batch" --services "$tmp/neg.csv" --npus 1
printf 'name,model\nx,ncf\n' > "$tmp/hdr.csv"
expect_fail 1 "hdr.csv:1: expected the header" --services "$tmp/hdr.csv" --npus 1
printf 'name,model,batch,rate_rps\nx,ncf,32\n' > "$tmp/short.csv"
expect_fail 1 "short.csv:2: expected 4 fields" --services "$tmp/short.csv" --npus 1
printf 'name,model,batch,rate_rps\nab\0cd,ncf,32,0\ny,ncf,32,0\n' > "$tmp/nul.csv"
expect_fail 1 "nul.csv:2: NUL byte" --services "$tmp/nul.csv" --npus 1
printf 'name,model,batch,rate_rps\n"x,ncf,32,0\n' > "$tmp/quote.csv"
expect_fail 1 "quote.csv:2: malformed quoting" --services "$tmp/quote.csv" --npus 1
printf 'name,model,batch,rate_rps\nx,ncf,lots,0\n' > "$tmp/word.csv"
expect_fail 1 "word.csv:2: batch: expected an integer in \[0, 65536\], got 'lots'" --services "$tmp/word.csv" --npus 1
echo ok
