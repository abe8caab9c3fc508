#!/usr/bin/env bash
# LLM servers' memory (not part of the test run; issue 24 item 13): peak
# resident set (VmHWM) and peak address space (VmPeak) from /proc/PID/status,
# sampled every 20 ms, of N llama3.2-1b servers on the conversation
# excerpt in tests/data/llm (3 requests each) under one policy and under --policy all, and of
# 16 servers at max_batch=4096.  /usr/bin/time -v's "Maximum resident set
# size" agrees with VmHWM.
# Usage: bench/llm_memory.sh [BINARY]   (release build: make release first)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/v10sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"base": "v10-isca23", "hbm_capacity_bytes": 1099511627776}\n' >"$tmp/npu.json"

# Runs the command to its end; prints its peak VmHWM and VmPeak in MB.
peak() {
  V10_PROGRESS=0 "$@" >/dev/null 2>&1 &
  local pid=$! hwm=0 vm=0 a b
  while read -r a b < <(awk '/^VmPeak:/ {v=$2} /^VmHWM:/ {h=$2} END {print v+0, h+0}' \
                        "/proc/$pid/status" 2>/dev/null) && kill -0 "$pid" 2>/dev/null; do
    [ "$a" -gt "$vm" ] && vm=$a
    [ "$b" -gt "$hwm" ] && hwm=$b
    sleep 0.02
  done
  wait "$pid" || { echo "failed: $*" >&2; return 1; }
  printf 'peak RSS %6.1f MB  peak address space %7.1f MB' "$(echo "$hwm / 1024" | bc -l)" \
         "$(echo "$vm / 1024" | bc -l)"
}

servers() { # N [extra spec options]
  local i
  many=()
  for i in $(seq "$1"); do many+=(--tenant "llm/llama3.2-1b:trace=tests/data/llm/azure_conv_200.csv:requests=3$2"); done
}

for n in 16 64; do
  servers "$n" ""
  for pol in fcfs all; do
    echo "$n servers, --policy $pol: $(peak "$bin" run "${many[@]}" --npu "$tmp/npu.json" \
          --requests 3 --warmup 0 --policy "$pol")"
  done
done
servers 16 ":max_batch=4096"
echo "16 servers, max_batch=4096, --policy fcfs: $(peak "$bin" run "${many[@]}" \
      --npu "$tmp/npu.json" --requests 3 --warmup 0 --policy fcfs)"
