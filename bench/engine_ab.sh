#!/usr/bin/env bash
# engine_ab.sh — the engine's events per second, two builds alternating:
# runs OLD and NEW bench_engine in turn (OLD NEW OLD NEW ...), N times each,
# so that both see the same host load, and prints each case's median
# events per second for both and the median of the paired NEW/OLD ratios.
# With --instructions, prints instead each case's instructions an event
# inside v10_engine_run by callgrind (deterministic: load does not move
# them; a build without AVX-512 in its code, which valgrind cannot run).
# Not part of the test run.
#
# Usage: bench/engine_ab.sh [-n N] [--cases "1 2 ..."] [--requests R] OLD NEW
#        bench/engine_ab.sh --instructions [--cases "1 2 ..."] [--requests R] BIN...
#   e.g. bench/engine_ab.sh -n 3 old/build/bench_engine build/bench_engine
#        bench/engine_ab.sh --instructions --cases "1 10" --requests 20 build/bench_engine
set -euo pipefail
n=3 cases="" requests=200 instr=0
while [ $# -gt 0 ]; do
    case $1 in
    -n) n=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --requests) requests=$2; shift 2 ;;
    --instructions) instr=1; shift ;;
    -h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$0: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
if { [ $instr = 0 ] && [ $# -ne 2 ]; } || { [ $instr = 1 ] && [ $# -lt 1 ]; }; then
    echo "usage: $0 [-n N] [--cases LIST] [--requests R] OLD NEW" >&2
    echo "       $0 --instructions [--cases LIST] [--requests R] BIN..." >&2
    exit 2
fi
for b in "$@"; do
    [ -x "$b" ] || { echo "$0: $b: not an executable" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The cases to run: the list given, else every case bench_engine has.
if [ -z "$cases" ]; then
    k=$({ "$1" 1 on 999 2>&1 || true; } | sed -n 's/.*there are \([0-9]*\) cases.*/\1/p')
    [ -n "$k" ] || { echo "$0: $1: cannot count its cases" >&2; exit 1; }
    cases=$(seq 1 "$k")
fi

if [ $instr = 1 ]; then
    command -v valgrind >/dev/null || { echo "$0: needs valgrind" >&2; exit 1; }
    printf "%-6s %12s %16s  %s\n" case events "instr/event" binary
    for c in $cases; do
        for b in "$@"; do
            out=$tmp/cg
            valgrind --tool=callgrind --callgrind-out-file="$out" \
                '--toggle-collect=v10_engine_run*' "$b" "$requests" on "$c" >"$tmp/log" 2>&1 ||
                { echo "$0: $b case $c failed:" >&2; tail -3 "$tmp/log" >&2; exit 1; }
            ev=$(sed -n 's/.* \([0-9][0-9]*\) events (estimated.*/\1/p' "$tmp/log" | head -1)
            ir=$(sed -n 's/^summary: *\([0-9]*\)$/\1/p; s/^totals: *\([0-9]*\)$/\1/p' "$out" | head -1)
            awk -v c="$c" -v e="$ev" -v i="$ir" -v b="$b" \
                'BEGIN { printf "%-6s %12d %16.1f  %s\n", c, e, i / e, b }'
            rm -f "$out"
        done
    done
    exit 0
fi

old=$1 new=$2
for ((i = 0; i < n; i++)); do
    for side in old new; do
        bin=$old
        [ $side = new ] && bin=$new
        for c in $cases; do
            "$bin" "$requests" on "$c" |
                awk -v s=$side -v c="$c" -v i=$i '/M events\/s/ {
                    for (k = 1; k < NF; k++) if ($(k + 1) == "M" && $(k + 2) == "events/s") r = $k
                    print s, c, i, r }' >>"$tmp/runs"
        done
    done
done
awk '
    function median(a, m,   k, j, x) {
        for (k = 2; k <= m; k++) { x = a[k]; for (j = k - 1; j > 0 && a[j] > x; j--)
                                              a[j + 1] = a[j]; a[j + 1] = x }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    { r[$1, $2, $3] = $4; seen[$2] = 1; if ($3 + 1 > reps) reps = $3 + 1 }
    END {
        printf "%-6s %14s %14s %10s\n", "case", "old M ev/s", "new M ev/s", "new/old"
        for (c = 1; c <= 64; c++) {
            if (!(c in seen)) continue
            for (i = 0; i < reps; i++) { o[i + 1] = r["old", c, i]; w[i + 1] = r["new", c, i]
                                         q[i + 1] = r["new", c, i] / r["old", c, i] }
            mo = median(o, reps); mw = median(w, reps); mq = median(q, reps)
            printf "%-6s %14.2f %14.2f %10.3f\n", c, mo, mw, mq
        }
    }' "$tmp/runs"
