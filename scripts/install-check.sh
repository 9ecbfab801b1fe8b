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

# sessionctl uses FoundationEssentials only: no object it links refers to Foundation itself (its Objective-C layer,
# CoreFoundation and ICU, which a static sessionctl would otherwise carry and start; BENCHMARKS.md, issue 26). The
# same pattern must find Foundation in the emulator's objects, so that it cannot go stale. A module's name appears
# in a mangled symbol as its length and name: "10Foundation", never "20FoundationEssentials".
foundation_pattern='(^|[^0-9])10Foundation'
bin_path=$(swift build --show-bin-path)
refers_to_foundation() { nm -u "$1" 2>/dev/null | grep -qE "$foundation_pattern"; }
while IFS= read -r object; do
    if refers_to_foundation "$object"; then
        fail "sessionctl links Foundation through $object: $(nm -u "$object" | grep -E "$foundation_pattern" | head -3 | tr '\n' ' ')"
    fi
done <"$bin_path/sessionctl.product/Objects.LinkFileList"
control=0
for object in "$bin_path"/AuthEmulator.build/*.o; do refers_to_foundation "$object" && control=1; done
[ "$control" = 1 ] || fail "the Foundation pattern finds nothing in AuthEmulator's objects: fix the pattern"
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/SessionKit/SessionKitVersion.swift)
[ -n "$version" ] || fail "no version in Sources/SessionKit/SessionKitVersion.swift"
[ "$("$prefix/bin/sessionctl" --version)" = "$version" ] || fail "sessionctl --version does not print $version"
grep -q "complete .*-F _sessionctl sessionctl" "$prefix/share/bash-completion/completions/sessionctl" || fail "bash completion"
head -1 "$prefix/share/zsh/site-functions/_sessionctl" | grep -q "#compdef sessionctl" || fail "zsh completion"
grep -q "complete -c .sessionctl." "$prefix/share/fish/vendor_completions.d/sessionctl.fish" || fail "fish completion"
for page in sessionctl sessionctl.login sessionctl.token; do
    file="$prefix/share/man/man1/$page.1"
    [ "$(stat -c %a "$file")" = 644 ] || fail "$page.1 is missing or not 0644"
    grep -q '^\.Dt' "$file" || fail "$page.1 is not a man page"
done
grep -q "5 the provider asks for" "$prefix/share/man/man1/sessionctl.1" || fail "the man page lacks the exit codes"
# The release build's function layout: scripts/sessionctl.order is a list of gold section names that gold accepts
# (a static hello-world linked with it runs), and release-flags.sh passes it for sessionctl alone.
order=scripts/sessionctl.order
[ "$(grep -cvE '^\.text\.[^[:space:]]+$' "$order")" = 0 ] || fail "$order has lines that are not .text.<symbol>"
[ "$(wc -l <"$order")" -gt 500 ] || fail "$order lists too few functions: run scripts/sessionctl-order.sh"
scripts/release-flags.sh --sessionctl | grep -q -- "--section-ordering-file=$PWD/$order" || fail "release-flags.sh --sessionctl does not pass $order"
if scripts/release-flags.sh | grep -q -- --section-ordering-file; then fail "release-flags.sh passes the layout to every product"; fi
echo 'print("ordered")' >"$prefix/ordered.swift"
swiftc -static-stdlib -Xlinker -no-pie -Xlinker "--section-ordering-file=$PWD/$order" "$prefix/ordered.swift" \
    -o "$prefix/ordered" 2>"$prefix/ordered.log" || { cat "$prefix/ordered.log" >&2; fail "gold refuses $order"; }
[ "$("$prefix/ordered")" = ordered ] || fail "a program linked with $order does not run"
rm -f "$prefix/ordered" "$prefix/ordered.swift" "$prefix/ordered.log"

installed=$(wc -l <"$prefix/share/sessionctl/installed-files")
scripts/install.sh --debug --prefix "$prefix" >/dev/null 2>&1 || fail "a second install failed"
[ "$(wc -l <"$prefix/share/sessionctl/installed-files")" = "$installed" ] || fail "a second install changed the file list"
# With the emulator: installed beside sessionctl, the same version, and listed for uninstall.
scripts/install.sh --debug --with-emulator --prefix "$prefix" >/dev/null 2>&1 || fail "an install --with-emulator failed"
[ "$("$prefix/bin/sessionkit-emulator" --version)" = "$version" ] || fail "sessionkit-emulator --version is not $version"
grep -qx "$prefix/bin/sessionkit-emulator" "$prefix/share/sessionctl/installed-files" || fail "the emulator is not listed"
touch "$prefix/bin/someone-elses-tool"
scripts/install.sh --uninstall --prefix "$prefix" >/dev/null || fail "uninstall failed"
left=$(find "$prefix" -type f | sort)
[ "$left" = "$prefix/bin/someone-elses-tool" ] || fail "uninstall left or removed the wrong files: $left"
if scripts/install.sh --uninstall --prefix "$prefix" >/dev/null 2>&1; then fail "a second uninstall succeeded"; fi
echo "ok: install.sh installs $installed files (binary, completions for bash, zsh and fish, man pages), the emulator with --with-emulator, and uninstalls them; --version prints $version; sessionctl links no Foundation beyond FoundationEssentials; its function layout links"
