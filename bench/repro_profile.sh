#!/usr/bin/env bash
# repro_profile.sh — where `v10sim repro` spends its time: runs it with
# V10_REPRO_PROFILE (src/repro/repro.c: one line per simulation, its
# events and engine seconds) and prints the share of each study and
# policy, the longest simulations and the engine's events per second.
# Not part of the test run.
#
# Usage: bench/repro_profile.sh [BINARY] [REPRO OPTIONS...]
#   e.g. bench/repro_profile.sh build/v10sim --quick -j 2
set -euo pipefail
bin=${1:-build/v10sim}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
V10_PROGRESS=0 V10_REPRO_PROFILE="$tmp/runs.tsv" "$bin" repro --out "$tmp/out" "$@" > /dev/null
python3 - "$tmp/runs.tsv" <<'PY'
import collections, csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
ev = sum(int(r["events"]) for r in rows)
sec = sum(float(r["seconds"]) for r in rows)
print(f"{len(rows)} simulations, {ev / 1e6:.0f} M events, {sec:.1f} s in the engine "
      f"({ev / sec / 1e6:.1f} M events/s)")
for key, name in ((("set", "study"), "study"), (("set", "study", "policy"), "study and policy")):
    g = collections.defaultdict(lambda: [0, 0, 0.0])
    for r in rows:
        x = g[tuple(r[k] for k in key)]
        x[0] += 1
        x[1] += int(r["events"])
        x[2] += float(r["seconds"])
    print(f"\nby {name}: runs, M events, engine s, share of the engine's time")
    for k, (n, e, s) in sorted(g.items(), key=lambda kv: -kv[1][2]):
        print(f"  {' '.join(k):32s} {n:4d} {e / 1e6:9.1f} {s:8.2f} {100 * s / sec:5.1f}%")
print("\nthe 10 longest simulations: engine s, M events, set, study, policy, tenants, requests")
for r in sorted(rows, key=lambda r: -float(r["seconds"]))[:10]:
    print(f"  {float(r['seconds']):7.2f} {int(r['events']) / 1e6:8.1f}  {r['set']} {r['study']} "
          f"{r['policy']} {r['tenants']} {r['requests']}")
PY
