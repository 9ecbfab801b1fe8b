#!/usr/bin/env bash
# Issue 46: a back-channel logout of a user with SESSIONS (1,000) sessions, on two BFF instances sharing PostgreSQL.
# Runs the live test ManySessionsLogoutTests RUNS (3) times; each run signs the user in SESSIONS times on instance A,
# uses every session once on A and on B (both hold it in memory), has the emulator deliver one logout token to A, and
# asks B about every session until each is refused. Prints, per run, how long A took to answer the delivery and when
# the last session was refused on B, both from the moment the delivery was sent, then the median of each.
# (Target: the last refusal on B within 1,000 ms.)
#
#   Benchmarks/backchannel.sh                         # CONFIG=release (built here with -enable-testing, in
#                                                     # .build-reltest: ~13 min the first time), RUNS=3
#   CONFIG=debug Benchmarks/backchannel.sh            # the debug build `swift build --build-tests` made (no build)
#
# B is asked 16 requests at a time, over and over, while A works: its answers are what a user sees, and the figure
# is bounded below by one round over the sessions not refused yet. The instances, the emulator and the test's client
# share this machine's cores with PostgreSQL.
#
# Uses $SESSIONKIT_POSTGRES_URL, or starts a throw-away cluster with scripts/postgres-start.sh (and stops it).
set -euo pipefail
cd "$(dirname "$0")/.."
config=${CONFIG:-release}
runs=${RUNS:-3}
export SESSIONKIT_BACKCHANNEL_SESSIONS=${SESSIONS:-1000}
traits=(--traits default,URLSessionOnLinux)

if [ -z "${SESSIONKIT_POSTGRES_URL:-}" ]; then
    SESSIONKIT_POSTGRES_URL=$(scripts/postgres-start.sh)
    trap 'scripts/postgres-stop.sh >/dev/null 2>&1 || true' EXIT
fi
export SESSIONKIT_POSTGRES_URL SESSIONKIT_REQUIRE_POSTGRES=1

build=()
if [ "$config" = release ]; then
    # A scratch folder of its own: the products' release build (.build/release) is left as it is.
    build=(-c release -Xswiftc -enable-testing --scratch-path .build-reltest)
    swift build "${build[@]}" --build-tests "${traits[@]}" >&2
fi

answered=()
refused=()
for run in $(seq 1 "$runs"); do
    line=$(swift test "${build[@]}" --skip-build "${traits[@]}" --filter ManySessionsLogoutTests 2>&1 |
        tee /dev/stderr | grep '^backchannel-logout ' || true)
    if [ -z "$line" ]; then
        echo "run $run: the test printed no figure (see its output above)" >&2
        exit 1
    fi
    echo "run $run: $line"
    answered+=("$(sed -E 's/.*answered_ms=([0-9]+).*/\1/' <<<"$line")")
    refused+=("$(sed -E 's/.*last_refusal_on_b=([0-9]+|never).*/\1/' <<<"$line")")
done

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "sessions: $SESSIONKIT_BACKCHANNEL_SESSIONS, build: $config, runs: $runs"
echo "delivery answered by A (median): $(median "${answered[@]}") ms"
echo "last session refused on B (median): $(median "${refused[@]}") ms"
