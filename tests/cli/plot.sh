#!/usr/bin/env bash
# `run --plot DIR` and `sweep --plot`: the figures are written (SVG that
# parses as XML, report.html embedding each), their numbers are the run's
# (each FU's utilization over the run, util_POLICY.csv, adds up to the FU's
# executing cycles in the JSON report; the stacked states are the report's),
# a folder that is not an earlier output is refused before anything runs,
# and the sweep's figures are one per swept setting, means of results.csv.
source "$(dirname "$0")/lib.sh"

run=(--tenant isca23/efficientnet --tenant isca23/resnet50 --requests 6)
"$bin" run "${run[@]}" --policy pmt,v10-full --plot "$tmp/p" > "$tmp/table.txt"
"$bin" run "${run[@]}" --policy pmt,v10-full --format json > "$tmp/r.json"
for f in time_pmt.svg time_v10-full.svg util_pmt.svg util_v10-full.svg util_pmt.csv \
         util_v10-full.csv report.html; do
    [ -s "$tmp/p/$f" ] || fail "$f missing"
done
python3 - "$tmp/p" "$tmp/r.json" <<'PY'
import csv, json, os, sys, xml.etree.ElementTree as ET
d, runs = sys.argv[1], json.load(open(sys.argv[2]))
html = open(os.path.join(d, "report.html")).read()
for r in runs:
    pol = r["policy"]
    for kind in ("time", "util"):
        svg = open(os.path.join(d, "%s_%s.svg" % (kind, pol))).read()
        ET.fromstring(svg)  # whole XML
        assert svg.split("?>", 1)[-1].strip()[:200] in html, (kind, pol)  # inline
    rows = list(csv.DictReader(open(os.path.join(d, "util_%s.csv" % pol))))
    assert len(rows) == 100, len(rows)
    us_per_cycle = 1 / r["config"]["npu"]["clock_mhz"]
    end_ms = r["window"]["run_end_cycle"] * us_per_cycle / 1000
    assert abs(float(rows[-1]["end_ms"]) - end_ms) < 1e-9 * end_ms, (rows[-1], end_ms)
    for fu in r["fus"]:
        # the bins are equal: their mean share is the FU's executing share of the run
        share = sum(float(x[fu["name"]]) for x in rows) / len(rows)
        want = fu["exec_cycles"] / r["window"]["run_end_cycle"]
        assert abs(share - want) < 1e-9, (pol, fu["name"], share, want)
        assert all(0 <= float(x[fu["name"]]) <= 1 + 1e-12 for x in rows)
    # the stacked bars' states: those some tenant was in, with the report's values
    svg = open(os.path.join(d, "time_%s.svg" % pol)).read()
    states = [s for s in r["tenants"][0]["states_cycles"]
              if any(t["states_cycles"][s] > 0 for t in r["tenants"])]
    for s in r["tenants"][0]["states_cycles"]:
        assert (">%s<" % s in svg) == (s in states), (pol, s)
    # each bar's tooltip: "TENANT / STATE: % of the window" (3 significant digits)
    import re
    bars = {(m[0], m[1]): float(m[2]) for m in
            re.findall(r"<title>([^<]*?) / ([a-z_]+): ([0-9.e+-]+)</title>", svg)}
    w = r["window_cycles"]
    for t in r["tenants"]:
        for s in states:
            want = 100 * t["states_cycles"][s] / w
            if want > 0:
                got = bars[(t["name"], s)]
                assert abs(got - want) <= 0.006 * want, (pol, t["name"], s, got, want)
PY
grep -q "^v10-full" "$tmp/table.txt" || fail "--plot changed what run prints"
"$bin" run "${run[@]}" --policy pmt,v10-full > "$tmp/table2.txt"
cmp -s <(grep -v ' events in ' "$tmp/table.txt") <(grep -v ' events in ' "$tmp/table2.txt") ||
    fail "--plot changed the run's figures"

# Again into the same folder (its own earlier output): replaced.  A folder
# holding something else: refused before any run, nothing written.
"$bin" run "${run[@]}" --policy v10-full --plot "$tmp/p" > /dev/null
[ ! -e "$tmp/p/time_pmt.svg" ] || [ -e "$tmp/p/time_v10-full.svg" ] || fail "rewrite"
mkdir -p "$tmp/other" && echo mine > "$tmp/other/notes.txt"
set +e
"$bin" run "${run[@]}" --plot "$tmp/other" > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ $rc -eq 1 ] || fail "a foreign folder: exit $rc"
[ "$(ls "$tmp/other")" = notes.txt ] || fail "a refused --plot wrote into the folder"

# sweep --plot: one figure per axis of two or more values.
"$bin" sweep tests/data/sweep/tiny.json -j 2 --out "$tmp/sw" --quiet --plot > "$tmp/sw.txt"
grep -q "plots: $tmp/sw/plot_\*.svg" "$tmp/sw.txt" || fail "sweep --plot says nothing"
python3 - "$tmp/sw" <<'PY'
import csv, os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
plots = sorted(f for f in os.listdir(d) if f.startswith("plot_"))
assert plots == ["plot_mix.svg", "plot_npu.svg", "plot_policy.svg", "plot_seed.svg"], plots
html = open(os.path.join(d, "report.html")).read()
for p in plots:
    ET.fromstring(open(os.path.join(d, p)).read())
    assert p in html, p
# plot_policy's bars are the mean STP of each policy over results.csv
rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
svg = open(os.path.join(d, "plot_policy.svg")).read()
import re
bars = {m[0]: float(m[1]) for m in re.findall(r"<title>([a-z0-9-]+) / STP: ([0-9.e+-]+)</title>", svg)}
for pol in ("fcfs", "pmt", "prema", "v10-full"):
    stp = [float(r["system_stp"]) for r in rows if r["policy"] == pol]
    mean = sum(stp) / len(stp)
    assert len(stp) == 12 and abs(bars[pol] - mean) <= 0.006 * mean, (pol, bars, mean)
PY
echo "plot: run --plot and sweep --plot write their figures from the run's own numbers"
