#!/usr/bin/env bash
# llm.sh — LLM phases through the CLI: `profile llm/MODEL:decode=NxC` and
# `:prefill=P` (shapes, HBM bytes against the closed forms, the trace-CSV
# round trip), the HBM fit error naming both sizes, bad specs, and `npu`
# showing hbm_capacity_bytes.
# Usage: llm.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"


# ---- decode: 32 sequences at context 1024 -----------------------------------
"$bin" profile llm/llama3-8b:decode=32x1024 --format json >"$tmp/dec.json"
python3 - "$tmp/dec.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t, ops = d["totals"], d["ops"]
assert t["name"] == "llm/llama3-8b:decode=32x1024" and t["batch"] == 32, t
# Llama 3 8B (config.json): 32 layers, 4096 hidden, 8 KV heads of 128, FFN 14336
L, h, kvh, hd, ffn, vocab = 32, 4096, 8, 128, 14336, 128256
weights = L * (h * (32 + 2 * kvh) * hd + 32 * hd * h + 3 * h * ffn) + h * vocab
kv_read = 32 * 1024 * 2 * L * kvh * hd * 2
assert t["hbm_bytes"] >= 2 * weights + kv_read, (t["hbm_bytes"], 2 * weights + kv_read)
sa = [o for o in ops if o["fu"] == "SA"]
assert all(o["name"].split(".")[-1] in ("qkv", "o", "gate_up", "down", "lm") for o in sa), \
    "decode attention must be VU work"
assert len([o for o in ops if o["name"].endswith("attn.qk")]) == L
assert t["macs"] == 32 * weights, t["macs"]   # SA MACs: the weight GEMMs, M = 32
print("decode ok:", t["latency_us"], "us,", t["hbm_bytes"], "HBM bytes")
PY

# ---- prefill ----------------------------------------------------------------
"$bin" profile llm/llama3.2-1b:prefill=512 --format json >"$tmp/pre.json"
python3 - "$tmp/pre.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
# Llama 3.2 1B: 16 x (Q + KV + O + 3 FFN) weights, 32 heads of 64, P = 512
L, h, P = 16, 2048, 512
layer = h * h + 2 * h * 512 + h * h + 3 * h * 8192
# causal attention in 128 x 128 blocks on and below the diagonal: n = 4
# blocks of queries and keys, 128^2 x n(n + 1) / 2 scores (QK^T and P.V)
attn = 2 * L * 32 * 64 * 128 * 128 * 4 * 5 // 2
assert t["macs"] == P * L * layer + attn + h * 128256, t["macs"]
assert t["batch"] == 1
print("prefill ok:", t["latency_us"], "us")
PY

# the table form, and the trace CSV of a phase profiles back to the same
"$bin" profile llm/gpt2-xl:decode=4x512,4x1024 >"$tmp/dec.txt"
grep -q '^model llm/gpt2-xl:decode=4x512,4x1024, batch 8' "$tmp/dec.txt" || fail "profile table header"
grep -q ' L47.attn.qk  *VU ' "$tmp/dec.txt" || fail "no L47.attn.qk VU operator"
"$bin" profile llm/gpt2-xl:decode=4x512,4x1024 --format csv >"$tmp/dec.csv"
a=$("$bin" profile llm/gpt2-xl:decode=4x512,4x1024 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["latency_cycles"])')
b=$("$bin" profile "$tmp/dec.csv" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"]["latency_cycles"])')
[ "$a" = "$b" ] || fail "trace CSV round trip: $a != $b"

# a config from a JSON file
cat >"$tmp/mistral.json" <<'JS'
{"name": "mistral-7b", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
 "ffn": 14336, "vocab": 32000, "max_context": 32768}
JS
"$bin" profile "llm/$tmp/mistral.json:decode=8x4096" >/dev/null || fail "JSON config"

# a decode iteration as an ordinary tenant of `run` (not serving: the same
# batch repeated, closed loop)
"$bin" run --tenant llm/llama3.2-1b:decode=4x100 --tenant isca23/ncf --requests 4 \
    --format json | python3 -c '
import json, sys
t = json.load(sys.stdin)["tenants"][0]
assert t["model"] == "llm/llama3.2-1b:decode=4x100" and t["batch"] == 4, t
# at least 4: the run lasts until both tenants have 4, and isca23/ncf is slower
assert t["completed"] >= 4 and t["latency_us"]["avg"] >= t["alone_latency_us"], t
' || fail "run with an llm/ tenant"

# ---- errors: exit 1, one line naming the culprit ------------------------------
expect1() {
    local needle=$1
    shift
    set +e
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    [ "$rc" -eq 1 ] || fail "v10sim $*: exit $rc, expected 1"
    grep -qF -- "$needle" "$tmp/err" || fail "v10sim $*: stderr lacks '$needle': $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "v10sim $*: wrote to stdout on bad input"
}
# 16.06 GB of weights + 4.29 GB of KV cache > a TPUv4 core's 16 GiB: both sizes named
expect1 "16060522496 bytes" profile llm/llama3-8b:decode=32x1024 --npu tpuv4-core
expect1 "17179869184 bytes" profile llm/llama3-8b:decode=32x1024 --npu tpuv4-core
expect1 "needs a phase" profile llm/llama3-8b
expect1 "max_context = 1024" profile llm/gpt2-xl:prefill=2048
expect1 "decode" profile llm/llama3-8b:decode=32x
expect1 "unknown LLM 'llama9'" profile llm/llama9:prefill=4
expect1 "llm/ models only" profile bert:prefill=4
echo '{"base": "llama3-8b", "heads": 2.5}' >"$tmp/bad.json"
expect1 "key 'heads'" profile "llm/$tmp/bad.json:prefill=4"

# ---- npu: the HBM capacity --------------------------------------------------
"$bin" npu --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["hbm_capacity_bytes"] == 32 * 2**30, d
' || fail "npu --format json lacks hbm_capacity_bytes"
"$bin" npu --npu tpuv4-core | grep -q '^hbm_capacity_bytes  *17179869184' || fail "npu table capacity"
echo '{"hbm_capacity_bytes": 80000000000}' >"$tmp/big.json"
"$bin" profile llm/llama3-8b:decode=32x1024 --npu "$tmp/big.json" >/dev/null || fail "capacity override"
echo "llm.sh: ok"
