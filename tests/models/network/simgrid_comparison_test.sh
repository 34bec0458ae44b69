#!/usr/bin/env bash
# The two example fabric scenarios (ECMP routing), replayed in SimGrid: `fathom topology` writes
# the links and the routes, `fathom simulate` the flows' finish times, and replay-simgrid runs
# the same flows on the same links and routes in SimGrid's max-min (CM02, no cross-traffic,
# latency as a wait) and must agree on every flow within 1e-6 relative or 1 us. The
# permutation runs a second time with its 1,024 starts spread over 10 ms, so that flows arrive
# and leave while others run.
set -euo pipefail
build="$1"
examples="$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
check() {
  local label="$1" scenario="$2"
  shift 2
  "$build/fathom" topology "$scenario" "$@" --links "$out/links.csv" --routes "$out/routes.csv" >/dev/null
  "$build/fathom" simulate "$scenario" "$@" --flows-out "$out/flows.csv" >/dev/null 2>&1
  echo -n "$label: "
  "$build/tests/replay-simgrid" "$out/links.csv" "$out/routes.csv" "$out/flows.csv" 2>"$out/simgrid.log" | grep -v '^simgrid_wall_s='
}
check "all-to-all 64" "$examples/fat-tree-a2a-64.yaml"
check "permutation 1024" "$examples/fat-tree-1024-permutation.yaml"
check "permutation 1024, starts over 10 ms" "$examples/fat-tree-1024-permutation.yaml" --set workload.start_window=10ms
