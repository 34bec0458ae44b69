#!/usr/bin/env bash
# Golden results: every scenario of scenarios/examples/ and scenarios/validation/ is run and its
# terminal report (standard output: every figure, every breakdown, the fingerprint) compared
# byte for byte with tests/examples/golden/<folder>/<name>.txt. A change in any result fails
# until the golden files are regenerated, and the regenerated diff is part of the commit that
# moved the numbers:
#
#   bash tests/examples/golden.sh build . --update
#
# Usage: golden.sh BUILD_DIR SOURCE_DIR [--update]
set -uo pipefail
build="$1"
source_dir="$2"
update="${3:-}"
golden="$source_dir/tests/examples/golden"
fathom="$build/fathom"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The command that reports a scenario: nccl-tests workloads have their own.
report() {
  local file="$1"
  if grep -qE '^  kind: nccl-tests' "$file"; then
    "$fathom" nccl-tests "$file"
  elif grep -qE '^plan:' "$file"; then
    "$fathom" plan "$file" --threads 2
  else
    "$fathom" simulate "$file"
  fi
}

failures=0
checked=0
for file in "$source_dir"/scenarios/examples/*.yaml "$source_dir"/scenarios/validation/*/*.yaml; do
  rel="${file#"$source_dir"/scenarios/}"
  want="$golden/${rel%.yaml}.txt"
  # Run from the source tree with a relative path, so the report names the file the same way
  # on every machine.
  if ! (cd "$source_dir" && report "scenarios/$rel") >"$work/out.txt" 2>"$work/err.txt"; then
    echo "FAILED: $rel: fathom exited non-zero"; cat "$work/err.txt"; failures=$((failures + 1)); continue
  fi
  checked=$((checked + 1))
  if [ "$update" = "--update" ]; then
    mkdir -p "$(dirname "$want")"
    cp "$work/out.txt" "$want"
    continue
  fi
  if [ ! -f "$want" ]; then
    echo "FAILED: $rel: no golden file $want (run with --update)"; failures=$((failures + 1)); continue
  fi
  if ! diff -u "$want" "$work/out.txt" >"$work/diff.txt"; then
    echo "FAILED: $rel: results differ from $want"; head -40 "$work/diff.txt"; failures=$((failures + 1))
  fi
done
# A golden file whose scenario is gone is stale.
if [ "$update" != "--update" ] && [ -d "$golden" ]; then
  while IFS= read -r -d '' g; do
    rel="${g#"$golden"/}"
    [ -f "$source_dir/scenarios/${rel%.txt}.yaml" ] || { echo "FAILED: stale golden file $rel"; failures=$((failures + 1)); }
  done < <(find "$golden" -name '*.txt' -print0)
fi
[ "$update" = "--update" ] && echo "golden files written for $checked scenarios"
echo "$((checked - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
