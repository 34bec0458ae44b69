#!/usr/bin/env bash
# Issue 15's scaling figure: a simulated nccl-tests 1 GiB all-reduce (ring, and auto) on the
# first N DGX H100 nodes of the 16K example's fabric (scenarios/examples/llama3-405b-16k.yaml:
# 2,048 nodes, 2-tier fat-tree of 400 Gb/s). For each size: the wall clock and the peak resident
# memory of the whole `fathom nccl-tests` process (GNU time's %e and %M), the bus bandwidth it
# reports, and the growth exponent of time and memory against the GPU count between neighbouring
# sizes (log ratio over log ratio). A size that runs past LIMIT seconds is cut off and reported
# as such; the sizes after it are skipped. The outputs of one size must be byte-identical on
# repeat (checked when REPS > 1). Usage:
#   bench/nccl_scale.sh [BUILD_DIR] [LIMIT_S] [REPS] [NODES...]   (defaults: build 600 1 16 32 64 128)
set -euo pipefail
build="${1:-build}"
limit="${2:-600}"
reps="${3:-1}"
shift $(($# > 3 ? 3 : $#))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 32 64 128)
here="$(cd "$(dirname "$0")" && pwd)"
scenario="$here/../scenarios/examples/llama3-405b-16k.yaml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-6s %6s %6s %10s %10s %10s %8s %8s\n' algo nodes gpus wall_s peak_MiB busbw t_exp m_exp
for algo in ring auto; do
  prev_gpus="" prev_t="" prev_m=""
  for nodes in "${sizes[@]}"; do
    gpus=$((nodes * 8))
    best_t="" m=""
    for ((r = 0; r < reps; r++)); do
      if ! timeout "$limit" /usr/bin/time -f '%e %M' -o "$tmp/time" "$build/fathom" nccl-tests "$scenario" \
        --nodes "$nodes" --algo "$algo" -b 1G -e 1G >"$tmp/out-$r" 2>"$tmp/err"; then
        printf '%-6s %6d %6d %10s\n' "$algo" "$nodes" "$gpus" ">$limit"
        continue 3
      fi
      read -r t kb <"$tmp/time"
      if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN{exit !(a<b)}'; then best_t=$t; fi
      m=$((kb / 1024))
      [ "$r" -eq 0 ] || cmp -s "$tmp/out-$r" "$tmp/out-0" || {
        echo "nccl_scale: $algo on $nodes nodes gave other output on repeat $r" >&2
        exit 1
      }
    done
    busbw=$(awk '$1 ~ /^[0-9]+$/ {print $8; exit}' "$tmp/out-0")
    texp=- mexp=-
    if [ -n "$prev_gpus" ]; then
      texp=$(awk -v a="$best_t" -v b="$prev_t" -v g="$gpus" -v h="$prev_gpus" 'BEGIN{printf "%.2f", log(a/b)/log(g/h)}')
      mexp=$(awk -v a="$m" -v b="$prev_m" -v g="$gpus" -v h="$prev_gpus" 'BEGIN{printf "%.2f", log(a/b)/log(g/h)}')
    fi
    printf '%-6s %6d %6d %10s %10s %10s %8s %8s\n' "$algo" "$nodes" "$gpus" "$best_t" "$m" "$busbw" "$texp" "$mexp"
    prev_gpus=$gpus prev_t=$best_t prev_m=$m
  done
done
