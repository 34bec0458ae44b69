#!/usr/bin/env bash
# Korthikanti et al. 2022 (data/validation/korthikanti-2022-table5.csv): GPT models of 22B to 1T
# on A100 with sequence parallelism and selective recomputation, every row a scenario file in
# scenarios/validation/korthikanti-2022/ whose keys cite the paper (docs/validation.md). Prints
# fathom's step time and MFU beside the published iteration time and MFU, and asserts each row's
# step time within the row's tolerance (10%), as its `expected` column says (`within`).
set -uo pipefail
build="$1"
source_dir="$2"
csv="$source_dir/data/validation/korthikanti-2022-table5.csv"
dir="$source_dir/scenarios/validation/korthikanti-2022"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
rows=0
printf "%6s %10s %10s %8s %9s %9s %7s\n" model paper_s fathom_s error paper_mfu fathom_mfu points
while IFS=, read -r model heads hidden layers tp pp gpus batch mb full_s present_s mfu hfu tolerance expected; do
  case "$model" in "#"* | model) continue ;; esac
  file="$dir/$model.yaml"
  if ! "$build/fathom" simulate "$file" --json "$work/$model.json" >"$work/$model.txt" 2>&1; then
    echo "FAILED: fathom simulate $file"; cat "$work/$model.txt"; failures=$((failures + 1)); continue
  fi
  value() { awk -F': ' -v k="\"$1\"" '$1 ~ k { gsub(/[, ]/, "", $2); print $2; exit }' "$work/$model.json"; }
  step=$(value step_time_s)
  sim_mfu=$(value mfu)
  line=$(awk -v s="$step" -v p="$present_s" -v m="$mfu" -v f="$sim_mfu" -v t="$tolerance" -v e="$expected" \
    -v name="$model" 'BEGIN {
    err = (s - p) / p; a = err < 0 ? -err : err; within = a <= t ? "within" : "gap"
    printf "%6s %10.2f %10.3f %+7.1f%% %8.1f%% %8.1f%% %+6.1f %s\n", name, p, s, 100 * err, m, 100 * f,
      100 * f - m, (within == e ? "" : "FAILED (expected " e ", found " within ")")
  }')
  echo "$line"
  case "$line" in *FAILED*) failures=$((failures + 1)) ;; esac
  rows=$((rows + 1))
done <"$csv"
if [ "$rows" -ne 4 ]; then echo "FAILED: expected 4 rows, compared $rows"; failures=$((failures + 1)); fi
echo "Korthikanti et al. 2022: $rows rows, $failures failed"
[ "$failures" -eq 0 ]
