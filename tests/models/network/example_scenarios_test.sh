#!/usr/bin/env bash
# The two example fabric scenarios end to end: `fathom topology` writes the links and the
# routes, `fathom simulate` writes the flows' finish times, and the independent reference
# solver replays those three CSVs and must agree on every flow (1e-6 relative or 1 us). The
# permutation runs once more with adaptive routing: every flow spread over the 8 spines, its
# routes written with each link's fraction of the bytes.
set -euo pipefail
build="$1"
examples="$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for run in fat-tree-1024-permutation:ecmp fat-tree-a2a-64:ecmp fat-tree-1024-permutation:adaptive; do
  name=${run%%:*}
  routing=${run##*:}
  scenario="$examples/$name.yaml"
  set_routing=(--set "cluster.fabric.routing=$routing")
  "$build/fathom" topology "$scenario" "${set_routing[@]}" --links "$out/links.csv" --routes "$out/routes.csv" >/dev/null
  "$build/fathom" simulate "$scenario" "${set_routing[@]}" --flows-out "$out/flows.csv" >/dev/null 2>&1
  echo -n "$name ($routing): "
  "$build/tests/replay-reference" "$out/links.csv" "$out/routes.csv" "$out/flows.csv"
done
