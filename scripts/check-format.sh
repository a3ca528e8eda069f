#!/usr/bin/env bash
# Checks that the C++ lines this branch changed are formatted as .clang-format says. Only
# changed lines are checked (git clang-format), so code nobody touched never fails it.
#
# What "changed" is compared with: $PE_FORMAT_BASE when set; otherwise the merge base with
# origin/main (or main) when HEAD is not on it yet; on main itself, the last commit. A clone
# too shallow to hold that base is reported and not checked (CI's clones are full).
# Fix what it reports with: git clang-format <base>
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "check-format: not a git checkout; nothing to compare with, not checked"
  exit 0
fi
main=""
for ref in origin/main main; do
  if git rev-parse -q --verify "$ref^{commit}" >/dev/null; then main="$ref"; break; fi
done
base="${PE_FORMAT_BASE:-}"
if [ -z "$base" ] && [ -n "$main" ] && ! git merge-base --is-ancestor HEAD "$main"; then
  base="$(git merge-base HEAD "$main" || true)"
fi
if [ -z "$base" ]; then base="HEAD^"; fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "check-format: base $base is not in this clone (shallow?); not checked"
  exit 0
fi
out="$(git clang-format --binary clang-format --diff --extensions cc,h,cpp,hpp "$base" -- 2>&1 || true)"
if grep -q '^diff\|^@@' <<<"$out"; then
  echo "check-format: lines changed since $(git rev-parse --short "$base") are not formatted as .clang-format says:"
  echo "$out"
  echo "check-format: run 'git clang-format $(git rev-parse --short "$base")' and commit the result"
  exit 1
fi
echo "check-format: lines changed since $(git rev-parse --short "$base") are formatted"
