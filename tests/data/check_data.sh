#!/usr/bin/env bash
# The published measurements and traces in data/ are copied byte for byte from the
# project's shared folder; this test fails if any of them changed, went missing, or if a
# file appeared that the manifest does not list. Where the shared folder is present beside
# the checkout, it also checks that data/ still matches it.
set -euo pipefail
data="$1"
shared="${2:-}"
cd "$data"
sha256sum --check --quiet --strict SHA256SUMS
listed=$(cut -c67- SHA256SUMS | sort)
present=$(find . -type f ! -name SHA256SUMS ! -path ./README.md | sort)
if [ "$listed" != "$present" ]; then
  echo "data/: files on disk differ from SHA256SUMS:" >&2
  diff <(echo "$listed") <(echo "$present") >&2 || true
  exit 1
fi
if [ -n "$shared" ] && [ -d "$shared" ]; then
  for folder in validation calibration-data traces; do
    if ! diff -r "$shared/$folder" "./$folder" >/dev/null; then
      echo "data/$folder differs from $shared/$folder:" >&2
      diff -rq "$shared/$folder" "./$folder" >&2 || true
      exit 1
    fi
  done
fi
echo "data/: $(wc -l < SHA256SUMS) files match SHA256SUMS"
