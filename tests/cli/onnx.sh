#!/usr/bin/env bash
# onnx.sh — ONNX import end to end (docs/onnx.md): ResNet-50 and a BERT-large
# encoder layer built by tests/onnx/make_models.py (Debian's python3-onnx)
# match the zoo's MACs within 1% (ResNet-50 whole model, same batch; the
# BERT layer vs the zoo's layer0.* operators); `run` accepts them next to a
# zoo tenant; batch override, unknown=vu, and errors naming file and node.
# Usage: onnx.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"
py=/usr/bin/python3   # Debian's python3-onnx lives there (not in a pyenv)

# The generator runs under whatever python3 comes first on PATH, even one
# without the onnx package (a pyenv, a venv, here one started with -S).
python3 tests/onnx/make_models.py "$tmp"
mkdir "$tmp/bin"
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' >"$tmp/bin/python3"
chmod +x "$tmp/bin/python3"
PATH="$tmp/bin:$PATH" python3 tests/onnx/make_models.py "$tmp/again" || fail "make_models.py without onnx on PATH"
cmp "$tmp/resnet50.onnx" "$tmp/again/resnet50.onnx" || fail "make_models.py: not the same graphs"

# ---- MACs against the zoo -----------------------------------------------------
for b in 1 32; do
  "$bin" models "$tmp/resnet50.onnx:batch=$b" "resnet50:batch=$b" --format json >"$tmp/m.json"
  "$bin" profile "$tmp/bert_layer.onnx:batch=$b" --format json >"$tmp/bl.json"
  "$bin" profile "bert:batch=$b" --format json >"$tmp/bert.json"
  "$py" - "$tmp" "$b" <<'PY'
import json, sys
d, b = sys.argv[1], int(sys.argv[2])
m = json.load(open(f"{d}/m.json"))["models"]
onnx_r, zoo_r = m[0], m[1]
assert onnx_r["batch"] == b and zoo_r["batch"] == b, (onnx_r["batch"], zoo_r["batch"])
r = onnx_r["macs"] / zoo_r["macs"]
print(f"batch {b}: ResNet-50 ONNX {onnx_r['macs']} MACs, zoo {zoo_r['macs']}: ratio {r:.6f}; "
      f"ops {onnx_r['ops']} vs {zoo_r['ops']}")
assert abs(r - 1) < 0.01, r
layer = json.load(open(f"{d}/bl.json"))
zoo = json.load(open(f"{d}/bert.json"))
lm = sum(o["macs"] for o in layer["ops"])
zm = sum(o["macs"] for o in zoo["ops"] if o["name"].startswith("layer0."))
allm = sum(o["macs"] for o in zoo["ops"] if o["name"].startswith("layer"))
assert abs(zm * 24 - allm) <= 24, (zm, allm)   # 24 identical layers
r = lm / zm
print(f"batch {b}: BERT-large layer ONNX {lm} MACs, zoo layer0 {zm}: ratio {r:.6f}")
assert abs(r - 1) < 0.01, r
# Fusion as the zoo: every matmul-like node is one SA op carrying its bias
# (and GELU); the VU ops are the mask+softmax and the two add+layernorms.
fus = [(o["fu"]) for o in layer["ops"]]
assert fus.count("SA") == 8 and fus.count("VU") == 3, fus
PY
  # One VU cost model: the operators the imported ResNet-50 shares with the
  # zoo's (every conv with its fused epilogue and residual add, the stem's
  # max pool, the global average pool, the softmax) cost the same cycles.
  "$bin" profile "$tmp/resnet50.onnx:batch=$b" --format json >"$tmp/po.json"
  "$bin" profile "resnet50:batch=$b" --format json >"$tmp/pz.json"
  "$py" - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
o = json.load(open(f"{d}/po.json"))["ops"]
z = json.load(open(f"{d}/pz.json"))["ops"]
sa = lambda ops: [x["cycles"] for x in ops if x["fu"] == "SA"]
assert sa(o) == sa(z), "SA operators differ"
vo = {x["name"].split("_")[0]: x["cycles"] for x in o if x["fu"] == "VU"}
vz = {x["name"].split(".")[-1]: x["cycles"] for x in z if x["fu"] == "VU"}
for k in ("maxpool", "avgpool", "softmax"):
    assert vo[k] == vz[k], (k, vo[k], vz[k])
print(f"VU operators as the zoo's: {sorted(vo.items())}")
PY
done

# ---- run next to a zoo tenant ----------------------------------------------
for f in resnet50 bert_layer; do
  "$bin" run --tenant "$tmp/$f.onnx" --tenant ncf --policy v10-full --requests 4 \
    --format json --check >"$tmp/run.json"
  "$py" - "$tmp/run.json" "$tmp/$f.onnx" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["tenants"]
assert t[0]["model"] == sys.argv[2] and t[1]["model"] == "ncf", [x["model"] for x in t]
assert all(x["completed"] >= 4 for x in t), t
PY
done
"$bin" run --tenant "$tmp/bert_layer.onnx:batch=8:priority=2" --tenant resnet50 \
  --policy v10-full --requests 3 >/dev/null

# ---- batch override: symbolic batch scales MACs linearly ------------------------
m1=$("$bin" models "$tmp/tiny_cnn.onnx" --format csv | awk -F, 'NR==2{print $6}')
m4=$("$bin" models "$tmp/tiny_cnn.onnx:batch=4" --format csv | awk -F, 'NR==2{print $6}')
"$bin" models "$tmp/tiny_cnn.onnx" --format csv | head -1 | cut -d, -f6 | grep -qx macs \
  || fail "models csv: column 6 is not macs"
[ "$m1" -gt 0 ] && [ "$m4" -eq $((4 * m1)) ] || fail "batch override: $m1 -> $m4 MACs"
# conv 3x3 3->8 on 8x8 (+bias, relu fused) and fc 128->10, by hand
[ "$m1" -eq $((8 * 8 * 8 * 3 * 3 * 3 + 128 * 10)) ] || fail "tiny_cnn MACs $m1"
"$bin" profile "$tmp/tiny_embed.onnx" | grep -q "VU" || fail "tiny_embed: no gather on the VU"

# ---- batch= is honoured or refused, never printed and ignored (issue 24) --------
# A weight given as a graph input keeps its dims: MACs scale with the batch, not
# its square (conv 3x3 3->1 on 8x8, valid: 6x6 outputs).
w1=$("$bin" models "$tmp/tiny_wgraph.onnx" --format csv | awk -F, 'NR==2{print $6}')
w8=$("$bin" models "$tmp/tiny_wgraph.onnx:batch=8" --format csv | awk -F, 'NR==2{print $6}')
[ "$w1" -eq $((6 * 6 * 3 * 3 * 3)) ] && [ "$w8" -eq $((8 * w1)) ] || fail "weight input: $w1 -> $w8 MACs"
# A fixed batch of 2: batch=2 (or none) runs at 2, anything else is refused.
f2=$("$bin" models "$tmp/tiny_fixed.onnx:batch=2" --format csv | awk -F, 'NR==2{print $6}')
[ "$f2" -eq $((2 * 8 * 6 * 6 * 3 * 3 * 3)) ] || fail "fixed batch 2: $f2 MACs"
"$bin" models "$tmp/tiny_fixed.onnx" --format json | grep -qE '"batch":[[:space:]]+2,' || fail "fixed batch not shown"

# ---- a long path keeps its end: two files of one name in different folders ----
long="$tmp/a-folder-name-long-enough-to-be-cut-in-a-table-of-results"
mkdir -p "$long/first" "$long/second"
cp "$tmp/tiny_cnn.onnx" "$long/first/"
cp "$tmp/tiny_cnn.onnx" "$long/second/"
"$bin" run --tenant "$long/first/tiny_cnn.onnx" --tenant "$long/second/tiny_cnn.onnx" \
  --requests 2 --format csv >"$tmp/names.csv"
grep -q ',t0:\.\.\.[^,]*/first/tiny_cnn\.onnx,' "$tmp/names.csv" || fail "t0's name: $(cat "$tmp/names.csv")"
grep -q ',t1:\.\.\.[^,]*/second/tiny_cnn\.onnx,' "$tmp/names.csv" || fail "t1's name: $(cat "$tmp/names.csv")"

# ---- errors name the file, the node and what is missing --------------------------
expect_err() { # expect_err PATTERN ARGS...
  local pat=$1; shift
  set +e
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  set -e
  [ $rc -ne 0 ] || fail "$* succeeded"
  grep -q -- "$pat" "$tmp/err" || fail "$*: expected '$pat' in: $(cat "$tmp/err")"
}
expect_err "tiny_unknown.onnx: node 'hardmax_1' (Hardmax): unsupported operator" \
  profile "$tmp/tiny_unknown.onnx"
expect_err "node 'relu_1' (Relu): input 'x' has an unknown shape (graph input 'x' dim 1 is symbolic 'seq')" \
  run --tenant "$tmp/tiny_symbolic.onnx" --tenant ncf
expect_err "tiny_arity.onnx: node 'arity' (Relu): 2 inputs, expected at most 1" \
  profile "$tmp/tiny_arity.onnx"
expect_err "tiny_missing.onnx: node 'missing' (Gemm): missing input 1 (B)" \
  profile "$tmp/tiny_missing.onnx"
expect_err "tiny_fixed.onnx: graph input 'x' has a fixed batch of 2 (dim 0), so batch=32 cannot apply" \
  models "$tmp/tiny_fixed.onnx:batch=32"
expect_err "nope.onnx: cannot open" models "$tmp/nope.onnx"
printf 'not a protobuf \377\377\377' >"$tmp/junk.onnx"
expect_err "junk.onnx: not an ONNX model" profile "$tmp/junk.onnx"
expect_err "unknown=vu applies to .onnx models only" profile "ncf:unknown=vu"
expect_err "unknown: expected vu, got 'xx'" profile "$tmp/tiny_unknown.onnx:unknown=xx"

# ---- unknown=vu: an explicit, reported approximation -----------------------------
"$bin" profile "$tmp/tiny_unknown.onnx:unknown=vu" >"$tmp/out" 2>"$tmp/err"
grep -q "~hardmax_1" "$tmp/out" || fail "approximated op not marked: $(cat "$tmp/out")"
grep -q "approximated 1 ONNX node" "$tmp/err" || fail "approximation not reported: $(cat "$tmp/err")"
"$bin" run --tenant "$tmp/tiny_symbolic.onnx:unknown=vu" --tenant ncf --requests 2 >/dev/null

# ---- hostile attributes: a clear rejection or a clean import, never UB ------------
for f in "$tmp"/adv_*.onnx; do
  set +e
  "$bin" profile "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  [ $rc -le 1 ] || fail "$f: exit $rc: $(cat "$tmp/err")"
  [ $rc -eq 0 ] || grep -qF "$f" "$tmp/err" || fail "$f: unclear: $(cat "$tmp/err")"
done

# ---- shape arithmetic is exact: what would wrap around 64 bits is refused -------
# (each graph would fold to a valid shape if it wrapped; tests/onnx/make_models.py)
expect_err "shape_mul.onnx: node 'mul_3' (Mul): integer Mul of 4611686018427387904 and 4 overflows 64 bits" \
  profile "$tmp/shape_mul.onnx"
expect_err "shape_add.onnx: node 'add_3' (Add): integer Add of 9223372036854775807 and 9223372036854775807 overflows" \
  profile "$tmp/shape_add.onnx"
expect_err "shape_sub.onnx: node 'sub_3' (Sub): integer Sub of -9223372036854775808 and 1 overflows" \
  profile "$tmp/shape_sub.onnx"
expect_err "shape_neg.onnx: node 'neg_2' (Neg): integer Neg of -9223372036854775808 overflows" \
  profile "$tmp/shape_neg.onnx"
expect_err "shape_div.onnx: node 'div_3' (Div): integer Div of -9223372036854775808 and -1 overflows" \
  profile "$tmp/shape_div.onnx"
expect_err "shape_cast.onnx: node 'cast_2' (Cast): Cast of 4294967300 to an integer of \[-2147483648, 2147483647\] (to=6) overflows" \
  profile "$tmp/shape_cast.onnx"
expect_err "shape_pool.onnx: node 'pool_1' (MaxPool): the product of kernel_shape overflows 64 bits" \
  run --tenant "$tmp/shape_pool.onnx" --tenant ncf

# calibration works on an imported graph as on a built-in (docs/models.md)
"$bin" calibrate "$tmp/resnet50.onnx:batch=32" --profile data/tpu-profiles/utilization.csv \
    --profile data/tpu-profiles/op_lengths.csv --row resnet50:32 --format csv >"$tmp/cal.csv"
for fig in sa_busy vu_busy hbm_util sa_op_us vu_op_us; do
  grep -q "^$fig,.*,yes$" "$tmp/cal.csv" || { echo "FAIL: onnx calibration: $fig" >&2; exit 1; }
done
echo "onnx.sh: ok"
