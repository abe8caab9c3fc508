#!/usr/bin/env bash
# audit.sh — what a hostile new user tried and the program once got wrong:
# each case gives the exit code the convention asks for (1 bad input, 2 bad
# command line; cli.h), one message naming the option, key or file and what
# was expected, nothing on stdout, no file left behind, and never a signal.
# Usage: audit.sh PATH/TO/v10sim   (run from the repository root by ctest)
keep_going=1  # a failure is counted and the script goes on
source "$(dirname "$0")/lib.sh"

# expect CODE NEEDLE ARGS...: runs v10sim ARGS (in $tmp/cwd, so that a file
# it should not write shows), checks the exit code, that the first stderr
# line starts with the program's name and holds NEEDLE, that stdout is empty
# and that nothing was written into the working directory.
mkdir "$tmp/cwd"
expect() {
    local want=$1 needle=$2
    shift 2
    set +e
    (cd "$tmp/cwd" && timeout 120 "$bin" "$@") >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    local first
    first=$(head -n1 "$tmp/err")
    if [ "$rc" -ge 124 ]; then
        fail "v10sim $*: exit $rc (a signal or the time limit); stderr: $first"
    elif [ "$rc" -ne "$want" ]; then
        fail "v10sim $*: exit $rc, expected $want; stderr: $first"
    elif [[ $first != v10sim* ]]; then
        fail "v10sim $*: first stderr line lacks the program prefix: $first"
    elif ! grep -qF -- "$needle" <<<"$first"; then
        fail "v10sim $*: first stderr line does not hold '$needle': $first"
    elif [ -s "$tmp/out" ]; then
        fail "v10sim $*: wrote to stdout despite failing"
    elif [ -n "$(ls -A "$tmp/cwd")" ]; then
        fail "v10sim $*: left $(ls -A "$tmp/cwd") behind"
        rm -rf "${tmp:?}/cwd" && mkdir "$tmp/cwd"
    fi
}
R=(run --tenant mnist --requests 2)
P="$PWD/data/tpu-profiles/utilization.csv"

# --- an empty file or directory name is a bad command line (exit 2) that
# names the option, before any work; it was "v10sim: : cannot open" (exit 1),
# after the simulation for --trace and --per-op.
expect 2 "--config: expected a path, got ''" "${R[@]}" --config ''
expect 2 "--trace: expected a path, got ''" "${R[@]}" --trace ''
expect 2 "--per-op: expected a path, got ''" "${R[@]}" --per-op ''
expect 2 "--plot: expected a path, got ''" "${R[@]}" --plot ''
expect 2 "--profile: expected a path, got ''" calibrate mnist --profile ''
expect 2 "--out: expected a path, got ''" calibrate resnet50 --profile "$P" --row resnet50:32 --out ''
expect 2 "--services: expected a path, got ''" fleet --services '' --npus 1
expect 2 "--out: expected a path, got ''" repro --out ''
expect 2 "--out: expected a path, got ''" llm-study --out ''
expect 2 "--trace-dir: expected a path, got ''" llm-study --trace-dir ''
expect 2 "FILE.csv: expected a path, got ''" topology ''
expect 2 "SPEC.json: expected a path, got ''" sweep ''

# --- a tenant option's integer range is printed exactly (it was
# "[1, 1.04858e+06]", a bound nobody can type).
expect 1 "outstanding: expected an integer in [1, 1048576], got '0'" run --tenant mnist:outstanding=0
expect 1 "max_prefill_tokens: expected an integer in [1, 16777216], got '0'" \
    run --tenant llm/gpt2-xl:trace=@azure_conv_200:max_prefill_tokens=0
expect 1 "requests: expected an integer in [1, 10000000], got '1e7'" \
    run --tenant llm/gpt2-xl:trace=@azure_conv_200:requests=1e7

# --- a services file's batch is an integer as every count is written:
# plain decimal; 1e1, 8.0 and -0 were read as numbers and floored.
for b in 1e1 8.0 -0; do
    printf 'name,model,batch,rate_rps\na,mnist,%s,0\nb,ncf,8,0\n' "$b" >"$tmp/svc.csv"
    expect 1 "svc.csv:2: batch: expected an integer in [0, 65536], got '$b'" \
        fleet --services "$tmp/svc.csv" --npus 1 --requests 2
done

# --- what docs/formats.md ("Exit codes") says of an option given twice:
# the last value wins; a policy parameter twice is an error.
set +e
"$bin" run --tenant mnist --requests 2 --requests 3 --format json >"$tmp/twice.json" 2>"$tmp/err"
set -e
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["settings"]["requests"] == 3' \
    "$tmp/twice.json" || fail "--requests 2 --requests 3 did not run 3: $(cat "$tmp/err")"
expect 2 "v10-full.slice_cycles was set already by --slice-cycles 1" \
    run --tenant mnist --requests 2 --slice-cycles 1 --slice-cycles 2

# --- nothing given is dropped silently: an argument after --version or
# --help was ignored; "help COMMAND" is that command's --help.
expect 2 "--version: unexpected argument 'extra'" --version extra
expect 2 "help: unexpected argument 'nosuch' (expected a command" help nosuch
"$bin" help run >"$tmp/help_run.txt" && "$bin" run --help | cmp -s - "$tmp/help_run.txt" ||
    fail "'v10sim help run' is not 'v10sim run --help'"

# --- collocate --models: a model twice was profiled and paired with itself
# as two rows; ",," and a trailing comma were skipped silently.
expect 2 "--models: a model given twice in 'mnist,mnist,ncf,dlrm' ('mnist')" \
    collocate --models mnist,mnist,ncf,dlrm --requests 2
expect 2 "--models: an empty name in 'mnist,,ncf,dlrm,bert'" \
    collocate --models mnist,,ncf,dlrm,bert --requests 2
expect 2 "--models: an empty name in 'mnist,ncf,dlrm,bert,'" \
    collocate --models mnist,ncf,dlrm,bert, --requests 2

# --- an output never replaces an input: `--per-op m.csv` beside `--tenant
# m.csv` (or through a link), `--out` onto a --profile file or the model
# file, --trace onto the --npu file, all overwrote it after the run.
mkdir "$tmp/io"
cp tests/data/trace/small.csv "$tmp/io/m.csv"
ln -s m.csv "$tmp/io/link.csv"
cp "$P" "$tmp/io/p.csv"
cp tests/data/npu/subset.json "$tmp/io/n.json"
sum=$(cat "$tmp/io/m.csv" "$tmp/io/p.csv" "$tmp/io/n.json" | md5sum)
expect 1 "m.csv: --per-op would overwrite '$tmp/io/m.csv', an input of this command" \
    run --tenant "$tmp/io/m.csv" --requests 2 --per-op "$tmp/io/m.csv"
expect 1 "--trace would overwrite '$tmp/io/link.csv', an input of this command" \
    run --tenant "$tmp/io/link.csv" --requests 2 --trace "$tmp/io/m.csv"
expect 1 "--trace would overwrite '$tmp/io/n.json', an input of this command" \
    run --tenant mnist --npu "$tmp/io/n.json" --requests 2 --trace "$tmp/io/n.json"
expect 1 "--out would overwrite '$tmp/io/p.csv', an input of this command" \
    calibrate resnet50 --profile "$tmp/io/p.csv" --row resnet50:32 --out "$tmp/io/p.csv"
expect 1 "--out would overwrite '$tmp/io/m.csv', an input of this command" \
    calibrate "$tmp/io/m.csv:batch=32" --profile "$tmp/io/p.csv" --row resnet50:32 \
    --out "$tmp/io/m.csv"
[ "$(cat "$tmp/io/m.csv" "$tmp/io/p.csv" "$tmp/io/n.json" | md5sum)" = "$sum" ] ||
    fail "an input was overwritten by an output"
expect 2 "--trace and --per-op: expected two files, got '$tmp/io/o' for both" \
    run --tenant mnist --requests 2 --trace "$tmp/io/o" --per-op "$tmp/io/o"

# --- topology --array reads each side as every number is read: 01x1 and
# 1x01 (leading zeros, as 010 elsewhere) were accepted by its own strtoull.
T=tests/data/topology/ok_mixed.csv
for a in 01x1 1x01; do
    expect 2 "--array: expected ROWSxCOLS with each in [1, 65536], got '$a'" topology "$PWD/$T" --array "$a"
done

# --- a model option named without its value is not an unknown option (it
# was "unknown option 'prefill='"); unknown= takes vu only.
expect 1 "model 'llm/gpt2-xl:prefill=': prefill: expected a value, got ''" profile llm/gpt2-xl:prefill=
expect 1 "model 'mnist:sa_ops=': sa_ops: expected a value, got ''" profile mnist:sa_ops=
expect 1 "model 'x.onnx:unknown=sa': unknown: expected vu, got 'sa'" profile x.onnx:unknown=sa

# --- an NPU file's 'derived' (what `npu --format json` adds, ignored when
# read back) that is not an object was "unknown key 'derived'".
printf '{"base": "v10-isca23", "derived": 5}\n' >"$tmp/derived.json"
expect 1 "derived.json: key 'derived': expected the object 'v10sim npu --format json' writes" \
    npu --npu "$tmp/derived.json"

# --- a message with an over-long path keeps its reason (its end): it was
# cut at 511 bytes, inside the path.
long=$(printf 'a%.0s' $(seq 1 5000))
expect 1 ".json: cannot open: File name too long" npu --npu "$long.json"
expect 1 "aaaa: path too long" run --tenant mnist --requests 2 --per-op "$long"

# --- a result folder created for a command that then fails is removed again
# (while empty): `run --plot D` refused by its event budget, `llm-study`
# with an unknown model, left D (and the parents made for it) empty.
mkdir "$tmp/rf" "$tmp/rf/pre"
expect 1 "run too long" run --tenant mnist --tenant ncf --requests 2 --max-events 100 \
    --plot "$tmp/rf/a/b/c"
expect 1 "run too long" run --tenant mnist --tenant ncf --requests 2 --max-events 100 \
    --plot "$tmp/rf/pre/new/"
expect 1 "unknown LLM 'nosuch'" llm-study --quick --out "$tmp/rf/l/m" --model nosuch
[ "$(cd "$tmp/rf" && find . | sort | tr '\n' ' ')" = ". ./pre " ] ||
    fail "folders left by failed commands: $(cd "$tmp/rf" && find . | tr '\n' ' ')"

# --- options that do not go together: --list beside what only a run uses
# was dropped silently (`sweep --list --out D` wrote nothing to D, exit 0).
for o in "--out $tmp/sw" --resume --plot; do
    # shellcheck disable=SC2086 # "--out DIR" is two words
    expect 2 "--list and ${o%% *} do not go together" sweep "$PWD/examples/sweep-small.json" --list $o
done
expect 2 "--list and --npu do not go together" npu --list --npu tpuv3-core

# --- an unknown NPU key names the fields it is near, as every typed name
# does (a model, a policy, a parameter); it named none.
printf '{"base": "v10-isca23", "sa_row": 256}\n' >"$tmp/sa_row.json"
expect 1 "sa_row.json: unknown key 'sa_row'; did you mean 'sa_rows'?" npu --npu "$tmp/sa_row.json"

# --- an NPU key's number out of range or not whole is quoted as read, in
# its shortest exact form, and so are the bounds: %g called 64.0000001 "64"
# (out of [1, 64]?) and printed 2^40 as 1.09951e+12.
nkey() { printf '{"base": "v10-isca23", "%s": %s}\n' "$1" "$2" >"$tmp/k.json"; }
nkey sa_count 1e99
expect 1 "k.json: key 'sa_count': 1e+99 is out of range [1, 64]" npu --npu "$tmp/k.json"
nkey sa_count 64.0000001
expect 1 "k.json: key 'sa_count': 64.0000001 is out of range [1, 64]" npu --npu "$tmp/k.json"
nkey vmem_bytes 1099511627777
expect 1 "k.json: key 'vmem_bytes': 1099511627777 is out of range [1024, 1099511627776]" \
    npu --npu "$tmp/k.json"
nkey sa_rows 2.0000001
expect 1 "k.json: key 'sa_rows': expected an integer, got 2.0000001" npu --npu "$tmp/k.json"

finish
