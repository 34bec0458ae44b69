#!/usr/bin/env bash
# `fathom calibrate` on a 2-node nccl-tests log (NCCL_ALGO=Ring) with a 1-node sweep, as a user
# runs it: the log and its CSV count once, launch and alpha are told apart by the two node
# counts, and the report predicts busbw for 2, 4, 8, 16 and 64 nodes. Its own test because the
# 2-node fit searches the protocol thresholds over a 16-rank ring (about 2 s in Release, 20 s
# under the sanitizers).
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
data="$source_dir/data/calibration-data"
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Two nodes with a forced ring plus one node: predictions for larger clusters.
out=$("$fathom" calibrate "$data/azure-nd-h100-v5/nccl_all_reduce.csv" \
  "$data"/hgx-h100-ib-2node/G_*.log "$data"/hgx-h100-ib-2node/G_*.csv --node dgx-h100 -o "$tmp/2node.yaml"); rc=$?
check "calibrate on the 2-node ring log and the 1-node sweep exits 0" test "$rc" -eq 0
check "the log and its CSV count once" grep -q 'used: "repeat of another' "$tmp/2node.yaml"
check "the prediction table covers 2, 4, 8, 16 and 64 nodes" \
  grep -qE '^#  +size\(B\) +2 +4 +8 +16 +64 +nodes$' <<<"$out"
check "with a row per size from 1 MiB to 8 GiB" test "$(grep -cE '^ +[0-9]+( +[0-9.]+){5}$' <<<"$out")" -eq 14
check "launch and alpha are told apart by two node counts" grep -qE '^ +launch: [0-9]+ns$' "$tmp/2node.yaml"

echo "calibrate 2-node CLI: $failures failed"
[ "$failures" -eq 0 ]
