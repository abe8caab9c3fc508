#!/usr/bin/env bash
# Runs every benchmark (release build).  Not part of the test run.
set -euo pipefail
cd "$(dirname "$0")/.."
for b in build/bench_*; do
  echo "== $(basename "$b")"
  "$b" "$@"
done
