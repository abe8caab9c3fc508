#!/usr/bin/env bash
# Sweep speed-up: examples/sweep-small.json with -j 1, -j 2 and (if built)
# mpirun -np 2; best of REPEAT runs each; checks the result sets are equal.
#   bash bench/bench_sweep.sh [BUILD_DIR] [SPEC]      (REPEAT=3 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
spec=${2:-examples/sweep-small.json}
repeat=${REPEAT:-3}
bin=$build/v10sim
mpibin=$build/v10sim-mpi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Wall seconds of the best of $repeat runs of "command... --out DIR"; the
# last run's results stay in $tmp/out.
secs() {
  python3 - "$tmp/out" "$repeat" "$@" <<'PY'
import shutil, subprocess, sys, time
out, repeat, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
best = None
for _ in range(repeat):
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    subprocess.run(cmd + ["--out", out], check=True, stdout=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    best = dt if best is None else min(best, dt)
print(f"{best:.3f}")
PY
}

n=$("$bin" sweep "$spec" --list | wc -l)
echo "spec $spec: $n points; $(nproc) CPUs; best of $repeat"
t1=$(secs "$bin" sweep "$spec" -j 1 --quiet); cp "$tmp/out/results.csv" "$tmp/j1.csv"
t2=$(secs "$bin" sweep "$spec" -j 2 --quiet); cp "$tmp/out/results.csv" "$tmp/j2.csv"
cmp "$tmp/j1.csv" "$tmp/j2.csv"
printf "%-16s %8.2f s\n" "-j 1" "$t1"
printf "%-16s %8.2f s   speed-up %.2fx\n" "-j 2" "$t2" "$(python3 -c "print($t1 / $t2)")"
if [ -x "$mpibin" ] && command -v mpirun > /dev/null; then
  tm=$(secs mpirun --oversubscribe --allow-run-as-root -np 2 "$mpibin" sweep "$spec" --quiet)
  cp "$tmp/out/results.csv" "$tmp/mpi.csv"
  cmp "$tmp/j1.csv" "$tmp/mpi.csv"
  printf "%-16s %8.2f s   speed-up %.2fx (includes mpirun start-up)\n" "mpirun -np 2" "$tm" \
    "$(python3 -c "print($t1 / $tm)")"
fi
echo "results identical across -j 1, -j 2 and MPI"
