#!/usr/bin/env bash
# `fathom simulate` on inference scenarios as a user runs it (docs/inference.md): the report, its
# JSON, the per-request CSV and the timeline; byte-identical outputs on a second run and on 1 or
# 4 threads; a failed expectation exits 1 after writing the outputs; malformed scenarios exit 2,
# name file:line:column and the key, and touch no output.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
serving="$source_dir/scenarios/examples/llama3-8b-serving.yaml"
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$fathom" simulate "$serving" --json "$tmp/a.json" --requests-out "$tmp/a.csv" --trace "$tmp/a-trace.json" \
  2>/dev/null); rc=$?
check "the serving example runs and its expectations pass" test "$rc" -eq 0
check "the report has the latency table" grep -qE '^  TPOT ' <<<"$out"
check "the report has memory per GPU" grep -q "KV cache" <<<"$out"
check "the report ends with a fingerprint" grep -qE '^fingerprint=[0-9a-f]{16}$' <<<"$(tail -1 <<<"$out")"
for key in '"inference"' '"ttft_s"' '"tpot_s"' '"e2e_s"' '"p99"' '"throughput_tokens_per_s"' '"requests_per_s"' \
  '"goodput_requests_per_s"' '"kv_cache_utilization"' '"preemptions"' '"replicas"'; do
  check "JSON has $key" grep -q "$key" "$tmp/a.json"
done
check "the CSV has a header and one row per request" test "$(wc -l <"$tmp/a.csv")" -eq 501
check "the CSV's header names the latencies" grep -q '^request,arrival_s,prompt_tokens,output_tokens,replica,first_token_s,end_s,ttft_s,tpot_s,e2e_s' "$tmp/a.csv"
check "the trace has a replica track" grep -q '"replica 0"' "$tmp/a-trace.json"
"$fathom" simulate "$serving" --json "$tmp/b.json" --requests-out "$tmp/b.csv" >/dev/null 2>&1
check "JSON is byte-identical on a second run" cmp -s "$tmp/a.json" "$tmp/b.json"
check "the CSV is byte-identical on a second run" cmp -s "$tmp/a.csv" "$tmp/b.csv"
# Four replicas apart (a dispatch delay): the parallel scheduler runs them on several threads.
many=(--set workload.serving.replicas=4 --set workload.serving.dispatch_delay=100us --set workload.requests.rate=30)
"$fathom" simulate "$serving" "${many[@]}" --requests-out "$tmp/t1.csv" >"$tmp/t1.txt" 2>/dev/null
"$fathom" simulate "$serving" "${many[@]}" --requests-out "$tmp/t4.csv" --threads 4 >"$tmp/t4.txt" 2>/dev/null
check "1 and 4 threads give the same report" cmp -s "$tmp/t1.txt" "$tmp/t4.txt"
check "1 and 4 threads give the same requests" cmp -s "$tmp/t1.csv" "$tmp/t4.csv"

echo "untouched" >"$tmp/keep.json"
out=$("$fathom" simulate "$serving" --set 'expect.p99_tpot="<= 1ms"' --json "$tmp/fail.json" 2>/dev/null); rc=$?
check "a failed expectation exits 1" test "$rc" -eq 1
check "and is reported as FAIL" grep -qE '^  FAIL p99_tpot' <<<"$out"
check "and the JSON is still written, with pass false" grep -q '"pass": false' "$tmp/fail.json"

bad() {  # bad NAME KEY_REGEX SED_EXPRESSION
  local name="$1" key="$2"
  sed "$3" "$serving" >"$tmp/bad.yaml"
  err=$("$fathom" simulate "$tmp/bad.yaml" --json "$tmp/keep.json" 2>&1); rc=$?
  check "$name exits 2" test "$rc" -eq 2
  check "$name names file:line:column and key" grep -qE "bad.yaml:[0-9]+:[0-9]+: $key" <<<"$err"
  check "$name leaves the output untouched" test "$(cat "$tmp/keep.json")" = "untouched"
}
bad "an SLO without a unit" 'workload.slo.tpot' 's|    tpot: 50ms|    tpot: 50|'
bad "a model that does not fit" 'workload.serving.tp' 's|  model: llama3.1-8b|  model: llama3.1-405b|'
bad "a request larger than the cache" 'workload.requests.prompt_tokens' 's|    prompt_tokens: 467|    prompt_tokens: 2000000|'
bad "an unknown serving key" 'workload.serving.max_seq' 's|    replicas: 1|    max_seq: 1|'
# Host overheads that make an iteration (or its end) longer than the clock holds: refused at the
# serving section, not rounded to a wrong answer.
bad "a host overhead per sequence past the clock" 'workload.serving' 's|    replicas: 1|    replicas: 1\n    sequence_overhead: 1e5d|'
bad "a host overhead per iteration past the clock" 'workload.serving' 's|    replicas: 1|    replicas: 1\n    iteration_overhead: 1e5d|'
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n' >"$tmp/empty.csv"
bad "an empty trace" 'workload.requests.trace' \
  "s|    arrival: poisson|    trace: $tmp/empty.csv|; /    rate: 8/d; /    count: 500/d; /    prompt_tokens: 467/d; /    output_tokens: 256/d"
err=$("$fathom" simulate "$serving" --requests-out "$tmp/x.csv" --jobs-out "$tmp/y.csv" 2>&1); rc=$?
check "a jobs flag on an inference scenario is refused" test "$rc" -eq 2
echo "inference CLI: $failures failed"
[ "$failures" -eq 0 ]
