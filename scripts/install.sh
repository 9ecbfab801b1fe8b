#!/usr/bin/env bash
# Installs sessionctl with one command: the static, non-PIE release build (it starts in 2-3 ms, BENCHMARKS.md),
# bash, zsh and fish completions, and man pages, under a prefix; and uninstalls them.
#
#     scripts/install.sh                      # into ~/.local: bin/, share/man/man1/, share/{bash-completion,zsh,fish}
#     scripts/install.sh --prefix /usr/local  # elsewhere (sudo for system prefixes)
#     scripts/install.sh --with-emulator      # also sessionkit-emulator, the local provider to try sessionctl with
#     scripts/install.sh --uninstall          # removes exactly the files it installs
#     scripts/install.sh --debug              # the debug build instead (seconds, not minutes; for tests)
#
# Needs the Swift toolchain only. The release build takes about 5 minutes on 2 cores the first time.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix="$HOME/.local"
action=install
configuration=release
with_emulator=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 64; }; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --uninstall) action=uninstall; shift ;;
        --debug) configuration=debug; shift ;;
        --with-emulator) with_emulator=1; shift ;;
        -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac

bin_dir="$prefix/bin"
man_dir="$prefix/share/man/man1"
bash_file="$prefix/share/bash-completion/completions/sessionctl"
zsh_file="$prefix/share/zsh/site-functions/_sessionctl"
fish_file="$prefix/share/fish/vendor_completions.d/sessionctl.fish"
manifest="$prefix/share/sessionctl/installed-files"

if [ "$action" = uninstall ]; then
    [ -f "$manifest" ] || { echo "install.sh: nothing installed under $prefix (no $manifest)" >&2; exit 1; }
    while IFS= read -r file; do rm -f "$file"; done <"$manifest"
    rm -f "$manifest"
    rmdir "$prefix/share/sessionctl" 2>/dev/null || true
    echo "Uninstalled sessionctl from $prefix."
    exit 0
fi

if [ "$configuration" = release ]; then
    # Static runtime, non-PIE, direct metadata accessors, the token path's functions laid out together.
    mapfile -t flags < <(scripts/release-flags.sh --sessionctl)
else
    flags=()
fi
swift build "${flags[@]}" --product sessionctl >&2
built="$(swift build "${flags[@]}" --show-bin-path)/sessionctl"
if [ "$with_emulator" = 1 ]; then
    # A plain build of the configuration asked for: the emulator is a server, and its start-up is not measured.
    emulator_flags=()
    [ "$configuration" = release ] && emulator_flags=(-c release)
    swift build "${emulator_flags[@]}" --product sessionkit-emulator >&2
    emulator="$(swift build "${emulator_flags[@]}" --show-bin-path)/sessionkit-emulator"
fi
# The manual generator of swift-argument-parser reads the commands from `sessionctl --experimental-dump-help`.
swift build --product generate-manual >&2
generate_manual="$(swift build --show-bin-path)/generate-manual"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/man"
"$generate_manual" "$built" --multi-page --output-directory "$work/man" >/dev/null
"$built" --generate-completion-script bash >"$work/bash"
"$built" --generate-completion-script zsh >"$work/zsh"
"$built" --generate-completion-script fish >"$work/fish"

install -d -m 0755 "$bin_dir" "$man_dir" "$(dirname "$bash_file")" "$(dirname "$zsh_file")" \
    "$(dirname "$fish_file")" "$(dirname "$manifest")"
installed=("$bin_dir/sessionctl")
install -m 0755 "$built" "$bin_dir/sessionctl"
if [ "$with_emulator" = 1 ]; then
    install -m 0755 "$emulator" "$bin_dir/sessionkit-emulator"
    installed+=("$bin_dir/sessionkit-emulator")
fi
# Debug information is most of the release binary's size; the symbols stay, for readable crash reports.
if [ "$configuration" = release ] && command -v strip >/dev/null; then strip --strip-debug "$bin_dir/sessionctl"; fi
for page in "$work"/man/*.1; do
    install -m 0644 "$page" "$man_dir/"
    installed+=("$man_dir/$(basename "$page")")
done
install -m 0644 "$work/bash" "$bash_file" && installed+=("$bash_file")
install -m 0644 "$work/zsh" "$zsh_file" && installed+=("$zsh_file")
install -m 0644 "$work/fish" "$fish_file" && installed+=("$fish_file")
printf '%s\n' "${installed[@]}" >"$manifest"

echo "Installed sessionctl$([ "$with_emulator" = 1 ] && echo " and sessionkit-emulator") ($configuration) into $prefix:"
printf '  %s\n' "${installed[@]}"
case ":$PATH:" in *":$bin_dir:"*) ;; *) echo "Add $bin_dir to PATH to run it as 'sessionctl'." ;; esac
echo "Uninstall with: scripts/install.sh --uninstall --prefix $prefix"
