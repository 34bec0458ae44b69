#!/usr/bin/env bash
# The long mode of the CLI fuzz harness (tests/fuzz/cli_fuzz.py): thousands of mutated inputs
# from several seeds. CTest runs 80 iterations of seed 1; this runs ITERATIONS (default 5000)
# per seed and prints each seed's summary.
#
#   bash bench/cli_fuzz_long.sh BUILD SOURCE [ITERATIONS] [SEEDS...]
set -uo pipefail
build="$1"
source_dir="$2"
iterations="${3:-5000}"
shift $(( $# >= 3 ? 3 : $# ))
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3)
status=0
for seed in "${seeds[@]}"; do
  /usr/bin/python3 "$source_dir/tests/fuzz/cli_fuzz.py" "$build" "$source_dir" --iterations "$iterations" \
    --seed "$seed" --timeout 120 | grep -E '^(FAILED|slow|cli fuzz)'
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
exit $status
