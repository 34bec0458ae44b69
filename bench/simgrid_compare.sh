#!/usr/bin/env bash
# fathom's flow-level network against SimGrid 3.32 on the same links, routes and flows: whole
# runs, wall time and peak memory, ratios in one run. fathom's figures are its own whole
# `simulate` run (scenario, topology, routing, simulation, report); SimGrid's run from its
# first platform call to the end of its simulation (tests/models/network/replay_simgrid.cpp),
# which also checks that every flow finishes within 1e-6 relative or 1 us of fathom.
# Workloads: the 64-host all-to-all example, and a random permutation of 10^8-byte flows whose
# starts are spread over 10 ms (a sparse pattern) on the example's fabric grown to 1,024,
# 4,096 and 16,384 hosts, with the growth exponent of each simulator's time against hosts.
# Usage (from the repository root, after a Release build): bash bench/simgrid_compare.sh [build]
set -euo pipefail
build="${1:-build}"
examples=scenarios/examples
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

row() {
  local label="$1" hosts="$2" scenario="$3"
  shift 3
  "$build/fathom" topology "$scenario" "$@" --links "$out/links.csv" --routes "$out/routes.csv" >/dev/null
  "$build/fathom" simulate "$scenario" "$@" --flows-out "$out/flows.csv" >"$out/fathom.log" 2>&1
  local fathom_s fathom_mib flows sg sg_s sg_mib agree
  fathom_s=$(sed -n 's/^wall clock: \([0-9.]*\) s$/\1/p' "$out/fathom.log")
  fathom_mib=$(sed -n 's/^peak memory: \([0-9.]*\) MiB$/\1/p' "$out/fathom.log")
  flows=$(($(wc -l <"$out/flows.csv") - 1))
  sg=$("$build/tests/replay-simgrid" "$out/links.csv" "$out/routes.csv" "$out/flows.csv" 2>/dev/null)
  sg_s=$(sed -n 's/^simgrid_wall_s=\([0-9.]*\) .*/\1/p' <<<"$sg")
  sg_mib=$(sed -n 's/.*simgrid_peak_mib=\([0-9.]*\)$/\1/p' <<<"$sg")
  agree=$(sed -n 's/^flows=[0-9]* mismatches=\([0-9]*\) .*max_rel_error=\(.*\)$/\1 mismatches, max rel. error \2/p' <<<"$sg")
  printf '| %s | %s | %s | %s | %s | %s | %s | %.1f | %s |\n' "$label" "$hosts" "$flows" "$fathom_s" "$fathom_mib" \
    "$sg_s" "$sg_mib" "$(awk -v a="$sg_s" -v b="$fathom_s" 'BEGIN { print a / b }')" "$agree"
  echo "$hosts $fathom_s $sg_s" >>"$out/growth"
}

echo "| workload | hosts | flows | fathom s | fathom MiB | SimGrid s | SimGrid MiB | SimGrid / fathom | agreement |"
echo "|---|---|---|---|---|---|---|---|---|"
row "all-to-all 64 (example)" 1024 "$examples/fat-tree-a2a-64.yaml"
rm -f "$out/growth"
for hosts in 1024 4096 16384; do
  row "permutation, starts over 10 ms" "$hosts" "$examples/fat-tree-1024-permutation.yaml" \
    --set "cluster.nodes=$hosts" --set "cluster.fabric.leaves=$((hosts / 32))" --set workload.start_window=10ms
done
awk 'NR == 1 { h0 = $1; f0 = $2; s0 = $3 } { h = $1; f = $2; s = $3 }
     END { printf "\npermutation, hosts %d to %d: fathom grows as hosts^%.2f, SimGrid as hosts^%.2f\n",
           h0, h, log(f / f0) / log(h / h0), log(s / s0) / log(h / h0) }' "$out/growth"
