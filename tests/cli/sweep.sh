#!/usr/bin/env bash
# `v10sim sweep` end to end: the same results for -j 1 and -j 2, kill -9 at
# several moments (and inside a transaction) then --resume equal to an
# uninterrupted run (no loss, no duplicates), a changed spec and a corrupt
# store refused, malformed specs rejected with the key named, the progress bar.
limit=300
source "$(dirname "$0")/lib.sh"
# Each run is bounded, so an engine that hangs fails the test instead of
# stalling it (the kill-and-resume runs below use "$bin" directly).
D=tests/data/sweep

# Rows without "perf", sorted by index; fails on a duplicate, torn or missing row.
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
# The rows committed to DIR/results.db (0 before it has any); read after
# the sweep died, since a running sweep holds the database's lock.
stored() {
  python3 - "$1/results.db" <<'PY'
import os, sqlite3, sys
n = 0
if os.path.exists(sys.argv[1]):
    try:
        n = sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM points").fetchone()[0]
    except sqlite3.OperationalError:  # killed before the tables were committed
        pass
print(n)
PY
}
# The points a running sweep has finished so far, from its progress bar.
progress() { tr '\r' '\n' < "$1" | sed -n 's/^\[[# ]*\] \([0-9]*\)\/.*/\1/p' | tail -n 1; }

v10 sweep --help | grep -q "usage: v10sim sweep"
[ "$(v10 sweep $D/tiny.json --list | wc -l)" = 48 ]

# -j 1 and -j 2 give the same rows and byte-identical results.csv.
v10 sweep $D/tiny.json -j 1 --out "$tmp/j1" > "$tmp/j1.out"
grep -q "48 points (48 run now, 1 thread)" "$tmp/j1.out"
v10 sweep $D/tiny.json -j 2 --out "$tmp/j2" > /dev/null
rows "$tmp/j1/results.jsonl" 48 > "$tmp/j1.rows"
rows "$tmp/j2/results.jsonl" 48 > "$tmp/j2.rows"
cmp "$tmp/j1.rows" "$tmp/j2.rows"
cmp "$tmp/j1/results.csv" "$tmp/j2/results.csv"
python3 - "$tmp/j1/results.csv" "$tmp/j1/results.jsonl" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["index"]) for r in rows] == list(range(48))
for k in ["id", "mix", "npu", "policy", "seed", "requests", "system_stp", "system_antt",
          "utilization_overall", "t0_np", "t1_latency_us_p95", "t2_model"]:
    assert k in rows[0], k
assert rows[0]["mix"] == "tests/data/engine/sa_vu.csv+ncf:batch=8", rows[0]["mix"]
assert rows[1]["seed"] == "7" and rows[0]["policy"] == "fcfs"
assert rows[-1]["t2_model"] == "ncf" and rows[0]["t2_model"] == ""
j = [json.loads(l) for l in open(sys.argv[2])]
full = next(r for r in j if r["index"] == 47)
assert full["result"]["config"]["seed"] == 7 and full["result"]["policy"] == "v10-full"
assert full["point"]["npu"]["vmem_bytes"] == 16777216
assert full["result"]["config"]["npu"]["vmem_bytes"] == 16777216
PY

# A finished directory: a fresh run into it is refused, --resume runs nothing.
if v10 sweep $D/tiny.json --out "$tmp/j1" 2> "$tmp/err"; then exit 1; fi
grep -q "already holds a sweep" "$tmp/err"
v10 sweep $D/tiny.json --out "$tmp/j1" --resume > "$tmp/again.out" 2> /dev/null
grep -q "(0 run now" "$tmp/again.out"
cmp "$tmp/j1/results.csv" "$tmp/j2/results.csv"

# A changed spec is refused on --resume.
sed 's/"requests": 6/"requests": 7/' $D/tiny.json > "$tmp/changed.json"
if v10 sweep "$tmp/changed.json" --out "$tmp/j1" --resume 2> "$tmp/err"; then exit 1; fi
grep -q "different spec" "$tmp/err"
# ...but whitespace and description changes are not changes.
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s["description"]="other"; print(json.dumps(s))' \
  $D/tiny.json > "$tmp/same.json"
v10 sweep "$tmp/same.json" --out "$tmp/j1" --resume > /dev/null 2>&1

# Kill -9 at several moments, then --resume: the final set equals an
# uninterrupted run.  kill.json is examples/sweep-small.json with fewer requests.
[ "$(v10 sweep examples/sweep-small.json --list | wc -l)" -ge 50 ]
S=$D/kill.json
n=$(v10 sweep $S --list | wc -l)
# 3 mixes x 2 priorities x 2 NPUs x (pmt + prema + v10-base + v10-full at two
# slices): slice_cycles is crossed only with v10-full, which reads it (issue
# 12: 96 points, 36 of them duplicates).
[ "$n" = 60 ]
[ "$(v10 sweep $S --list | grep -c slice_cycles)" = 24 ]
v10 sweep $S -j 2 --out "$tmp/ref" > /dev/null
rows "$tmp/ref/results.jsonl" "$n" > "$tmp/ref.rows"
K="$tmp/killed"
# 1: killed almost at once (maybe before spec.json or results.db exists).
"$bin" sweep $S -j 1 --out "$K" > /dev/null 2>&1 & pids+=($!)
sleep 0.02; kill -9 "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
# 2, 3: killed after some points, resuming each time (a point's row is
# committed before the progress bar counts it).
for want in 3 25; do
  before=$(stored "$K")
  V10_PROGRESS=1 "$bin" sweep $S -j 1 --out "$K" --resume > /dev/null 2> "$tmp/kill.err" & pids+=($!)
  for _ in $(seq 1 1000); do
    now=$(progress "$tmp/kill.err")
    [ $((before + ${now:-0})) -ge "$want" ] && break
    sleep 0.01
  done
  kill -9 "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
done
done_rows=$(stored "$K")
[ "$done_rows" -ge 25 ] && [ "$done_rows" -lt "$n" ]
[ ! -f "$K/results.csv" ] && [ ! -f "$K/results.jsonl" ]
# A writer killed inside its transaction: a row of a missing point inserted
# (4 MB, so it spills from a 2-page cache into the WAL), never committed.
if python3 - "$K/results.db" <<'PY'
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
done = {r[0] for r in db.execute("SELECT idx FROM points")}
missing = min(set(range(60)) - done)
db.execute("PRAGMA cache_size=2")
db.execute("BEGIN")
db.execute("INSERT INTO points VALUES(?, 'x', printf('%.4000000c', 'x'), 'x')", (missing,))
os.kill(os.getpid(), signal.SIGKILL)
PY
then echo "the writer was not killed"; exit 1; fi
[ "$(stat -c %s "$K/results.db-wal")" -gt 4000000 ]
v10 sweep $S -j 2 --out "$K" --resume > "$tmp/resume.out" 2> "$tmp/resume.err"
grep -q "$done_rows of $n points already done" "$tmp/resume.err"
if grep -q "dropped" "$tmp/resume.err"; then exit 1; fi
grep -q "($((n - done_rows)) run now" "$tmp/resume.out"
rows "$K/results.jsonl" "$n" > "$tmp/killed.rows"
cmp "$tmp/ref.rows" "$tmp/killed.rows"
cmp "$tmp/ref/results.csv" "$K/results.csv"
[ "$(stored "$K")" = "$n" ]

# A store that is not a database (or not this sweep's) is named, and left alone.
cp -r "$tmp/j1" "$tmp/corrupt"
head -c 8192 /dev/urandom > "$tmp/corrupt/results.db"
cp "$tmp/corrupt/results.db" "$tmp/corrupt.db"
if v10 sweep $D/tiny.json --out "$tmp/corrupt" --resume 2> "$tmp/err"; then exit 1; fi
grep -q "corrupt/results.db: not a sweep result store as v10sim writes it (not an SQLite database)" "$tmp/err"
cmp "$tmp/corrupt.db" "$tmp/corrupt/results.db"
cp "$tmp/ref/results.db" "$tmp/corrupt/results.db"
if v10 sweep $D/tiny.json --out "$tmp/corrupt" --resume 2> "$tmp/err"; then exit 1; fi
grep -q "corrupt/results.db holds the results of another spec" "$tmp/err"
# Rows of another shape, or another point's record under this point's index
# and id (issue 24): dropped, named, run again; the exports hold each index once.
cp -r "$tmp/j1" "$tmp/rows"
rm "$tmp/rows/results.csv" "$tmp/rows/results.jsonl"
python3 - "$tmp/rows/results.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("UPDATE points SET row = '[1,2,3]' WHERE idx = 3")
db.execute("UPDATE points SET row = (SELECT row FROM points WHERE idx = 5) WHERE idx = 6")
db.execute("UPDATE points SET row = '{\"index\":7' WHERE idx = 7")
PY
v10 sweep $D/tiny.json -j 2 --out "$tmp/rows" --resume > /dev/null 2> "$tmp/err"
grep -q "dropped 3 row(s) of results.db .* first: row 3: edited since it was written" "$tmp/err"
grep -q "45 of 48 points already done, 3 to run" "$tmp/err"
cmp "$tmp/j1/results.csv" "$tmp/rows/results.csv"
rows "$tmp/rows/results.jsonl" 48 > "$tmp/rows.rows"
cmp "$tmp/j1.rows" "$tmp/rows.rows"

# The progress bar, with an ETA, on stderr.
V10_PROGRESS=1 v10 sweep $D/tiny.json -j 2 --out "$tmp/bar" > /dev/null 2> "$tmp/bar.err"
grep -q "48/48 100%  ETA" "$tmp/bar.err"

# A point the simulator refuses (fcfs leaves NCF no progress beside an overloaded
# MNIST) records its error in its row; the other points run, the sweep
# exits 0, and --resume finds every point done.
v10 sweep $D/refused.json -j 2 --out "$tmp/refused" > /dev/null 2> "$tmp/refused.err"
grep -q "1 point(s) were refused" "$tmp/refused.err"
python3 - "$tmp/refused" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(d + "/results.jsonl")]
assert len(rows) == 4, rows
bad = [r for r in rows if "error" in r]
assert [r["index"] for r in bad] == [2] and "run too long" in bad[0]["error"], bad
assert all("result" in r for r in rows if "error" not in r)
csvr = list(csv.DictReader(open(d + "/results.csv")))
assert [r["error"] != "" for r in csvr] == [False, False, True, False], csvr
assert csvr[2]["system_stp"] == "" and csvr[2]["policy"] == "fcfs"
assert float(csvr[3]["system_stp"]) > 0
PY
v10 sweep $D/refused.json --resume --out "$tmp/refused" > /dev/null 2> "$tmp/refused.err"
grep -q "4 of 4 points already done, 0 to run" "$tmp/refused.err"

# Malformed specs: exit 1 and a message naming the key.
expect_fail() { # file, message
  if v10 sweep "$1" --out "$tmp/bad" 2> "$tmp/err"; then echo "accepted $1"; exit 1; fi
  grep -qF -- "$2" "$tmp/err" || { echo "wanted '$2', got: $(cat "$tmp/err")"; exit 1; }
}
expect_fail $D/bad_unknown_axis.json "axes.polcy: unknown key"
expect_fail $D/bad_empty_product.json "axes.seed: empty list, so the product is empty (empty product"
expect_fail $D/bad_type.json "axes.requests[0]: expected an integer"
expect_fail $D/bad_priority.json "axes.priority[1]: 1 priorities, but axes.mix[0] has 2 tenants"
expect_fail $D/bad_npu_field.json "axes.npu[0]: unknown key 'sa_rowz'"
expect_fail $D/bad_json.json "bad_json.json:2: malformed JSON"
expect_fail "$tmp/missing.json" "missing.json: cannot open"
[ ! -e "$tmp/bad" ]

# Command-line errors: exit 2.
set +e
v10 sweep > /dev/null 2>&1; [ $? = 2 ] || exit 1
v10 sweep $D/tiny.json -j 0 > /dev/null 2>&1; [ $? = 2 ] || exit 1
v10 sweep $D/tiny.json --bogus > /dev/null 2>&1; [ $? = 2 ] || exit 1
set -e
echo ok
