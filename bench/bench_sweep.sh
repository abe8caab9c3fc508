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

# "WALL SWEEP": seconds of the best of $repeat runs of "command... --out DIR",
# wall clock and as the sweep reports it (points only, without process or
# MPI start-up); the last run's results stay in $tmp/out.
secs() {
  python3 - "$tmp/out" "$repeat" "$@" <<'PY'
import re, shutil, subprocess, sys, time
out, repeat, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
best = None
for _ in range(repeat):
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    p = subprocess.run(cmd + ["--out", out], check=True, stdout=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    inner = float(re.search(r" in ([0-9.]+) s;", p.stdout).group(1))
    if best is None or dt < best[0]:
        best = (dt, inner)
print(f"{best[0]:.3f} {best[1]:.3f}")
PY
}

n=$("$bin" sweep "$spec" --list | wc -l)
echo "spec $spec: $n points; $(nproc) CPUs; best of $repeat"
row() { # label "WALL SWEEP" [reference "WALL SWEEP"]
  python3 - "$@" <<'PY'
import sys
label, (w, s) = sys.argv[1], map(float, sys.argv[2].split())
line = f"{label:<14} wall {w:6.2f} s   sweep {s:6.2f} s"
if len(sys.argv) > 3:
    rw, rs = map(float, sys.argv[3].split())
    line += f"   speed-up {rw / w:.2f}x wall, {rs / s:.2f}x sweep"
print(line)
PY
}
t1=$(secs "$bin" sweep "$spec" -j 1 --quiet); cp "$tmp/out/results.csv" "$tmp/j1.csv"
row "-j 1" "$t1"
t2=$(secs "$bin" sweep "$spec" -j 2 --quiet); cp "$tmp/out/results.csv" "$tmp/j2.csv"
cmp "$tmp/j1.csv" "$tmp/j2.csv"
row "-j 2" "$t2" "$t1"
if [ -x "$mpibin" ] && command -v mpirun > /dev/null; then
  tm=$(secs mpirun --oversubscribe --allow-run-as-root -np 2 "$mpibin" sweep "$spec" --quiet)
  cp "$tmp/out/results.csv" "$tmp/mpi.csv"
  cmp "$tmp/j1.csv" "$tmp/mpi.csv"
  row "mpirun -np 2" "$tm" "$t1"
fi
# The machine's own ceiling: two independent single-thread sweeps at once.
tc=$(python3 - "$bin" "$spec" "$tmp" <<'PY'
import subprocess, sys, time
b, spec, tmp = sys.argv[1:]
t0 = time.perf_counter()
ps = [subprocess.Popen([b, "sweep", spec, "-j", "1", "--quiet", "--out", f"{tmp}/ceil{i}"],
                       stdout=subprocess.DEVNULL) for i in range(2)]
assert all(p.wait() == 0 for p in ps)
print(f"{time.perf_counter() - t0:.3f}")
PY
)
python3 -c "import sys; w1=float(sys.argv[1].split()[0]); c=float(sys.argv[2]); print(f'ceiling: two independent -j 1 processes at once do 2x the work in {c:.2f} s = {2*w1/c:.2f}x the throughput of one')" "$t1" "$tc"
echo "results identical across -j 1, -j 2 and MPI"
