# Sourced by the CLI test scripts: `check NAME CONDITION...` runs CONDITION, prints ok or
# FAILED with NAME, and counts failures in $failures.
failures=0
check() {
  local name="$1"; shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name"; failures=$((failures + 1)); fi
}
