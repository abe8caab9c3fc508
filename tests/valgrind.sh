#!/usr/bin/env bash
# `make valgrind`: representative commands under memcheck; any error or any
# leaked byte fails.  Not part of the test run (it takes a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/v10sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vg() {
  echo "== v10sim $*"
  valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
    --errors-for-leak-kinds=all "$bin" "$@" > /dev/null
}
vg --help
vg npu --npu configs/isca23-64mib.json --format json
vg models --format json
vg profile resnet50 --format csv
vg topology ../shared/data/topologies/Resnet50.csv --format json
vg run --tenant bert --tenant ncf --policy v10-full --requests 4 --trace "$tmp/t.json" --check
vg run --tenant resnet50:batch=8 --tenant dlrm --policy all --requests 3 --format csv
vg run --tenant tests/data/engine/sa_vu.csv:rate=20000 --tenant mnist --policy prema --requests 5
# Bad input takes the error paths, which must not leak either.
for args in "run --tenant nosuch" "npu --npu tests/data/npu/wrong_type_string.json" \
            "topology tests/data/topology/negative.csv" "run --tenant bert --policy solo --tenant ncf"; do
  echo "== v10sim $args (expected to fail)"
  set +e
  # shellcheck disable=SC2086
  valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
    --errors-for-leak-kinds=all "$bin" $args > /dev/null 2>&1
  rc=$?
  set -e
  if [ "$rc" -eq 99 ] || [ "$rc" -eq 0 ]; then echo "memcheck error or unexpected success ($rc)"; exit 1; fi
done
echo "valgrind: clean"
