#!/usr/bin/env bash
# `v10sim collocate`: JSON schema, confusion counts adding up, the three
# figures per method (JSON and CSV), determinism for a seed, options and bad
# input.
source "$(dirname "$0")/lib.sh"
D=tests/data/engine
M="$D/sa_heavy.csv,$D/vu_heavy.csv,$D/sa_vu.csv,$D/membound.csv,$D/long_sa.csv,ncf,dlrm,mnist"

"$bin" collocate --help | grep -q usage
"$bin" collocate --models "$M" --requests 4 --seed 3 --format json > "$tmp/a.json"
"$bin" collocate --models "$M" --requests 4 --seed 3 --format json -j 1 > "$tmp/b.json"
cmp "$tmp/a.json" "$tmp/b.json"   # deterministic for a seed, whatever the threads

python3 - "$tmp/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
acc = r["accuracy"]
for k in ["clustering", "heuristic", "random"]:
    assert 0 <= acc[k] <= 1, k
    c = r["confusion"][k]
    assert c["tp"] + c["fp"] + c["tn"] + c["fn"] == 28 == r["pairs_total"], c
    assert abs((c["tp"] + c["tn"]) / 28 - acc[k]) < 1e-12
assert len(r["models"]) == 8 and len(r["pairs"]) == 28
assert r["config"]["k"] == 5 and r["config"]["threshold"] == 1.3
assert all(0 <= m["cluster"] < 5 for m in r["models"])
assert r["beneficial"] == sum(p["beneficial"] for p in r["pairs"])
for p in r["pairs"]:
    assert p["beneficial"] == (p["gain"] >= 1.3)
# The paper's three figures per method, recomputed from the pairs.
assert r["bad_pairs"] == 28 - r["beneficial"] > 0
for k in ["clustering", "heuristic", "random"]:
    f = r["figures"][k]
    picks = [p for p in r["pairs"] if p[k]]
    bad = [p for p in r["pairs"] if not p["beneficial"]]
    assert abs(f["accuracy"] - acc[k]) < 1e-12, k
    assert abs(f["bad_caught"] - sum(not p[k] for p in bad) / len(bad)) < 1e-12, k
    assert f["picked"] == len(picks), k
    if picks:
        w = min(picks, key=lambda p: p["gain"])
        assert f["worst_gain"] == w["gain"] and f["worst_pair"] == w["pair"], (k, f, w)
    else:
        assert f["worst_gain"] is None and f["worst_pair"] is None, k
# Clustering's scores from a cluster pair without training pairs.
fb = [p for p in r["pairs"] if p["score_pairs"] == 0]
assert r["cluster_fallback"] == len(fb)
assert r["cluster_fallback_wrong"] == sum(p["clustering"] != p["beneficial"] for p in fb)
PY
# CSV: the same figures, one row per method.
"$bin" collocate --models "$M" --requests 4 --seed 3 --format csv > "$tmp/a.csv"
python3 - "$tmp/a.json" "$tmp/a.csv" <<'PY'
import csv, json, sys
r = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert [x["method"] for x in rows] == ["clustering", "heuristic", "random"], rows
for x in rows:
    f = r["figures"][x["method"]]
    assert abs(float(x["accuracy"]) - f["accuracy"]) < 1e-4
    assert int(x["picked"]) == f["picked"]
    assert x["worst_pair"] == (f["worst_pair"] or "-")
PY

# --k and --threshold take effect; a different seed may move random only.
"$bin" collocate --models "$M" --requests 4 --k 2 --threshold 1.05 --format json > "$tmp/c.json"
python3 - "$tmp/c.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["config"]["k"] == 2 and r["config"]["threshold"] == 1.05
assert all(m["cluster"] in (0, 1) for m in r["models"])
for p in r["pairs"]:
    assert p["beneficial"] == (p["gain"] >= 1.05)
PY
"$bin" collocate --models "$M" --requests 4 | grep -q "Leave-two-workloads-out accuracy"
# More clusters than models: k-means makes one a model, and the header
# says so instead of echoing the k asked.
"$bin" collocate --models ncf,dlrm,mnist,bert --requests 4 --k 16 | head -1 > "$tmp/k.txt"
grep -q "  k 4 (16 asked, 4 models)  " "$tmp/k.txt" || { cat "$tmp/k.txt"; exit 1; }

# A threshold no pair reaches (or every pair does) makes every accuracy
# trivial: the output says so and suggests the median gain (issue 12: it
# reported "clustering 100%" and nothing else).
"$bin" collocate --models "$M" --requests 4 --threshold 100 --format json > "$tmp/none.json"
"$bin" collocate --models "$M" --requests 4 --threshold 1.0 --format json > "$tmp/all.json"
python3 - "$tmp/a.json" "$tmp/none.json" "$tmp/all.json" <<'PY'
import json, math, sys
split, none, every = (json.load(open(p)) for p in sys.argv[1:])
assert split["note"] is None and 0 < split["beneficial"] < 28
assert none["beneficial"] == 0 and every["beneficial"] == 28
gains = sorted(p["gain"] for p in none["pairs"])
assert none["gain_median"] == gains[14]
want = "--threshold %.3f, the median gain" % (math.floor(gains[14] * 1000) / 1000)
assert none["note"].startswith("no pair reaches the threshold 100.00") and want in none["note"], none["note"]
assert every["note"].startswith("every pair reaches the threshold 1.00") and want in every["note"]
PY
"$bin" collocate --models "$M" --requests 4 --threshold 100 | grep -q "^note: no pair reaches"

set +e
"$bin" collocate --models ncf,dlrm --requests 4 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "at least 4" "$tmp/err" || { echo "too few models: rc=$rc"; exit 1; }
"$bin" collocate --k 0 > /dev/null 2>&1; [ $? -eq 2 ] || { echo "--k 0"; exit 1; }
"$bin" collocate --format xml > /dev/null 2>&1; [ $? -eq 2 ] || { echo "--format xml"; exit 1; }
"$bin" collocate --models ncf,dlrm,mnist,nosuch --requests 4 > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "nosuch" "$tmp/err" || { echo "unknown model: rc=$rc"; exit 1; }
set -e
echo ok
