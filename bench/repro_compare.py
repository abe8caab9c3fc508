#!/usr/bin/env python3
# repro_compare.py — how far two `v10sim repro` outputs' figures lie apart:
# for each CSV both directories hold and each numeric column that differs,
# the largest and the median relative difference over the rows (|a - b| /
# |b|, b from REF; |a - b| where b is 0) and the row of the largest.  Rows
# are matched by position (repro writes them in a fixed order); a column
# equal in every row of both files is a key (pair, policy, NPU, ...; the
# non-numeric ones name the worst row), and
# `requests` (the run length itself) is left out.  Used to size repro's
# runs (docs/benchmarks.md, "Reproduction: run lengths").  Not part of the
# test run.
#
# Usage: bench/repro_compare.py DIR REF_DIR
import csv
import os
import statistics
import sys


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(s):
    try:
        return float(s)
    except ValueError:
        return None


def compare(name, a, b):
    if len(a) != len(b) or not a:
        print(f"{name:18s} rows differ ({len(a)} against {len(b)}): not compared")
        return
    cols = [c for c in a[0] if c in b[0] and c != "requests"]
    keys = [c for c in cols if all(x[c] == y[c] for x, y in zip(a, b))]
    for c in cols:
        if c in keys:
            continue
        rel = []
        for x, y in zip(a, b):
            u, v = number(x[c]), number(y[c])
            if u is None or v is None:
                continue
            rel.append((abs(u - v) / abs(v) if v else abs(u - v), label(x, keys)))
        if not rel:
            continue
        worst = max(rel, key=lambda t: t[0])
        med = statistics.median(t[0] for t in rel)
        print(f"{name:18s} {c:16s} max rel {worst[0]:.2e}  median {med:.2e}  worst {worst[1]}")


def label(row, keys):
    """The row's non-numeric keys (its pair, policy, ...), for the reader."""
    return [row[k] for k in keys if number(row[k]) is None]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: repro_compare.py DIR REF_DIR")
    new, ref = sys.argv[1], sys.argv[2]
    for name in sorted(os.listdir(ref)):
        if name.endswith(".csv") and os.path.exists(os.path.join(new, name)):
            compare(name, rows(os.path.join(new, name)), rows(os.path.join(ref, name)))


if __name__ == "__main__":
    main()
