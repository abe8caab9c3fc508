#!/bin/sh
# alternate.sh — time two commands alternately (A B A B ...), so that both
# see the same host load, and print each one's medians: wall seconds, CPU
# seconds (user + system) and peak RSS, with the median of the paired
# B/A ratios.  Public tools only (/usr/bin/time -v).  Not part of the tests.
#
# Usage: bench/alternate.sh N 'COMMAND A' 'COMMAND B'
#   e.g. bench/alternate.sh 3 'old/build/v10sim repro --quick -j 2 --out /tmp/a' \
#                             'build/v10sim repro --quick -j 2 --out /tmp/b'
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 N 'COMMAND A' 'COMMAND B'" >&2
    exit 2
fi
n=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ "$i" -lt "$n" ]; do
    for side in A B; do
        if [ $side = A ]; then cmd=$2; else cmd=$3; fi
        /usr/bin/time -v -o "$tmp/t" sh -c "$cmd" >/dev/null 2>"$tmp/err" ||
            { echo "$0: command $side failed:" >&2; cat "$tmp/err" >&2; exit 1; }
        awk -v side=$side '
            /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = 0
                                       for (k = 1; k <= n; k++) w = w * 60 + p[k] }
            /User time/ { u = $NF } /System time/ { s = $NF }
            /Maximum resident/ { r = $NF }
            END { printf "%s %.3f %.3f %d\n", side, w, u + s, r }' "$tmp/t" >>"$tmp/runs"
    done
    i=$((i + 1))
done
awk '
    function median(a, m,   k, j, x) {      # insertion sort, then the middle
        for (k = 2; k <= m; k++) { x = a[k]; for (j = k - 1; j > 0 && a[j] > x; j--)
                                              a[j + 1] = a[j]; a[j + 1] = x }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    $1 == "A" { na++; wa[na] = $2; ca[na] = $3; ra[na] = $4 }
    $1 == "B" { nb++; wb[nb] = $2; cb[nb] = $3; rb[nb] = $4
                qw[nb] = wa[nb] > 0 ? $2 / wa[nb] : 1; qc[nb] = ca[nb] > 0 ? $3 / ca[nb] : 1 }
    END {
        printf "%-6s %10s %10s %12s\n", "", "wall s", "CPU s", "peak RSS KiB"
        printf "%-6s %10.2f %10.2f %12d\n", "A", median(wa, na), median(ca, na), median(ra, na)
        printf "%-6s %10.2f %10.2f %12d\n", "B", median(wb, nb), median(cb, nb), median(rb, nb)
        printf "%-6s %10.3f %10.3f\n", "B/A", median(qw, nb), median(qc, nb) }' "$tmp/runs"
