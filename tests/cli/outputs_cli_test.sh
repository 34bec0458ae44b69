#!/usr/bin/env bash
# Outputs as issue 13 asks: every output path checked before the run (a missing or read-only
# folder, a device, a folder, two outputs on one path: refused at once, with the flag, nothing
# written); outputs committed together; SIGINT and SIGTERM at several points of a run leave all
# the outputs or none, never a temporary file, and exit 130 or 143 when they stopped it; the
# temporaries of a killed run (SIGKILL) are removed by the next run.
set -uo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
fathom="$build/fathom"
source "$source_dir/tests/cli/check.sh"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
training="$source_dir/scenarios/examples/llama3-405b-16k.yaml"
calibration="$source_dir/data/calibration-data/azure-nd-h100-v5"

# Refused before the run: the error names the flag and comes with no simulation (no report).
refused() {  # refused NAME EXPECTED-TEXT ARGS...
  local name="$1" expected="$2"; shift 2
  local out rc
  out=$("$fathom" simulate "$training" "$@" 2>&1); rc=$?
  check "$name: exit 2" test "$rc" -eq 2
  check "$name: says \"$expected\"" grep -qF -- "$expected" <<<"$out"
  check "$name: starts with fathom: error:" grep -q '^fathom: error: ' <<<"$out"
  check "$name: refused before the run (no step time)" bash -c '! grep -q "step time" <<<"$1"' _ "$out"
}
refused "a device" "--json /dev/null: it is a character device" --json /dev/null
check "/dev/null is still a device" test -c /dev/null
refused "a missing folder" "--trace nofolder/t.json: the folder 'nofolder' does not exist" \
  --json j.json --trace nofolder/t.json
refused "a folder" "--json .: it is a folder" --json .
refused "one path twice" "--trace j.json: the same file as --json" --json j.json --trace j.json
refused "one path twice, spelled differently" "the same file as --json" --json ./j.json --trace ../"$(basename "$tmp")"/j.json
mkfifo pipe
refused "a named pipe" "it is a named pipe" --json pipe
check "no output was written by the refused runs" test -z "$(ls | grep -v '^pipe$')"
if [ "$(id -u)" -ne 0 ]; then  # root writes into read-only folders
  mkdir ro && chmod 555 ro
  refused "a read-only folder" "the folder 'ro' is not writable" --json j.json --trace ro/t.json
  check "and its JSON was not written either" test ! -e j.json
fi
out=$("$fathom" calibrate "$calibration" -o p.yaml --points p.yaml 2>&1); rc=$?
check "calibrate: -o and --points on one path refused (exit $rc)" test "$rc" -eq 2
check "calibrate: names both flags" grep -qF -- "--points p.yaml: the same file as -o" <<<"$out"

# Committed together: a run writes both files; a second run replaces both.
"$fathom" simulate "$training" -q --json j.json --trace t.json
check "a run writes the JSON and the trace" test -s j.json -a -s t.json
rm -f j.json t.json

# Interrupts at several points. Each run either finishes (exit 0, both outputs) or stops (exit
# 130 for SIGINT, 143 for SIGTERM, no output); in no case is a temporary file left.
interrupt() {  # interrupt SIGNAL DELAY COMMAND...: prints the exit code
  local signal="$1" delay="$2"; shift 2
  "$@" >/dev/null 2>err.txt &
  local pid=$!
  sleep "$delay"
  kill -s "$signal" "$pid" 2>/dev/null
  wait "$pid"
}
all_or_none() {  # all_or_none NAME RC EXPECTED-SIGNAL-CODE FILE...
  local name="$1" rc="$2" code="$3"; shift 3
  local present=0 f
  for f in "$@"; do [ -e "$f" ] && present=$((present + 1)); done
  if [ "$rc" -eq 0 ]; then
    check "$name: finished first, every output written" test "$present" -eq "$#"
  else
    check "$name: exit $code (got $rc)" test "$rc" -eq "$code"
    # A signal that lands before fathom has installed its handlers kills it silently (the
    # default action, same exit code); that too must leave nothing.
    [ -s err.txt ] && check "$name: says interrupted" grep -q '^fathom: interrupted by SIG' err.txt
    if grep -q 'outputs had been written' err.txt; then
      check "$name: interrupted after the commit, every output kept" test "$present" -eq "$#"
    else
      check "$name: interrupted before the commit, no output" test "$present" -eq 0
    fi
  fi
  check "$name: no temporary file left" test -z "$(ls | grep '\.tmp-')"
  rm -f "$@" err.txt
}
stopped=0
for delay in 0.05 0.3 1 2; do
  for signal in INT TERM; do
    code=$([ "$signal" = INT ] && echo 130 || echo 143)
    rc=$(interrupt "$signal" "$delay" "$fathom" calibrate "$calibration" -o p.yaml --points p.csv; echo $?)
    rc=${rc##*$'\n'}
    [ "$rc" -ne 0 ] && stopped=$((stopped + 1))
    all_or_none "calibrate, SIG$signal after ${delay}s" "$rc" "$code" p.yaml p.csv
  done
done
check "at least one calibration was stopped by a signal ($stopped)" test "$stopped" -gt 0
for delay in 0.05 0.15 0.3; do
  rc=$(interrupt INT "$delay" "$fathom" simulate "$training" --json j.json --trace t.json; echo $?)
  rc=${rc##*$'\n'}
  all_or_none "training run, SIGINT after ${delay}s" "$rc" 130 j.json t.json
done

# A run killed outright leaves its temporaries; the next run that writes beside them removes
# those of processes that no longer exist, and keeps those of a live one.
true &
dead=$!
wait "$dead"
touch "j.json.tmp-$dead-0" "j.json.tmp-$dead-7" "j.json.tmp-$$-0" "other.json.tmp-$dead-0"
"$fathom" simulate "$training" -q --json j.json
check "a killed run's temporaries are removed" test ! -e "j.json.tmp-$dead-0" -a ! -e "j.json.tmp-$dead-7"
check "a live process's temporary is kept" test -e "j.json.tmp-$$-0"
check "another target's temporary is left alone" test -e "other.json.tmp-$dead-0"

echo "outputs CLI: $failures failed"
[ "$failures" -eq 0 ]
