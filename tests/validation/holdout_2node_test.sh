#!/usr/bin/env bash
# Held-out 2-node validation (docs/calibration.md, "2-node held-out validation"): fathom
# calibrated on the single-node Azure ND H100 v5 all-reduce and the 2-node NCCL_ALGO=Ring log of
# the HGX H100 pair (hgx-h100-ib-2node/G_*) predicts the same pair's default-algorithm log
# (D_*: NCCL's trees and NVLS-tree), which it never fitted, from 1 MiB up.
#
# Tolerance: median relative error <= 0.07 (measured 0.0641). The goal is 0.05; what keeps the
# median above it is written beside the figure in docs/calibration.md (NVLS-tree at 4-8 MiB,
# where NCCL runs fewer channels than fathom models, and at >= 2 GiB, where the single-node fit
# puts NVLS's shortfall in a per-round step that NVLS-tree's concurrent phases hide). The tree
# at 1 and 2 MiB is 17% and 11% slow (within 3.3% while every ring step paid the network's
# latency, which let the fit set LL's step at 1.1 us; it runs LL128 at 3.0 us now, the ring's
# own step cost, since the ring log does not tell LL128 from Simple and fathom gives a protocol
# one step cost for every algorithm, where NCCL's tree steps cost less than its ring's): held
# to 25%.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
data="$source_dir/data/calibration-data"
source "$source_dir/tests/cli/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$fathom" calibrate "$data/azure-nd-h100-v5/nccl_all_reduce.csv" "$data"/hgx-h100-ib-2node/G_*.log \
  "$data"/hgx-h100-ib-2node/D_*.log --node dgx-h100 --op all_reduce --holdout-files 'D_*' -o "$tmp/p.yaml"); rc=$?
check "calibrate with the default-algorithm log held out exits 0" test "$rc" -eq 0
held=$(grep -E '^held_out: ' <<<"$out")
echo "$held"
check "the 14 points of the held-out log from 1 MiB up are predicted" grep -q 'points=14 ' <<<"$held"
median=$(sed -E 's/.*median_rel_error=([0-9.e+-]+).*/\1/' <<<"$held")
check "held-out median relative error $median <= 0.07" awk -v m="$median" 'BEGIN { exit !(m <= 0.07) }'
# The tree's sizes: NCCL's chains and trees over the nodes, within 25% (above).
for size in 1048576 2097152; do
  err=$(grep -E "^ +$size .*held out" <<<"$out" | awk '{gsub("%", "", $4); e = $4 + 0; print (e < 0 ? -e : e)}')
  check "tree at $size B within 25% (${err}%)" awk -v e="$err" 'BEGIN { exit !(e != "" && e <= 25) }'
done

# The same fit under NCCL's cost model (no threshold search; docs/calibration.md, "Thresholds
# or NCCL's model"): the held-out log predicted as well (measured 6.13%).
out=$("$fathom" calibrate "$data/azure-nd-h100-v5/nccl_all_reduce.csv" "$data"/hgx-h100-ib-2node/G_*.log \
  "$data"/hgx-h100-ib-2node/D_*.log --node dgx-h100 --op all_reduce --holdout-files 'D_*' --tuner nccl \
  -o "$tmp/n.yaml"); rc=$?
check "calibrate --tuner nccl with the same log held out exits 0" test "$rc" -eq 0
check "its profile says tuner: nccl" grep -qx "  tuner: nccl" "$tmp/n.yaml"
held=$(grep -E '^held_out: ' <<<"$out")
echo "NCCL's model: $held"
median=$(sed -E 's/.*median_rel_error=([0-9.e+-]+).*/\1/' <<<"$held")
check "held-out median relative error under NCCL's model $median <= 0.07" awk -v m="$median" 'BEGIN { exit !(m <= 0.07) }'

echo "held-out 2-node validation: $failures failed"
[ "$failures" -eq 0 ]
