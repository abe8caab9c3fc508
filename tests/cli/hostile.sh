#!/usr/bin/env bash
# hostile.sh — an adversarial user (issue 14, docs/robustness.md "Hostile
# conditions"): inputs that change during a run, outputs onto special files
# and symlinks, paths from data, concurrent sweeps on one folder, a resume
# whose inputs changed, runs too long to finish, signals, names that break
# writers, lax parsing.  Races are made deterministic with FIFOs and flock,
# never with sleeps.
# Usage: hostile.sh PATH/TO/v10sim   (run from the repository root by ctest)
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
v10() { timeout 120 "$bin" "$@"; }
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# run CODE ARGS...: runs v10sim, expects exit CODE (never a signal); stderr in $tmp/err.
run() {
    local want=$1
    shift
    set +e
    v10 "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    if [ "$rc" -ne "$want" ]; then
        fail "v10sim $*: exit $rc, expected $want; stderr: $(head -c 300 "$tmp/err")"
        return 1
    fi
    return 0
}
# no_tmp DIR: no temporary left behind.
no_tmp() {
    if ls -a "$1" | grep -q '\.tmp'; then fail "temporary left in $1: $(ls -a "$1")"; fi
}
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$1"; }

# --- 1. an input that changes during the run is read once ----------------
# A FIFO serves a 20,000-operator trace on its first open and a one-operator
# trace on any second open.  The run and its --trace must use the first.
mkdir "$tmp/c1"
{
    echo name,fu,cycles
    for i in $(seq 1 20000); do echo "op$i,SA,10"; done
} >"$tmp/c1/big.csv"
printf 'name,fu,cycles\nonly,VU,5\n' >"$tmp/c1/small.csv"
mkfifo "$tmp/c1/m.csv"
{ cat "$tmp/c1/big.csv" >"$tmp/c1/m.csv"; cat "$tmp/c1/small.csv" >"$tmp/c1/m.csv"; } &
writer=$!
pids+=("$writer")
if run 0 run --tenant "$tmp/c1/m.csv" --requests 2 --trace "$tmp/c1/t.json"; then
    json_ok "$tmp/c1/t.json" || fail "--trace after a changing input: invalid JSON"
    grep -q '"t0:op20000"' "$tmp/c1/t.json" || fail "--trace does not name the operators run"
    grep -q '"t0:only"' "$tmp/c1/t.json" && fail "--trace re-read the model"
fi
no_tmp "$tmp/c1"
# The second content is still waiting: nobody opened the FIFO again.  Let it go.
exec 3<>"$tmp/c1/m.csv"
cat <&3 >/dev/null &
drain=$!
wait "$writer" || true
exec 3<&-
kill "$drain" 2>/dev/null || true

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)" >&2
    exit 1
fi
echo "hostile: all checks passed"
