#!/usr/bin/env bash
# hostile_io.sh — what a command reads and writes under hostile conditions
# (docs/robustness.md, "Hostile conditions", classes 11 to 15): closed
# standard streams, a sweep's inputs read once, a result store that is not
# as we wrote it, outputs cut off half-way or mixed from two runs, outputs
# that cannot be written found before the work.  Each check failed before its fix.
# Usage: hostile_io.sh PATH/TO/v10sim   (run from the repository root by ctest)
keep_going=1  # a failure is counted and the script goes on
at_exit='chattr -R -i "$tmp" 2>/dev/null'
source "$(dirname "$0")/lib.sh"
U=data/tpu-profiles/utilization.csv

# --- 11. closed standard streams ------------------------------------------
# A stream the command starts without must not be taken by the next file
# it opens: the report (or a message) would land in that file.  stdout
# closed: the report cannot be written, which is a failure (exit 1), and
# the --out file is the one it is without the stream, or absent.
mkdir "$tmp/c11"
CAL=(calibrate resnet50 --profile $U --row resnet50:32)
v10 "${CAL[@]}" --out "$tmp/c11/ref.csv" >"$tmp/c11/ref.out" 2>/dev/null || fail "calibrate"
set +e
(exec >&-; exec timeout 60 "$bin" "${CAL[@]}" --out "$tmp/c11/o1.csv" 2>"$tmp/c11/err")
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "calibrate with stdout closed: exit $rc, expected 1"
grep -q "standard output is closed" "$tmp/c11/err" || fail "stdout closed: $(cat "$tmp/c11/err")"
if [ -e "$tmp/c11/o1.csv" ]; then
    cmp -s "$tmp/c11/o1.csv" "$tmp/c11/ref.csv" || fail "stdout closed: the report went into --out"
fi
# stdin or stderr closed: the same outputs as with them open, exit 0.
for fd in 0 2; do
    set +e
    (exec {fd}>&-; exec timeout 60 "$bin" "${CAL[@]}" --out "$tmp/c11/o$fd.csv" >"$tmp/c11/o$fd.out")
    rc=$?
    set -e
    [ "$rc" -eq 0 ] || fail "calibrate with fd $fd closed: exit $rc"
    cmp -s "$tmp/c11/o$fd.csv" "$tmp/c11/ref.csv" || fail "fd $fd closed: --out differs"
    sed "s/o$fd.csv/ref.csv/" "$tmp/c11/o$fd.out" | cmp -s - "$tmp/c11/ref.out" ||
        fail "fd $fd closed: the report differs"
done
# stdin and stderr closed while a sweep writes its folder (the lock would
# take fd 2) and progress lines go to stderr: none lands in its files.
printf '{"name": "s11", "axes": {"seed": [1, 2]}, "fixed": {"mix": ["mnist"], "requests": 2}}\n' \
    >"$tmp/c11/s.json"
set +e
(exec 2>&- <&-; unset V10_PROGRESS; V10_PROGRESS_AFTER=0 V10_PROGRESS_EVERY=0 \
    exec timeout 60 "$bin" sweep "$tmp/c11/s.json" --out "$tmp/c11/sw" >/dev/null)
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "sweep with stderr closed: exit $rc"
python3 - "$tmp/c11/sw" <<'PY' || fail "sweep with stderr closed: folder damaged"
import json, sqlite3, sys
d = sys.argv[1]
json.load(open(d + "/spec.json"))
assert open(d + "/.lock").read().strip().isdigit()
assert sqlite3.connect(d + "/results.db").execute("PRAGMA integrity_check").fetchone()[0] == "ok"
assert len(open(d + "/results.jsonl").read().splitlines()) == 2
PY

# --- 12. a sweep's inputs are read once ----------------------------------------
# Its model file and a calibration profile, each a FIFO whose writer serves
# a different version on every open: the sweep reads each once, when it
# starts, so every point runs on the version spec.json records (the same
# results and spec.json as a sweep over regular files with that content);
# a second open would get another version, or wait for ever.
mkdir "$tmp/c12"
cp tests/data/engine/sa_vu.csv "$tmp/c12/a.csv"
sed 's/^\([a-z0-9_]*\),SA,\([0-9]*\)/\1,SA,1\2/' "$tmp/c12/a.csv" >"$tmp/c12/b.csv"
cp $U "$tmp/c12/pa.csv"
sed 's/^resnet50,32,50.1,94.4,6.0,55.9/resnet50,32,50.1,80.0,20.0,40.0/' $U >"$tmp/c12/pb.csv"
cmp -s "$tmp/c12/pa.csv" "$tmp/c12/pb.csv" && fail "the profile's second version is the first"
M="$tmp/c12/m.csv" P="$tmp/c12/p.csv"
printf '{"name": "in", "axes": {"seed": [1, 2, 3, 4], "mix": [["%s", "mnist"], ["resnet50:profile=%s:row=resnet50@32", "ncf"]]}, "fixed": {"requests": 3, "warmup": 1}}\n' \
    "$M" "$P" >"$tmp/c12/s.json"
cp "$tmp/c12/a.csv" "$M"
cp "$tmp/c12/pa.csv" "$P"
v10 sweep "$tmp/c12/s.json" -j 2 --out "$tmp/c12/ref" >/dev/null 2>&1 || fail "sweep over files"
rm "$M" "$P"
mkfifo "$M" "$P"
serve() { # FIFO A B: A to the first reader, then B and A by turns, until killed
    python3 -c 'import errno, itertools, os, sys, time
data = [open(p, "rb").read() for p in sys.argv[2:4]]
for k in itertools.count():
    fd = os.open(sys.argv[1], os.O_WRONLY)  # waits for a reader
    os.write(fd, data[k % 2])
    os.close(fd)
    while True:  # that reader gone (no reader: ENXIO) before the next is served
        try:
            os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK))
        except OSError as e:
            if e.errno == errno.ENXIO:
                break
            raise
        time.sleep(0.001)' "$@" 2>/dev/null &
    servers+=($!)
}
servers=()
serve "$M" "$tmp/c12/a.csv" "$tmp/c12/b.csv"
serve "$P" "$tmp/c12/pa.csv" "$tmp/c12/pb.csv"
set +e
timeout 60 "$bin" sweep "$tmp/c12/s.json" -j 2 --out "$tmp/c12/fifo" >/dev/null 2>"$tmp/c12/err"
rc=$?
set -e
kill "${servers[@]}" 2>/dev/null || true
wait "${servers[@]}" 2>/dev/null || true
rm -f "$M" "$P"
[ "$rc" -eq 0 ] || fail "sweep over changing inputs: exit $rc (124: opened twice): $(head -c 300 "$tmp/c12/err")"
cmp -s "$tmp/c12/ref/results.csv" "$tmp/c12/fifo/results.csv" ||
    fail "sweep over changing inputs: points ran on other versions than the first"
cmp -s "$tmp/c12/ref/spec.json" "$tmp/c12/fifo/spec.json" ||
    fail "sweep over changing inputs: spec.json does not record what the points ran on"
# Under `ulimit -n 7` (the store's descriptors and the standard streams)
# no point opens a file, so none fails for it; the sweep stops where it
# cannot go on (an export), and --resume with the limit lifted ends with
# the results of an undisturbed sweep, no point recorded as an error.
cp "$tmp/c12/a.csv" "$M"
cp "$tmp/c12/pa.csv" "$P"
set +e
(ulimit -n 7; exec timeout 60 "$bin" sweep "$tmp/c12/s.json" -j 2 --out "$tmp/c12/lim" \
    >/dev/null 2>"$tmp/c12/err")
rc=$?
set -e
[ "$rc" -eq 0 ] || grep -q "Too many open files" "$tmp/c12/err" ||
    fail "sweep under ulimit -n 7: exit $rc: $(head -c 300 "$tmp/c12/err")"
v10 sweep "$tmp/c12/s.json" -j 2 --out "$tmp/c12/lim" --resume >/dev/null 2>&1 ||
    fail "resume after ulimit -n"
cmp -s "$tmp/c12/ref/results.csv" "$tmp/c12/lim/results.csv" ||
    fail "sweep under ulimit -n 7, resumed: results differ ($(grep -c 'Too many' "$tmp/c12/lim/results.csv" || true) error rows)"

# --- 13. a result store that is not as we wrote it --------------------------
# Refused with a message, and not one byte of it changed (no WAL mode set
# on another program's database), or repaired where it is provably ours
# (an edited or unreadable row of our store runs again).
mkdir "$tmp/c13"
printf '{"name": "s12", "axes": {"seed": [1, 2, 3]}, "fixed": {"mix": ["mnist", "ncf"], "requests": 2}}\n' \
    >"$tmp/c13/s.json"
v10 sweep "$tmp/c13/s.json" --out "$tmp/c13/ref" >/dev/null 2>&1 || fail "sweep into c13/ref"
sums() { (cd "$1" && find . -type f ! -name .lock | LC_ALL=C sort | xargs sha256sum); } # the lock is ours
# store_case NAME WHAT PYTHON: a copy of the finished sweep whose results.db
# PYTHON (given the path) changes, resumed: refused naming WHAT, unchanged.
store_case() {
    local d="$tmp/c13/$1" what=$2
    rm -rf "$d"
    cp -r "$tmp/c13/ref" "$d"
    rm -f "$d/results.csv" "$d/results.jsonl"
    python3 -c "import sqlite3, sys; db = sys.argv[1]; $3" "$d/results.db"
    local before
    before=$(sums "$d")
    set +e
    timeout 60 "$bin" sweep "$tmp/c13/s.json" --out "$d" --resume >/dev/null 2>"$tmp/c13/err"
    local rc=$?
    set -e
    [ "$rc" -eq 1 ] && grep -q "$what" "$tmp/c13/err" ||
        fail "store $1: exit $rc: $(head -c 300 "$tmp/c13/err")"
    [ "$(sums "$d")" = "$before" ] || fail "store $1: refused, but changed"
}
# Another program's database (rollback journal, then WAL with its log).
store_case foreign "not a sweep result store" \
    'import os; os.remove(db); c = sqlite3.connect(db); c.execute("CREATE TABLE t(x)"); c.execute("INSERT INTO t VALUES(1)"); c.commit(); c.close()'
store_case foreign_wal "not a sweep result store" \
    'import os, shutil; os.remove(db); c = sqlite3.connect(db); c.execute("PRAGMA journal_mode=WAL"); c.execute("PRAGMA wal_autocheckpoint=0"); c.execute("CREATE TABLE t(x)"); c.execute("INSERT INTO t VALUES(1)"); c.commit(); shutil.copy(db, db + ".k"); shutil.copy(db + "-wal", db + "-wal.k"); os._exit(0)'
store_case garbage "not an SQLite database" 'open(db, "wb").write(b"not a database at all\n" * 100)'
store_case extra_table "it holds table" \
    'c = sqlite3.connect(db); c.execute("CREATE TABLE mine(x)"); c.commit()'
store_case duplicates "table points is not as a store" \
    'c = sqlite3.connect(db); c.executescript("CREATE TABLE p2 AS SELECT * FROM points; INSERT INTO p2 SELECT * FROM points; DROP TABLE points; ALTER TABLE p2 RENAME TO points;")'
store_case format "store of format 7" \
    'c = sqlite3.connect(db); c.execute("UPDATE meta SET value = 7 WHERE key = \"format\""); c.commit()'
store_case other_spec "another spec" \
    'c = sqlite3.connect(db); c.execute("UPDATE meta SET value = \"0123456789abcdef\" WHERE key = \"spec_hash\""); c.commit()'
store_case journal "rollback journal" 'open(db + "-journal", "wb").write(b"x" * 512)'
# Rows of our store that are not as it wrote them: dropped (said so) and
# run again; the results are those of an undisturbed sweep.
row_case() {
    local d="$tmp/c13/$1"
    rm -rf "$d"
    cp -r "$tmp/c13/ref" "$d"
    rm -f "$d/results.csv" "$d/results.jsonl"
    python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()" \
        "$d/results.db" "$2"
    set +e
    timeout 60 "$bin" sweep "$tmp/c13/s.json" --out "$d" --resume >/dev/null 2>"$tmp/c13/err"
    local rc=$?
    set -e
    [ "$rc" -eq 0 ] && grep -q "dropped 1 row" "$tmp/c13/err" ||
        fail "store row $1: exit $rc: $(head -c 300 "$tmp/c13/err")"
    cmp -s "$d/results.csv" "$tmp/c13/ref/results.csv" || fail "store row $1: results differ"
}
row_case edited "UPDATE points SET row = replace(row, '\"seed\":2', '\"seed\":9') WHERE idx = 1"
row_case trailing "UPDATE points SET row = row || ' x' WHERE idx = 1"
row_case not_json "UPDATE points SET row = substr(row, 1, 40) WHERE idx = 1"
row_case blob "UPDATE points SET row = CAST(row AS BLOB) WHERE idx = 1"
# A store of the earlier format, as an earlier v10sim wrote it (no row sums).
d="$tmp/c13/v1"
rm -rf "$d"
cp -r "$tmp/c13/ref" "$d"
python3 - "$d/results.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript("""CREATE TABLE p1(idx INTEGER PRIMARY KEY, id TEXT NOT NULL, row TEXT NOT NULL);
INSERT INTO p1 SELECT idx, id, row FROM points; DROP TABLE points; ALTER TABLE p1 RENAME TO points;
UPDATE meta SET value = '1' WHERE key = 'format';""")
c.commit()
PY
before=$(sums "$d")
set +e
timeout 60 "$bin" sweep "$tmp/c13/s.json" --out "$d" --resume >/dev/null 2>"$tmp/c13/err"
rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "store of format 1; this v10sim reads format 2" "$tmp/c13/err" ||
    fail "store of format 1: exit $rc: $(cat "$tmp/c13/err")"
[ "$(sums "$d")" = "$before" ] || fail "store of format 1: refused, but changed"

# --- 14. outputs are whole, and of one run ------------------------------------
# A --trace through a dangling link (or a chain of links) whose target is
# cut off by `ulimit -f`: the target is absent or whole, never half-written.
mkdir "$tmp/c14"
for chain in 1 2; do
    rm -f "$tmp/c14/"*
    if [ $chain = 1 ]; then
        ln -s target.json "$tmp/c14/link.json"
    else
        ln -s mid.json "$tmp/c14/link.json"
        ln -s target.json "$tmp/c14/mid.json"
    fi
    set +e
    (ulimit -f 8; exec timeout 60 "$bin" run --tenant resnet50 --requests 4 \
        --trace "$tmp/c14/link.json" >/dev/null 2>"$tmp/c14/err")
    rc=$?
    set -e
    [ "$rc" -eq 1 ] && grep -q "File too large" "$tmp/c14/err" ||
        fail "trace through a dangling link past ulimit -f: exit $rc: $(cat "$tmp/c14/err")"
    [ ! -e "$tmp/c14/target.json" ] || fail "a half-written target left through $chain link(s)"
    [ -L "$tmp/c14/link.json" ] || fail "the link was replaced"
    ls -a "$tmp/c14" | grep -q '\.tmp' && fail "a temporary left: $(ls -a "$tmp/c14")"
    # and with room, the target is written whole through the chain
    v10 run --tenant mnist --requests 2 --trace "$tmp/c14/link.json" >/dev/null 2>&1 ||
        fail "trace through $chain link(s)"
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/c14/target.json" ||
        fail "trace through $chain dangling link(s): target not whole"
    [ -L "$tmp/c14/link.json" ] || fail "the link was replaced"
done
# A rerun of llm-study into its own folder whose writing fails (past
# `ulimit -f`; its last file immutable, with chattr): the folder holds the
# first run's files, all of them, or says it is incomplete.
L=(llm-study --quick --requests 2 -j 2)
v10 "${L[@]}" --out "$tmp/c14/ls" >/dev/null 2>&1 || fail "llm-study"
cp -r "$tmp/c14/ls" "$tmp/c14/ls.ref"
one_run() { # WHY: the folder is the first run's, or marked
    if [ ! -e "$tmp/c14/ls/INCOMPLETE" ]; then
        diff -r "$tmp/c14/ls.ref" "$tmp/c14/ls" >/dev/null ||
            fail "llm-study rerun ($1): files of two runs, unmarked: $(diff -rq "$tmp/c14/ls.ref" "$tmp/c14/ls" | head -3)"
    fi
    ls -a "$tmp/c14/ls" | grep -q '\.tmp\.' && fail "llm-study ($1) left a temporary"
    return 0
}
set +e
(ulimit -f 12; exec timeout 300 "$bin" "${L[@]}" --seed 2 --out "$tmp/c14/ls" \
    >/dev/null 2>"$tmp/c14/err")
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "llm-study rerun past ulimit -f: exit $rc: $(cat "$tmp/c14/err")"
one_run "ulimit -f"
if chattr +i "$tmp/c14/ls/summary.md" 2>/dev/null; then
    set +e
    timeout 300 "$bin" "${L[@]}" --seed 2 --out "$tmp/c14/ls" >/dev/null 2>"$tmp/c14/err"
    rc=$?
    set -e
    chattr -i "$tmp/c14/ls/summary.md"
    [ "$rc" -eq 1 ] || fail "llm-study rerun onto an immutable file: exit $rc"
    one_run "an immutable file"
fi
# A rerun that writes fewer files leaves none of the earlier run's behind.
touch "$tmp/c14/ls/stale.svg"
printf 'stale.svg\n' >>"$tmp/c14/ls/.v10sim-output"
v10 "${L[@]}" --seed 2 --out "$tmp/c14/ls" >/dev/null 2>&1 || fail "llm-study rerun"
[ ! -e "$tmp/c14/ls/stale.svg" ] && [ ! -e "$tmp/c14/ls/INCOMPLETE" ] ||
    fail "llm-study rerun: $(ls "$tmp/c14/ls")"
grep -qx stale.svg "$tmp/c14/ls/.v10sim-output" && fail "manifest lists a file no longer there"

# --- 15. outputs that cannot be written are found before the work -----------
# (root, on a file system with chattr: immutable folders and files.)  In
# progress lines mode a simulation that starts prints a line; none may.
mkdir "$tmp/c15"
if chattr +i "$tmp/c15" 2>/dev/null; then
    P=(env -u V10_PROGRESS V10_PROGRESS_AFTER=0 V10_PROGRESS_EVERY=0)
    before_work() { # WHAT ARGS...: exit 1 naming WHAT, nothing simulated
        local what=$1
        shift
        set +e
        "${P[@]}" timeout 300 "$bin" "$@" >/dev/null 2>"$tmp/c15.err"
        local rc=$?
        set -e
        [ "$rc" -eq 1 ] && grep -q "$what" "$tmp/c15.err" ||
            fail "v10sim $*: exit $rc: $(head -c 300 "$tmp/c15.err")"
        grep -qE "simulated|llm-study:|repro" "$tmp/c15.err" &&
            fail "v10sim $*: simulated before finding its output unwritable: $(head -c 300 "$tmp/c15.err")"
        return 0
    }
    before_work "c15: cannot write in this folder" llm-study --quick -j 2 --out "$tmp/c15"
    before_work "c15: cannot write in this folder" repro --quick -j 2 --out "$tmp/c15"
    before_work "c15/t.json: cannot create" run --tenant mnist --tenant ncf --requests 3000 \
        --trace "$tmp/c15/t.json"
    before_work "c15/p.csv: cannot create" run --tenant mnist --tenant ncf --requests 3000 \
        --per-op "$tmp/c15/p.csv"
    before_work "c15/r.csv: cannot create" "${CAL[@]}" --out "$tmp/c15/r.csv"
    printf '{"name": "s14", "axes": {"seed": [1, 2]}, "fixed": {"mix": ["mnist"], "requests": 2}}\n' \
        >"$tmp/s14.json"
    before_work "c15" sweep "$tmp/s14.json" --out "$tmp/c15"
    chattr -i "$tmp/c15"
    # An immutable file of an earlier run, which the rerun would replace.
    v10 "${L[@]}" --out "$tmp/c15/ls" >/dev/null 2>&1 || fail "llm-study into c15/ls"
    chattr +i "$tmp/c15/ls/summary.md"
    before_work "summary.md: immutable" llm-study --quick -j 2 --out "$tmp/c15/ls"
    chattr -i "$tmp/c15/ls/summary.md"
    echo "old" >"$tmp/c15/t.json"
    chattr +i "$tmp/c15/t.json"
    before_work "t.json: immutable" run --tenant mnist --tenant ncf --requests 3000 \
        --trace "$tmp/c15/t.json"
    chattr -i "$tmp/c15/t.json"
    # A sweep whose exports would be immutable, resumed with points to run.
    v10 sweep "$tmp/s14.json" --out "$tmp/c15/sw" >/dev/null 2>&1 || fail "sweep into c15/sw"
    python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("DELETE FROM points"); d.commit()' \
        "$tmp/c15/sw/results.db"
    chattr +i "$tmp/c15/sw/results.csv"
    before_work "results.csv: immutable" sweep "$tmp/s14.json" --out "$tmp/c15/sw" --resume
    chattr -i "$tmp/c15/sw/results.csv"
else
    echo "hostile_io: chattr not available here: class 14 not checked" >&2
fi

finish
