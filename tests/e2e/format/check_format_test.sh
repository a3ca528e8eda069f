#!/usr/bin/env bash
# scripts/check-format.sh in a scratch clone: it passes on a branch whose changed lines are
# formatted even when the file around them is not (nobody changed that), fails on a changed
# line that is not formatted and shows it, and on main compares with the last commit.
# usage: check_format_test.sh REPO_ROOT
set -euo pipefail
root="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

git init -q -b main "$work/origin"
cd "$work/origin"
git config user.email t@example.invalid && git config user.name t
mkdir scripts && cp "$root/scripts/check-format.sh" scripts/ && cp "$root/.clang-format" .
# Unformatted code nobody will touch.
printf 'int  untouched( int x ){return x;}\n\nint f() { return 1; }\n' > a.cc
git add -A && git commit -qm base

git clone -q "$work/origin" "$work/clone"
cd "$work/clone"
git config user.email t@example.invalid && git config user.name t
git checkout -q -b feature
printf 'int  untouched( int x ){return x;}\n\nint f() { return 2; }\n' > a.cc
git commit -qam "formatted change"
out="$(./scripts/check-format.sh)" || fail "a formatted change beside untouched code failed: $out"
grep -q "are formatted" <<<"$out" || fail "unexpected output: $out"

printf 'int  untouched( int x ){return x;}\n\nint f() { return  3 ; }\n' > a.cc
git commit -qam "unformatted change"
if out="$(./scripts/check-format.sh)"; then fail "an unformatted changed line passed: $out"; fi
grep -q 'return  3 ;' <<<"$out" || fail "the report does not show the line: $out"
grep -q '^[-+]int  untouched' <<<"$out" && fail "the report changes a line nobody changed: $out"

# On main itself the last commit is what changed; main's only commit has no parent to
# compare with, so it is reported and not checked.
git checkout -q main
out="$(./scripts/check-format.sh)" || fail "main with one commit failed: $out"
grep -q "not checked" <<<"$out" || fail "unexpected output on main: $out"
echo "ok"
