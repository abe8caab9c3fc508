# lib.sh — what every CLI test script begins with; sourced, never run (ctest
# runs only the scripts that source it: CMakeLists.txt leaves this file out).
#
#   source "$(dirname "$0")/lib.sh"          # after the script's header comment
#
# gives the script, run by ctest as `bash SCRIPT PATH/TO/v10sim [MORE...]`:
#   set -euo pipefail  a failing command or pipeline ends the script (exit != 0)
#   bin                the v10sim under test (the first argument), absolute
#   tmp                a scratch folder, removed when the script exits
#   pids               background processes (pids+=($!)) killed when it exits
#   at_exit            a command run on exit before $tmp goes (e.g. chattr -i)
#   fail MSG           "SCRIPT: FAIL: MSG" on stderr and exit 1 at once; with
#                      keep_going=1 set before sourcing, counted instead and the
#                      script goes on: it then exits 1 at the end, saying how
#                      many failed (the exit trap turns any count into exit 1)
#   v10 ARGS...        v10sim ARGS, killed after $limit seconds (120 unless set)
#   run CODE ARGS...   v10 ARGS with stdout in $tmp/out, stderr in $tmp/err;
#                      0 if it exited CODE, else fail (naming the exit and the
#                      start of stderr) and return 1; never a signal passes
set -euo pipefail

bin=$(realpath "${1:?usage: ${0##*/} PATH/TO/v10sim}")
tmp=$(mktemp -d)
pids=()
at_exit=${at_exit:-}
keep_going=${keep_going:-0}
limit=${limit:-120}
fails=0

lib_exit() {
    local rc=$?
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    [ -z "$at_exit" ] || eval "$at_exit" || true
    rm -rf "$tmp"
    if [ "$fails" -ne 0 ]; then
        echo "${0##*/}: $fails failure(s)" >&2
        [ "$rc" -ne 0 ] || rc=1
    fi
    exit "$rc"
}
trap lib_exit EXIT

fail() {
    echo "${0##*/}: FAIL: $*" >&2
    fails=$((fails + 1))
    [ "$keep_going" = 1 ] || exit 1
}

v10() { timeout "$limit" "$bin" "$@"; }

run() {
    local want=$1
    shift
    set +e
    v10 "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    set -e
    if [ "$rc" -ne "$want" ]; then
        fail "v10sim $*: exit $rc, expected $want (124: still running after $limit s); stderr: $(head -c 300 "$tmp/err")"
        return 1
    fi
    return 0
}

# finish: the last line of a keep_going script: "SCRIPT: ok" if nothing
# failed, else exit 1 (the exit trap says how many failed).
finish() {
    [ "$fails" -eq 0 ] || exit 1
    echo "${0##*/}: ok"
}
