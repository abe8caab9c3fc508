#!/usr/bin/env bash
# llm_trace.sh — speed of an LLM server on the full one-hour Azure
# conversation trace (19,366 requests; AzureLLMInferenceTrace_conv.csv from
# Microsoft's AzurePublicDataset, not in the repository, see docs/llm.md)
# beside resnet50, under v10-full: wall time and events (issue 13 asks for
# under 60 s).  Not part of the test run.
# Usage: bench/llm_trace.sh TRACE.csv [MODEL] [POLICY]
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:?usage: bench/llm_trace.sh TRACE.csv [MODEL] [POLICY] (the full Azure conversation trace, docs/llm.md)}
[ -r "$trace" ] || { echo "llm_trace.sh: cannot read $trace" >&2; exit 1; }
model=${2:-llama3.2-1b}
policy=${3:-v10-full}
n=$(tail -n +2 "$trace" | grep -c .)
start=$(date +%s.%N)
build/v10sim run --tenant "llm/$model:trace=$trace" --tenant resnet50 --requests "$n" \
    --warmup 0 --policy "$policy" --format json >/tmp/v10-llm-bench.json
end=$(date +%s.%N)
python3 - /tmp/v10-llm-bench.json "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tenants"][0]
print("%s requests, %.0f s simulated, %d events, %.1f s wall (%.2f M events/s)" % (
    t["completed"], d["window"]["run_end_cycle"] / d["config"]["npu"]["clock_mhz"] / 1e6,
    d["perf"]["events"], float(sys.argv[3]) - float(sys.argv[2]),
    d["perf"]["events"] / d["perf"]["wall_seconds"] / 1e6))
print("ttft p50 %.0f ms, tpot p50 %.1f ms, %.0f tokens/s" % (
    t["ttft_us"]["p50"] / 1e3, t["tpot_us"]["p50"] / 1e3, t["tokens_per_s"]))
PY
