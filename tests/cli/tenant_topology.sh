#!/usr/bin/env bash
# tenant_topology.sh — a SCALE-Sim topology CSV as a model (run --tenant,
# profile): detected by its header, each layer one SA operator whose GEMM is
# SCALE-Sim's (M = batch x ofmap_h x ofmap_w with ofmap = ceil((ifmap -
# filter + stride) / stride), K = filter_h x filter_w x channels, N =
# num_filter), costed by the NPU's cost model.  The MACs are checked against
# that closed form summed over the file's layers, conv and gemm formats.
# Usage: tenant_topology.sh PATH/TO/v10sim   (run from the repository root)
source "$(dirname "$0")/lib.sh"

shared=${V10_SHARED:-tests/data/shared}
topo=$shared/data/topologies

dot_rows=$("$bin" npu --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["vu_dot_rows"])')

# The closed form, per layer of a SCALE-Sim topology: "M N K" at a batch.
closed_form() { # FILE BATCH
    python3 - "$1" "$2" <<'PY'
import csv, math, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if any(f.strip() for f in r)]
head, layers, batch = rows[0], rows[1:], int(sys.argv[2])
gemm = len([h for h in head if h.strip()]) == 4
for r in layers:
    f = [int(x) for x in r[1:] if x.strip()]
    if gemm:
        M, N, K = f[:3]
    else:  # ifmap_h, ifmap_w, filter_h, filter_w, channels, filters, stride
        ih, iw, fh, fw, c, n, s = f[:7]
        M, N, K = math.ceil((ih - fh + s) / s) * math.ceil((iw - fw + s) / s), n, fh * fw * c
    print(batch * M, N, K)
PY
}

# The model's operators (profile's operator trace): one per layer, in order,
# each the layer's GEMM (MACs M x N x K), costed (cycles and HBM bytes > 0)
# on the SA, or on the VU where the cost model puts a GEMM of at most
# vu_dot_rows rows (FC6's 1 x 2048 x 1000); and the sum of the MACs.
check_model() { # FILE BATCH LAYERS
    local spec=$1
    [ "$2" = 1 ] || spec="$1:batch=$2"
    "$bin" profile "$spec" --format csv >"$tmp/ops.csv" || fail "profile $spec"
    closed_form "$1" "$2" >"$tmp/gemms.txt"
    python3 - "$tmp/ops.csv" "$tmp/gemms.txt" "$3" "$dot_rows" "$spec" <<'PY'
import csv, sys
ops = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
gemms = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
want_ops, dot_rows, name = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
assert len(ops) == want_ops == len(gemms), (name, len(ops), want_ops, len(gemms))
for o, (M, N, K) in zip(ops, gemms):
    assert int(o["macs"]) == M * N * K, (name, o["name"], o["macs"], M, N, K)
    assert o["fu"] == ("VU" if M <= dot_rows else "SA"), (name, o["name"], o["fu"], M)
    assert int(o["cycles"]) > 0 and int(o["hbm_bytes"]) > 0, (name, o["name"])
total = sum(int(o["macs"]) for o in ops)
assert total == sum(M * N * K for M, N, K in gemms), (name, total)
PY
}

check_model "$topo/Resnet50.csv" 1 54
check_model "$topo/Resnet50.csv" 4 54
check_model "$topo/alexnet.csv" 2 5
check_model "$topo/NCF.csv" 1 12
check_model "$topo/gpt2.csv" 3 6

# As a tenant beside a zoo model: the run names it by its file.
"$bin" run --tenant "$topo/Resnet50.csv" --tenant mnist --requests 2 --warmup 0 \
    >"$tmp/run.txt" 2>"$tmp/run.err" || { cat "$tmp/run.err" >&2; fail "run --tenant Resnet50.csv"; }
grep -q '^t0:Resnet50.csv ' "$tmp/run.txt" || fail "run's table lacks t0:Resnet50.csv"

# The header as people write it: another case, no trailing comma.
printf 'layer Name,IFMAP Height,IFMAP Width,Filter Height,Filter Width,Channels,Num Filter,Strides\nc1,10,10,3,3,4,8,1\n' \
    >"$tmp/lower.csv"
check_model "$tmp/lower.csv" 1 1

# Bad topologies say which file and line, exit 1.
for bad in negative zero_dim filter_big bad_fields; do
    set +e
    "$bin" run --tenant "tests/data/topology/$bad.csv" --tenant mnist --requests 1 \
        >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" = 1 ] || fail "$bad.csv: exit $rc, expected 1"
    grep -q "tests/data/topology/$bad.csv:[0-9]" "$tmp/err" || fail "$bad.csv: $(cat "$tmp/err")"
done

# An overflowing batch is refused with the layer's line.
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nbig, 4294967295, 4294967295, 1, 1, 1, 1, 1,\n' \
    >"$tmp/big.csv"
set +e
"$bin" profile "$tmp/big.csv:batch=65536" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || fail "overflowing batch: exit $rc"
grep -q "big.csv:2: layer 'big'" "$tmp/err" || fail "overflow message: $(cat "$tmp/err")"
echo "tenant_topology: ok"
