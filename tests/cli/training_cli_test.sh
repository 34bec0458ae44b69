#!/usr/bin/env bash
# `fathom simulate` on training scenarios as a user runs it: the pilot's report, its JSON
# (docs/report.md) and trace, --set, --seed, byte-identical outputs on two runs,
# expectations (a failed one exits 1 after writing the outputs), and every kind of malformed
# scenario: exit 2, the message names file:line:column and the key, no output touched.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
pilot="$source_dir/scenarios/examples/pilot-16-nodes.yaml"
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$fathom" simulate "$pilot" --json "$tmp/a.json" --trace "$tmp/a-trace.json" 2>/dev/null); rc=$?
check "the pilot runs and its expectations pass" test "$rc" -eq 0
check "the report has a breakdown table" grep -q "pipeline bubble" <<<"$out"
check "the report has memory per rank" grep -q "memory per rank" <<<"$out"
check "the report lists expectations" grep -qE '^  PASS mfu' <<<"$out"
check "the report ends with a fingerprint" grep -qE '^fingerprint=[0-9a-f]{16}$' <<<"$(tail -1 <<<"$out")"
for key in step_time_s mfu model_tflops_per_gpu hardware_tflops_per_gpu tokens_per_s time_to_train_s \
  peak_bytes_per_rank breakdown fingerprint; do
  check "JSON has $key" grep -q "\"$key\"" "$tmp/a.json"
done
check "JSON fingerprint is 16 hex digits" grep -qE '"fingerprint": "[0-9a-f]{16}"' "$tmp/a.json"
# The pilot's overlapped parameter gather runs beside stage 0's passes: its SMs cost them time.
sm_cost=$(grep -m1 -oE '"overlap_sm_cost_s": \{"data_parallel":[0-9.e+-]+' "$tmp/a.json" | sed 's/.*://')
check "JSON gives stage 0's overlap SM cost, above 0 on the pilot ($sm_cost s)" \
  awk -v x="$sm_cost" 'BEGIN { exit !(x + 0 > 0) }'
check "the trace is a Chrome trace with stage tracks" grep -q '"stage 0"' "$tmp/a-trace.json"
check "the trace has a busy-link track" grep -q '"busiest links"' "$tmp/a-trace.json"
# Determinism: a second run of the same scenario and seed writes the same bytes (nothing may
# depend on addresses, hash-table order or uninitialised memory). The step model runs on the
# sequential scheduler, so there is no thread count to vary (PHOLD's test varies it).
"$fathom" simulate "$pilot" --json "$tmp/b.json" --trace "$tmp/b-trace.json" >/dev/null 2>&1
check "JSON is byte-identical on a second run" cmp -s "$tmp/a.json" "$tmp/b.json"
check "the trace is byte-identical on a second run" cmp -s "$tmp/a-trace.json" "$tmp/b-trace.json"

out=$("$fathom" simulate "$pilot" --set workload.parallel.pp=8 --json "$tmp/pp8.json" 2>/dev/null); rc=$?
check "--set changes the strategy" grep -q '"pp": 8' "$tmp/pp8.json"
out=$("$fathom" simulate "$pilot" --seed 5 2>/dev/null)
check "--seed overrides the scenario's" grep -q "(seed 5)" <<<"$out"

echo "untouched" >"$tmp/keep.json"
out=$("$fathom" simulate "$pilot" --set 'expect.mfu=">= 0.99"' --json "$tmp/fail.json" 2>/dev/null); rc=$?
check "a failed expectation exits 1" test "$rc" -eq 1
check "and is reported as FAIL" grep -qE '^  FAIL mfu' <<<"$out"
check "and the JSON is still written, with pass false" grep -q '"pass": false' "$tmp/fail.json"

"$fathom" simulate "$pilot" --set 'expect.mfu=">= 1%"' >/dev/null 2>&1; rc=$?
check "an MFU criterion in percent is read" test "$rc" -eq 0
err=$("$fathom" simulate "$pilot" --set 'expect.time_to_train="<= 1d"' --set workload.tokens=0 2>&1); rc=$?
check "time_to_train without a token budget is bad input" test "$rc" -eq 2
check "and says what is missing" grep -q 'workload.tokens' <<<"$err"

# Malformed scenarios: each exits 2, names the place and the key, and touches no output.
base() {  # the pilot with one line replaced: base PATTERN REPLACEMENT
  sed "s|$1|$2|" "$pilot"
}
bad() {  # bad NAME FILE KEY_REGEX
  local name="$1" file="$2" key="$3"
  err=$("$fathom" simulate "$file" --json "$tmp/keep.json" 2>&1); rc=$?
  check "$name exits 2" test "$rc" -eq 2
  check "$name names file:line:column and key" grep -qE "$(basename "$file"):[0-9]+:[0-9]+: $key" <<<"$err"
  check "$name leaves the output untouched" test "$(cat "$tmp/keep.json")" = "untouched"
}
printf 'seed: 1\ncluster: {nodes: 2\n' >"$tmp/syntax.yaml"
err=$("$fathom" simulate "$tmp/syntax.yaml" --json "$tmp/keep.json" 2>&1); rc=$?
check "a YAML syntax error exits 2" test "$rc" -eq 2
check "a YAML syntax error names the line" grep -qE 'syntax.yaml:[0-9]+:[0-9]+' <<<"$err"
base '  micro_batch: 1' '  micro_bacth: 1' >"$tmp/unknown.yaml"
bad "an unknown key" "$tmp/unknown.yaml" 'workload.micro_bacth'
check "an unknown key gets a did-you-mean" grep -q 'micro_batch' <<<"$err"
base '      - {bandwidth: 100Gbps, latency: 1us}   # NIC - leaf' '      - {bandwidth: 100GBq, latency: 1us}' >"$tmp/unit.yaml"
bad "a wrong unit" "$tmp/unit.yaml" 'cluster.fabric.links\[0\].bandwidth'
base '  global_batch: 128' '  global_batch: -128' >"$tmp/negative.yaml"
bad "a negative count" "$tmp/negative.yaml" 'workload.global_batch'
base '    pp: 4' '    pp: 3' >"$tmp/indivisible.yaml"
bad "indivisible parallelism" "$tmp/indivisible.yaml" 'workload'
check "indivisible parallelism says what divides" grep -qE 'multiple of|divisor' <<<"$err"
base '    tp: 8' '    tp: 6' >"$tmp/heads.yaml"
bad "TP not dividing the heads" "$tmp/heads.yaml" 'workload.parallel.tp'
base '  recompute: selective' '  recompute: none' | sed 's|    pp: 4|    pp: 1|' | sed 's|  global_batch: 128|  global_batch: 256|' \
  | sed 's|    tp: 8|    tp: 2|' >"$tmp/nofit.yaml"
bad "a model that does not fit" "$tmp/nofit.yaml" 'workload.parallel'
check "the no-fit error gives the numbers" grep -qE 'GiB' <<<"$err"
base '  model: llama3-70b' '  model: llama3-70' >"$tmp/model.yaml"
bad "an unknown model" "$tmp/model.yaml" 'workload.model'

# The parallel keys of issue 11, each rejected at its own key.
base '    pp: 4' '    pp: 4\n    tp_overlap: true\n    sequence_parallel: false' >"$tmp/tp_overlap.yaml"
bad "tp_overlap without sequence parallelism" "$tmp/tp_overlap.yaml" 'workload.parallel.tp_overlap'
base '    pp: 4' '    pp: 4\n    cp_comm: allgather' >"$tmp/cp_comm.yaml"
bad "an unknown cp_comm" "$tmp/cp_comm.yaml" 'workload.parallel.cp_comm'
check "an unknown cp_comm gets a did-you-mean" grep -q 'all_gather' <<<"$err"
base '    pp: 4' '    pp: 4\n    zero_prefetch: -1' >"$tmp/prefetch.yaml"
bad "a negative zero_prefetch" "$tmp/prefetch.yaml" 'workload.parallel.zero_prefetch'
base '    pp: 4' '    pp: 4\n    chunk_layers: [20, 20, 20, 21]' >"$tmp/chunks.yaml"
bad "chunk layers not summing to the model's" "$tmp/chunks.yaml" 'workload.parallel.chunk_layers'
base '    pp: 4' '    pp: 4\n    stage_layers: [20, 20, 20, 20]\n    embedding_in_split: true' >"$tmp/split.yaml"
bad "embedding_in_split with a listed layout" "$tmp/split.yaml" 'workload.parallel.embedding_in_split'
base '    pp: 4' '    pp: 4\n    schedule: interleaved' >"$tmp/interleaved.yaml"
bad "interleaved without virtual stages" "$tmp/interleaved.yaml" 'workload.parallel.virtual_stages'
base '    pp: 4' '    pp: 4\n    schedule: 1f1b\n    virtual_stages: 2' >"$tmp/1f1b-chunks.yaml"
bad "1f1b named with virtual stages" "$tmp/1f1b-chunks.yaml" 'workload.parallel.virtual_stages'
# Virtual stages without a schedule mean the interleaved one: the same step as naming it.
implied=$("$fathom" simulate "$pilot" --set workload.parallel.virtual_stages=2 --json "$tmp/implied.json" 2>&1)
named=$("$fathom" simulate "$pilot" --set workload.parallel.virtual_stages=2 \
  --set workload.parallel.schedule=interleaved --json "$tmp/named.json" 2>&1)
check "virtual_stages 2 implies the interleaved schedule" \
  test "$(grep -m1 '"step_time_s"' "$tmp/implied.json")" = "$(grep -m1 '"step_time_s"' "$tmp/named.json")"
# A layout Megatron-LM and Llama 3 use runs: the embedding and the loss counted in the split.
out=$("$fathom" simulate "$pilot" --set workload.parallel.embedding_in_split=true \
  --set workload.parallel.loss_in_split=true 2>&1); rc=$?
check "embedding_in_split and loss_in_split run" test "$rc" -eq 0

echo "training CLI: $failures failed"
[ "$failures" -eq 0 ]
