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

# 1. A sweep of 11,200 points: 7 policies x 4 two-tenant mixes x 400 seeds,
#    1,000 requests per tenant, 2 threads.
seeds=$(seq -s, 1 400)
cat > "$out/soak.json" <<JSON
{
  "name": "soak",
  "description": "Soak: 11,200 points to watch memory over a long sweep.",
  "axes": {
    "policy": ["fcfs", "pmt", "prema", "spatial", "v10-base", "v10-fair", "v10-full"],
    "mix": [["mnist", "ncf"], ["tests/data/engine/sa_vu.csv", "dlrm:batch=8"],
            ["ncf:batch=8", "tests/data/engine/vu_heavy.csv"], ["mnist:batch=4", "dlrm:batch=4"]],
    "seed": [$seeds]
  },
  "fixed": {"requests": 1000}
}
JSON
echo "== sweep: 11,200 points, -j 2"
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
echo "   expected: flat -- arrival times live in a ring of the requests waiting and"
echo "   latencies in a fixed-size histogram, so nothing grows with the run."

# 3. Peak RSS at three run lengths: the same peak means nothing grows with
#    the number of requests or events.
echo "== peak RSS vs requests (mnist + ncf, v10-full)"
for n in 1000000 4000000 10000000; do
  kb=$( { /usr/bin/time -f '%M' "$bin" run --tenant mnist --tenant ncf --requests "$n" \
          --policy v10-full --format csv > /dev/null; } 2>&1 | tail -n 1)
  echo "   $n requests/tenant: peak ${kb} kB"
done
