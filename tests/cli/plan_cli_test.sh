#!/usr/bin/env bash
# `fathom plan --journal FILE` killed part-way and continued with --resume ends with the same
# ranking and CSV, to the byte, as a run never stopped; a journal of another plan or a damaged
# one is refused (exit 2, the file and line named), as is --resume without --journal.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
# The 64-GPU Llama 3 70B search of bench/plan/, narrowed to 4,096 candidates (a few seconds).
plan="$source_dir/bench/plan/llama3-70b-64-h100.yaml"
narrow=(--set "plan.vary.zero=[1]" --set "plan.vary.overlap_grad_reduce=[true]" --threads 2)
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$fathom" plan "$plan" "${narrow[@]}" --csv "$tmp/whole.csv" >"$tmp/whole.txt" 2>/dev/null
check "the narrowed search runs" grep -q "^plan: 4096 candidates" "$tmp/whole.txt"

# --json: every candidate, its rank the CSV's, the ranking in rank order, each simulated one's
# breakdown adding up to its step.
"$fathom" plan "$plan" "${narrow[@]}" --json "$tmp/whole.json" --csv "$tmp/with-json.csv" >/dev/null 2>&1
check "--json leaves the CSV as it was" cmp -s "$tmp/whole.csv" "$tmp/with-json.csv"
check "the JSON agrees with the CSV" /usr/bin/python3 - "$tmp/whole.json" "$tmp/whole.csv" <<'PY'
import csv, json, sys
plan = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert plan["candidates"] == len(plan["results"]) == len(rows) == 4096
for r, row in zip(plan["results"], rows):
    assert str(r["index"]) == row["index"] and r["status"] == row["status"]
    assert (str(r["rank"]) if r["rank"] is not None else "") == row["rank"]
    if "step_s" in r:
        assert abs(sum(r["breakdown_s"].values()) - r["step_s"]) <= 1e-9 * r["step_s"] + 1e-6, r
assert [plan["results"][i]["rank"] for i in plan["ranking"]] == list(range(1, len(plan["ranking"]) + 1))
PY

# Killed (SIGKILL: no handler runs) a moment after it starts, then resumed.
"$fathom" plan "$plan" "${narrow[@]}" --journal "$tmp/journal" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
lines=$(wc -l <"$tmp/journal")
echo "note: the killed run journalled $((lines - 1)) of 4096 candidates"
check "the killed run left a journal with its header" grep -q "^fathom-plan-journal 2 " "$tmp/journal"
"$fathom" plan "$plan" "${narrow[@]}" --journal "$tmp/journal" --resume --csv "$tmp/resumed.csv" \
  >"$tmp/resumed.txt" 2>/dev/null
rc=$?
check "the resumed run succeeds" test "$rc" -eq 0
check "the resumed ranking is byte-identical" cmp -s "$tmp/whole.txt" "$tmp/resumed.txt"
check "the resumed CSV is byte-identical" cmp -s "$tmp/whole.csv" "$tmp/resumed.csv"
check "the journal now holds every candidate once" test "$(wc -l <"$tmp/journal")" -eq 4097
check "no candidate is journalled twice" test "$(tail -n +2 "$tmp/journal" | cut -f1 | sort -u | wc -l)" -eq 4096

# A complete journal: nothing left to evaluate, the same output.
"$fathom" plan "$plan" "${narrow[@]}" --journal "$tmp/journal" --resume >"$tmp/again.txt" 2>/dev/null
check "resuming a complete journal gives the same ranking" cmp -s "$tmp/whole.txt" "$tmp/again.txt"

# A line cut short by the kill is dropped and evaluated again.
head -c -20 "$tmp/journal" >"$tmp/cut"
"$fathom" plan "$plan" "${narrow[@]}" --journal "$tmp/cut" --resume >"$tmp/cut.txt" 2>/dev/null
check "a journal whose last line was cut resumes to the same ranking" cmp -s "$tmp/whole.txt" "$tmp/cut.txt"

# Another plan's journal: refused, named.
err=$("$fathom" plan "$plan" "${narrow[@]}" --set "plan.vary.tp=[8]" --journal "$tmp/journal" --resume 2>&1 >/dev/null)
rc=$?
check "another plan's journal exits 2" test "$rc" -eq 2
check "the message names the journal and its first line" grep -q "journal:1: expected the journal of this plan" <<<"$err"

# A damaged line before the last: refused with its line number.
sed '3s/^[0-9]*\t/x\t/' "$tmp/journal" >"$tmp/damaged"
err=$("$fathom" plan "$plan" "${narrow[@]}" --journal "$tmp/damaged" --resume 2>&1 >/dev/null)
rc=$?
check "a damaged journal exits 2" test "$rc" -eq 2
check "the message names the damaged line" grep -q "damaged:3: expected a journal line" <<<"$err"

err=$("$fathom" plan "$plan" "${narrow[@]}" --resume 2>&1 >/dev/null)
rc=$?
check "--resume without --journal exits 2" test "$rc" -eq 2

# Candidates load on every thread: a --catalog folder's node is found on each, the same as on one.
catalog="$source_dir/scenarios/examples/catalogs/what-if"
node_plan=(--set "plan.vary={node: [dgx-h100, generic-8gpu-roce-plus20], pp: [4, 8]}" --set workload.parallel.tp=8
  --catalog "$catalog")
"$fathom" plan "$plan" "${node_plan[@]}" --threads 2 --csv "$tmp/nodes2.csv" >/dev/null 2>&1
"$fathom" plan "$plan" "${node_plan[@]}" --threads 1 --csv "$tmp/nodes1.csv" >/dev/null 2>&1
check "a --catalog node loads on worker threads" grep -q "generic-8gpu-roce-plus20,4,feasible" "$tmp/nodes2.csv"
check "the --catalog plan is the same on 1 and 2 threads" cmp -s "$tmp/nodes1.csv" "$tmp/nodes2.csv"

echo "$failures failure(s)"
test "$failures" -eq 0
