#!/usr/bin/env bash
# hostile.sh — an adversarial user (issue 14, docs/robustness.md "Hostile
# conditions"): inputs that change during a run, outputs onto special files
# and symlinks, paths from data, concurrent sweeps on one folder, a resume
# whose inputs changed, runs too long to finish, signals, names that break
# writers, lax parsing.  Races are made deterministic with FIFOs and flock,
# never with sleeps.
# Usage: hostile.sh PATH/TO/v10sim   (run from the repository root by ctest)
keep_going=1  # a failure is counted and the script goes on
source "$(dirname "$0")/lib.sh"
# no_tmp DIR: no temporary left behind.
no_tmp() {
    if ls -a "$1" | grep -q '\.tmp'; then fail "temporary left in $1: $(ls -a "$1")"; fi
}
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1"; }

# --- 1. an input that changes during the run is read once ----------------
# A FIFO serves a 20,000-operator trace once: a second open (the old --trace
# re-read, which crashed on a file replaced meanwhile) would wait for ever,
# so the run is bounded (the time limit only matters if the check fails).
mkdir "$tmp/c1"
{
    echo name,fu,cycles
    for i in $(seq 1 20000); do echo "op$i,SA,10"; done
} >"$tmp/c1/big.csv"
mkfifo "$tmp/c1/m.csv"
cat "$tmp/c1/big.csv" >"$tmp/c1/m.csv" &
pids+=($!)
set +e
timeout 60 "$bin" run --tenant "$tmp/c1/m.csv" --requests 2 --trace "$tmp/c1/t.json" \
    >/dev/null 2>"$tmp/err"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
    fail "run --trace on a FIFO model: exit $rc (124: opened twice); $(cat "$tmp/err")"
else
    json_ok "$tmp/c1/t.json" || fail "--trace after a changing input: invalid JSON"
    grep -q '"t0:op20000"' "$tmp/c1/t.json" || fail "--trace does not name the operators run"
fi
no_tmp "$tmp/c1"

# --- 2. outputs never replace what is not a regular file -------------------
mkdir "$tmp/c2"
T=(run --tenant mnist --requests 2)
# A symlink to a regular file: the target gets the trace, the link stays.
echo old >"$tmp/c2/real.json"
ln -s real.json "$tmp/c2/link.json"
run 0 "${T[@]}" --trace "$tmp/c2/link.json" &&
    { [ -L "$tmp/c2/link.json" ] || fail "--trace replaced a symlink"; } &&
    { json_ok "$tmp/c2/real.json" || fail "--trace through a symlink: target not written"; }
# A symlink to our own standard output (as /dev/stdout is): written through, kept.
ln -s /proc/self/fd/1 "$tmp/c2/so"
run 0 "${T[@]}" --trace "$tmp/c2/so" &&
    { [ -L "$tmp/c2/so" ] || fail "--trace replaced a link to standard output"; } &&
    { grep -q traceEvents "$tmp/out" || fail "--trace to standard output: nothing written"; }
# A FIFO: written directly, stays a FIFO.
mkfifo "$tmp/c2/pipe"
timeout 60 cat "$tmp/c2/pipe" >"$tmp/c2/got" &
reader=$!
run 0 "${T[@]}" --trace "$tmp/c2/pipe" || true
wait "$reader" || true
[ -p "$tmp/c2/pipe" ] || fail "--trace replaced a FIFO"
json_ok "$tmp/c2/got" || fail "--trace into a FIFO: invalid JSON"
# A directory is refused.
run 1 "${T[@]}" --trace "$tmp/c2" && grep -q "is a directory" "$tmp/err" ||
    fail "--trace onto a directory: $(cat "$tmp/err")"
# A copy of /dev/full (root only: mknod): the write error is reported, the node stays.
if [ "$(id -u)" = 0 ] && mknod "$tmp/c2/full" c 1 7 2>/dev/null; then
    run 1 "${T[@]}" --trace "$tmp/c2/full" &&
        { grep -q "No space left" "$tmp/err" || fail "--trace onto a full device: $(cat "$tmp/err")"; }
    [ -c "$tmp/c2/full" ] || fail "--trace replaced a device node"
fi
no_tmp "$tmp/c2"

# --- 8. names from data are escaped in every writer -------------------------
mkdir "$tmp/c8"
/usr/bin/python3 tests/onnx/make_evil_names.py "$tmp/c8/evil.onnx"
run 0 profile "$tmp/c8/evil.onnx" --format csv && cp "$tmp/out" "$tmp/c8/back.csv"
if run 0 profile "$tmp/c8/back.csv" --format csv; then
    [ "$(grep -vc '^#' "$tmp/out")" = 3 ] || fail "profile CSV of odd names lost operators"
    diff <(grep -v '^#' "$tmp/out") <(grep -v '^#' "$tmp/c8/back.csv") >/dev/null ||
        fail "profile CSV of odd names does not read back the same"
fi
# Byte 0xff and an escape sequence in operator names and in the file name.
printf 'name,fu,cycles\n\xff\x1b[31mred,SA,100\nok,VU,10\n' >"$tmp/c8/x"$'\x1b'"[1m.csv"
M="$tmp/c8/x"$'\x1b'"[1m.csv"
utf8_json() { python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1"; }
run 0 profile "$M" --format json && { utf8_json "$tmp/out" || fail "profile JSON: invalid"; }
run 0 run --tenant "$M" --requests 2 --format json --trace "$tmp/c8/t.json" &&
    { utf8_json "$tmp/out" || fail "run JSON: invalid"; } &&
    { utf8_json "$tmp/c8/t.json" || fail "trace JSON: invalid UTF-8"; }
for cmd in "profile $M" "run --tenant $M --requests 2" "run --tenant $M --requests 2 --format csv"; do
    # shellcheck disable=SC2086
    run 0 $cmd || continue
    LC_ALL=C grep -q $'[\x1b\xff]' "$tmp/out" && fail "v10sim $cmd: raw control or 0xff byte in output"
done

# --- 9. one rule for every input -----------------------------------------
mkdir "$tmp/c9"
N=tests/data/npu/subset.json
# Trailing data, a NUL byte and what follows, a key given twice: refused.
{ cat $N; echo 'garbage'; } >"$tmp/c9/trail.json"
{ cat $N; printf '\0{"sa_count": 4}'; } >"$tmp/c9/nul.json"
printf '{"base": "v10-isca23", "sa_count": 2, "sa_count": 4}\n' >"$tmp/c9/dup.json"
run 1 npu --npu "$tmp/c9/trail.json" && grep -q "trail.json:6: malformed JSON: data after" "$tmp/err" ||
    fail "NPU JSON with trailing data: $(cat "$tmp/err")"
run 1 npu --npu "$tmp/c9/nul.json" && grep -q "NUL byte" "$tmp/err" ||
    fail "NPU JSON with a NUL byte: $(cat "$tmp/err")"
run 1 npu --npu "$tmp/c9/dup.json" && grep -q "duplicate key 'sa_count'" "$tmp/err" ||
    fail "NPU JSON with a duplicate key: $(cat "$tmp/err")"
printf '{"name": "d", "axes": {"seed": [1]}, "fixed": {"mix": ["mnist"], "requests": 2, "requests": 3}}\n' \
    >"$tmp/c9/dup_spec.json"
{ cat tests/data/sweep/tiny.json; echo '}'; } >"$tmp/c9/trail_spec.json"
run 1 sweep "$tmp/c9/dup_spec.json" --list && grep -q "duplicate key 'requests'" "$tmp/err" ||
    fail "sweep spec with a duplicate key: $(cat "$tmp/err")"
run 1 sweep "$tmp/c9/trail_spec.json" --list && grep -q "data after the value" "$tmp/err" ||
    fail "sweep spec with trailing data: $(cat "$tmp/err")"
# Numbers: plain decimal only, no blanks, in tenant specs and options alike.
for t in batch=0x10 batch=010 batch=+4 'priority= 2' 'priority=2 ' priority=0x1p1 rate=inf outstanding=1e1; do
    run 1 run --tenant "mnist:$t" --requests 2 && grep -qF "got '" "$tmp/err" ||
        fail "tenant option '$t' accepted or unclear: $(cat "$tmp/err")"
done
run 2 run --tenant mnist --requests 010 || true
run 0 run --tenant mnist:priority=0.5:rate=1e3 --tenant ncf:batch=8 --requests 2 || true
# The size limit is what docs/limits.md says: 16 MiB = 16,777,216 bytes is fine.
python3 - "$tmp/c9" <<'PY'
import sys
d = sys.argv[1]
body = b'{"base": "v10-isca23"}'
for n in (16777216, 16777217):
    open(f"{d}/n{n}.json", "wb").write(body + b" " * (n - len(body)))
PY
run 0 npu --npu "$tmp/c9/n16777216.json" || true
run 1 npu --npu "$tmp/c9/n16777217.json" && grep -q "larger than 16777216 bytes" "$tmp/err" ||
    fail "NPU JSON of 16 MiB + 1: $(cat "$tmp/err")"
# A UTF-8 byte order mark is accepted by every reader.
bom=$'\xef\xbb\xbf'
{ printf '%s' "$bom"; cat $N; } >"$tmp/c9/bom.json"
{ printf '%s' "$bom"; cat tests/data/engine/sa_vu.csv; } >"$tmp/c9/bom.csv"
{ printf '%s' "$bom"; cat tests/data/topology/ok_mixed.csv; } >"$tmp/c9/bom_topo.csv"
{ printf '%s' "$bom"; cat tests/data/sweep/tiny.json; } >"$tmp/c9/bom_spec.json"
{ printf '%sname,model,batch,rate_rps\n' "$bom"; printf 'a,mnist,0,0\nb,ncf,0,0\n'; } >"$tmp/c9/bom_svc.csv"
run 0 npu --npu "$tmp/c9/bom.json" || true
run 0 profile "$tmp/c9/bom.csv" || true
run 0 topology "$tmp/c9/bom_topo.csv" || true
run 0 sweep "$tmp/c9/bom_spec.json" --list || true
run 0 fleet --services "$tmp/c9/bom_svc.csv" --npus 1 --requests 2 || true
# A topology dimension of 2^32 is over the documented 2^32 - 1.
printf 'name,ifmap_h,ifmap_w,filter_h,filter_w,channels,num_filter,stride\nc,4294967296,8,3,3,1,1,1\n' \
    >"$tmp/c9/big_topo.csv"
run 1 topology "$tmp/c9/big_topo.csv" && grep -q "at most 2^32 - 1" "$tmp/err" ||
    fail "topology dimension 2^32: $(cat "$tmp/err")"

# Seeds stay exact (issue 24): above 2^53 in JSON outputs; next to 2^53 in a
# sweep, where two seeds must not share a point id and 2^53 is refused.
run 0 run --tenant mnist --requests 2 --seed 12345678901234567 --format json &&
    python3 - "$tmp/out" <<'PY' || fail "run --seed 12345678901234567: JSON seed not exact"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["seed"] == 12345678901234567 and r["config"]["seed"] == 12345678901234567, r["seed"]
PY
printf '{"name": "s", "axes": {"seed": [9007199254740990, 9007199254740991]}, "fixed": {"mix": ["mnist"], "requests": 2}}\n' \
    >"$tmp/c9/seeds.json"
run 0 sweep "$tmp/c9/seeds.json" --list &&
    python3 - "$tmp/out" <<'PY' || fail "sweep seeds 2^53 - 2, 2^53 - 1: $(cat "$tmp/out")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["point"]["seed"] for r in rows] == [9007199254740990, 9007199254740991], rows
assert rows[0]["id"] != rows[1]["id"], rows
PY
sed -i 's/9007199254740990, 9007199254740991/9007199254740991, 9007199254740992/' "$tmp/c9/seeds.json"
run 1 sweep "$tmp/c9/seeds.json" --list && grep -q "an integer in \[0, 9007199254740991\]" "$tmp/err" ||
    fail "sweep seed 2^53: $(cat "$tmp/err")"

# --- 3. a sweep's name (from data) cannot choose a path ----------------------
mkdir -p "$tmp/c3/work"
for n in '../../outside' '/etc/x' 'a/b' '.hidden' 'two\nlines' '-rf'; do
    printf '{"name": "%s", "axes": {"seed": [1]}, "fixed": {"mix": ["mnist"], "requests": 2}}\n' "$n" \
        >"$tmp/c3/s.json"
    (cd "$tmp/c3/work" && timeout 60 "$bin" sweep ../s.json >/dev/null 2>"$tmp/err") &&
        fail "sweep name '$n' accepted"
    grep -q "name: expected letters" "$tmp/err" || fail "sweep name '$n': $(cat "$tmp/err")"
done
[ -z "$(ls -A "$tmp/c3/work")" ] && [ ! -e "$tmp/outside" ] || fail "a refused sweep wrote a folder"
# A name taken from the file's name is kept to the same alphabet.
printf '{"axes": {"seed": [1]}, "fixed": {"mix": ["mnist"], "requests": 2}}\n' >"$tmp/c3/we ird;x.json"
(cd "$tmp/c3/work" && timeout 60 "$bin" sweep "../we ird;x.json" >/dev/null 2>"$tmp/err") ||
    fail "sweep from an odd file name: $(cat "$tmp/err")"
[ -d "$tmp/c3/work/sweep-we_ird_x" ] || fail "odd file name: folder $(ls "$tmp/c3/work")"

# --- 4. one process per sweep folder ----------------------------------------
# (test_sweep: a second open of a folder in one process is refused too.)  A
# holder takes the folder's lock as a running sweep does (flock, its pid
# inside) and says so; a sweep and a resume on that folder are then refused.
mkdir "$tmp/c4"
printf '{"name": "lock", "axes": {"seed": [1, 2]}, "fixed": {"mix": ["mnist"], "requests": 2}}\n' \
    >"$tmp/c4/s.json"
v10 sweep "$tmp/c4/s.json" --out "$tmp/c4/out" >/dev/null 2>&1 || fail "sweep into c4/out"
exec 5< <(python3 - "$tmp/c4/out/.lock" <<'PY'
import fcntl, os, signal, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, f"{os.getpid()}\n".encode())
print(os.getpid(), flush=True)
signal.pause()  # holds the lock until killed
PY
)
read -r holder <&5
pids+=("$holder")
run 1 sweep "$tmp/c4/s.json" --out "$tmp/c4/out" --resume &&
    { grep -q "in use by pid $holder " "$tmp/err" || fail "resume on a busy folder: $(cat "$tmp/err")"; }
# Without --resume the folder is refused for what it holds, before the lock.
run 1 sweep "$tmp/c4/s.json" --out "$tmp/c4/out" &&
    { grep -q "already holds a sweep" "$tmp/err" || fail "sweep on a busy folder: $(cat "$tmp/err")"; }
kill "$holder" 2>/dev/null || true
exec 5<&-
wait 2>/dev/null || true
run 0 sweep "$tmp/c4/s.json" --out "$tmp/c4/out" --resume || true  # released

# --- 5. a resume whose inputs changed is refused -----------------------------
mkdir "$tmp/c5"
cp tests/data/engine/sa_vu.csv "$tmp/c5/m.csv"
printf '{"name": "in", "axes": {"seed": [1, 2, 3]}, "fixed": {"mix": ["%s", "mnist"], "requests": 2}}\n' \
    "$tmp/c5/m.csv" >"$tmp/c5/s.json"
v10 sweep "$tmp/c5/s.json" --out "$tmp/c5/out" >/dev/null 2>&1 || fail "sweep into c5/out"
# Lost rows (as after kill -9) and an unchanged input: the resume runs them.
keep2() { python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("DELETE FROM points WHERE idx >= 2"); d.commit()' "$1"; }
stored() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM points").fetchone()[0])' "$1"; }
keep2 "$tmp/c5/out/results.db"
run 0 sweep "$tmp/c5/s.json" --out "$tmp/c5/out" --resume || true
[ "$(stored "$tmp/c5/out/results.db")" = 3 ] || fail "the resume did not run the lost point"
keep2 "$tmp/c5/out/results.db"
sed -i 's/^\([a-z0-9_]*\),SA,\([0-9]*\)/\1,SA,1\2/' "$tmp/c5/m.csv"   # the model is edited
run 1 sweep "$tmp/c5/s.json" --out "$tmp/c5/out" --resume &&
    { grep -q "input $tmp/c5/m.csv changed" "$tmp/err" || fail "resume after an edit: $(cat "$tmp/err")"; }
[ "$(stored "$tmp/c5/out/results.db")" = 2 ] || fail "a refused resume added rows"

# --- 5b. a sweep on a full disk stops with a message, and resumes -----------
# Past `ulimit -f` (48 KiB, a few points into the store's WAL): exit 1 naming
# results.db, the committed points kept, no results.csv; with room again
# --resume finishes with the results of an undisturbed sweep.
mkdir "$tmp/c5b"
printf '{"name": "full", "axes": {"seed": [1, 2, 3, 4, 5, 6, 7, 8], "policy": ["fcfs", "v10-full"]}, "fixed": {"mix": ["mnist", "ncf"], "requests": 3}}\n' \
    >"$tmp/c5b/s.json"
v10 sweep "$tmp/c5b/s.json" --out "$tmp/c5b/ref" -j 1 >/dev/null 2>&1 || fail "sweep into c5b/ref"
set +e
(ulimit -f 48; exec timeout 120 "$bin" sweep "$tmp/c5b/s.json" --out "$tmp/c5b/out" -j 1 \
    >/dev/null 2>"$tmp/err")
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "sweep past ulimit -f: exit $rc, expected 1"
grep -q "c5b/out/results.db: recording a point: disk I/O error - File too large" "$tmp/err" ||
    fail "sweep past ulimit -f: $(cat "$tmp/err")"
[ -e "$tmp/c5b/out/results.csv" ] && fail "sweep past ulimit -f: results.csv written"
n=$(stored "$tmp/c5b/out/results.db")
[ "$n" -gt 0 ] && [ "$n" -lt 16 ] || fail "sweep past ulimit -f: $n points stored, expected some"
run 0 sweep "$tmp/c5b/s.json" --out "$tmp/c5b/out" --resume -j 2 || true
cmp -s "$tmp/c5b/ref/results.csv" "$tmp/c5b/out/results.csv" ||
    fail "sweep resumed after a full disk: results.csv differs"
no_tmp "$tmp/c5b/out"

# --- 6. runs too long to finish are refused early ---------------------------
# (each would run for hours, or past the budget given; refused at the first
# checks of the event budget, in well under the time limit)
printf 'name,fu,cycles\nhuge,SA,1125899906842624\n' >"$tmp/huge.csv"
printf '{"base": "v10-isca23", "clock_mhz": 1}\n' >"$tmp/mhz1.json"
for args in "--tenant mnist:rate=1e-6 --tenant ncf --requests 2" \
            "--tenant mnist:priority=0.001 --tenant ncf:priority=1000 --requests 2000 --policy prema" \
            "--tenant mnist:priority=0.001 --tenant ncf:priority=1000 --requests 2000 --policy spatial --max-events 1e8"; do
    # shellcheck disable=SC2086
    run 1 run $args && grep -q "run too long: about .* events estimated" "$tmp/err" &&
        grep -q -- "--max-events" "$tmp/err" || fail "run $args: not refused: $(cat "$tmp/err")"
done
# One 2^50-cycle operator alone is two events, however long in cycles: it runs.
run 0 run --tenant "$tmp/huge.csv" --requests 1 --npu "$tmp/mhz1.json" || true
# The budget is a flag: a small one refuses an ordinary run, a larger one lets it run.
run 1 run --tenant mnist --requests 100 --max-events 100 || true
run 0 run --tenant mnist --requests 100 --max-events 100000 || true
# The progress bar: drawn on stderr once a run lasts V10_PROGRESS_AFTER seconds (3 by default).
V10_PROGRESS=1 V10_PROGRESS_AFTER=0 v10 run --tenant mnist --tenant ncf --requests 3000 \
    >/dev/null 2>"$tmp/bar" || fail "run with a progress bar failed"
grep -q "requests simulated" "$tmp/bar" || fail "no progress bar: $(head -c 200 "$tmp/bar")"
V10_PROGRESS=1 v10 run --tenant mnist --tenant ncf --requests 3000 >/dev/null 2>"$tmp/bar"
[ -s "$tmp/bar" ] && fail "progress bar drawn for a short run"
# stderr not a terminal (a log, CI): a line every V10_PROGRESS_EVERY seconds (10 by
# default) with done/total and the time elapsed, and a last one; V10_PROGRESS=0: none.
V10_PROGRESS_AFTER=0 V10_PROGRESS_EVERY=0 v10 run --tenant mnist --tenant ncf --requests 3000 \
    >/dev/null 2>"$tmp/lines" || fail "run with progress lines failed"
grep -qE "^v10sim: requests simulated: [0-9]+/6000 \([0-9]+%\), 0:[0-9]{2} elapsed, ETA" "$tmp/lines" ||
    fail "no progress line: $(head -c 300 "$tmp/lines")"
tail -1 "$tmp/lines" | grep -q "requests simulated: 6000/6000 (100%)" || fail "no last line: $(tail -1 "$tmp/lines")"
grep -q $'\r' "$tmp/lines" && fail "a bar's carriage return in a log"
V10_PROGRESS=0 V10_PROGRESS_AFTER=0 V10_PROGRESS_EVERY=0 v10 run --tenant mnist --tenant ncf \
    --requests 3000 >/dev/null 2>"$tmp/lines"
[ -s "$tmp/lines" ] && fail "V10_PROGRESS=0 printed progress"

# --- 7. signals become errors ----------------------------------------------
# Past `ulimit -f` (1 KiB): EFBIG, a message, exit 1, no temporary (not SIGXFSZ).
mkdir "$tmp/c7"
set +e
(ulimit -f 1; exec timeout 60 "$bin" run --tenant resnet50 --requests 2 \
    --trace "$tmp/c7/t.json" >/dev/null 2>"$tmp/c7/err")
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "trace past ulimit -f: exit $rc, expected 1"
grep -q "File too large" "$tmp/c7/err" || fail "trace past ulimit -f: no message: $(cat "$tmp/c7/err")"
[ -e "$tmp/c7/t.json" ] && fail "trace past ulimit -f: output left"
no_tmp "$tmp/c7"
# Standard output is a pipe whose reader is gone (`| head -1` read what it
# wanted): the command ends quietly, exit 0 (not SIGPIPE, not an error).
python3 - "$bin" <<'PY' || fail "stdout on a closed pipe"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
for cmd in (["models"], ["run", "--tenant", "mnist", "--requests", "2"], ["policies"]):
    p = subprocess.run([sys.argv[1]] + cmd, stdout=w, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0, (cmd, p.returncode)
    assert p.stderr == b"", (cmd, p.stderr)
PY
# `models | head -1` as a user types it: one line, nothing on stderr, exit 0.
set +e
"$bin" models 2>"$tmp/err" | head -1 >"$tmp/out"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(wc -l <"$tmp/out")" = 1 ] ||
    fail "models | head -1: exit $rc, stderr $(cat "$tmp/err")"
# Standard output on a full disk is still an error: a message, exit 1.
if [ -w /dev/full ]; then
    set +e
    "$bin" models >/dev/full 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" -eq 1 ] && grep -q "No space left" "$tmp/err" ||
        fail "models onto /dev/full: exit $rc, stderr $(cat "$tmp/err")"
fi

# --- 1b. a binary file named as a model fails at its first bytes ------------
# A FIFO that serves 20,000 zero bytes and is never closed (this shell holds
# a writer): a reader that took the whole file before its format would wait
# for ever (the run's time limit, exit 124); the first block's NUL byte
# ends it at once, naming the file, by `run` (which reads its inputs first)
# and by `models`.
mkdir "$tmp/c1b"
mkfifo "$tmp/c1b/model.csv"
exec 3<>"$tmp/c1b/model.csv"
head -c 20000 /dev/zero >&3
limit=20
run 1 run --tenant "$tmp/c1b/model.csv" --requests 1 &&
    { grep -q "model.csv:1: contains a NUL byte (expected text)" "$tmp/err" ||
          fail "binary model: $(cat "$tmp/err")"; }
head -c 20000 /dev/zero >&3
run 1 models "$tmp/c1b/model.csv" &&
    { grep -q "model.csv:1: contains a NUL byte (expected text)" "$tmp/err" ||
          fail "binary model (models): $(cat "$tmp/err")"; }
exec 3>&-
limit=120

finish
