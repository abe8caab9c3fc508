#!/usr/bin/env bash
# hostile_fs.sh — result folders under attack (issue 24; docs/formats.md,
# "Result folders"): links and files planted in a sweep's, repro's or
# llm-study's --out folder.  No command writes outside its folder, follows
# a link inside it, or changes anything in a folder it refuses: every case
# compares a listing and checksum of every byte of the scratch tree before
# and after.
# Usage: hostile_fs.sh PATH/TO/v10sim   (run from the repository root by ctest)
keep_going=1  # a failure is counted and the script goes on
at_exit='rm -rf "$logs"'
source "$(dirname "$0")/lib.sh"
# $tmp is the tree under test: outside files and the --out folders.
logs=$(mktemp -d) # our own stdout/stderr, kept out of the snapshots

# snap [SKIP]: every path of $tmp (type, link target, size, mode, links)
# and the checksum of every regular file, except under $tmp/SKIP.
snap() {
    local skip=./${1:-.none}
    (cd "$tmp" &&
        find . -path "$skip" -prune -o -printf '%p %y %l %s %m %n\n' | LC_ALL=C sort &&
        find . -path "$skip" -prune -o -type f -print0 | LC_ALL=C sort -z |
        xargs -0 -r sha256sum)
}
# expect CODE WHAT ARGS...: runs v10sim, wants exit CODE and WHAT in stderr.
expect() {
    local want=$1 what=$2
    shift 2
    set +e
    timeout 300 "$bin" "$@" >"$logs/out" 2>"$logs/err"
    local rc=$?
    set -e
    if [ "$rc" -ne "$want" ]; then
        fail "v10sim $*: exit $rc, expected $want; stderr: $(head -c 300 "$logs/err")"
    elif [ -n "$what" ] && ! grep -qF -- "$what" "$logs/err"; then
        fail "v10sim $*: stderr lacks '$what': $(head -c 300 "$logs/err")"
    fi
}
# refused WHAT ARGS...: exit 1 naming WHAT, and not one byte of $tmp changed.
refused() {
    local before
    before=$(snap)
    expect 1 "$@"
    [ "$(snap)" = "$before" ] || fail "v10sim ${*:2}: changed the tree: $(diff <(echo "$before") <(snap) | head -5)"
}

echo "notes: the user's own file, outside every result folder" >"$tmp/notes.txt"
S=tests/data/sweep/tiny.json

# --- 1. a sweep's .lock planted as a link or a second name of a user's file
mkdir "$tmp/s1"
ln -s "$tmp/notes.txt" "$tmp/s1/.lock"
refused ".lock: is a symbolic link" sweep "$S" --out "$tmp/s1"
refused ".lock: is a symbolic link" sweep "$S" --out "$tmp/s1" --resume
rm "$tmp/s1/.lock"
ln "$tmp/notes.txt" "$tmp/s1/.lock"
refused ".lock: has 2 hard links" sweep "$S" --out "$tmp/s1"
rm "$tmp/s1/.lock"
mkfifo "$tmp/s1/.lock"
refused ".lock: not a regular file" sweep "$S" --out "$tmp/s1"
rm "$tmp/s1/.lock"

# --- 2. a refused sweep folder is left as it was (no .lock taken in it) -----
echo "the user's" >"$tmp/s1/mine.txt"
refused "directory is not empty and holds no sweep" sweep "$S" --out "$tmp/s1"
refused "directory is not empty and holds no sweep" sweep "$S" --out "$tmp/s1" --resume
rm "$tmp/s1/mine.txt"
# A finished sweep, rerun without --resume: refused before the lock, too.
expect 0 "" sweep "$S" --out "$tmp/s2" --quiet
refused "pass --resume" sweep "$S" --out "$tmp/s2"

# --- 3. sweep --resume never writes through its exports or journals ---------
for f in results.csv results.jsonl results.db-wal spec.json; do
    mv "$tmp/s2/$f" "$tmp/saved" 2>/dev/null || rm -f "$tmp/saved"
    ln -s "$tmp/notes.txt" "$tmp/s2/$f"
    refused "$f: is a symbolic link" sweep "$S" --out "$tmp/s2" --resume
    rm "$tmp/s2/$f"
    ln -s "$tmp/created-by-$f" "$tmp/s2/$f" # dangling: must not be created
    refused "$f: is a symbolic link" sweep "$S" --out "$tmp/s2" --resume
    rm "$tmp/s2/$f"
    [ ! -e "$tmp/saved" ] || mv "$tmp/saved" "$tmp/s2/$f"
done
# A resume that exports: the results are files of the folder, the links gone.
rm "$tmp/s2/results.csv"
before=$(snap s2)
expect 0 "" sweep "$S" --out "$tmp/s2" --resume --quiet
[ "$(snap s2)" = "$before" ] || fail "sweep --resume changed files outside its folder"
[ -f "$tmp/s2/results.csv" ] && [ ! -L "$tmp/s2/results.csv" ] ||
    fail "sweep --resume: results.csv not rewritten as a file"

# --- 4. repro and llm-study: a non-empty folder must be their own output ----
mkdir "$tmp/r1"
ln -s "$tmp/created-by-repro" "$tmp/r1/summary.md"
refused "is not an earlier output of v10sim repro" repro --quick -j 2 --out "$tmp/r1"
rm "$tmp/r1/summary.md"
echo "my own pairs" >"$tmp/r1/pairs.csv"
refused "is not an earlier output of v10sim repro" repro --quick -j 2 --out "$tmp/r1"
refused "is not an earlier output of v10sim llm-study" llm-study --quick -j 2 --out "$tmp/r1"
# Another command's folder.
mkdir "$tmp/l1"
printf 'v10sim llm-study\nsummary.md\n' >"$tmp/l1/.v10sim-output"
refused "holds the output of another command" repro --quick -j 2 --out "$tmp/l1"
# A file its manifest lists, replaced by a link: refused before any run.
ln -s "$tmp/notes.txt" "$tmp/l1/summary.md"
refused "summary.md: is a symbolic link" llm-study --quick -j 2 --out "$tmp/l1"
rm "$tmp/l1/summary.md"
# Its own earlier output: listed files are replaced, the user's stay, and
# nothing outside changes.
echo "old summary" >"$tmp/l1/summary.md"
echo "the user's note" >"$tmp/l1/notes.md"
before=$(snap l1)
expect 0 "" llm-study --quick --requests 2 -j 2 --out "$tmp/l1"
[ "$(snap l1)" = "$before" ] || fail "llm-study changed files outside its folder"
[ "$(cat "$tmp/l1/notes.md")" = "the user's note" ] || fail "llm-study changed the user's file"
grep -q "LLM" "$tmp/l1/summary.md" || fail "llm-study did not replace its own summary.md"
[ "$(head -1 "$tmp/l1/.v10sim-output")" = "v10sim llm-study" ] &&
    grep -qx llm_study.csv "$tmp/l1/.v10sim-output" && ! grep -qx notes.md "$tmp/l1/.v10sim-output" ||
    fail "llm-study manifest: $(cat "$tmp/l1/.v10sim-output")"
if ls -a "$tmp"/* | grep -q '\.tmp\.'; then fail "a temporary was left behind"; fi

finish
