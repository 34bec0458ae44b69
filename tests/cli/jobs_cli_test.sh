#!/usr/bin/env bash
# `fathom simulate` on jobs scenarios as a user runs it: the KTH log under EASY, its JSON `jobs`
# section, the per-job and timeline CSVs, byte-identical outputs on a second run, --set of the
# policy, and bad input: a trace job larger than the cluster (exit 2, the trace's file:line), a
# flag of another workload kind, and no output touched when the run fails; then training beside
# inference: the services' outputs and the same bytes on one thread or four.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
kth="$source_dir/scenarios/examples/kth-sp2-easy.yaml"
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$fathom" simulate "$kth" --json "$tmp/a.json" --jobs-out "$tmp/a-jobs.csv" --timeline-out "$tmp/a-tl.csv" \
  2>/dev/null); rc=$?
check "the KTH scenario runs" test "$rc" -eq 0
check "the report gives the waits" grep -qE '^  wait +mean' <<<"$out"
check "the report names the record it left out" grep -q "left out: 1 size unknown" <<<"$out"
check "the report ends with a fingerprint" grep -qE '^fingerprint=[0-9a-f]{16}$' <<<"$(tail -1 <<<"$out")"
for key in count utilization makespan_s mean_wait_s p50_wait_s p90_wait_s p99_wait_s mean_bounded_slowdown \
  mean_jct_s allocation_ratio; do
  check "JSON jobs has $key" grep -q "\"$key\"" "$tmp/a.json"
done
check "JSON counts the jobs" grep -q '"count": 28475' "$tmp/a.json"
check "the jobs CSV has a header and a row per job" test "$(wc -l <"$tmp/a-jobs.csv")" -eq 28476
check "the jobs CSV header" grep -q '^job,name,user,group,line,submit_s,start_s,end_s,wait_s,run_s,alone_run_s,interference,estimate_s,gpus,nodes,leaves,slowdown,bounded_slowdown,preemptions,logged_wait_s$' "$tmp/a-jobs.csv"
check "the timeline CSV header" grep -q '^time_s,busy_gpus,utilisation,queued,running,free_gpus,stranded_gpus,fragmentation$' "$tmp/a-tl.csv"
# No job starts before it is submitted; no instant has more GPUs busy than the cluster's 100.
check "no job starts before its submit time" awk -F, 'NR > 1 && $7 < $6 { bad = 1 } END { exit bad }' "$tmp/a-jobs.csv"
check "never more than 100 GPUs busy" awk -F, 'NR > 1 && $2 > 100 { bad = 1 } END { exit bad }' "$tmp/a-tl.csv"
"$fathom" simulate "$kth" --json "$tmp/b.json" --jobs-out "$tmp/b-jobs.csv" --timeline-out "$tmp/b-tl.csv" \
  >/dev/null 2>&1
check "JSON is byte-identical on a second run" cmp -s "$tmp/a.json" "$tmp/b.json"
check "the jobs CSV is byte-identical on a second run" cmp -s "$tmp/a-jobs.csv" "$tmp/b-jobs.csv"
check "the timeline is byte-identical on a second run" cmp -s "$tmp/a-tl.csv" "$tmp/b-tl.csv"

"$fathom" simulate "$kth" --trace "$tmp/kth-trace.json" >/dev/null 2>&1
check "--trace writes a track per node" grep -q '"name":"thread_name","args":{"name":"node 99"}' "$tmp/kth-trace.json"
check "--trace has a slice per job and node" grep -q '"name":"job 15","cat":"job"' "$tmp/kth-trace.json"
/usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/kth-trace.json"
check "--trace is valid JSON" test $? -eq 0
"$fathom" simulate "$kth" --set workload.scheduler.backfill=none --json "$tmp/none.json" >/dev/null 2>&1
check "--set changes the policy" grep -q '"backfill": "none"' "$tmp/none.json"
mean() { grep -oE '"mean_wait_s": [0-9.e+]+' "$1" | awk '{print $2}'; }
check "without backfilling the mean wait is longer" awk -v a="$(mean "$tmp/none.json")" -v b="$(mean "$tmp/a.json")" \
  'BEGIN { exit !(a > b) }'

echo "untouched" >"$tmp/keep.json"
err=$("$fathom" simulate "$kth" --set cluster.nodes=50 --json "$tmp/keep.json" 2>&1 >/dev/null); rc=$?
check "a job larger than the cluster exits 2" test "$rc" -eq 2
check "the error names the trace's file and line" grep -qE 'KTH-SP2-1996-2.1-cln.swf.gz:[0-9]+:1: workload.trace.file: expected jobs of at most the cluster.s 50 GPUs' <<<"$err"
check "the error says how to drop them" grep -q "oversize: drop" <<<"$err"
check "a failed run leaves the output untouched" grep -q untouched "$tmp/keep.json"
out=$("$fathom" simulate "$kth" --set cluster.nodes=50 --set workload.trace.oversize=drop 2>/dev/null); rc=$?
check "oversize: drop runs and counts what it dropped" grep -qE "left out: [0-9]+ larger than the cluster's 50 GPUs" <<<"$out"
err=$("$fathom" simulate "$kth" --flows-out "$tmp/f.csv" 2>&1 >/dev/null); rc=$?
check "a traffic flag on a jobs workload is refused" test "$rc" -ne 0 -a ! -e "$tmp/f.csv"
check "the refusal says why" grep -q "apply to traffic workloads" <<<"$err"
pilot="$source_dir/scenarios/examples/pilot-16-nodes.yaml"
err=$("$fathom" simulate "$pilot" --jobs-out "$tmp/j.csv" 2>&1 >/dev/null); rc=$?
check "a jobs flag on a training workload is refused" test "$rc" -ne 0 -a ! -e "$tmp/j.csv"

alibaba="$source_dir/scenarios/examples/alibaba-packing.yaml"
out=$("$fathom" simulate "$alibaba" --set workload.placement=packing --json "$tmp/p.json" 2>/dev/null); rc=$?
check "the packing experiment runs" test "$rc" -eq 0
check "its report gives the allocation at 100%" grep -qE '^  allocated at 100% +9[0-9]\.[0-9]+% of the GPUs' <<<"$out"
for key in allocation_ratio_at_100 allocation_ratio allocation_curve fragmentation failed; do
  check "its JSON has $key" grep -q "\"$key\"" "$tmp/p.json"
done
err=$("$fathom" simulate "$alibaba" --jobs-out "$tmp/pj.csv" 2>&1 >/dev/null); rc=$?
check "--jobs-out is refused for the packing experiment" test "$rc" -ne 0 -a ! -e "$tmp/pj.csv"
err=$("$fathom" simulate "$alibaba" --set cluster.nodes=1000 2>&1 >/dev/null); rc=$?
check "a node list that is not the cluster's is refused" grep -q "expected a node list of the cluster's 1000 nodes" <<<"$err"
err=$("$fathom" simulate "$kth" --set workload.placement=fgd 2>&1 >/dev/null); rc=$?
check "fgd is refused for whole-GPU traces" grep -q "only with format: alibaba" <<<"$err"

# Training beside inference: the services' outputs, and the same bytes on one thread or four
# (with a dispatch delay the services' replicas run on the parallel scheduler).
shared="$source_dir/scenarios/examples/training-beside-inference.yaml"
delay=(--set "workload.services[0].serving.dispatch_delay=100us")
out=$("$fathom" simulate "$shared" "${delay[@]}" --json "$tmp/s1.json" --requests-out "$tmp/s1-req.csv" \
  --timeline-out "$tmp/s1-tl.csv" --trace "$tmp/s1-trace.json" 2>/dev/null); rc=$?
check "the shared cluster runs" test "$rc" -eq 0
check "its report gives the jobs' preemptions and shrinks" grep -qE '^the jobs: [0-9]+ preemptions, [0-9]+ shrinks' <<<"$out"
check "its report gives the service's latency" grep -qE '^  TTFT ' <<<"$out"
check "its JSON has the services" grep -q '"services"' "$tmp/s1.json"
check "its JSON has what the jobs paid" grep -q '"checkpoint_gpu_hours"' "$tmp/s1.json"
check "the requests CSV names the service" grep -q '^service,request,arrival_s' "$tmp/s1-req.csv"
check "the requests CSV has a row per request" test "$(wc -l <"$tmp/s1-req.csv")" -eq 43201
check "the timeline has the services' GPUs" grep -q ',fragmentation,service_gpus$' "$tmp/s1-tl.csv"
check "never more than 32 GPUs held" awk -F, 'NR > 1 && $2 + $9 > 32 { bad = 1 } END { exit bad }' "$tmp/s1-tl.csv"
check "--trace has the replicas' slices" grep -q '"name":"chat replica 2","cat":"replica"' "$tmp/s1-trace.json"
"$fathom" simulate "$shared" "${delay[@]}" --threads 4 --json "$tmp/s4.json" --requests-out "$tmp/s4-req.csv" \
  --timeline-out "$tmp/s4-tl.csv" >/dev/null 2>&1
check "the shared cluster's JSON is the same on four threads" cmp -s "$tmp/s1.json" "$tmp/s4.json"
check "its requests are the same on four threads" cmp -s "$tmp/s1-req.csv" "$tmp/s4-req.csv"
check "its timeline is the same on four threads" cmp -s "$tmp/s1-tl.csv" "$tmp/s4-tl.csv"
err=$("$fathom" simulate "$kth" --requests-out "$tmp/r.csv" 2>&1 >/dev/null); rc=$?
check "--requests-out without services is refused" test "$rc" -ne 0 -a ! -e "$tmp/r.csv"

exit $((failures > 0))
