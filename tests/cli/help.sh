#!/usr/bin/env bash
# help.sh — every command's --help, as `v10sim --help` lists the commands:
# exits 0, prints an "options:" header and --help, and, for a command that
# takes --format, lists every value --format accepts (read from the error
# the command gives for a bad one, so the two cannot drift apart).  run's
# help names -j and says --trace takes one policy, and -j changes nothing
# in the output.
# Usage: help.sh PATH/TO/v10sim
source "$(dirname "$0")/lib.sh"

"$bin" --help >"$tmp/top.txt" || fail "v10sim --help: exit $?"
grep -qx 'options:' "$tmp/top.txt" || fail "v10sim --help: no 'options:' header"
cmds=$(awk '/^commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}' "$tmp/top.txt")
[ "$(echo "$cmds" | wc -l)" -ge 13 ] || fail "v10sim --help lists $(echo "$cmds" | wc -l) commands"
for c in $cmds; do
    set +e
    "$bin" "$c" --help >"$tmp/$c.txt" 2>"$tmp/$c.err"
    rc=$?
    set -e
    [ "$rc" = 0 ] || fail "$c --help: exit $rc: $(cat "$tmp/$c.err")"
    [ ! -s "$tmp/$c.err" ] || fail "$c --help wrote to stderr: $(cat "$tmp/$c.err")"
    grep -q "^usage: v10sim $c" "$tmp/$c.txt" || fail "$c --help: no 'usage: v10sim $c' line"
    grep -qx 'options:' "$tmp/$c.txt" || fail "$c --help: no 'options:' header"
    grep -Eq '^  --help +this text' "$tmp/$c.txt" || fail "$c --help: does not list --help"
    # --format: the values the command accepts, from its own error message
    set +e
    "$bin" "$c" --format no-such-format >/dev/null 2>"$tmp/$c.fmt"
    rc=$?
    set -e
    if grep -q -- "--format: expected" "$tmp/$c.fmt"; then
        [ "$rc" = 2 ] || fail "$c --format no-such-format: exit $rc, expected 2"
        vals=$(sed -n 's/.*--format: expected \(.*\), got .*/\1/p' "$tmp/$c.fmt" |
               sed 's/,/ /g; s/ or / /g')
        [ -n "$vals" ] || fail "$c: cannot read the --format values from: $(cat "$tmp/$c.fmt")"
        fmt_lines=$(grep -- '--format' "$tmp/$c.txt")
        for v in $vals; do
            grep -qw -- "$v" <<<"$fmt_lines" || # not echo | grep -q: pipefail and SIGPIPE
                fail "$c --help: its --format lines do not list '$v': $fmt_lines"
        done
    else
        grep -q "unknown option '--format'" "$tmp/$c.fmt" ||
            fail "$c --format: neither accepted nor refused as unknown: $(cat "$tmp/$c.fmt")"
        ! grep -q -- '--format' "$tmp/$c.txt" || fail "$c --help lists a --format it refuses"
    fi
done

# run: -j named, --trace with one policy said, and -j changes no figure.
grep -Eq '^  -j, --jobs N' "$tmp/run.txt" || fail "run --help does not name -j"
grep -A2 -- '^  --trace FILE' "$tmp/run.txt" | grep 'one --policy only' >/dev/null ||
    fail "run --help does not say --trace takes one policy"
set +e
"$bin" run --tenant mnist --policy pmt,v10-full --trace "$tmp/t.json" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 2 ] && grep -q 'expected a single --policy' "$tmp/err" || fail "--trace with two policies: exit $rc"
pair=(--tenant isca23/resnet50 --tenant isca23/bert --policy all --requests 6 --format csv)
"$bin" run "${pair[@]}" -j 1 >"$tmp/j1.csv"
"$bin" run "${pair[@]}" -j 3 >"$tmp/j3.csv"
"$bin" run "${pair[@]}" --jobs 2 >"$tmp/j2.csv"
cmp -s "$tmp/j1.csv" "$tmp/j3.csv" && cmp -s "$tmp/j1.csv" "$tmp/j2.csv" || fail "run -j changes the output"
[ "$(wc -l <"$tmp/j1.csv")" -ge 15 ] || fail "run --policy all: $(wc -l <"$tmp/j1.csv") lines"
set +e
"$bin" run --tenant mnist -j 0 >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" = 2 ] && grep -q -- '-j' "$tmp/err" || fail "run -j 0: exit $rc: $(cat "$tmp/err")"
echo "help: ok"
