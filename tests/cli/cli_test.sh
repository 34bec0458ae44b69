#!/usr/bin/env bash
# The programs as a user runs them: help, version, the machine-readable last line of
# fathom-phold, identical fingerprints across schedulers, and clear errors with exit code 2.
set -uo pipefail
build="$1"
source "$(dirname "$0")/check.sh"

out=$("$build/fathom" --version); check "fathom --version" grep -qE '^fathom [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out"
out=$("$build/fathom" --help); check "fathom --help lists options" grep -q -- '--version' <<<"$out"
"$build/fathom" no-such-command >/dev/null 2>&1; rc=$?
check "fathom rejects an unknown subcommand" test "$rc" -ne 0

args=(--lps 64 --events-per-lp 4 --end 50 --seed 3)
seq_line=$("$build/fathom-phold" "${args[@]}" | tail -n 1)
check "fathom-phold last line format" grep -qE '^committed=[0-9]+ wall_s=[0-9.]+ events_per_s=[0-9]+ fingerprint=[0-9a-f]{16}$' <<<"$seq_line"
par_line=$("$build/fathom-phold" "${args[@]}" --scheduler parallel --threads 2 --partitions 3 | tail -n 1)
check "fathom-phold parallel gives the sequential fingerprint" \
  test "${seq_line##*fingerprint=}" = "${par_line##*fingerprint=}"
check "fathom-phold parallel commits the same events" \
  test "${seq_line%% *}" = "${par_line%% *}"

err=$("$build/fathom-phold" --remote 1.5 2>&1); rc=$?
check "fathom-phold --remote 1.5 exits 2" test "$rc" -eq 2
check "fathom-phold --remote 1.5 names the option" grep -q -- '--remote must be a fraction' <<<"$err"
err=$("$build/fathom-phold" --lookahead 2 --mean 1 2>&1); rc=$?
check "fathom-phold lookahead above mean exits 2" test "$rc" -eq 2
"$build/fathom-phold" --scheduler sideways >/dev/null 2>&1; rc=$?
check "fathom-phold rejects an unknown scheduler" test "$rc" -ne 0

# fathom simulate / topology on the example fabric scenarios and on bad input.
examples="$(dirname "$0")/../../scenarios/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$("$build/fathom" simulate "$examples/fat-tree-1024-permutation.yaml" --flows-out "$tmp/flows.csv" \
  --links-out "$tmp/usage.csv" 2>/dev/null); rc=$?
check "fathom simulate runs the permutation example" test "$rc" -eq 0
check "fathom simulate prints a fingerprint" grep -qE '^fingerprint=[0-9a-f]{16}$' <<<"$out"
check "flows CSV has its header and 1024 rows" test "$(head -1 "$tmp/flows.csv")" = "id,src,dst,bytes,start_s,finish_s" -a \
  "$(wc -l <"$tmp/flows.csv")" -eq 1025
check "link usage CSV has its header" test "$(head -1 "$tmp/usage.csv")" = "name,from,to,bytes,utilisation"
again=$("$build/fathom" simulate "$examples/fat-tree-1024-permutation.yaml" --flows-out "$tmp/flows2.csv" 2>/dev/null)
check "fathom simulate is byte-identical across runs" cmp -s "$tmp/flows.csv" "$tmp/flows2.csv"
check "and prints the same report" test "$out" = "$again"
"$build/fathom" topology "$examples/fat-tree-a2a-64.yaml" --links "$tmp/links.csv" --routes "$tmp/routes.csv" \
  >"$tmp/summary.txt"; rc=$?
check "fathom topology runs" test "$rc" -eq 0
check "links CSV header" test "$(head -1 "$tmp/links.csv")" = "name,from,to,bytes_per_s,latency_ns"
check "routes CSV has one row per flow" test "$(wc -l <"$tmp/routes.csv")" -eq 4033
check "topology summary names the fabric" grep -q "32 leaves" "$tmp/summary.txt"

printf 'cluster:\n  nodes: 4\n  fabric: {tiers: 2, hosts_per_leaf: 2, spines: 1, links: [{bandwidth: 100Gbps, latency: 1us}, {bandwidth: 100Gbps, latency: 1us}]}\nworkload: {kind: traffic, pattern: ring, bytes: 1MB, colour: red}\n' >"$tmp/bad.yaml"
echo "untouched" >"$tmp/keep.csv"
err=$("$build/fathom" simulate "$tmp/bad.yaml" --flows-out "$tmp/keep.csv" 2>&1); rc=$?
check "a bad scenario exits 2" test "$rc" -eq 2
check "the error names file:line:column and the key" grep -qE 'bad.yaml:4:[0-9]+: workload.colour' <<<"$err"
check "a failed run leaves the output untouched" test "$(cat "$tmp/keep.csv")" = "untouched"
"$build/fathom" simulate "$tmp/missing.yaml" >/dev/null 2>&1; rc=$?
check "a missing scenario file exits 2" test "$rc" -eq 2
"$build/fathom" simulate "$examples/fat-tree-a2a-64.yaml" --set cluster.fabric.spines=banana >/dev/null 2>&1; rc=$?
check "a bad --set exits 2" test "$rc" -eq 2

# fathom nccl-tests: nccl-tests' table on the DGX H100 example, busbw = algbw x the op's factor.
dgx="$examples/dgx-h100-node.yaml"
out=$("$build/fathom" nccl-tests "$dgx" --op all_reduce -b 1M -e 64M -f 2); rc=$?
check "fathom nccl-tests runs" test "$rc" -eq 0
check "nccl-tests header, line 1" grep -qxF '#                                                              out-of-place                       in-place' <<<"$out"
check "nccl-tests header, line 2" grep -qxF '#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong' <<<"$out"
check "nccl-tests header, line 3" grep -qxF '#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)' <<<"$out"
check "-b 1M -e 64M -f 2 gives 7 rows" test "$(grep -vc '^#' <<<"$out")" -eq 7
check "first row is 1 MiB of floats" grep -qE '^ +1048576 +262144 +float +sum +-1 ' <<<"$out"
check "average bus bandwidth line" grep -qE '^# Avg bus bandwidth    : [0-9.]+' <<<"$out"
check "algorithm per size line" grep -qE '^# Algorithm per size   : nvls/Simple 1MB-64MB$' <<<"$out"
for op_factor in all_reduce:1.75 all_gather:0.875 reduce_scatter:0.875 alltoall:0.875 broadcast:1 reduce:1 sendrecv:1; do
  op=${op_factor%%:*}; factor=${op_factor##*:}
  out=$("$build/fathom" nccl-tests "$dgx" --op "$op" -b 1M -e 64M -f 2 2>"$tmp/nccl-$op.err"); rc=$?
  check "nccl-tests --op $op runs" test "$rc" -eq 0
  # 13 tokens per row; out-of-place algbw/busbw are 7 and 8, in-place 11 and 12 (printed to 0.01).
  check "nccl-tests --op $op: busbw = algbw x $factor" awk -v f="$factor" '
    !/^#/ { rows++; for (i = 7; i <= 11; i += 4) { d = $(i + 1) - $i * f; if (d < 0) d = -d; if (d > 0.006 * f + 0.006) bad++ }
            if (NF != 13 || $9 != 0 || $13 != 0) bad++ }
    END { exit !(rows == 7 && bad == 0) }' <<<"$out"
done
# Wall clock and peak memory go to stderr only (they differ between runs; the table must not).
err=$("$build/fathom" nccl-tests "$dgx" -b 1M -e 1M 2>&1 >"$tmp/nccl-stdout.txt")
check "nccl-tests reports its wall clock on stderr" grep -qE '^wall clock: [0-9]+\.[0-9]{3} s$' <<<"$err"
check "nccl-tests reports its peak memory on stderr" grep -qE '^peak memory: [1-9][0-9]*\.[0-9] MiB$' <<<"$err"
check "neither is in the table" bash -c "! grep -qE '^(wall clock|peak memory)' '$tmp/nccl-stdout.txt'"
check "-q silences both" test -z "$("$build/fathom" nccl-tests "$dgx" -b 1M -e 1M -q 2>&1 >/dev/null)"
out=$("$build/fathom" nccl-tests "$dgx" --op all_gather -b 1M -e 1M); check "all_gather: size is the total, count per rank" \
  grep -qE '^ +1048576 +32768 +float +none +-1 ' <<<"$out"
for bad in "--op allreduce" "-b 1Q" "-e banana" "-b 8G -e 1M" "--algo ringg" "--op all_gather --algo nvls -e 1K" "--nodes 2" \
  "--gpus-per-node 9" "-f 0" "--op sendrecv --gpus-per-node 1"; do
  # shellcheck disable=SC2086
  err=$("$build/fathom" nccl-tests "$dgx" $bad 2>&1 >/dev/null); rc=$?
  check "nccl-tests $bad exits 2 with a message" test "$rc" -eq 2 -a -n "$err"
done
err=$("$build/fathom" simulate "$dgx" 2>&1); rc=$?
check "simulate refuses a nccl-tests workload with exit 2" test "$rc" -eq 2
check "and names the key" grep -q "workload.kind" <<<"$err"

# Usage errors, every one `fathom: error: ...` with exit 2, in fathom's own words.
usage() {  # usage NAME PATTERN ARGS...: exits 2, and standard error matches PATTERN
  local name="$1" pattern="$2"
  shift 2
  err=$("$build/fathom" "$@" 2>&1 >/dev/null); rc=$?
  check "$name exits 2" test "$rc" -eq 2
  check "$name says fathom: error:" grep -qE "^fathom: error: $pattern" <<<"$err"
}
usage "bare fathom" "a command is required"
check "bare fathom prints the help" grep -q "Subcommands:" <<<"$("$build/fathom" 2>&1)"
usage "an unknown command" 'unknown command "simulte".*did you mean "simulate"' simulte x.yaml
usage "an unknown flag" 'unknown flag "--jsn".*did you mean "--json"' simulate "$examples/pilot-16-nodes.yaml" --jsn x
usage "a missing scenario" 'cannot read scenario file "no-such.yaml": no such file' simulate no-such.yaml
usage "a flag's bad value" '' nccl-tests "$dgx" -b banana
# `-` is standard output: the report moves to standard error, so the output pipes.
json=$("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --json - 2>/dev/null)
check "--json - writes the JSON report to standard output" python3 -c 'import json, sys; json.loads(sys.stdin.read())' <<<"$json"
# The JSON describes its own run: the --set overrides and every key after them.
json=$("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --set workload.micro_batch=2 --json - 2>/dev/null)
check "the JSON records --set and the keys after it" python3 -c '
import json, sys
s = json.loads(sys.stdin.read())["scenario"]
assert s["overrides"] == ["workload.micro_batch=2"], s["overrides"]
assert s["keys"]["workload.micro_batch"] == "2" and s["keys"]["cluster.nodes"] == "16", s["keys"]' <<<"$json"
csv=$("$build/fathom" topology "$examples/pilot-16-nodes.yaml" --links - 2>/dev/null)
check "--links - writes the CSV to standard output" test "$(head -1 <<<"$csv")" = "name,from,to,bytes_per_s,latency_ns"
# Expectations print the actual figure in the unit the criterion was written in.
out=$("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --set 'expect.mfu=">= 30%"' 2>/dev/null)
check "an expectation in percent prints its actual in percent" grep -qE 'PASS mfu +>= 30% +actual [0-9.]+%$' <<<"$out"
check "an expectation in GB prints its actual in GB" grep -qE 'peak_memory_per_rank +<= 80GB +actual [0-9.]+GB$' <<<"$out"

# User catalogs: a folder extending a built-in accelerator and node, named with --catalog.
mkdir -p "$tmp/cat"
printf 'fast-h100:\n  base: h100-sxm\n  source: "what-if: 20%% more BF16 peak"\n  peak_bf16: 1187TFLOPS\n' \
  >"$tmp/cat/accelerators.yaml"
printf 'fast-node:\n  base: dgx-h100\n  accelerator: fast-h100\n  nics: 2\n' >"$tmp/cat/nodes.yaml"
out=$("$build/fathom" catalog list --catalog "$tmp/cat")
check "fathom catalog list shows a user entry and its file" grep -qE "^  fast-h100 +$tmp/cat/accelerators.yaml" <<<"$out"
check "fathom catalog list shows the built-in entries" grep -qE '^  h100-sxm +<built-in>/' <<<"$out"
out=$("$build/fathom" catalog show fast-node --catalog "$tmp/cat")
check "fathom catalog show names the node's accelerator" grep -qE '^  accelerator +fast-h100$' <<<"$out"
out=$("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --set cluster.node=fast-node --catalog "$tmp/cat" 2>/dev/null)
check "a scenario runs on a user catalog's node" grep -qE "^catalogs: node fast-node from $tmp/cat/nodes.yaml, accelerator fast-h100" <<<"$out"
usage "an unknown catalog entry" 'no catalog entry named "fast-nod".*did you mean "fast-node"' catalog show fast-nod --catalog "$tmp/cat"
usage "a catalog folder that does not exist" '--catalog: Directory does not exist' catalog list --catalog "$tmp/nowhere"

# -o: each command's main output to a file; --quiet prints only errors; --verbose says more.
"$build/fathom" simulate "$examples/pilot-16-nodes.yaml" -o "$tmp/report.txt" >"$tmp/stdout.txt" 2>/dev/null
check "simulate -o writes the report to the file" grep -q '^fingerprint=' "$tmp/report.txt"
check "simulate -o leaves standard output empty" test ! -s "$tmp/stdout.txt"
check "simulate -o writes what simulate prints" \
  cmp -s "$tmp/report.txt" <("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" 2>/dev/null)
"$build/fathom" nccl-tests "$dgx" -b 1M -e 4M -o "$tmp/table.txt" >/dev/null
check "nccl-tests -o writes the table" grep -q '^# Avg bus bandwidth' "$tmp/table.txt"
"$build/fathom" topology "$examples/pilot-16-nodes.yaml" -o "$tmp/topology.txt" >/dev/null
check "topology -o writes the description" grep -q '^endpoints: ' "$tmp/topology.txt"
"$build/fathom" catalog list -o "$tmp/catalog.txt"
check "catalog list -o writes the list" grep -qE '^  h100-sxm ' "$tmp/catalog.txt"
out=$("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --quiet 2>&1)
check "--quiet prints nothing when the run succeeds" test -z "$out"
"$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --quiet --json "$tmp/quiet.json" >/dev/null 2>&1
check "--quiet still writes the files asked for" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/quiet.json"
out=$("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --quiet --set workload.parallel.tp=1 2>&1); rc=$?
check "--quiet still prints errors" grep -q '^fathom: error: ' <<<"$out"
check "--quiet keeps the exit code of an error" test "$rc" -eq 2
err=$("$build/fathom" simulate "$examples/pilot-16-nodes.yaml" --verbose --json "$tmp/verbose.json" 2>&1 >/dev/null)
check "--verbose names the scenario" grep -q "^fathom: scenario $examples/pilot-16-nodes.yaml" <<<"$err"
check "--verbose names each file written" grep -q "^fathom: wrote $tmp/verbose.json" <<<"$err"
usage "--quiet with --verbose" '--quiet excludes --verbose' simulate "$examples/pilot-16-nodes.yaml" --quiet --verbose
usage "-o - with --json -" '-o - and another output on standard output .*cannot both' simulate "$examples/pilot-16-nodes.yaml" -o - --json -

# A wafer-scale scenario: one weight-streaming step, its JSON report, its SwarmX tree; the
# commands that need a GPU cluster refuse it by name.
wafer="$examples/cs3-llama3-70b-weight-streaming.yaml"
out=$("$build/fathom" simulate "$wafer" --json "$tmp/wafer.json" 2>/dev/null); rc=$?
check "simulate runs the wafer-scale example" test "$rc" -eq 0
check "the wafer report gives the step and the balance point" grep -qE '^step time +[0-9.]+ s' <<<"$out"
check "the wafer JSON holds the step and the memory" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cluster"]["kind"] == "wafer-scale" and r["cluster"]["systems"] == 64
t = r["training"]
assert t["step_time_s"] >= max(t["busy_s"].values()) > 0
assert r["memory"]["activation_bytes"] + r["memory"]["weight_buffer_bytes"] + r["memory"]["gradient_buffer_bytes"] <= r["memory"]["sram_capacity_bytes"]
' "$tmp/wafer.json"
again=$("$build/fathom" simulate "$wafer" 2>/dev/null)
check "the wafer report is the same run to run" test "$out" = "$again"
"$build/fathom" simulate "$wafer" --set 'expect={step_time: "<= 1s"}' >/dev/null 2>&1; rc=$?
check "a failed wafer expectation exits 1" test "$rc" -eq 1
"$build/fathom" simulate "$wafer" --json "$tmp/wafer-cost.json" \
  --set 'cost={node_price: $2e6, node_power: 25kW, switch_price: $5e4, switch_power: 1kW, memoryx_price: $3e6}' \
  --set 'cluster.memoryx={base: memoryx-12tb, power: 20kW}' >/dev/null 2>&1; rc=$?
check "a wafer-scale run is priced with the prices it is given" test "$rc" -eq 0
check "the wafer JSON holds the bill" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cost"]
assert abs(c["capex_usd"] - sum(l["count"] * l["unit_usd"] for l in c["capex"])) < 1, c
' "$tmp/wafer-cost.json"
out=$("$build/fathom" topology "$wafer" 2>/dev/null)
check "topology describes the SwarmX tree" grep -qE '^  SwarmX 3 +1 ' <<<"$out"
"$build/fathom" topology "$wafer" --links "$tmp/wafer-links.csv" >/dev/null 2>&1
check "topology --links writes the tree's links, both ways" test "$(wc -l <"$tmp/wafer-links.csv")" -eq $((1 + 2 * (64 + 16 + 4 + 1)))
usage "nccl-tests on a wafer-scale cluster" '.*nccl-tests needs a GPU cluster' nccl-tests "$wafer"
serving="$examples/cs3-llama3.1-70b-serving.yaml"
"$build/fathom" simulate "$serving" --set workload.requests.count=200 --json "$tmp/wafer-serving.json" \
  --requests-out "$tmp/wafer-requests.csv" >/dev/null 2>&1; rc=$?
check "simulate serves from wafers" test "$rc" -eq 0
check "the wafer service's JSON gives the dataflow latency of its iterations" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t = r["replicas"][0]["iteration_time_s"]
assert t["dataflow_latency"] > 0.5 * sum(t.values()), t
' "$tmp/wafer-serving.json"
check "the wafer service writes one row per request" test "$(wc -l <"$tmp/wafer-requests.csv")" -eq 201
usage "a GPU output on a wafer-scale scenario" '.*writes its report and --json only' simulate "$wafer" --flows-out "$tmp/f.csv"

echo "cli: $failures failed"
[ "$failures" -eq 0 ]
