# Shared helpers of the collector scripts (sourced, not run). Bash 4+.
# shellcheck shell=bash

# The script's name, for messages.
COLLECT_PROG=${COLLECT_PROG:-${0##*/}}

die() {
  printf '%s: error: %s\n' "$COLLECT_PROG" "$*" >&2
  exit 1
}

# Usage errors exit 2, like fathom's own bad-input errors.
usage_error() {
  printf '%s: %s (see --help)\n' "$COLLECT_PROG" "$*" >&2
  exit 2
}

warn() {
  printf '%s: warning: %s\n' "$COLLECT_PROG" "$*" >&2
}

note() {
  printf '%s: %s\n' "$COLLECT_PROG" "$*" >&2
}

# A command line as one shell-quoted line (what the logs and --dry-run print).
quote_cmd() {
  local out="" word
  for word in "$@"; do
    out+="${out:+ }$(printf '%q' "$word")"
  done
  printf '%s\n' "$out"
}

# Missing tools are collected in MISSING_TOOLS and reported together by report_missing.
MISSING_TOOLS=()

# need_cmd NAME WHAT: NAME must be an executable in PATH (or a path to one).
need_cmd() {
  local name="$1" what="$2"
  if [[ "$name" == */* ]]; then
    [[ -x "$name" && -f "$name" ]] && return 0
  elif command -v "$name" >/dev/null 2>&1; then
    return 0
  fi
  MISSING_TOOLS+=("$name ($what)")
  return 1
}

# Exits 1 listing every missing tool, if any.
report_missing() {
  ((${#MISSING_TOOLS[@]} == 0)) && return 0
  printf '%s: error: missing prerequisite(s); nothing was run:\n' "$COLLECT_PROG" >&2
  local m
  for m in "${MISSING_TOOLS[@]}"; do
    printf '  - %s\n' "$m" >&2
  done
  printf 'Install them (this script downloads nothing) or point the options at them; see calibrate/collect/README.md.\n' >&2
  exit 1
}

# The option's value, or a usage error when it is missing.
need_value() {
  if (($# < 2)) || [[ -z "$2" ]]; then
    usage_error "$1 needs a value"
  fi
}
