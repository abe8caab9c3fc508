#!/usr/bin/env bash
# golden.sh BIN OUTDIR — writes the outputs of a fixed set of commands into
# OUTDIR, for checking that a refactoring leaves every output byte-identical:
#   tools/golden.sh build/v10sim /tmp/before; ...; tools/golden.sh build/v10sim /tmp/after
#   diff -r /tmp/before /tmp/after
# Wall-clock fields (a sweep row's "perf", timings in repro's summary) are
# removed; everything else is compared as written.
set -uo pipefail
bin=$(realpath "$1"); out=$2
rm -rf "$out"; mkdir -p "$out"
cd "$(dirname "$0")/.."
E=tests/data/engine
n=0
go() { # go NAME ARGS... : stdout, stderr (sans progress) and exit code
  n=$((n+1))
  "$bin" "${@:2}" > "$out/$1.out" 2> "$out/$1.err"; echo $? > "$out/$1.rc"
  sed -i -e 's/\r.*//' "$out/$1.err"
}
go run_all       run --tenant isca23/efficientnet --tenant isca23/resnet50 --policy all
go run_json      run --tenant resnet50 --tenant efficientnet --policy all --format json
go run_csv       run --tenant bert --tenant ncf:batch=32 --policy all --format csv --requests 8
go run_trace     run --tenant transformer --tenant mnist --policy v10-full --requests 3 --trace "$out/trace.json"
go run_spatial   run --tenant resnet50:priority=4 --tenant efficientnet --tenant transformer --npu v10-isca23-2x --policy all
go run_rate      run --tenant $E/sa_heavy.csv:rate=2000 --tenant $E/vu_heavy.csv --policy prema,pmt --requests 30 --seed 7
go run_preempt   run --tenant resnet50 --tenant efficientnet --policy pmt,v10-full --preempt tile
go run_csvtrace  run --tenant $E/sa_vu.csv --tenant $E/membound.csv --policy all --format json
go models        models
go models_json   models --format json
go models_csv    models --format csv
go profile       profile resnet50
go profile_json  profile isca23/dlrm --format json
go npu           npu
go npu_json      npu --npu v10-isca23-4x --format json
go policies      policies
go topology      topology tests/data/shared/data/topologies/Resnet50.csv
go topology_json topology tests/data/shared/data/topologies/Resnet50.csv --format json
go calibrate     calibrate bert --profile data/tpu-profiles/utilization.csv --profile data/tpu-profiles/op_lengths.csv --row bert:32 --out "$out/calib.csv"
go collocate     collocate
go collocate_json collocate --format json
cat > "$out/svc.csv" <<CSV
name,model,batch,rate_rps,priority
a,$E/sa_heavy.csv,0,0,1
b,$E/vu_heavy.csv,0,0,1
c,$E/sa_vu.csv,0,0,2
d,$E/membound.csv,0,0,1
e,ncf,32,0,1
f,dlrm,8,0,1
g,mnist,0,0,1
CSV
go fleet         fleet --services "$out/svc.csv" --npus 3 --requests 4
go fleet_json    fleet --services "$out/svc.csv" --npus 3 --requests 4 --format json
go sweep         sweep tests/data/sweep/tiny.json -j 2 --out "$out/sweep"
go repro         repro --quick --out "$out/repro" -j 2
# Remove wall-clock fields and the output directory's name.
rm -f "$out/svc.csv" "$out/sweep/.lock" "$out/sweep/results.db"
[ -f "$out/sweep/results.jsonl" ] && python3 - "$out/sweep/results.jsonl" <<'PY'
import json, sys
p = sys.argv[1]; rows = [json.loads(l) for l in open(p)]
for r in rows: r.pop("perf", None)
rows.sort(key=lambda r: r["index"])
open(p, "w").write("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
PY
grep -rlZ --exclude='*.gz' -e "$out" -e wall_seconds -e ' in [0-9.]* s' "$out" | xargs -0 -r sed -i \
  -e "s#$out#OUT#g" -e '/"wall_seconds"/d' -e 's/ in [0-9.]* s\b/ in T s/'
echo "golden: $n commands -> $out" >&2
