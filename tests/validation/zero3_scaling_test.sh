#!/usr/bin/env bash
# ZeRO-3 at scale (issue 46, item 4): DeepSpeed-style ZeRO-3 of GPT-3 175B with the global batch
# fixed at 1,536 on 384, 768 and 1,536 A100 (scenarios/validation/zero3-scaling/gpt3-175b-p4d.yaml).
# Every GPU gathers every layer's parameters three times a step (forward, recomputed forward,
# backward) and reduce-scatters its gradients, so each node's network moves about the model's
# 16-bit size per pass whatever the GPU count, over flat rings whose latency grows with the ranks,
# while the compute per GPU halves with every doubling. On p4d-like nodes (400 Gb/s a node) the
# step stops falling: asserted, 1,536 GPUs take at least 95% of 768's step and wait longer on the
# gathers than they compute. On DGX A100 nodes (1.6 Tb/s a node) the same run stays compute-bound
# and its step falls: asserted, 1,536 GPUs take less than 40% of 384's.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
scenario="$source_dir/scenarios/validation/zero3-scaling/gpt3-175b-p4d.yaml"
source "$source_dir/tests/cli/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NODES NICS RATE: prints "step dp compute" from the JSON report
run() {
  local nodes="$1" nics="$2" rate="$3"
  local leaves=$(((nodes * nics + 31) / 32))
  "$fathom" simulate "$scenario" --set cluster.nodes="$nodes" --set cluster.fabric.leaves="$leaves" \
    --set workload.micro_batch=$((1536 / (nodes * 8))) --set cluster.node.nics="$nics" \
    --set cluster.node.nic_bandwidth="${rate}Gbps" \
    --set "cluster.fabric.links=[{bandwidth: ${rate}Gbps, latency: 1us}, {bandwidth: ${rate}Gbps, latency: 1us}]" \
    --json "$tmp/r.json" > "$tmp/r.txt" 2>&1 || { cat "$tmp/r.txt" >&2; return 1; }
  awk -F': ' '/"step_time_s"/ && !s { gsub(/,/, "", $2); s = $2 }
    /^ *"dp_comm"/ && !d { gsub(/,/, "", $2); d = $2 }
    /^ *"compute":/ && !c { gsub(/,/, "", $2); c = $2 }
    END { print s, d, c }' "$tmp/r.json"
}

printf "%-22s %6s %10s %10s %10s\n" "nodes" "GPUs" "step_s" "dp_s" "compute_s"
declare -A step dp compute
for kind in "p4d 4 100" "dgx 8 200"; do
  read -r name nics rate <<<"$kind"
  for nodes in 48 96 192; do
    read -r s d c < <(run "$nodes" "$nics" "$rate") || { failures=$((failures + 1)); continue; }
    step[$name$nodes]=$s; dp[$name$nodes]=$d; compute[$name$nodes]=$c
    printf "%-22s %6d %10.3f %10.3f %10.3f\n" "$name ($nics x ${rate}G)" $((nodes * 8)) "$s" "$d" "$c"
  done
done
check "p4d-like: 1,536 GPUs take at least 95% of 768's step (${step[p4d192]} s, ${step[p4d96]} s)" \
  awk -v a="${step[p4d192]}" -v b="${step[p4d96]}" 'BEGIN { exit !(a >= 0.95 * b) }'
check "p4d-like: at 1,536 GPUs the exposed gathers outweigh the compute" \
  awk -v d="${dp[p4d192]}" -v c="${compute[p4d192]}" 'BEGIN { exit !(d > c) }'
check "DGX A100: the step falls, 1,536 GPUs below 40% of 384's (${step[dgx192]} s, ${step[dgx48]} s)" \
  awk -v a="${step[dgx192]}" -v b="${step[dgx48]}" 'BEGIN { exit !(a < 0.4 * b) }'

echo "ZeRO-3 scaling: $failures failed"
[ "$failures" -eq 0 ]
