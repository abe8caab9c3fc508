#!/usr/bin/env bash
# hostile_io.sh — what a command reads and writes under hostile conditions
# (docs/robustness.md, "Hostile conditions", classes 11 to 15): closed
# standard streams, a sweep's inputs read once, a result store that is not
# as we wrote it, outputs cut off half-way or mixed from two runs, output
# folders that cannot be written.  Each check failed before its fix.
# Usage: hostile_io.sh PATH/TO/v10sim   (run from the repository root by ctest)
set -euo pipefail
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'chattr -R -i "$tmp" 2>/dev/null || true; rm -rf "$tmp"' EXIT
v10() { timeout 120 "$bin" "$@"; }
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
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

if [ "$fails" -ne 0 ]; then
    echo "$fails failure(s)" >&2
    exit 1
fi
echo "hostile_io: all checks passed"
