#!/usr/bin/env bash
# The published measurements and traces in data/ are copied byte for byte from the
# project's shared folder; this test fails if any of them changed, went missing, or if a
# file appeared that the manifest does not list. Where the shared folder is present beside
# the checkout, it also checks that every shared file is in data/ unchanged.
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
# Every file of the shared folder is here, byte for byte. data/ may hold more: fathom's own
# tables (data/validation/known-to-run.csv), listed in SHA256SUMS like the copies.
if [ -n "$shared" ] && [ -d "$shared" ]; then
  for folder in validation calibration-data traces; do
    while IFS= read -r -d '' file; do
      rel="${file#"$shared"/}"
      if ! cmp -s "$file" "./$rel"; then
        echo "data/$rel differs from $shared/$rel (or is missing): copy it and update SHA256SUMS" >&2
        exit 1
      fi
    done < <(find "$shared/$folder" -type f -print0)
  done
fi
echo "data/: $(wc -l < SHA256SUMS) files match SHA256SUMS"
