#!/usr/bin/env bash
# Issue 13's reproductions, each now refused with a located error instead of a wrong answer:
# flows and collectives that would end beyond the 292 years SimTime holds, invalid flows files,
# a quoted count, an out-of-range --seed, running out of memory. Every refusal exits 2 and starts with
# `fathom: error:`; none writes an output.
set -uo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
fathom="$build/fathom"
source "$source_dir/tests/cli/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
examples="$source_dir/scenarios/examples"

refused() {  # refused NAME EXPECTED-TEXT COMMAND...
  local name="$1" expected="$2"; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  check "$name: exit 2 (got $rc)" test "$rc" -eq 2
  check "$name: starts with fathom: error:" grep -q '^fathom: error: ' <<<"$out"
  check "$name: says \"$expected\"" grep -qF -- "$expected" <<<"$out"
}

# A traffic scenario on two hosts joined by links of `rate`, each sending `bytes` to the other.
pair() {  # pair RATE BYTES > file
  cat <<YAML
seed: 1
cluster:
  nodes: 2
  node: {gpus: 0, nics: 1, nic_bandwidth: $1}
  fabric:
    kind: fat-tree
    tiers: 2
    hosts_per_leaf: 1
    leaves: 2
    spines: 1
    links:
      - {bandwidth: $1, latency: 1us}
      - {bandwidth: $1, latency: 1us}
workload:
  kind: traffic
  pattern: all-to-all
  endpoints: 2
  bytes: $2
YAML
}

# 1. Silent wrong results: exit 0 with a zero makespan and negative completion times before.
pair 1bps 1PB > petabyte.yaml
refused "1 PB at 1 bit/s" "petabyte.yaml:18:10: workload.bytes: expected flows that finish within the 292.3 years" \
  "$fathom" simulate petabyte.yaml --flows-out flows.csv
check "and no flows CSV" test ! -e flows.csv
pair 1e-30bps 1MB > slow.yaml
refused "1 MB at 1e-30 bit/s" "finishing 2.535e+29 years after time 0" "$fathom" simulate slow.yaml
pair 1Gbps 1GB > fine.yaml
out=$("$fathom" simulate fine.yaml 2>&1); rc=$?
check "the same pair at 1 Gb/s runs (exit $rc)" test "$rc" -eq 0
check "  with a makespan of 8 s" grep -q "makespan *8000.00" <<<"$out"
refused "a training run on 1 bit/s links" \
  "cluster.fabric.links[0].bandwidth: expected times within the 292.3 years (2^63 ns) of simulated time" \
  "$fathom" simulate "$examples/pilot-16-nodes.yaml" --set 'cluster.fabric.links[0].bandwidth=1bps'
refused "nccl-tests on 1 bit/s links, simulated" "expected times within the 292.3 years" \
  "$fathom" nccl-tests "$examples/pilot-16-nodes.yaml" --set 'cluster.fabric.links[0].bandwidth=1bps' -e 1G
refused "nccl-tests on 1 bit/s links, closed forms" "found a time of 300.1 years" \
  "$fathom" nccl-tests "$examples/pilot-16-nodes.yaml" --set 'cluster.fabric.links[0].bandwidth=1bps' -e 1G \
  --closed-form

# 2. Invalid inputs accepted before.
file_pair() {  # a scenario reading its flows from $1
  pair 100Gbps 1MB | sed "s|  pattern: all-to-all|  pattern: file\n  flows_file: $1|; /endpoints:/d; /bytes:/d"
}
file_pair /dev/zero > zero.yaml
refused "flows_file: /dev/zero" "found \"/dev/zero\": a character device" "$fathom" simulate zero.yaml
file_pair "$tmp" > folder.yaml
refused "flows_file: a folder" ": a folder" "$fathom" simulate folder.yaml
: > empty.csv
file_pair empty.csv > empty.yaml
refused "flows_file: empty" "empty.csv:1:1: header: expected the header id,src,dst,bytes,start_s, found an empty file" \
  "$fathom" simulate empty.yaml
refused "a quoted count" "workload.tokens: expected a whole number such as 4096 or 1e8, found \"8\"" \
  "$fathom" simulate "$examples/production-2048-nodes.yaml" --set "workload.tokens='8'"

# 7. Errors with their flag and range.
refused "--seed above 2^63-1" "--seed: expected a whole number from 0 to 9223372036854775807, found \"9223372036854775808\"" \
  "$fathom" simulate "$examples/pilot-16-nodes.yaml" --seed 9223372036854775808
refused "--set seed above 2^63-1" "seed: expected a whole number from 0 to 9223372036854775807" \
  "$fathom" simulate "$examples/pilot-16-nodes.yaml" --set seed=9223372036854775808
long_value=$(head -c 100000 /dev/zero | tr '\0' y)
out=$("$fathom" simulate "$examples/pilot-16-nodes.yaml" --set "x=$long_value" 2>&1); rc=$?
check "a 100 KB --set value: exit 2 (got $rc)" test "$rc" -eq 2
check "  and an error of one short line (${#out} bytes)" test "${#out}" -lt 400
data="$source_dir/data/calibration-data"
refused "an NVLS log taken as 2 nodes" "the file states NVLS, which runs inside one node, but the measurement is taken as 2 nodes" \
  "$fathom" calibrate "$data/azure-nd-h100-v5/nccl_all_reduce.csv" --node dgx-h100 --nodes 2 -o p.yaml
refused "--algo nvls on a 2-node log" "--algo nvls on 2 nodes: NVLS runs inside one node" \
  "$fathom" calibrate "$data"/hgx-h100-ib-2node/G_*.log --node dgx-h100 --algo nvls -o p.yaml
echo "system: x" > no-version.yaml
refused "a profile without its version" "profile: expected the profile schema version, 1, found no value" \
  "$fathom" validate --profile no-version.yaml "$data"/hgx-h100-ib-2node/G_*.log
out=$("$build/fathom-phold" --threads many 2>&1); rc=$?
check "fathom-phold --threads many: exit 2 with its prefix (got $rc)" \
  bash -c '[ "$1" -eq 2 ] && grep -q "^fathom-phold: error: " <<<"$2"' _ "$rc" "$out"

# 3. Sizes refused up front, from the memory estimate (each ran for minutes or died with
# std::bad_alloc before), at the key to shrink; --max-memory raises the limit.
refused "a billion micro-batches" "workload.global_batch: expected a run within fathom's memory limit of 16 GiB" \
  "$fathom" simulate "$examples/pilot-16-nodes.yaml" --set workload.global_batch=1000000000
refused "16 million all-to-all flows" "workload.endpoints: expected a run within fathom's memory limit" \
  "$fathom" simulate "$examples/fat-tree-a2a-64.yaml" --set workload.endpoints=4000 --set cluster.nodes=4096 \
  --set cluster.fabric.leaves=128 --set cluster.fabric.spines=32
cat > radix.yaml <<YAML
seed: 1
cluster:
  nodes: 16
  node: {gpus: 8, nics: 8, nic_bandwidth: 400Gbps}
  fabric:
    kind: fat-tree
    tiers: 3
    radix: 4096
    links:
      - {bandwidth: 400Gbps, latency: 1us}
      - {bandwidth: 400Gbps, latency: 1us}
      - {bandwidth: 400Gbps, latency: 1us}
workload:
  kind: traffic
  pattern: permutation
  bytes: 1MB
YAML
refused "a 3-tier radix-4096 fabric for 16 nodes" "cluster.fabric: expected a run within fathom's memory limit" \
  "$fathom" topology radix.yaml
refused "a collective DAG of 1-byte slices" "most of it 3.3e+07 transfers of the largest size's collective DAG" \
  "$fathom" nccl-tests "$examples/pilot-16-nodes.yaml" --set collectives.slice=1B -e 8G --max-memory 4GiB
out=$("$fathom" nccl-tests "$examples/pilot-16-nodes.yaml" --set collectives.slice=1B -e 8G --closed-form -q 2>&1); rc=$?
check "  the same with --closed-form builds no DAG and runs (exit $rc)" test "$rc" -eq 0
refused "a bad --max-memory" "--max-memory: expected a size" \
  "$fathom" simulate "$examples/pilot-16-nodes.yaml" --max-memory lots
out=$("$fathom" simulate "$examples/pilot-16-nodes.yaml" --max-memory 100KB 2>&1); rc=$?
check "--max-memory 100KB refuses even the pilot (exit $rc)" test "$rc" -eq 2
check "  naming the limit" grep -qF "memory limit of 97.66 KiB (--max-memory)" <<<"$out"
# calibrate and validate resize the measured system to each log's node count and to
# --predict-nodes: each checked before the fit, with the flag or the file.
refused "calibrate --predict-nodes 0" "--predict-nodes: expected node counts of 1 or more, found 0" \
  "$fathom" calibrate "$data/azure-nd-h100-v5/nccl_all_reduce.csv" --predict-nodes 0 -o p.yaml
refused "calibrate --predict-nodes past the default fabric" \
  "--predict-nodes 60000: the system resized to 60000 nodes: fabric.radix: expected at least 469 ports" \
  "$fathom" calibrate "$data/azure-nd-h100-v5/nccl_all_reduce.csv" --predict-nodes 60000 -o p.yaml
refused "calibrate --predict-nodes past --max-memory" \
  "--predict-nodes 8000: the system resized to 8000 nodes: expected a run within fathom's memory limit of 10 MiB" \
  "$fathom" calibrate "$data/azure-nd-h100-v5/nccl_all_reduce.csv" --predict-nodes 8000 --max-memory 10MiB -o p.yaml
refused "validate: a log taken as 512 nodes" "G_gj-aion_2node_Ring_MIN_CTAS24_QPS2_1M-8G.csv: simulating its 512 node(s) x 8 GPU(s): expected a run within fathom's memory limit of 64 MiB" \
  "$fathom" validate --scenario "$examples/pilot-16-nodes.yaml" "$data"/hgx-h100-ib-2node/G_*.csv --op all_reduce --nodes 512 --gpus-per-node 8 --max-memory 64MiB
check "none of them wrote a profile" test ! -e p.yaml

# 4. Out of memory is an error in fathom's words, never a bare std::bad_alloc. (Not under
# AddressSanitizer, which reserves more address space than the limit allows at start.)
if [ -z "${ASAN_OPTIONS:-}" ]; then
  out=$(ulimit -v 80000; "$fathom" simulate "$examples/production-2048-nodes.yaml" --json oom.json 2>&1); rc=$?
  check "out of memory: exit 2 (got $rc)" test "$rc" -eq 2
  check "out of memory: said so, with what to shrink" grep -q '^fathom: error: out of memory: .*shrink it' <<<"$out"
  check "out of memory: no JSON" test ! -e oom.json
fi

echo "limits CLI: $failures failed"
[ "$failures" -eq 0 ]
