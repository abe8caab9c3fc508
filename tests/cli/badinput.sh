#!/usr/bin/env bash
# badinput.sh — every kind of user mistake gives a non-zero exit (1 for bad
# input, 2 for a bad command line), a message naming the culprit on stderr,
# nothing on stdout for bad input, and never a signal.
# Usage: badinput.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"

# expect CODE NEEDLE ARGS...: runs v10sim ARGS, checks the exit code, that
# the first stderr line names NEEDLE, and (for exit 1) that stderr is one line.
expect() {
    local want=$1 needle=$2
    shift 2
    set +e
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    local first
    first=$(head -n1 "$tmp/err")
    if [ "$rc" -ge 128 ]; then
        echo "FAIL: v10sim $*: killed by signal $((rc - 128))" >&2; fails=$((fails + 1))
    elif [ "$rc" -ne "$want" ]; then
        echo "FAIL: v10sim $*: exit $rc, expected $want; stderr: $first" >&2
        fails=$((fails + 1))
    elif [[ $first != v10sim* ]]; then
        echo "FAIL: v10sim $*: first stderr line lacks the program prefix: $first" >&2
        fails=$((fails + 1))
    elif ! grep -qF -- "$needle" <<<"$first"; then
        echo "FAIL: v10sim $*: first stderr line does not name '$needle': $first" >&2
        fails=$((fails + 1))
    elif [ "$want" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        echo "FAIL: v10sim $*: expected a one-line message, got:" >&2
        cat "$tmp/err" >&2; fails=$((fails + 1))
    elif [ "$want" -eq 1 ] && [ -s "$tmp/out" ]; then
        echo "FAIL: v10sim $*: wrote to stdout despite failing" >&2; fails=$((fails + 1))
    fi
}

# unknown model (zoo name or spec option)
expect 1 nosuchmodel profile nosuchmodel
expect 1 nosuchmodel models nosuchmodel
expect 1 batch profile resnet50:batch=0
expect 1 frobnicate profile resnet50:frobnicate=1
# unknown preset
expect 2 v10-isca99 npu --npu v10-isca99
expect 2 v10-isca99 models --npu v10-isca99
expect 2 v10-isca99 profile resnet50 --npu v10-isca99
# One exit-code convention (docs/formats.md, "Exit codes"): a name outside a
# fixed list on the command line is 2 wherever it appears, a file's content 1.
expect 2 "--npu: unknown NPU preset 'nope'" run --tenant mnist --npu nope --requests 2
expect 2 "--policy: unknown policy 'nope'" run --tenant mnist --policy nope --requests 2
expect 2 "--npu: unknown NPU preset 'nope'" collocate --npu nope
echo '{"base": "nope"}' >"$tmp/npu_base.json"
expect 1 "npu_base.json" run --tenant mnist --npu "$tmp/npu_base.json" --requests 2
echo '{"base": "tpuv4-core", "op_mapping": "vnpu"}' >"$tmp/npu_map.json"
expect 1 "npu_map.json: key 'op_mapping': expected \"one\", \"all\", \"alloc\", \"harvest\" or \"reclaim\"" run --tenant mnist \
    --npu "$tmp/npu_map.json" --requests 2
# An unknown model lists every set a spec accepts; an llm/ model without a
# phase says how to serve it.
expect 1 "isca23/ + bert" run --tenant nosuch --requests 2
grep -q "llm/ + gpt2-xl" "$tmp/err" && grep -q "ncf" "$tmp/err" ||
    { echo "unknown model: not every set listed: $(cat "$tmp/err")"; fails=$((fails + 1)); }
expect 1 ":trace=FILE.csv" run --tenant llm/llama3.2-1b --requests 2
# bad JSON files
expect 1 malformed.json:4 npu --npu tests/data/npu/malformed.json
expect 1 sa_rowz npu --npu tests/data/npu/unknown_key.json
expect 1 sa_count npu --npu tests/data/npu/zero_sa.json
expect 1 hbm_gbps models --npu tests/data/npu/negative_bw.json
expect 1 tpuv9-core profile resnet50 --npu tests/data/npu/unknown_base.json
# missing files
expect 1 no_such.json npu --npu "$tmp/no_such.json"
expect 1 no_such.csv profile "$tmp/no_such.csv"
expect 1 no_such.csv models "$tmp/no_such.csv"
# bad trace CSVs name file:line
expect 1 bad_fu.csv:3 profile tests/data/trace/bad_fu.csv
expect 1 long_line.csv:3 profile tests/data/trace/long_line.csv
expect 1 empty.csv profile tests/data/trace/empty.csv
# bad --format, missing values, stray arguments
expect 2 xml npu --format xml
expect 2 xml models --format xml
expect 2 xml profile resnet50 --format xml
expect 2 csv npu --format csv
expect 2 --npu npu --npu
expect 2 --format models --format
expect 2 MODEL profile
expect 2 extra profile resnet50 extra
expect 2 extra npu extra
expect 2 bogus-command bogus-command
# policy parameters (--param and its aliases): the key and the range named
expect 2 "pmt.nope" run --tenant mnist --param pmt.nope=1
expect 2 "POLICY.NAME=VALUE" run --tenant mnist --param pmt.slice_us
expect 2 "pmt.slice_us: expected a number in [0.01, 1000000000], got '0'" run --tenant mnist --param pmt.slice_us=0
expect 2 "prema.drain_frac: expected a number in [0, 1000]" run --tenant mnist --param prema.drain_frac=1e4
expect 2 "pmt.share: expected one of equal|priority" run --tenant mnist --param pmt.share=fair
expect 2 "v10-full.slice_cycles: expected a whole number" run --tenant mnist --param v10-full.slice_cycles=1.5
expect 2 "--pmt-slice-us: pmt.slice_us" run --tenant mnist --pmt-slice-us abc
# an unknown flag on every sub-command
"$bin" --help >"$tmp/help"
# (one message, then the --help hint: issue 12 found getopt's own line too)
for c in $(awk '/^commands:/{on=1; next} on && /^$/{exit} on {print $1}' "$tmp/help"); do
    expect 2 "v10sim $c: unknown option '--bogus-flag'" "$c" --bogus-flag
    [ "$(wc -l <"$tmp/err")" -eq 2 ] || { echo "FAIL: $c --bogus-flag: $(cat "$tmp/err")" >&2; fails=$((fails + 1)); }
done
expect 2 "unknown option '-Z'" npu -Z
expect 2 "unknown option '-Z'" run -Z
expect 2 "v10sim run: --tenant: missing value" run --tenant
expect 2 "v10sim sweep: -j: missing value" sweep examples/sweep-small.json -j
# a services file naming an unknown model: file and line
printf 'name,model,batch,rate_rps\na,mnist,0,0\nb,resnt50,0,0\nc,ncf,0,0\nd,mnist,0,0\n' >"$tmp/svc.csv"
expect 1 "svc.csv:3: model: unknown model 'resnt50'" fleet --services "$tmp/svc.csv" --npus 2
# outstanding= beside rate=, and the key hint of a built-in model
expect 1 "outstanding=2: only a closed-loop tenant" run --tenant mnist:rate=10:outstanding=2
expect 1 "(expected batch, priority, rate, outstanding, slo_us, profile or row)" run --tenant mnist:bach=2
# a key given twice, two phases, one field under two names: errors, never the last silently
expect 1 "tenant 'mnist:batch=2:batch=4': batch= given twice" run --tenant mnist:batch=2:batch=4
expect 1 "priority= given twice" run --tenant mnist:priority=1:priority=2
expect 1 "max_batch= given twice" run \
    --tenant llm/gpt2-xl:trace=tests/data/llm/azure_conv_200.csv:max_batch=4:max_batch=8
expect 1 "prefill= and decode= are two phases" run --tenant llm/gpt2-xl:prefill=10:decode=2x10
expect 1 "prefill= and decode= are two phases" profile llm/gpt2-xl:decode=2x10:prefill=10
expect 1 "batch= given twice" profile mnist:batch=2:batch=4
expect 1 "sa_ops= given twice" profile isca23/mnist:sa_ops=work:sa_ops=layers
expect 2 "prema.slice_us was set already by --param pmt.slice_us=500" run --tenant mnist \
    --param pmt.slice_us=500 --param prema.slice_us=2000
expect 2 "pmt.slice_us was set already by --pmt-slice-us 300" run --tenant mnist \
    --pmt-slice-us 300 --param pmt.slice_us=500
# decode=C alone (one sequence) may exceed 65536, the most sequences: only the context bounds it
"$bin" profile llm/llama3.2-1b:decode=100000 >/dev/null ||
    { echo "FAIL: decode=100000 (one sequence at context 100000) refused" >&2; fails=$((fails + 1)); }
expect 1 "decode: expected NxC" profile llm/llama3.2-1b:decode=70000x10
# Every "expected X" in an input says what it got.
printf '{"vmem_bytes": "lots"}' > "$tmp/npu_word.json"
expect 1 "key 'vmem_bytes': expected a number, got 'lots'" npu --npu "$tmp/npu_word.json"
printf '{"sa_prefetch_weights": 1}' > "$tmp/npu_bool.json"
expect 1 "key 'sa_prefetch_weights': expected true or false, got 1" npu --npu "$tmp/npu_bool.json"
printf '{"base": 3}' > "$tmp/npu_base.json"
expect 1 "key 'base': expected a preset name, got 3" npu --npu "$tmp/npu_base.json"
printf '[1, 2]' > "$tmp/npu_list.json"
expect 1 "expected a JSON object of NPU fields, got a list of 2" npu --npu "$tmp/npu_list.json"
printf '{"axes": {"mix": [["ncf"]], "seed": [1.5]}}' > "$tmp/sw_seed.json"
expect 1 "axes.seed[0]: expected an integer in [0, 9007199254740991], got 1.5" \
    sweep "$tmp/sw_seed.json" --out "$tmp/sw"
printf '{"axes": {"mix": [["ncf"]], "policy": [5]}}' > "$tmp/sw_pol.json"
expect 1 "axes.policy[0]: expected a policy name (see 'v10sim policies'), got 5" \
    sweep "$tmp/sw_pol.json" --out "$tmp/sw"
printf '{"axes": {"mix": [["ncf", 7]]}}' > "$tmp/sw_mix.json"
expect 1 "axes.mix[0][1]: expected a tenant spec string, e.g. \"bert:batch=8\", got 7" \
    sweep "$tmp/sw_mix.json" --out "$tmp/sw"

finish
