#!/usr/bin/env bash
# PHOLD on fathom's engine against the bare loop, measured side by side in one run.
#
# The machines are shared and noisy, so every configuration runs REPS times, interleaved
# (bare, sequential, parallel x1, parallel x2, bare, ...), and the table reports each one's
# median events/s and its ratio to the bare loop's median. Usage:
#   bench/compare_phold.sh [BUILD_DIR] [REPS]       (defaults: build 5)
set -euo pipefail
build="${1:-build}"
reps="${2:-5}"
workload=(--lps 1024 --events-per-lp 16 --mean 1.0 --lookahead 0.1 --remote 0.1 --end 1000)
names=("bare loop (std::priority_queue, mt19937_64)" "fathom sequential" "fathom parallel, 1 thread" "fathom parallel, 2 threads")
commands=(
  "$build/phold-bare-loop ${workload[*]}"
  "$build/fathom-phold ${workload[*]} --scheduler sequential"
  "$build/fathom-phold ${workload[*]} --scheduler parallel --threads 1"
  "$build/fathom-phold ${workload[*]} --scheduler parallel --threads 2"
)
declare -a results
for ((r = 0; r < reps; r++)); do
  for i in "${!commands[@]}"; do
    line=$(${commands[$i]} | tail -n 1)
    rate=$(sed -E 's/.*events_per_s=([0-9]+).*/\1/' <<<"$line")
    results[$i]="${results[$i]:-} $rate"
    if [ "$i" -gt 0 ]; then fingerprints+="${line##*fingerprint=} "; fi
  done
done
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
bare=$(median "${results[0]}")
one=$(median "${results[2]}")
echo "PHOLD ${workload[*]}; $reps interleaved runs each; $(date -u +%Y-%m-%d) on $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "| configuration | median events/s | vs bare loop | all runs (events/s) |"
echo "|---|---|---|---|"
for i in "${!commands[@]}"; do
  m=$(median "${results[$i]}")
  echo "| ${names[$i]} | $m | $(awk -v a="$m" -v b="$bare" 'BEGIN {printf "%.2fx", a / b}') |${results[$i]} |"
done
two=$(median "${results[3]}")
echo
echo "parallel speed-up, 2 threads over 1 thread (medians): $(awk -v a="$two" -v b="$one" 'BEGIN {printf "%.2fx", a / b}')"
distinct=$(tr ' ' '\n' <<<"$fingerprints" | grep -v '^$' | sort -u | wc -l)
echo "distinct fingerprints over all fathom runs: $distinct (must be 1)"
