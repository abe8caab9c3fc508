#!/usr/bin/env bash
# Names as people type them: a policy, a format, a built-in model, a preset,
# a command, a choice or a policy parameter is found whatever its ASCII
# case and with blanks around it, where no other name matches; a near miss
# gets "did you mean" and its exit code (2 on the command line, 1 in an
# input); an error of one run says what ran, in any command's words.
source "$(dirname "$0")/lib.sh"
export V10_PROGRESS=0
run2="--requests 2 --warmup 0"

# same OUT CMD...: the command succeeds and prints what $tmp/OUT holds, but
# for a run table's wall-clock line ("N events in S s", the one figure no
# run repeats: under load 0.001 s became 0.005 s)
same() {
    local want=$1; shift
    "$@" | sed 's/^\([0-9]* events in \)[0-9.]* s$/\1S s/' > "$tmp/got"
    sed -i 's/^\([0-9]* events in \)[0-9.]* s$/\1S s/' "$tmp/$want"
    if ! cmp -s "$tmp/$want" "$tmp/got"; then
        echo "'$*' differs from its canonical spelling:"; diff "$tmp/$want" "$tmp/got" | head; exit 1
    fi
}
# refused RC PATTERN CMD...: exits RC, stderr matches PATTERN
refused() {
    local want=$1 pat=$2; shift 2
    set +e
    "$@" > /dev/null 2> "$tmp/err"
    local rc=$?
    set -e
    if [ "$rc" != "$want" ] || ! grep -q -- "$pat" "$tmp/err"; then
        echo "'$*': want exit $want and /$pat/, got $rc:"; cat "$tmp/err"; exit 1
    fi
}

# One pair, spelled as the docs spell it and as people type it.
"$bin" run --tenant resnet50 --tenant mnist --policy v10-full $run2 --format csv > "$tmp/ref"
same ref "$bin" run --tenant Resnet50 --tenant MNIST --policy V10-Full $run2 --format CSV
same ref "$bin" run --tenant ' resnet50' --tenant mnist --policy ' v10-full ' $run2 --format Csv
same ref "$bin" Run --tenant resnet50 --tenant mnist --policy v10-full $run2 --format csv
grep -q ',t0:resnet50,' "$tmp/ref"
"$bin" run --tenant Resnet50 --tenant mnist $run2 --format JSON |
    python3 -c 'import json, sys; json.load(sys.stdin)'

# A list with blanks after its commas; a name given twice in two spellings runs once.
"$bin" run --tenant resnet50 --tenant mnist --policy pmt,v10-full $run2 --format csv > "$tmp/list"
same list "$bin" run --tenant resnet50 --tenant mnist --policy "pmt, v10-full" $run2 --format csv
same list "$bin" run --tenant resnet50 --tenant mnist --policy "PMT , v10-full,pmt" $run2 \
    --format csv
"$bin" run --tenant resnet50 --tenant mnist --policy all $run2 --format csv > "$tmp/all"
same all "$bin" run --tenant resnet50 --tenant mnist --policy " ALL" $run2 --format csv

# The paper's calibrated models, NPU presets, parameters and their choices.
"$bin" profile isca23/bert > "$tmp/bert"
same bert "$bin" profile isca23/BERT
same bert "$bin" profile ISCA23/Bert
"$bin" npu --npu v10-isca23 > "$tmp/npu"
same npu "$bin" npu --npu V10-ISCA23
"$bin" run --tenant resnet50 --tenant mnist --policy pmt --param pmt.share=equal \
    --param pmt.slice_us=500 $run2 > "$tmp/param"
same param "$bin" run --tenant resnet50 --tenant mnist --policy pmt --param pmt.share=Equal \
    --param PMT.Slice_US=500 $run2
"$bin" topology tests/data/topology/ok_mixed.csv --dataflow os --mode tpu > "$tmp/os"
same os "$bin" topology tests/data/topology/ok_mixed.csv --dataflow OS --mode TPU
"$bin" repro --help > /dev/null

# A sweep's policy axis: the registry's name from there on.
printf '{"axes": {"mix": [["ncf", "mnist"]], "policy": ["V10-Full"]}, "fixed": {"requests": 2, "warmup": 0}}' \
    > "$tmp/s.json"
"$bin" sweep "$tmp/s.json" --out "$tmp/sw" > /dev/null
grep -q ',v10-full,' "$tmp/sw/results.csv"

# Near misses: the nearest names, and the exit code of where they were typed.
refused 2 "unknown policy 'v10-ful'; did you mean 'v10-full'?" \
    "$bin" run --tenant resnet50 --tenant mnist --policy v10-ful
refused 2 "unknown policy 'prmea'; did you mean 'prema'?" \
    "$bin" run --tenant resnet50 --tenant mnist --policy pmt,prmea
refused 2 "expected table, json or csv, got 'jsno'; did you mean 'json'?" \
    "$bin" run --tenant mnist --format jsno
refused 2 "expected table or json, got 'csv'" "$bin" fleet --format csv
refused 2 "unknown command 'rnu'; did you mean 'run'?" "$bin" rnu
refused 2 "did you mean 'pmt.slice_us'?" "$bin" run --tenant mnist --param pmt.slice_su=5
refused 2 "unknown NPU preset 'v10-isca32'; did you mean 'v10-isca23'?" \
    "$bin" npu --npu v10-isca32
refused 2 "expected drain or tile, got 'drian'; did you mean 'drain'?" \
    "$bin" run --tenant mnist --preempt drian
refused 1 "unknown model 'resnt50'; did you mean 'resnet50'?" \
    "$bin" run --tenant resnt50 --tenant mnist
refused 1 "unknown model 'isca23/bret'; did you mean 'isca23/bert'?" \
    "$bin" profile isca23/bret
printf '{"axes": {"mix": [["ncf", "mnist"]], "policy": ["v10-fulll"]}}' > "$tmp/bad.json"
refused 1 "did you mean 'v10-full'?" "$bin" sweep "$tmp/bad.json" --out "$tmp/sw2"
# Far from every name: no guess.
refused 2 "unknown policy 'quantum' (see" \
    "$bin" run --tenant resnet50 --tenant mnist --policy quantum

# A failing run is named by what ran, not by a batch's index ("point 3").
printf 'name,type\nx,y\n' > "$tmp/bad.csv"
set +e
"$bin" collocate --models "resnet50,mnist,ncf,$tmp/bad.csv" --requests 2 > /dev/null 2> "$tmp/err"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "collocate on a bad model: exit $rc"; cat "$tmp/err"; exit 1; }
grep -q "bad.csv alone under solo" "$tmp/err" || { cat "$tmp/err"; exit 1; }
if grep -q "point [0-9]" "$tmp/err"; then echo "a sweep's word in collocate:"; cat "$tmp/err"; exit 1; fi
echo ok
