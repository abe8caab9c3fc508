#!/usr/bin/env bash
# A calibrated model's setup (not part of the test run): for each isca23
# model, the wall time, CPU time and peak resident set of a process that
# builds it (the zoo's architecture, calibrated to its TPU profile, costed)
# and prints its one line of `v10sim models`: what every `run`, sweep
# process or MPI rank naming the model pays before its first event.
# Medians of R runs (default 3); the peak RSS is /usr/bin/time's maximum
# resident set (it varies by a few hundred KB between runs).
# Usage: bench/setup.sh [BINARY] [R]   (release build: make release first)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/v10sim}
reps=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export V10_PROGRESS=0

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

models=$("$bin" models --format csv | awk -F, '$1 ~ /^isca23\// {print $1}')
[ -n "$models" ] || { echo "setup.sh: $bin lists no isca23 models" >&2; exit 1; }
printf '%-20s %9s %9s %9s %10s\n' model operators wall_s cpu_s peak_MiB
for m in $models; do
  for r in $(seq "$reps"); do
    /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$bin" models "$m" --format csv >"$tmp/out"
    read -r e u s kb <"$tmp/t"
    echo "$e" >>"$tmp/wall"
    echo "$u + $s" | bc -l >>"$tmp/cpu"
    echo "$kb" >>"$tmp/rss"
  done
  ops=$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "ops") c = i} NR == 2 {print $c}' \
        "$tmp/out")
  printf '%-20s %9s %9.2f %9.2f %10.1f\n' "$m" "$ops" "$(median <"$tmp/wall")" \
         "$(median <"$tmp/cpu")" "$(echo "$(median <"$tmp/rss") / 1024" | bc -l)"
  rm -f "$tmp/wall" "$tmp/cpu" "$tmp/rss"
done
