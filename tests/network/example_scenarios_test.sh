#!/usr/bin/env bash
# The two example fabric scenarios end to end: `fathom topology` writes the links and the
# routes, `fathom simulate` writes the flows' finish times, and the independent reference
# solver replays those three CSVs and must agree on every flow (1e-6 relative or 1 us).
set -euo pipefail
build="$1"
examples="$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for name in fat-tree-1024-permutation fat-tree-a2a-64; do
  scenario="$examples/$name.yaml"
  "$build/fathom" topology "$scenario" --links "$out/links.csv" --routes "$out/routes.csv" >/dev/null
  "$build/fathom" simulate "$scenario" --flows-out "$out/flows.csv" >/dev/null 2>&1
  echo -n "$name: "
  "$build/tests/replay-reference" "$out/links.csv" "$out/routes.csv" "$out/flows.csv"
done
