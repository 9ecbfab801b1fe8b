#!/usr/bin/env bash
# Checks scripts/install.sh end to end, with the debug build (the release build takes minutes): every file in
# place with its mode, the installed binary runs, the completions and man pages are what their tools read, a
# second install replaces the first, and uninstall removes exactly what was installed. Run by scripts/test.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install-check: FAIL: $*" >&2; exit 1; }

scripts/install.sh --debug --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log" >&2; fail "install failed"; }
rm -f "$prefix.log"
[ "$(stat -c %a "$prefix/bin/sessionctl")" = 755 ] || fail "the binary is not 0755"
"$prefix/bin/sessionctl" --version >/dev/null || fail "the installed binary does not run"
grep -q "complete .*-F _sessionctl sessionctl" "$prefix/share/bash-completion/completions/sessionctl" || fail "bash completion"
head -1 "$prefix/share/zsh/site-functions/_sessionctl" | grep -q "#compdef sessionctl" || fail "zsh completion"
grep -q "complete -c .sessionctl." "$prefix/share/fish/vendor_completions.d/sessionctl.fish" || fail "fish completion"
for page in sessionctl sessionctl.login sessionctl.token; do
    file="$prefix/share/man/man1/$page.1"
    [ "$(stat -c %a "$file")" = 644 ] || fail "$page.1 is missing or not 0644"
    grep -q '^\.Dt' "$file" || fail "$page.1 is not a man page"
done
grep -q "5 the provider asks for" "$prefix/share/man/man1/sessionctl.1" || fail "the man page lacks the exit codes"
installed=$(wc -l <"$prefix/share/sessionctl/installed-files")
scripts/install.sh --debug --prefix "$prefix" >/dev/null 2>&1 || fail "a second install failed"
[ "$(wc -l <"$prefix/share/sessionctl/installed-files")" = "$installed" ] || fail "a second install changed the file list"
touch "$prefix/bin/someone-elses-tool"
scripts/install.sh --uninstall --prefix "$prefix" >/dev/null || fail "uninstall failed"
left=$(find "$prefix" -type f | sort)
[ "$left" = "$prefix/bin/someone-elses-tool" ] || fail "uninstall left or removed the wrong files: $left"
if scripts/install.sh --uninstall --prefix "$prefix" >/dev/null 2>&1; then fail "a second uninstall succeeded"; fi
echo "ok: install.sh installs $installed files (binary, completions for bash, zsh and fish, man pages) and uninstalls them"
