#!/usr/bin/env bash
# Soak benchmark (not part of the test run): a sweep of thousands of points
# and a single run of millions of requests, each with its resident set size
# (VmRSS from /proc/PID/status) sampled every 0.5 s.  Prints a summary per
# job (samples, RSS at 10% / 50% / 90% of the run and at the end, peak) and
# writes the samples to OUT/rss_sweep.csv and OUT/rss_run.csv.
# Usage: bench/soak.sh [OUT_DIR]   (release build: make release first)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/v10sim
out=${1:-build/soak}
rm -rf "$out"
mkdir -p "$out"

# Samples VmRSS (kB) of PID every 0.5 s into FILE until the process exits.
sample() {
  local pid=$1 file=$2 t0 now rss
  t0=$(date +%s.%N)
  echo "seconds,vmrss_kb" > "$file"
  while rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$rss" ]; do
    now=$(date +%s.%N)
    echo "$(echo "$now - $t0" | bc),$rss" >> "$file"
    sleep 0.5
  done
}

# One line: samples, RSS at 10/50/90% of the samples and the last, peak.
summary() {
  awk -F, 'NR > 1 { t[n] = $1; r[n++] = $2; if ($2 > peak) peak = $2 }
    END { if (n == 0) { print "no samples"; exit }
          printf "%d samples over %.1f s; VmRSS kB at 10%% %d, 50%% %d, 90%% %d, end %d; peak %d\n",
                 n, t[n-1], r[int(n*0.1)], r[int(n*0.5)], r[int(n*0.9)], r[n-1], peak }' "$1"
}

# 1. A sweep of 2,800 points: 7 policies x 4 two-tenant mixes x 100 seeds,
#    200 requests per tenant, 2 threads.
cat > "$out/soak.json" <<'JSON'
{
  "name": "soak",
  "description": "Soak: 2,800 small points to watch memory over a long sweep.",
  "axes": {
    "policy": ["fcfs", "pmt", "prema", "spatial", "v10-base", "v10-fair", "v10-full"],
    "mix": [["mnist", "ncf"], ["tests/data/engine/sa_vu.csv", "dlrm:batch=8"],
            ["ncf:batch=8", "tests/data/engine/vu_heavy.csv"], ["mnist:batch=4", "dlrm:batch=4"]],
    "seed": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
             21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
             41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60,
             61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80,
             81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100]
  },
  "fixed": {"requests": 200}
}
JSON
echo "== sweep: 2,800 points, -j 2"
start=$(date +%s.%N)
"$bin" sweep "$out/soak.json" --out "$out/sweep" -j 2 --quiet > "$out/sweep.log" &
pid=$!
sample "$pid" "$out/rss_sweep.csv"
wait "$pid"
end=$(date +%s.%N)
echo "   $(tail -n 2 "$out/sweep.log" | head -n 1)"
echo "   wall $(echo "$end - $start" | bc) s; rows $(wc -l < "$out/sweep/results.jsonl")"
echo "   $(summary "$out/rss_sweep.csv")"

# 2. One run of 20 million requests: two closed-loop tenants x 10,000,000.
echo "== run: mnist + ncf, 10,000,000 requests each, v10-full"
start=$(date +%s.%N)
"$bin" run --tenant mnist --tenant ncf --requests 10000000 --policy v10-full \
  --format json > "$out/run.json" &
pid=$!
sample "$pid" "$out/rss_run.csv"
wait "$pid"
end=$(date +%s.%N)
echo "   wall $(echo "$end - $start" | bc) s; $(grep -o '"events":[^,]*' "$out/run.json" | tr -d '"\t ')"
echo "   $(summary "$out/rss_run.csv")"
echo "   expected: the per-request arrival/completion records (16 B x 2 tenants x 10^7"
echo "   = 320 MB, allocated once, touched as requests complete) plus the latency"
echo "   array of the metrics (8 B x 10^7, at the end); nothing else grows."
