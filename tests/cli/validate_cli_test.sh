#!/usr/bin/env bash
# `fathom validate` as a user runs it on the published logs: the per-size table, the summary
# line's format, a .log and its .csv counted once, flags that supply what a CSV lacks, and
# clear errors (exit 2) for what is missing or wrong.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
data="$source_dir/data/calibration-data"
node="$source_dir/scenarios/examples/dgx-h100-node.yaml"
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$fathom" validate --scenario "$node" "$data/azure-nd-h100-v5/nccl_all_reduce.csv" --nodes 1 --gpus-per-node 8); rc=$?
check "validate on the Azure H100 CSV exits 0" test "$rc" -eq 0
last=$(tail -1 <<<"$out")
check "the last line is the summary" grep -qE '^files=1 points=14 median_rel_error=[0-9.]+ max_rel_error=[0-9.]+$' <<<"$last"
check "every size is listed with its error" test "$(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+%' <<<"$out")" -eq 24
median=$(sed -E 's/.*median_rel_error=([0-9.]+).*/\1/' <<<"$last")
check "the median error from 1 MiB up is under 15% on one DGX H100" awk -v m="$median" 'BEGIN { exit !(m < 0.15) }'

# Two nodes: the logs carry their ranks, hosts and NCCL_ALGO; the CSV made from a log is the same measurement.
sed 's/nodes: 1$/nodes: 2/; s/hosts_per_leaf: 8/hosts_per_leaf: 16/' "$node" >"$tmp/two.yaml"
out=$("$fathom" validate --scenario "$tmp/two.yaml" "$data"/hgx-h100-ib-2node/G_*.log "$data"/hgx-h100-ib-2node/G_*.csv); rc=$?
check "validate on a 2-node log and its CSV exits 0" test "$rc" -eq 0
check "the log's node count and NCCL_ALGO are used" grep -q "on 2 node(s) x 8 GPU(s), algo Ring" <<<"$out"
check "a .log and its .csv count once" grep -qE '^files=1 points=14 ' <<<"$(tail -1 <<<"$out")"

err=$("$fathom" validate --scenario "$node" "$data/azure-nd-h100-v5/nccl_all_reduce.csv" 2>&1); rc=$?
check "a CSV without --nodes exits 2" test "$rc" -eq 2
check "and says to pass --nodes" grep -q -- "--nodes" <<<"$err"
out=$("$fathom" validate --scenario "$node" "$data"/hgx-h100-ib-2node/G_*.log 2>&1); rc=$?
check "a log from more nodes than the scenario has runs on the scenario's system resized" test "$rc" -eq 0
check "at the log's node count" grep -q "on 2 node(s) x 8 GPU(s), algo Ring" <<<"$out"
err=$("$fathom" validate "$data"/hgx-h100-ib-2node/G_*.log 2>&1); rc=$?
check "without --scenario or --profile exits 2" test "$rc" -eq 2
check "and says what is missing" grep -q -- "--scenario or --profile" <<<"$err"
err=$("$fathom" validate --scenario "$node" "$data/azure-nd-h100-v5/gemm.csv" 2>&1); rc=$?
check "a file that is not nccl-tests output exits 2" test "$rc" -eq 2
printf '     1048576        262144     float     sum      -1    156.9    6.68   oops      0\n' >"$tmp/bad.log"
err=$("$fathom" validate --scenario "$node" "$tmp/bad.log" --nodes 1 --gpus-per-node 8 --op all_reduce 2>&1); rc=$?
check "a malformed log exits 2" test "$rc" -eq 2
check "and names file and line" grep -qE 'bad.log:1' <<<"$err"

echo "validate CLI: $failures failed"
[ "$failures" -eq 0 ]
