#!/usr/bin/env bash
# `fathom report` as a user runs it (docs/go-live.md): Markdown on standard output, HTML and
# Markdown files by extension, the same bytes on a second run, exit 1 after writing the report
# when a criterion fails, and bad input (an unknown extension, a missing pilot, an unknown key)
# refused with exit 2, its file:line:key named and no file touched.
set -uo pipefail
build="$1"
source_dir="$2"
fathom="$build/fathom"
pilot="$source_dir/scenarios/examples/pilot-16-nodes.yaml"
source "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$fathom" report "$pilot" 2>/dev/null); rc=$?
check "the pilot's report exits 0 or 1" test "$rc" -le 1
check "standard output has the criteria table" grep -q '^| criterion | predicted | target | verdict |' <<<"$out"
check "without a service, the inference rows say how to get one" \
  grep -q 'P99 inference latency (time per output token).*not evaluated.*report.service' <<<"$out"
svc=$("$fathom" report "$pilot" --set report.service=llama3-8b-serving.yaml 2>/dev/null)
check "report.service fills the inference rows" \
  grep -qE '^\| P99 inference latency \(time per output token\) \| [0-9.]+ ms \| <= 50.000 ms .*\| pass \|' <<<"$svc"
"$fathom" report "$pilot" -o "$tmp/a.html" 2>/dev/null; html_rc=$?
check "the HTML report exits as the text one" test "$html_rc" -eq "$rc"
check "-o .html writes HTML" grep -q '^<!DOCTYPE html>' "$tmp/a.html"
check "the HTML has its plots inline" grep -q '<svg[^>]*id="step-chart"' "$tmp/a.html"
check "the HTML fetches nothing" bash -c "! grep -qE '<script| src=| href=' '$tmp/a.html'"
"$fathom" report "$pilot" -o "$tmp/b.html" 2>/dev/null
check "the HTML is byte-identical on a second run" cmp -s "$tmp/a.html" "$tmp/b.html"
"$fathom" report "$pilot" -o "$tmp/a.md" 2>/dev/null
check "-o .md writes the Markdown that standard output shows" cmp -s "$tmp/a.md" <(printf '%s\n' "$out")

# A failed criterion: the report is written, then exit 1.
"$fathom" report "$pilot" --set 'expect.mfu=">= 0.99"' -o "$tmp/fail.html" 2>/dev/null; rc=$?
check "a failed criterion exits 1" test "$rc" -eq 1
check "the failing report is written" grep -q 'class="verdict fail"' "$tmp/fail.html"

# Bad input: exit 2, a precise message, nothing written.
echo "untouched" >"$tmp/keep.html"
err=$("$fathom" report "$pilot" -o "$tmp/report.pdf" 2>&1 >/dev/null); rc=$?
check "an unknown extension exits 2" test "$rc" -eq 2
check "it says which extensions work" grep -q -- '-o: expected a file ending in .html or .md' <<<"$err"
err=$("$fathom" report "$pilot" --set report.pilot=missing.yaml -o "$tmp/keep.html" 2>&1 >/dev/null); rc=$?
check "a missing pilot exits 2" test "$rc" -eq 2
check "it names the key" grep -q 'report.pilot: expected the pilot' <<<"$err"
check "the output is untouched" grep -q untouched "$tmp/keep.html"
cat >"$tmp/typo.yaml" <<YAML
$(cat "$pilot")
report:
  pilott: pilot-16-nodes.yaml
YAML
err=$("$fathom" report "$tmp/typo.yaml" 2>&1 >/dev/null); rc=$?
check "an unknown report key exits 2" test "$rc" -eq 2
check "it points at file:line:key" grep -qE 'typo.yaml:[0-9]+:[0-9]+: report.pilott: ' <<<"$err"
check "with a hint" grep -q 'did you mean "pilot"' <<<"$err"

# A wafer-scale cluster: its own rows, its pilot and service, the same exit and bytes contract.
wafer="$source_dir/scenarios/examples/cs3-llama3-70b-golive.yaml"
out=$("$fathom" report "$wafer" 2>/dev/null); rc=$?
check "the wafer-scale report exits 1 (MFU and utilisation miss their targets)" test "$rc" -eq 1
check "it holds the SwarmX weight stream to its line rate" \
  grep -qE '^\| Weight-stream bandwidth utilisation \(SwarmX\) \| [0-9.]+% .*\| pass \|' <<<"$out"
check "its pilot's scaling is per system" grep -q 'tokens/s per system)' <<<"$out"
check "its service's throughput is per wafer" grep -q '^| Inference throughput per wafer |' <<<"$out"
check "failures are not modelled on wafers" grep -q '^| Recovery from a failure (p99) .*not modelled yet' <<<"$out"
"$fathom" report "$wafer" -o "$tmp/w1.html" 2>/dev/null
"$fathom" report "$wafer" -o "$tmp/w2.html" 2>/dev/null
check "the wafer HTML is byte-identical on a second run" cmp -s "$tmp/w1.html" "$tmp/w2.html"
check "the wafer HTML has its SRAM chart" grep -q '<svg[^>]*id="memory-chart"' "$tmp/w1.html"
err=$("$fathom" report "$wafer" --set report.bandwidth_nodes=8 2>&1 >/dev/null); rc=$?
check "a GPU-only report key on wafers exits 2" test "$rc" -eq 2
check "it names the key" grep -q 'report.bandwidth_nodes: expected no "bandwidth_nodes" key here' <<<"$err"
check "and why" grep -q "its row is a GPU cluster's" <<<"$err"

echo "report CLI: $failures failed"
[ "$failures" -eq 0 ]
