#!/usr/bin/env bash
# Megatron-LM SC'21 Table 1 (data/validation/megatron-sc21-table1.csv): every row is a scenario
# file in scenarios/validation/megatron-sc21-table1/, simulated with the catalog's DGX A100 and
# default efficiencies (nothing fitted to these rows; docs/validation.md gives every setting and
# why). Prints simulated and published TFLOP/s per GPU (hardware FLOPs, recomputation included)
# and the relative error of every row, then asserts:
#   every row within 10%, and the mean absolute error over the rows at most 5%.
set -uo pipefail
build="$1"
source_dir="$2"
csv="$source_dir/data/validation/megatron-sc21-table1.csv"
dir="$source_dir/scenarios/validation/megatron-sc21-table1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
printf "%8s %10s %10s %8s\n" "params_b" "sim_TF/s" "paper_TF/s" "error"
sum_abs=0
rows=0
while IFS=, read -r params heads hidden layers tp pp gpus batch achieved rest; do
  [ "$params" = "params_billion" ] && continue
  name="${params%.0}"
  file="$dir/${name}b.yaml"
  if [ ! -f "$file" ]; then echo "FAILED: no scenario $file"; failures=$((failures + 1)); continue; fi
  if ! "$build/fathom" simulate "$file" --json "$work/$name.json" > "$work/$name.txt" 2>&1; then
    echo "FAILED: fathom simulate $file"; cat "$work/$name.txt"; failures=$((failures + 1)); continue
  fi
  sim=$(awk -F': ' '/"hardware_tflops_per_gpu"/ { gsub(/,/, "", $2); print $2; exit }' "$work/$name.json")
  line=$(awk -v s="$sim" -v m="$achieved" -v p="$params" 'BEGIN {
    e = (s - m) / m; a = e < 0 ? -e : e
    printf "%8s %10.1f %10.1f %+7.1f%% %s\n", p, s, m, 100 * e, (a > 0.10 ? "FAILED (> 10%)" : "")
  }')
  echo "$line"
  case "$line" in *FAILED*) failures=$((failures + 1)) ;; esac
  sum_abs=$(awk -v t="$sum_abs" -v s="$sim" -v m="$achieved" 'BEGIN { e = (s - m) / m; print t + (e < 0 ? -e : e) }')
  rows=$((rows + 1))
done < "$csv"

if [ "$rows" -ne 10 ]; then echo "FAILED: expected 10 rows, compared $rows"; failures=$((failures + 1)); fi
mae=$(awk -v t="$sum_abs" -v n="$rows" 'BEGIN { printf "%.2f", (n > 0 ? 100 * t / n : 100) }')
echo "mean absolute error: ${mae}% (limit 5%)"
if awk -v m="$mae" 'BEGIN { exit !(m > 5) }'; then echo "FAILED: mean absolute error above 5%"; failures=$((failures + 1)); fi
echo "Megatron SC'21 Table 1: $failures failed"
[ "$failures" -eq 0 ]
