#!/usr/bin/env bash
# calibrate.sh — `v10sim calibrate` end to end: a calibrated trace CSV with its
# provenance, usable as a model, meeting the profile; the model-spec form
# gives the same operators; bad profiles and options are clear errors.
# Usage: calibrate.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"
U=data/tpu-profiles/utilization.csv
L=data/tpu-profiles/op_lengths.csv

# 1. the CLI writes a trace with a provenance header and reports every figure met
"$bin" calibrate efficientnet --profile $U --profile $L --row efficientnet:32 \
    --out "$tmp/eff.csv" --format csv >"$tmp/report.csv"
head -1 "$tmp/eff.csv" | grep -q '^# calibrated by v10sim .* from model efficientnet' ||
    fail "no provenance header"
grep -q "^# profile row efficientnet batch 32 from $U $L" "$tmp/eff.csv" || fail "no profile provenance"
for fig in sa_busy vu_busy hbm_util sa_op_us vu_op_us; do
    grep -q "^$fig,.*,yes$" "$tmp/report.csv" || fail "$fig not met: $(grep "^$fig," "$tmp/report.csv")"
done
# 2. the trace is a model: its profile is what the report said
"$bin" models "$tmp/eff.csv" efficientnet:profile=$U,$L:row=efficientnet@32 --format json >"$tmp/m.json"
python3 - "$tmp/m.json" <<'PY' || fail "calibrated trace does not match the spec form"
import json, sys
a, b = json.load(open(sys.argv[1]))["models"]
for k in ("ops", "sa_ops", "vu_ops", "latency_cycles", "hbm_bytes", "macs"):
    assert a[k] == b[k], (k, a[k], b[k])
assert abs(a["vu_busy"] - 0.7296) < 0.03, a["vu_busy"]
assert abs(a["hbm_util"] - 0.365) < 0.05, a["hbm_util"]
PY
# 3. it runs beside another tenant
"$bin" run --tenant "$tmp/eff.csv" --tenant isca23/resnet50 --policy v10-full --requests 2 \
    --format csv >/dev/null || fail "calibrated trace does not run"

# ... and the spec form is a tenant too
"$bin" run --tenant "efficientnet:profile=$U,$L:row=efficientnet@32:priority=2" \
    --tenant isca23/resnet50 --policy v10-full --requests 2 --format csv >/dev/null ||
    fail "profile= in a tenant spec"

# ... and in a sweep: isca23/ names are models, not files; a profile file is
# an input whose content the sweep records (a resume after it changed is refused)
cp $L "$tmp/lens.csv"
printf '{"name": "cal", "axes": {"mix": [["isca23/mnist", "efficientnet:profile=%s,%s:row=efficientnet@32"]], "policy": ["pmt", "v10-full"]}, "fixed": {"requests": 2}}\n' \
    "$U" "$tmp/lens.csv" >"$tmp/sw.json"
"$bin" sweep "$tmp/sw.json" -j 2 --out "$tmp/sw" >/dev/null 2>"$tmp/err" ||
    fail "sweep of calibrated models: $(cat "$tmp/err")"
python3 - "$tmp/sw/spec.json" "$tmp/lens.csv" "$U" <<'PY' || fail "sweep inputs"
import json, sys
inputs = json.load(open(sys.argv[1]))["inputs"]
assert set(inputs) == {sys.argv[2], sys.argv[3]}, inputs
PY

# ... --sa-ops: every ResNet-RS layer one SA operator (layers, the default),
# or its SA time kept by merging layers into a few (work); both meet the profile
grep -q " with --sa-ops layers$" "$tmp/eff.csv" || fail "no --sa-ops provenance"
for how in layers work; do
    "$bin" calibrate resnet-rs --profile $U --profile $L --row resnet-rs:32 --sa-ops $how \
        --out "$tmp/rs_$how.csv" --format csv >"$tmp/rs_$how.report"
    for fig in sa_busy vu_busy hbm_util sa_op_us vu_op_us; do
        grep -q "^$fig,.*,yes$" "$tmp/rs_$how.report" || fail "--sa-ops $how: $fig not met"
    done
    grep -q " with --sa-ops $how$" "$tmp/rs_$how.csv" || fail "--sa-ops $how provenance"
done
n_layers=$(grep -c ',SA,' "$tmp/rs_layers.csv"); n_work=$(grep -c ',SA,' "$tmp/rs_work.csv")
[ "$n_layers" -eq 89 ] && [ "$n_work" -lt 10 ] || fail "--sa-ops: $n_layers / $n_work SA operators"
# ... and as a model spec: the isca23 set and profile= take sa_ops=, a tenant too
"$bin" models isca23/resnet-rs:sa_ops=work isca23/resnet-rs \
    "resnet-rs:profile=$U,$L:row=resnet-rs@32:sa_ops=work" --format json >"$tmp/rs.json"
python3 - "$tmp/rs.json" "$tmp/rs_work.csv" <<'PY' || fail "sa_ops= in a model spec"
import json, sys
w, l, p = json.load(open(sys.argv[1]))["models"]
assert w["sa_ops"] < 10 and l["sa_ops"] == 89, (w["sa_ops"], l["sa_ops"])
assert (w["ops"], w["latency_cycles"]) == (p["ops"], p["latency_cycles"]), (w, p)
assert sum(1 for x in open(sys.argv[2]) if ",SA," in x) == w["sa_ops"]
PY
"$bin" run --tenant isca23/ncf:sa_ops=work:priority=2 --tenant isca23/mnist --policy v10-full \
    --requests 2 --format csv >/dev/null || fail "sa_ops= in a tenant spec"
set +e
"$bin" models resnet50:sa_ops=work 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "sa_ops= goes with profile= or an isca23/ model" "$tmp/err" ||
    fail "sa_ops= without a profile: rc $rc"
set +e
"$bin" calibrate resnet50 --profile $U --sa-ops tiles 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "'tiles': expected 'layers' or 'work'" "$tmp/err" || fail "bad --sa-ops: rc $rc"

# 4. errors: exit 1 with the field or file named; usage errors exit 2
printf 'model,mxu_busy_pct,vpu_busy_pct\nfoo,80,70\n' >"$tmp/bad.csv"
set +e
"$bin" calibrate resnet50 --profile "$tmp/bad.csv" --row foo 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "sa_busy + vu_busy is 150.0%" "$tmp/err" || fail "impossible profile: rc $rc $(cat "$tmp/err")"
set +e
"$bin" calibrate resnet50 --profile $U --row nosuch 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "no profile row 'nosuch'" "$tmp/err" || fail "unknown row: rc $rc"
printf 'model,sa_op_us_mean\nresnet50,-5\n' >"$tmp/neg.csv"
set +e
"$bin" calibrate resnet50 --profile "$tmp/neg.csv" 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "neg.csv:2: sa_op_us_mean: expected a length in µs, over 0 and under 1e9, got .-5." "$tmp/err" || fail "negative length: rc $rc $(cat "$tmp/err")"
set +e
"$bin" calibrate resnet50 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "missing --profile" "$tmp/err" || fail "missing --profile: rc $rc"
"$bin" calibrate --help | grep -q "usage: v10sim calibrate" || fail "--help"
[ ! -e "$tmp/none.csv" ] || fail "output written on error"
# vu_busy 0 on a model with vector operators would drop them all: an error, as sa_busy 0 is
printf 'model,sa_busy_pct,vu_busy_pct\nresnet50,100,0\n' >"$tmp/novu.csv"
if "$bin" calibrate resnet50 --profile "$tmp/novu.csv" >/dev/null 2>"$tmp/err"; then
    fail "vu_busy 0 accepted"
fi
grep -q "vu_busy is 0 but the model has 5 VU operators" "$tmp/err" || fail "vu_busy 0: $(cat "$tmp/err")"
# a length out of range says the range
printf 'model,sa_op_us_mean\nresnet50,1e9\n' >"$tmp/long.csv"
if "$bin" calibrate resnet50 --profile "$tmp/long.csv" >/dev/null 2>"$tmp/err"; then
    fail "sa_op_us 1e9 accepted"
fi
grep -q "long.csv:2: sa_op_us_mean: expected a length in µs, over 0 and under 1e9, got '1e9'" \
    "$tmp/err" ||
    fail "sa_op_us 1e9: $(cat "$tmp/err")"
# stdout failing: exit non-zero and no --out left behind
if "$bin" calibrate resnet50 --profile $U --out "$tmp/full.csv" >/dev/full 2>/dev/null; then
    fail "stdout to /dev/full: exit 0"
fi
[ ! -e "$tmp/full.csv" ] || fail "stdout failed, but --out was written"
# A calibrated model's fixed cycles on an NPU whose SA array differs: a
# note on stderr naming what does not reach it; none on its own core, none
# for the zoo's model, which follows the NPU.
"$bin" profile isca23/resnet50 --npu configs/big-array.json >/dev/null 2>"$tmp/note"
grep -q "note: isca23/resnet50 is calibrated to its measured profile: its operators keep their cycles on NPU big-array, whose sa_rows and sa_cols do not reach it" "$tmp/note" ||
    fail "no note for a calibrated model on another array: $(cat "$tmp/note")"
"$bin" run --tenant isca23/resnet50 --npu configs/big-array.json --requests 2 >/dev/null 2>"$tmp/note"
grep -q "note: isca23/resnet50 is calibrated" "$tmp/note" || fail "run: no note"
# one note for all the calibrated models a command loads, not one each
"$bin" models --npu configs/big-array.json --format csv >/dev/null 2>"$tmp/note"
[ "$(wc -l <"$tmp/note")" = 1 ] || fail "models: not one note: $(cat "$tmp/note")"
grep -q "note: isca23/bert and 10 more isca23 models are calibrated to their measured profiles" "$tmp/note" ||
    fail "models: the note names the set: $(cat "$tmp/note")"
"$bin" run --tenant isca23/resnet50 --tenant isca23/ncf --npu configs/big-array.json --requests 2 \
    >/dev/null 2>"$tmp/note"
grep -q "note: isca23/resnet50 and 1 more isca23 model are calibrated" "$tmp/note" ||
    fail "run: one note for two: $(cat "$tmp/note")"
"$bin" profile isca23/resnet50 >/dev/null 2>"$tmp/note"
[ ! -s "$tmp/note" ] || fail "a note on the calibration core: $(cat "$tmp/note")"
"$bin" profile resnet50 --npu configs/big-array.json >/dev/null 2>"$tmp/note"
[ ! -s "$tmp/note" ] || fail "a note for the zoo model: $(cat "$tmp/note")"
echo "calibrate: ok"
