#!/usr/bin/env bash
# hostile_runs.sh — how long runs end (docs/robustness.md, "Hostile
# conditions", classes 16 to 18): the event budget holds for any budget and
# configuration, no valid configuration is refused as starved, and progress
# tracks the work done.  Each check failed before its fix.
# Usage: hostile_runs.sh PATH/TO/v10sim   (run from the repository root by ctest)
keep_going=1  # a failure is counted and the script goes on
limit=60      # run ARGS: 60 s at most
source "$(dirname "$0")/lib.sh"

# --- 16. the event budget is a ceiling ------------------------------------
# A run whose progress looks fine at every estimate (a 1-cycle slice with
# 2^30-cycle context switches: millions of timer events per switch) stops
# at the budget, whatever the budget.
printf '{"base": "v10-isca23", "slice_cycles": 1, "sa_switch_cycles": 1073741824, "sa_switch_overlap_cycles": 1073741824}\n' \
    >"$tmp/switchy.json"
for budget in 1 1000 3000000 30000000; do
    run 1 run --npu "$tmp/switchy.json" --max-events $budget --tenant resnet50:batch=1 \
        --tenant mnist --requests 1 --warmup 0 &&
        { grep -q "run too long: .*budget of $budget events" "$tmp/err" ||
              fail "budget $budget: $(cat "$tmp/err")"; }
done
# Exactly the budget: a run of N events finishes with --max-events N and
# stops with N - 1.
# (A pair whose progress is even, so that the early estimate does not
# overshoot its count.)
run 0 run --tenant resnet50 --tenant mnist --requests 300 --format json &&
    n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["perf"]["events"])' "$tmp/out") &&
    { run 0 run --tenant resnet50 --tenant mnist --requests 300 --max-events "$n" || true; } &&
    { run 1 run --tenant resnet50 --tenant mnist --requests 300 --max-events $((n - 1)) || true; }

# --- 17. no valid configuration is refused as starved ------------------------
# Power gating with a wake-up far longer than the model (within the
# documented ranges), one tenant or two, under every policy: each run
# finishes; nothing is called starved.
printf '{"base": "v10-isca23", "pg_idle_cycles": 1, "pg_wake_cycles": 10000000}\n' >"$tmp/pg.json"
printf '{"base": "v10-isca23", "pg_idle_cycles": 1, "pg_wake_cycles": 1073741824}\n' >"$tmp/pg_max.json"
for npu in pg pg_max; do
    run 0 run --npu "$tmp/$npu.json" --tenant mnist --requests 3 || true
    run 0 run --npu "$tmp/$npu.json" --tenant mnist --tenant ncf:priority=4 --requests 3 \
        --policy all || true
done
# Long context switches on short slices: slow, but not starved.
printf '{"base": "v10-isca23", "sa_switch_cycles": 4000000, "sa_switch_overlap_cycles": 0, "pmt_switch_us": 5000}\n' \
    >"$tmp/slowswitch.json"
run 0 run --npu "$tmp/slowswitch.json" --tenant mnist --tenant ncf --requests 3 --policy all \
    --slice-cycles 1000 || true
# A refusal never says "starved"; an overloaded open loop is refused for
# what it is.
run 1 run --tenant mnist:rate=1000000 --tenant ncf --policy fcfs || true
grep -q "starved" "$tmp/err" && fail "refused as starved: $(cat "$tmp/err")"
grep -qE "run too long|without bound" "$tmp/err" || fail "overloaded open loop: $(cat "$tmp/err")"

# --- 18. progress tracks the work --------------------------------------------
# Several policies: one progress over all of them (not a bar per policy,
# each starting afresh and quiet when shorter than 3 s), reported during
# each policy, never going back, 100% on its last line only.  (stderr not
# a terminal: a line every V10_PROGRESS_EVERY seconds, here every report.)
V10_PROGRESS_AFTER=0 V10_PROGRESS_EVERY=0 run 0 run --tenant mnist --tenant ncf --requests 3000 \
    --policy fcfs,prema,v10-full &&
    python3 - "$tmp/err" <<'PY' || fail "progress over three policies: $(head -c 300 "$tmp/err")"
import re, sys
lines = [re.match(r"v10sim: (.*): (\d+)/(\d+) \((\d+)%\)", l) for l in open(sys.argv[1])]
assert lines and all(lines), "a line that is not progress"
assert {m[1] for m in lines} == {"policies simulated"}, "not one progress"
items = [int(m[2]) for m in lines]
pct = [int(m[4]) for m in lines]
assert items == sorted(items) and pct == sorted(pct), f"went back: {pct}"
assert {0, 1, 2} <= set(items), f"not reported during each policy: {items}"
assert lines[-1][2] == lines[-1][3] == "3" and pct[-1] == 100, "no last line 3/3"
assert 100 not in pct[:-1], f"100% before the end: {pct}"
PY

finish
