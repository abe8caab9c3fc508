#!/usr/bin/env bash
# llm_serve.sh — LLM servers through `run` (docs/llm.md "Serving tenants"):
# llama3.2-1b on the first 25 requests of the conversation trace beside
# resnet50 under pmt, v10-fair and v10-full with --check (every request
# once, TTFT <= e2e, the window's tokens are the trace's); the table, CSV
# and Perfetto outputs; the same seed gives byte-identical JSON; bad spec
# values and a model that does not fit are errors naming the key or sizes.
# Usage: llm_serve.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"

trace=tests/data/llm/azure_conv_200.csv
llm="llm/llama3.2-1b:trace=$trace:rate_scale=0.2:slo_ttft_ms=300:slo_tpot_ms=50"

for pol in pmt v10-fair v10-full; do
    "$bin" run --policy "$pol" --tenant "$llm" --tenant resnet50 --requests 25 --warmup 0 \
        --check --format json >"$tmp/$pol.json"
    python3 - "$tmp/$pol.json" "$trace" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[2])))[1:26]
want = sum(int(r[2]) for r in rows)
t, z = d["tenants"]
assert t["completed"] == 25 and t["llm_requests"] == 25, t
assert t["tokens"] == want, (t["tokens"], want)
for k in ("avg", "p50", "p95", "p99"):
    assert t["ttft_us"][k] <= t["e2e_us"][k], (k, t["ttft_us"], t["e2e_us"])
    assert t["queue_us"][k] <= t["ttft_us"][k], (k, t["queue_us"], t["ttft_us"])
assert t["tpot_us"]["p50"] <= t["tpot_us"]["p99"]
assert 0 <= t["slo_ttft"] <= 1 and 0 <= t["slo_tpot"] <= 1
assert t["np"] is None and t["kv_peak_tokens"] <= t["kv_capacity_tokens"]
assert d["config"]["tenants"][0]["max_batch"] == 256, d["config"]["tenants"][0]  # the default, not 0
# No warm-up: the requests' own span lies inside the window.
assert t["tokens_per_s_active"] >= t["tokens_per_s"] * (1 - 1e-12), t
assert "ttft_us" not in z and z["completed"] >= 25
assert abs(d["system"]["stp"] - z["np"]) < 1e-12   # STP leaves the server out
print(d["policy"], "ttft p50 %.0f us, tpot p50 %.0f us, %.1f tok/s" %
      (t["ttft_us"]["p50"], t["tpot_us"]["p50"], t["tokens_per_s"]))
PY
done

# ---- determinism: same seed, byte-identical JSON (the wall time aside) -----
strip() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("perf"); print(json.dumps(d))' "$1"; }
"$bin" run --policy v10-full --tenant "$llm" --tenant resnet50 --requests 25 --warmup 0 \
    --check --format json >"$tmp/again.json"
[ "$(strip "$tmp/v10-full.json")" = "$(strip "$tmp/again.json")" ] || fail "same seed, different JSON"

# ---- table, CSV, Perfetto ---------------------------------------------------
"$bin" run --tenant "$llm" --tenant resnet50 --requests 10 >"$tmp/out.txt"
grep -q "LLM serving" "$tmp/out.txt" || fail "table without the LLM section"
grep -q "ttft_p99" "$tmp/out.txt" || fail "table without TTFT"
"$bin" run --tenant "$llm" --tenant resnet50 --requests 10 --format csv >"$tmp/out.csv"
head -1 "$tmp/out.csv" | grep -q ",ttft_p50_us," || fail "CSV without TTFT columns"
head -1 "$tmp/out.csv" | grep -q ",tokens_per_s,tokens_per_s_active," || fail "CSV without tokens/s"
tail -1 "$tmp/out.csv" | grep -q ",,,,,,,,,,,,,,,,,$" || fail "CSV: a zoo tenant's 17 LLM cells must be empty"
grep -q "ttft_p95 .*tpot_p95" "$tmp/out.txt" || fail "table without TTFT and TPOT p95"
head -1 "$tmp/out.csv" | grep -q ",ttft_p50_us,ttft_p95_us,ttft_p99_us,.*,tpot_p95_us," || fail "CSV without p95"

# ---- several policies: the LLM section and columns too ---------------------
"$bin" run --tenant "$llm" --tenant resnet50 --requests 10 --policy pmt,v10-full >"$tmp/cmp.txt"
"$bin" run --tenant "$llm" --tenant resnet50 --requests 10 --policy pmt,v10-full \
    --format csv >"$tmp/cmp.csv"
"$bin" run --tenant "$llm" --tenant resnet50 --requests 10 --policy v10-full \
    --format csv >"$tmp/one_pol.csv"
python3 - "$tmp/cmp.txt" "$tmp/cmp.csv" "$tmp/one_pol.csv" <<'PY'
import csv, sys
txt = open(sys.argv[1]).read().split("\nLLM serving")
assert len(txt) == 2, "comparison table without its LLM section"
lines = txt[1].strip().split("\n")
head = lines[1].split()
assert head[:3] == ["policy", "tenant", "reqs"] and "ttft_p95" in head and "tpot_p95" in head, head
rows = [l.split() for l in lines[3:]]
assert [r[0] for r in rows] == ["pmt", "v10-full"] and all(r[1] == "t0:llama3.2-1b" for r in rows), rows
cmp = list(csv.DictReader(open(sys.argv[2])))
one = list(csv.DictReader(open(sys.argv[3])))
assert len(cmp) == 4 and list(cmp[0]) == list(one[0]), "comparison CSV columns differ from a run's"
srv = [r for r in cmp if r["tenant"] == "t0:llama3.2-1b"]
assert len(srv) == 2 and all(int(r["llm_requests"]) >= 9 for r in srv), srv
assert all(r["ttft_p95_us"] == "" for r in cmp if r["tenant"] != "t0:llama3.2-1b")
# the v10-full rows are the single run's, cell for cell
v = [r for r in cmp if r["policy"] == "v10-full"]
assert [r["ttft_p95_us"] for r in v] == [r["ttft_p95_us"] for r in one], (v, one)
PY
grep -q "tok_s_act" "$tmp/out.txt" || fail "table without tokens/s over the active span"
"$bin" run --tenant "$llm" --tenant resnet50 --requests 5 --trace "$tmp/t.json" >/dev/null
python3 - "$tmp/t.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
it = [e for e in ev if e.get("cat") == "iteration"]
assert any(e["name"].startswith("prefill ") and e["name"].endswith(" tok") for e in it), it[:3]
assert any(e["name"].startswith("decode ") and e["name"].endswith(" seqs") for e in it), it[:3]
assert all(e["pid"] == 2 and e["tid"] == 0 for e in it)
# The server's operators are named by layer (llama3.2-1b: 16 layers), not "t0:op 17".
import re
ops = {e["name"] for e in ev if e.get("cat") == "op" and e["args"]["tenant"] == 0}
assert ops and not any(" op " in n or n.startswith("t0:op") for n in ops), sorted(ops)[:5]
layers = {int(m.group(1)) for n in ops for m in [re.match(r"t0:L(\d+)\.", n)] if m}
assert layers == set(range(16)), sorted(layers)
assert "t0:L3.attn.qk" in ops and "t0:L3.mlp.down" in ops, sorted(ops)[:20]
PY

# ---- empty means null: no TPOT sample, or no request in the window ---------
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n' >"$tmp/one.csv"
for i in 0 1 2 3 4 5; do printf '2023-11-16 18:15:4%d.0000000,100,1\n' $i; done >>"$tmp/one.csv"
"$bin" run --tenant "llm/llama3.2-1b:trace=$tmp/one.csv" --tenant resnet50 --requests 5 \
    --warmup 0 --format json >"$tmp/one.json"
# two requests served while resnet50:batch=256 finishes its warm-up: none in the window
"$bin" run --tenant "llm/llama3.2-1b:trace=$tmp/one.csv:requests=2:rate_scale=100" \
    --tenant resnet50:batch=256 --requests 3 --warmup 1 --format json >"$tmp/empty.json"
"$bin" run --tenant "llm/llama3.2-1b:trace=$tmp/one.csv:requests=2:rate_scale=100" \
    --tenant resnet50:batch=256 --requests 3 --warmup 1 >"$tmp/empty.txt"
python3 - "$tmp/one.json" "$tmp/empty.json" <<'PY'
import json, sys
one = json.load(open(sys.argv[1]))["tenants"][0]
assert one["llm_requests"] == 5 and all(v is None for v in one["tpot_us"].values()), one["tpot_us"]
assert one["ttft_us"]["p50"] > 0 and one["tokens_per_s"] > 0, one
e = json.load(open(sys.argv[2]))["tenants"][0]
assert e["llm_requests"] == 0 and e["completed"] == 2, e
for k in ("ttft_us", "tpot_us", "e2e_us", "queue_us", "latency_us"):
    assert all(v is None for v in e[k].values()), (k, e[k])
for k in ("throughput_rps", "tokens_per_s", "tokens_per_s_active"):
    assert e[k] is None, (k, e[k])
PY
grep -qE "^t0:llama3.2-1b +0( +-){15} +0$" "$tmp/empty.txt" || fail "empty server's row: $(grep ^t0 "$tmp/empty.txt")"

# ---- max_prefill_tokens: the prefill budget is a spec key ------------------
# six prompts of 100 tokens arrive within 5 s: a budget of 100 prefills them
# one at a time, the default (4096) together when they wait together
"$bin" run --tenant "llm/llama3.2-1b:trace=$tmp/one.csv:rate_scale=1000:max_prefill_tokens=100" \
    --requests 6 --warmup 0 --policy solo --format json >"$tmp/mp1.json"
"$bin" run --tenant "llm/llama3.2-1b:trace=$tmp/one.csv:rate_scale=1000" \
    --requests 6 --warmup 0 --policy solo --format json >"$tmp/mp2.json"
python3 - "$tmp/mp1.json" "$tmp/mp2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["config"]["tenants"][0]["max_prefill_tokens"] == 100, a["config"]["tenants"][0]
assert b["config"]["tenants"][0]["max_prefill_tokens"] == 4096, b["config"]["tenants"][0]
assert a["tenants"][0]["prefills"] == 6, a["tenants"][0]["prefills"]
assert b["tenants"][0]["prefills"] < 6, b["tenants"][0]["prefills"]
PY

# ---- paged KV: short of blocks, the newest request is preempted and recomputed --
# llama3-8b on a tpuv4-core with 19 GB of HBM has 7,930 KV tokens beside its
# weights and the 10% workspace (on the preset's 16 GiB it does not fit): the
# first 40 conversation requests at twice their rate outgrow them; --check
# verifies that tokens come in order (a recomputed prefill emits the next
# one) and the cache stays within capacity; every request finishes with the
# trace's tokens.
printf '{"base": "tpuv4-core", "hbm_capacity_bytes": 19000000000}\n' >"$tmp/v4_19g.json"
"$bin" run --tenant "llm/llama3-8b:trace=$trace:rate_scale=2" --npu "$tmp/v4_19g.json" \
    --policy solo --requests 40 --warmup 0 --check --format json >"$tmp/paged.json"
python3 - "$tmp/paged.json" "$trace" <<'PY'
import csv, json, sys
t = json.load(open(sys.argv[1]))["tenants"][0]
rows = list(csv.reader(open(sys.argv[2])))[1:41]
assert t["llm_requests"] == 40 and t["tokens"] == sum(int(r[2]) for r in rows), t
assert t["kv_preemptions"] > 0, t["kv_preemptions"]
assert t["kv_peak_tokens"] <= t["kv_capacity_tokens"] and t["kv_peak_tokens"] % 16 == 0, t
assert t["kv_capacity_tokens"] == (19000000000 - 1900000000 - 16060522496) // 131072, t
PY

# ---- a lengths= file is checked whole, not only the rows a seed draws ------
cp "$tmp/one.csv" "$tmp/len.csv"
echo '2023-11-16 18:15:50.0000000,200000,10' >>"$tmp/len.csv"
if "$bin" run --tenant "llm/llama3.2-1b:rate=5:lengths=$tmp/len.csv" --requests 2 --warmup 0 \
    >/dev/null 2>"$tmp/e"; then fail "a lengths= row over max_context accepted"; fi
grep -q "len.csv: request 6 (row 7 after the header): 200000 prompt + 10 output tokens exceed llama3.2-1b's max_context of 131072" "$tmp/e" ||
    fail "lengths=: $(cat "$tmp/e")"

# ---- the built-in traces (llm-study's defaults): the file's bytes ----------
"$bin" run --tenant "llm/llama3.2-1b:trace=@azure_conv_200:rate_scale=0.2" --tenant resnet50 \
    --requests 10 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("perf"); d.pop("settings"); d["config"]["tenants"][0].pop("trace"); print(json.dumps(d))' >"$tmp/builtin.json"
"$bin" run --tenant "llm/llama3.2-1b:trace=$trace:rate_scale=0.2" --tenant resnet50 \
    --requests 10 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("perf"); d.pop("settings"); d["config"]["tenants"][0].pop("trace"); print(json.dumps(d))' >"$tmp/file.json"
cmp -s "$tmp/builtin.json" "$tmp/file.json" || fail "trace=@azure_conv_200 differs from the file"

# ---- memory: a server's buffers are sized to its trace, not the worst case --
# 16 servers at max_batch=4096 (each once reserved ~150 MB for 4096 prompts
# per prefill) run in 1 GiB of address space.  ASan reserves terabytes.
if [ "${V10_SANITIZED:-OFF}" != ON ]; then
    printf '{"base": "v10-isca23", "hbm_capacity_bytes": 68719476736}\n' >"$tmp/big.json"
    many=()
    for i in $(seq 16); do many+=(--tenant "llm/llama3.2-1b:trace=$trace:requests=3:max_batch=4096"); done
    (ulimit -v 1048576; "$bin" run "${many[@]}" --npu "$tmp/big.json" --requests 3 --warmup 0 \
        --policy fcfs >/dev/null) || fail "16 servers do not run in 1 GiB of address space"
    # 64 small servers, two policies back to back, in 32 MiB (the binary and
    # its libraries take ~10): latency histograms hold blocks where values
    # land (before, 440 KiB per tenant: this run needed 46 MB).
    printf '{"base": "v10-isca23", "hbm_capacity_bytes": 1099511627776}\n' >"$tmp/huge.json"
    many=()
    for i in $(seq 64); do many+=(--tenant "llm/llama3.2-1b:trace=@azure_conv_200:requests=3"); done
    (ulimit -v 32768; "$bin" run "${many[@]}" --npu "$tmp/huge.json" --requests 3 --warmup 0 \
        --policy fcfs,v10-base >/dev/null 2>&1) || fail "64 servers do not run in 32 MiB of address space"
fi

# ---- a simple closed-loop run stays untouched: no LLM columns --------------
"$bin" run --tenant resnet50 --requests 3 --format csv | head -1 | grep -q ttft && fail "LLM columns without a server"

# ---- errors name the key or both sizes -------------------------------------
expect_error() {  # expect_error NEEDLE ARGS...
    local needle=$1; shift
    if "$bin" "$@" >"$tmp/o" 2>"$tmp/e"; then fail "expected an error: $*"; fi
    grep -q -- "$needle" "$tmp/e" || fail "error does not name '$needle': $(cat "$tmp/e")"
    [ -s "$tmp/o" ] && fail "output written on error: $*"
    true
}
expect_error max_batch run --tenant "llm/gpt2-xl:trace=$trace:max_batch=0"
expect_error max_prefill_tokens run --tenant "llm/gpt2-xl:trace=$trace:max_prefill_tokens=0"
expect_error rate_scale run --tenant "llm/gpt2-xl:trace=$trace:rate_scale=-2"
expect_error slo_ttft_ms run --tenant "llm/gpt2-xl:trace=$trace:slo_ttft_ms=abc"
expect_error "lengths" run --tenant "llm/gpt2-xl:lengths=$trace"
expect_error "must exceed --warmup" run --tenant "llm/gpt2-xl:trace=$trace:requests=2" --requests 30
expect_error "no-such.csv" run --tenant "llm/gpt2-xl:trace=no-such.csv"
expect_error "@azure_chat: no such built-in trace" run --tenant "llm/gpt2-xl:trace=@azure_chat"
expect_error "16060522496" run --tenant "llm/llama3-8b:trace=$trace" --tenant resnet50 \
    --tenant bert
echo "llm_serve ok"
