#!/usr/bin/env bash
# The go-live report as a browser shows it: the pilot's and the production's HTML reports and a
# wafer-scale cluster's, rendered by headless Chromium (Debian's `chromium`). The rendered DOM
# must hold the three plots with their bars and every criterion's row, and a screenshot must
# show a page with colour on it, not a blank one. Skips (exit 77) only when chromium is not installed; CI
# installs it (scripts/install-deps.sh).
#
# Usage: golive_chromium_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
source_dir="$2"
fathom="$build/fathom"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIP: chromium is not installed (apt-get install chromium)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# A throwaway profile, no first-run work, no network: the page must need none.
chrome() {
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$work/profile" --disable-extensions --hide-scrollbars "$@" 2>>"$work/chromium.log"
}

for name in pilot-16-nodes production-2048-nodes cs3-llama3-70b-golive; do
  html="$work/$name.html"
  (cd "$source_dir" && "$fathom" report "scenarios/examples/$name.yaml" -o "$html" -q)
  rc=$?
  # 0: every criterion passes, 1: one fails; either way the report is written.
  if [ "$rc" -gt 1 ] || [ ! -s "$html" ]; then fail "$name: fathom report exited $rc"; continue; fi
  chrome --dump-dom "file://$html" >"$work/$name.dom"
  dom="$work/$name.dom"
  [ -s "$dom" ] || { fail "$name: chromium rendered nothing"; cat "$work/chromium.log"; continue; }
  for chart in criteria-chart step-chart memory-chart; do
    grep -q "<svg[^>]*id=\"$chart\"" "$dom" || fail "$name: the rendered page has no $chart"
  done
  bars=$(grep -o 'class="bar"' "$dom" | wc -l)
  [ "$bars" -ge 10 ] || fail "$name: $bars bars drawn, expected at least 10"
  # Every criterion row of the file rendered: at least the eleven the examples give.
  rows=$(grep -o '<tr class="criterion' "$dom" | wc -l)
  written=$(grep -o '<tr class="criterion' "$html" | wc -l)
  [ "$rows" -eq "$written" ] && [ "$rows" -ge 11 ] || fail "$name: $rows criterion rows rendered of $written"
  # The fabric's row: nccl-tests on a GPU cluster, the SwarmX weight stream on a wafer-scale one.
  fabric="Inter-node bandwidth utilisation"
  case "$name" in cs3-*) fabric="Weight-stream bandwidth utilisation (SwarmX)" ;; esac
  for text in "Training throughput against peak (MFU)" "$fabric" \
    "72-hour run without OOM" "Pilot then production" "P99 inference latency (time per output token)"; do
    grep -qF "$text" "$dom" || fail "$name: no \"$text\" in the rendered page"
  done
  chrome --screenshot="$work/$name.png" --window-size=1000,2200 "file://$html" >/dev/null
  [ "$name" = production-2048-nodes ] && cp "$work/$name.png" /tmp/golive-production.png
  /usr/bin/python3 "$source_dir/tests/report/png_check.py" "$work/$name.png" || fail "$name: the screenshot"
done
[ "$failures" -eq 0 ] && echo "go-live reports render in chromium: pilot, production and wafer-scale"
[ "$failures" -eq 0 ]
