#!/usr/bin/env bash
# Writes scripts/sessionctl.order, sessionctl's function layout: the functions `sessionctl token` and
# `sessionctl git-credential get` execute on a signed-in session, as gold's section names (`.text.<symbol>`), in
# the order a run first calls them. scripts/release-flags.sh --sessionctl links sessionctl with it (see there and
# BENCHMARKS.md). Run it again after changing what the token path does; a name the code no longer has is skipped
# by the linker, so an old list costs page faults, never correctness.
#
#     scripts/with-keyring scripts/sessionctl-order.sh   # token with the file, kernel and Secret Service stores
#
# Needs valgrind (apt-get install valgrind) and builds the release sessionctl. Without a Secret Service (no
# scripts/with-keyring), the keyring's path is left out of the list.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "sessionctl-order.sh needs valgrind (apt-get install valgrind)" >&2; exit 1; }

# The names are the same with or without the old layout: build without it.
mapfile -t flags < <(scripts/release-flags.sh)
swift build "${flags[@]}" --product sessionctl >&2
built="$(swift build "${flags[@]}" --show-bin-path)/sessionctl"
swift build --product sessionkit-emulator >&2
emulator="$(swift build --show-bin-path)/sessionkit-emulator"

work=$(mktemp -d)
emulator_pid=
cleanup() {
    [ -z "$emulator_pid" ] || kill "$emulator_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
"$emulator" serve >"$work/emulator.log" 2>&1 &
emulator_pid=$!
for _ in $(seq 1 100); do
    grep -q 'Press Ctrl-C' "$work/emulator.log" 2>/dev/null && break
    sleep 0.1
done
issuer=$(sed -n 's/^ *issuer: *//p' "$work/emulator.log" | head -1)
[ -n "$issuer" ] || { echo "the emulator did not start: $(cat "$work/emulator.log")" >&2; exit 1; }

export NO_COLOR=1 SESSIONCTL_ISSUER=$issuer SESSIONCTL_CLIENT_ID=sessionkit-native
strip --strip-debug -o "$work/sessionctl" "$built" # valgrind 3.19 cannot read Swift's debug information

# Every function callgrind saw, by its symbol, first call first (callgrind names a function where it first
# records it; --compress-strings=no repeats the name on every line, and the first line is the one that counts).
profile() { # output-file arguments...
    local output=$1
    shift
    valgrind --tool=callgrind --demangle=no --compress-strings=no --callgrind-out-file="$output" \
        "$work/sessionctl" "$@" >/dev/null 2>>"$work/valgrind.log"
}
# token with each store (the Secret Service only where one answers: run under scripts/with-keyring), then git's
# get with the file store: each signed in in a home of its own.
stores=(file kernel)
if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then stores+=(keyring); fi
profiles=()
for store in "${stores[@]}"; do
    home=$work/home-$store
    mkdir -p "$home"
    HOME=$home XDG_CONFIG_HOME=$home/config XDG_STATE_HOME=$home/state SESSIONCTL_STORE=$store \
        "$work/sessionctl" login --username alice@example.com --password-stdin <<<"alice-demo-password" >/dev/null
    HOME=$home XDG_CONFIG_HOME=$home/config XDG_STATE_HOME=$home/state SESSIONCTL_STORE=$store \
        profile "$work/token-$store.out" token </dev/null
    profiles+=("$work/token-$store.out")
done
export HOME=$work/home-file XDG_CONFIG_HOME=$work/home-file/config XDG_STATE_HOME=$work/home-file/state
export SESSIONCTL_STORE=file
profile "$work/git-empty.out" git-credential get </dev/null
printf 'protocol=https\nhost=%s\n\n' "${issuer#*://}" | profile "$work/git.out" git-credential get
profiles+=("$work/git-empty.out" "$work/git.out")
nm --defined-only "$work/sessionctl" | awk '$2 ~ /^[tTwW]$/ {print $3}' | sort -u >"$work/defined"
for out in "${profiles[@]}"; do
    sed -n 's/^c\{0,1\}fn=//p' "$out"
done | awk '!seen[$0]++' | grep -Fxf "$work/defined" | sed 's/^/.text./' >"$work/order"
count=$(wc -l <"$work/order")
[ "$count" -gt 500 ] || { echo "only $count functions found: see $work/valgrind.log" >&2; exit 1; }
mv "$work/order" scripts/sessionctl.order
echo "scripts/sessionctl.order: $count functions (token with the ${stores[*]} stores, git-credential get)"
