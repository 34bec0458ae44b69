#!/usr/bin/env bash
# `mpirun -n N fathom plan` splits the candidates across N processes and gathers them to rank
# 0, which writes the ranking and the CSV: byte-identical to one process, for 2 ranks and for
# 3 (a share that does not divide evenly); only rank 0 writes; a failure exits non-zero.
set -uo pipefail
build="$(cd "$1" && pwd)"
source_dir="$(cd "$2" && pwd)"
fathom="$build/fathom"
plan="$source_dir/bench/plan/llama3-70b-64-h100.yaml"
narrow=(--set "plan.vary.zero=[1]" --set "plan.vary.overlap_grad_reduce=[true]" --threads 1)
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CI runs as root on 2 cores: OpenMPI refuses root and more ranks than cores unless told; a
# container may forbid the cross-memory attach its shared-memory transport tries first.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun=(mpirun --oversubscribe)

"$fathom" plan "$plan" "${narrow[@]}" --csv "$tmp/one.csv" >"$tmp/one.txt" 2>/dev/null
check "one process ranks the narrowed search" grep -q "^plan: 4096 candidates" "$tmp/one.txt"
for n in 2 3; do
  (cd "$tmp" && "${mpirun[@]}" -n "$n" "$fathom" plan "$plan" "${narrow[@]}" --csv "$tmp/mpi-$n.csv" \
    >"$tmp/mpi-$n.txt" 2>"$tmp/mpi-$n.err")
  rc=$?
  check "$n ranks succeed" test "$rc" -eq 0
  check "$n ranks: the ranking is byte-identical" cmp -s "$tmp/one.txt" "$tmp/mpi-$n.txt"
  check "$n ranks: the CSV is byte-identical" cmp -s "$tmp/one.csv" "$tmp/mpi-$n.csv"
  check "$n ranks: one wall-clock line (rank 0's)" test "$(grep -c '^wall clock' "$tmp/mpi-$n.err")" -eq 1
  check "$n ranks: nothing else written where they ran" test "$(ls "$tmp" | grep -vc '\.\(csv\|txt\|err\)$')" -eq 0
done

"${mpirun[@]}" -n 2 "$fathom" plan "$plan" "${narrow[@]}" --set "plan.vary.tp=[x]" --csv "$tmp/bad.csv" \
  >/dev/null 2>"$tmp/bad.err"
check "an invalid axis value under mpirun still runs (every candidate invalid)" grep -q "invalid" "$tmp/bad.csv"
"${mpirun[@]}" -n 2 "$fathom" plan "$plan" "${narrow[@]}" --journal "$tmp/journal" >/dev/null 2>"$tmp/j.err"
rc=$?
check "--journal under mpirun exits non-zero" test "$rc" -ne 0
check "--journal under mpirun says why" grep -q "expected a run in one process" "$tmp/j.err"
"${mpirun[@]}" -n 2 "$fathom" plan "$tmp/missing.yaml" >/dev/null 2>&1
rc=$?
check "a missing scenario under mpirun exits non-zero" test "$rc" -ne 0

echo "$failures failure(s)"
test "$failures" -eq 0
