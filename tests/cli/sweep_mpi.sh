#!/usr/bin/env bash
# `mpirun -np 2 v10sim-mpi sweep`: the same rows as `v10sim sweep -j 1` and
# `-j 2`, recorded in the same store; resuming a directory a threaded run
# was killed in; refusals.
# Registered only when CMake finds MPI and mpirun.
source "$(dirname "$0")/lib.sh"
mpibin=$2
mpirun=${3:-mpirun}
D=tests/data/sweep
# Open MPI's own allocations are not ours to leak-check (ASan build).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
export OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { timeout 300 "$mpirun" --oversubscribe --allow-run-as-root -np "$@"; }

rows() {
  python3 - "$1" "$2" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
text = open(path).read()
assert text.endswith("\n"), "torn last row"
by = {}
for line in text.splitlines():
    r = json.loads(line)
    r.pop("perf")
    assert r["index"] not in by, ("duplicate", r["index"])
    by[r["index"]] = json.dumps(r, sort_keys=True)
assert sorted(by) == list(range(n)), ("missing", sorted(set(range(n)) - set(by)))
for i in range(n):
    print(by[i])
PY
}

timeout 300 "$bin" sweep $D/tiny.json -j 1 --out "$tmp/j1" > /dev/null
timeout 300 "$bin" sweep $D/tiny.json -j 2 --out "$tmp/j2" > /dev/null
mpi 2 "$mpibin" sweep $D/tiny.json --out "$tmp/mpi2" > "$tmp/mpi2.out"
grep -q "48 points (48 run now, 2 MPI ranks)" "$tmp/mpi2.out"
mpi 3 "$mpibin" sweep $D/tiny.json --out "$tmp/mpi3" > /dev/null
for d in j1 j2 mpi2 mpi3; do rows "$tmp/$d/results.jsonl" 48 > "$tmp/$d.rows"; done
cmp "$tmp/j1.rows" "$tmp/j2.rows"
cmp "$tmp/j1.rows" "$tmp/mpi2.rows"
cmp "$tmp/j1.rows" "$tmp/mpi3.rows"
cmp "$tmp/j1/results.csv" "$tmp/mpi2/results.csv"
cmp "$tmp/j1/results.csv" "$tmp/mpi3/results.csv"

# One rank alone: the coordinator runs the points itself.
mpi 1 "$mpibin" sweep $D/tiny.json --out "$tmp/mpi1" > /dev/null
cmp "$tmp/j1/results.csv" "$tmp/mpi1/results.csv"

# A partial directory (as if a threaded sweep was killed after 17 points)
# resumes under MPI.
mkdir "$tmp/part"
cp "$tmp/j2/spec.json" "$tmp/j2/results.db" "$tmp/part/"
python3 - "$tmp/part/results.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM points WHERE idx NOT IN (0, 1, 2, 5, 8, 9, 10, 11, 12, 20, 21, 30, 31, 40, 41, 46, 47)")
db.commit()
assert db.execute("SELECT count(*) FROM points").fetchone()[0] == 17
PY
if mpi 2 "$mpibin" sweep $D/tiny.json --out "$tmp/part" > /dev/null 2> "$tmp/err"; then exit 1; fi
grep -q "already holds a sweep" "$tmp/err"
mpi 2 "$mpibin" sweep $D/tiny.json --out "$tmp/part" --resume > "$tmp/part.out" 2> "$tmp/err"
grep -q "17 of 48 points already done" "$tmp/err"
grep -q "(31 run now" "$tmp/part.out"
rows "$tmp/part/results.jsonl" 48 > "$tmp/part.rows"
cmp "$tmp/j1.rows" "$tmp/part.rows"
cmp "$tmp/j1/results.csv" "$tmp/part/results.csv"
[ "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM points").fetchone()[0])' "$tmp/part/results.db")" = 48 ]

# A changed spec is refused; a malformed one names the key.
sed 's/"requests": 6/"requests": 7/' $D/tiny.json > "$tmp/changed.json"
if mpi 2 "$mpibin" sweep "$tmp/changed.json" --out "$tmp/part" --resume 2> "$tmp/err"; then exit 1; fi
grep -q "different spec" "$tmp/err"
if mpi 2 "$mpibin" sweep $D/bad_unknown_axis.json --out "$tmp/bad" 2> "$tmp/err"; then exit 1; fi
grep -q "axes.polcy: unknown key" "$tmp/err"
echo ok
