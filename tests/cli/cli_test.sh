#!/usr/bin/env bash
# The programs as a user runs them: help, version, the machine-readable last line of
# fathom-phold, identical fingerprints across schedulers, and clear errors with exit code 2.
set -uo pipefail
build="$1"
failures=0
check() {  # check NAME CONDITION...
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; failures=$((failures + 1)); fi
}

out=$("$build/fathom" --version); check "fathom --version" grep -qE '^fathom [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out"
out=$("$build/fathom" --help); check "fathom --help lists options" grep -q -- '--version' <<<"$out"
"$build/fathom" no-such-command >/dev/null 2>&1; rc=$?
check "fathom rejects an unknown subcommand" test "$rc" -ne 0

args=(--lps 64 --events-per-lp 4 --end 50 --seed 3)
seq_line=$("$build/fathom-phold" "${args[@]}" | tail -n 1)
check "fathom-phold last line format" grep -qE '^committed=[0-9]+ wall_s=[0-9.]+ events_per_s=[0-9]+ fingerprint=[0-9a-f]{16}$' <<<"$seq_line"
par_line=$("$build/fathom-phold" "${args[@]}" --scheduler parallel --threads 2 --partitions 3 | tail -n 1)
check "fathom-phold parallel gives the sequential fingerprint" \
  test "${seq_line##*fingerprint=}" = "${par_line##*fingerprint=}"
check "fathom-phold parallel commits the same events" \
  test "${seq_line%% *}" = "${par_line%% *}"

err=$("$build/fathom-phold" --remote 1.5 2>&1); rc=$?
check "fathom-phold --remote 1.5 exits 2" test "$rc" -eq 2
check "fathom-phold --remote 1.5 names the option" grep -q -- '--remote must be a fraction' <<<"$err"
err=$("$build/fathom-phold" --lookahead 2 --mean 1 2>&1); rc=$?
check "fathom-phold lookahead above mean exits 2" test "$rc" -eq 2
"$build/fathom-phold" --scheduler sideways >/dev/null 2>&1; rc=$?
check "fathom-phold rejects an unknown scheduler" test "$rc" -ne 0

echo "cli: $failures failed"
[ "$failures" -eq 0 ]
