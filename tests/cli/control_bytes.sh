#!/usr/bin/env bash
# Control bytes (ESC, a newline, DEL) in names taken from inputs -- an NPU
# file's name, a topology's layer names, a model file's path, a sweep's mix,
# a word of the command line -- never reach a terminal or a CSV raw: names
# are escaped (\x1b) where they enter, messages where they are printed.
# (The fleet's service names: tests/cli/fleet.sh.)
source "$(dirname "$0")/lib.sh"
export V10_PROGRESS=0
E=$(printf '\033')

# clean FILE WHAT: no C0 control byte but the line end, no DEL, and no line
# begun by the text after a name's newline
clean() {
    if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1" || grep -q '^line' "$1"; then
        echo "raw control byte in $2:"; cat -v "$1"; exit 1
    fi
}
# run_clean WHAT CMD...: the command's stdout and stderr are both clean
run_clean() {
    local what=$1; shift
    set +e
    "$@" > "$tmp/out" 2> "$tmp/err"
    set -e
    clean "$tmp/out" "$what (stdout)"
    clean "$tmp/err" "$what (stderr)"
}

printf '{"name": "evil\\u001b[31mred\\nline\\u007f"}' > "$tmp/npu.json"
run_clean "npu table" "$bin" npu --npu "$tmp/npu.json"
grep -q 'evil\\x1b\[31mred\\x0aline\\x7f' "$tmp/out"
run_clean "npu csv" "$bin" npu --npu "$tmp/npu.json" --format csv
run_clean "run table" "$bin" run --npu "$tmp/npu.json" --tenant mnist --tenant ncf --requests 2
grep -q 'npu evil\\x1b\[31mred' "$tmp/out"
run_clean "run csv" "$bin" run --npu "$tmp/npu.json" --tenant mnist --tenant ncf --requests 2 --format csv

printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nco%snv1, 224, 224, 7, 7, 3, 64, 2,\n' "$E" > "$tmp/topo.csv"
run_clean "topology table" "$bin" topology "$tmp/topo.csv"
grep -q 'co\\x1bnv1' "$tmp/out"
run_clean "topology csv" "$bin" topology "$tmp/topo.csv" --format csv
grep -q 'co\\x1bnv1' "$tmp/out"

mkdir "$tmp/d${E}x"
cp tests/data/engine/sa_heavy.csv "$tmp/d${E}x/m${E}1.csv"
run_clean "run with a model path" "$bin" run --tenant "$tmp/d${E}x/m${E}1.csv" --tenant mnist --requests 2
run_clean "run csv with a model path" "$bin" run --tenant "$tmp/d${E}x/m${E}1.csv" --tenant mnist \
    --requests 2 --format csv
run_clean "profile" "$bin" profile "$tmp/d${E}x/m${E}1.csv"

# messages quoting what was typed
run_clean "unknown model" "$bin" run --tenant "mn${E}ist" --tenant ncf
grep -q "mn\\\\x1bist" "$tmp/err"
run_clean "unknown command" "$bin" "ru${E}n"
run_clean "bad option value" "$bin" run --tenant mnist --tenant ncf --policy "p${E}mt"
run_clean "bad number" "$bin" run --tenant mnist --requests "1${E}0"

cat > "$tmp/sw.json" <<JSON
{"name": "cb", "axes": {"mix": [["$tmp/d\u001bx/m\u001b1.csv", "mnist"]], "policy": ["pmt"]},
 "fixed": {"requests": 2}}
JSON
run_clean "sweep" "$bin" sweep "$tmp/sw.json" --out "$tmp/sw" -j 1
clean "$tmp/sw/results.csv" "results.csv"
grep -q 'd\\x1bx/m\\x1b1.csv+mnist' "$tmp/sw/results.csv"
echo ok
