#!/bin/sh
# usage: check_install.sh BUILD_DIR CMAKE
set -eu
build=$1
cmake=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/perfengine-install-XXXXXX")
trap 'rm -rf "$prefix"' EXIT
"$cmake" --install "$build" --prefix "$prefix" > "$prefix.log" 2>&1 || { cat "$prefix.log"; rm -f "$prefix.log"; exit 1; }
rm -f "$prefix.log"
fail() { echo "FAIL: $*" >&2; exit 1; }
for f in bin/perfengine bin/perfengine-spawner bin/perfengine-bazel-shim lib/perfengine/libperfengine-alloccount.so \
         share/man/man1/perfengine.1 share/bash-completion/completions/perfengine \
         share/zsh/vendor-completions/_perfengine share/doc/perfengine/spec.md \
         share/doc/perfengine/results.schema.json share/doc/perfengine/README.md; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
pe=$prefix/bin/perfengine
"$pe" --version | grep -q '^perfengine ' || fail "--version"
# The installed binary finds its spawner beside it: init runs each start-up command through it.
cd "$prefix"
"$pe" init 'true' 'sleep 0' --out "$prefix/s.toml" > /dev/null || fail "init with the installed binary"
"$pe" validate "$prefix/s.toml" > /dev/null || fail "validate with the installed binary"
# The man page is well-formed roff and names every command.
if command -v man > /dev/null; then
  MANWIDTH=100 man -l "$prefix/share/man/man1/perfengine.1" 2> "$prefix/man.err" > "$prefix/man.txt" || fail "man -l"
  [ ! -s "$prefix/man.err" ] || { cat "$prefix/man.err"; fail "man warnings"; }
fi
for c in run init validate list generate explain compare merge history bisect calibrate; do
  grep -q "perfengine $c" "$prefix/share/man/man1/perfengine.1" || fail "the man page lacks $c"
done
# bash completion completes commands and a command's flags.
got=$(bash -c '. "$1"; COMP_WORDS=(perfengine ini); COMP_CWORD=1; _perfengine; echo "${COMPREPLY[*]}"' sh \
      "$prefix/share/bash-completion/completions/perfengine")
[ "$got" = "init" ] || fail "bash: 'ini' completed to '$got'"
got=$(bash -c '. "$1"; COMP_WORDS=(perfengine run --qu); COMP_CWORD=2; _perfengine; echo "${COMPREPLY[*]}"' sh \
      "$prefix/share/bash-completion/completions/perfengine")
[ "$got" = "--quick --quiet" ] || fail "bash: 'run --qu' completed to '$got'"
if command -v zsh > /dev/null; then
  zsh -n "$prefix/share/zsh/vendor-completions/_perfengine" || fail "zsh completion does not parse"
fi
echo "install layout ok"
