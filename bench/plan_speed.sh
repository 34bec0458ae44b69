#!/usr/bin/env bash
# fathom plan's speed on issue 14's two strategy searches (bench/plan/): Llama 3 70B on 64 H100
# (the question Calculon's llm-optimal-execution answers in about 12 minutes on 2 cores) and on
# 1,024 H100 (the fully simulated strategies per minute per core). Each search runs REPS
# times on 1 thread, on 2 threads and on 2 processes of 1 thread (mpirun -n 2), interleaved;
# the table gives each one's median wall clock, its candidates and simulated strategies
# (feasible or rejected after simulation), the simulated per minute per core, and the speed-ups
# as ratios inside this run. The outputs of every run of a search must be byte-identical
# (checked). Usage:
#   bench/plan_speed.sh [BUILD_DIR] [REPS]       (defaults: build 3)
set -euo pipefail
build="${1:-build}"
reps="${2:-3}"
here="$(cd "$(dirname "$0")" && pwd)"
searches=("$here/plan/llama3-70b-64-h100.yaml" "$here/plan/llama3-70b-1024-gpus.yaml")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
declare -A times
for ((r = 0; r < reps; r++)); do
  for s in "${!searches[@]}"; do
    for how in 1 2 mpi; do
      if [ "$how" = mpi ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none \
          mpirun --oversubscribe -n 2 "$build/fathom" plan "${searches[$s]}" --threads 1 \
          >"$tmp/out-$s-$how-$r.txt" 2>"$tmp/err"
      else
        "$build/fathom" plan "${searches[$s]}" --threads "$how" >"$tmp/out-$s-$how-$r.txt" 2>"$tmp/err"
      fi
      seconds=$(sed -nE 's/^wall clock: ([0-9.]+) s$/\1/p' "$tmp/err")
      times[$s,$how]="${times[$s,$how]:-} $seconds"
      cmp -s "$tmp/out-$s-$how-$r.txt" "$tmp/out-$s-1-0.txt" || {
        echo "plan_speed: ${searches[$s]} gave other output on run $r ($how)" >&2
        exit 1
      }
    done
  done
done
printf '%-22s %10s %9s %9s %9s %9s %12s %9s %9s\n' search candidates simulated "1 thread" "2 thr" "2 ranks" \
  "sim/min/core" "x2 thr" "x2 ranks"
for s in "${!searches[@]}"; do
  out="$tmp/out-$s-1-0.txt"
  candidates=$(sed -nE 's/^plan: ([0-9]+) candidates.*/\1/p' "$out")
  simulated=$(awk '/^  (feasible|misses deadline|over budget|over power) / {n += $NF} END {print n + 0}' "$out")
  one=$(median "${times[$s,1]}")
  two=$(median "${times[$s,2]}")
  ranks=$(median "${times[$s,mpi]}")
  printf '%-22s %10d %9d %8.2fs %8.2fs %8.2fs %12.0f %8.2fx %8.2fx\n' "$(basename "${searches[$s]}" .yaml)" \
    "$candidates" "$simulated" "$one" "$two" "$ranks" "$(awk -v n="$simulated" -v t="$one" 'BEGIN {print n / t * 60}')" \
    "$(awk -v a="$one" -v b="$two" 'BEGIN {print a / b}')" "$(awk -v a="$one" -v b="$ranks" 'BEGIN {print a / b}')"
done
