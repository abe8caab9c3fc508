#!/usr/bin/env bash
# estimate.sh — the event budget's estimate (docs/limits.md "Work") against
# the real count, on a sample of the runs in tests/ and bench/ (each policy,
# zoo and isca23 models, a priority split, an open loop, an LLM server, the
# 8x core), sized to 1.3-2.4 million events so that the estimate is the one
# extrapolated at the first check (10^6 events, a quarter of --max-events
# 4e6) rather than the count itself: it must lie within [0.5, 2] of the
# events the run then processes.  Then: the budget refuses what is over it,
# quoting the engine's rate, and takes the number forms the help prints.
# Usage: estimate.sh PATH/TO/v10sim   (run from the repository root by ctest)
source "$(dirname "$0")/lib.sh"

T=tests/data/llm/azure_conv_200.csv
while read -r args; do
    # shellcheck disable=SC2086
    "$bin" run $args --max-events 4e6 --format json >"$tmp/r.json" || fail "run $args"
    python3 - "$tmp/r.json" "$args" <<'PY' || fail "estimate off: $args"
import json, sys
p = json.load(open(sys.argv[1]))["perf"]
q = p["events_estimated"] / p["events"]
print("%.2f  %9d events  %s" % (q, p["events"], sys.argv[2]))
assert p["events"] > 1.2e6, "too small to be extrapolated"
assert 0.5 <= q <= 2, q
PY
done <<LIST
--tenant bert --tenant ncf --requests 350 --warmup 0 --policy pmt
--tenant bert --tenant ncf --requests 180 --policy v10-full
--tenant resnet50 --tenant efficientnet --requests 1000 --policy v10-full
--tenant isca23/retinanet --tenant isca23/bert --requests 3 --policy v10-fair
--tenant mnist --tenant ncf --requests 5000 --policy pmt
--tenant llm/llama3.2-1b:trace=$T:rate_scale=0.2 --tenant resnet50 --requests 25 --warmup 0 --policy v10-full
--tenant ncf:rate=20000 --tenant bert --requests 100 --policy spatial
--tenant bert:priority=4 --tenant ncf --requests 1300 --policy prema
--npu v10-isca23-8x --tenant isca23/bert --tenant isca23/ncf --tenant isca23/resnet50 --tenant isca23/retinanet --requests 2 --policy v10-full
LIST

# Over the budget: stopped at a check, the message quotes the engine's rate.
if "$bin" run --tenant mnist --tenant ncf --requests 5000 --policy pmt --max-events 1e6 \
    >"$tmp/o" 2>"$tmp/e"; then fail "1.7e6 events under a budget of 1e6 ran"; fi
grep -q "run too long: about 1.6.e+06 events estimated from its progress after 2.5e+05 events" "$tmp/e" ||
    fail "refusal: $(cat "$tmp/e")"
grep -q "at the engine's 15 million events/s" "$tmp/e" || fail "no rate quoted: $(cat "$tmp/e")"
[ -s "$tmp/o" ] && fail "output written on refusal"
# The forms the help prints: 1e9, 3e9; a fraction is not a count.
"$bin" run --tenant mnist --requests 3 --max-events 3e9 >/dev/null || fail "--max-events 3e9 refused"
"$bin" run --tenant mnist --requests 3 --max-events 3000000000 >/dev/null || fail "--max-events 3000000000"
if "$bin" run --tenant mnist --requests 3 --max-events 1.5 >/dev/null 2>&1; then fail "--max-events 1.5 taken"; fi
echo "estimate: ok"
