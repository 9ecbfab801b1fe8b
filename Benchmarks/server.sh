#!/usr/bin/env bash
# Issue 14's benchmarks: SessionKit on servers, with real processes, a real PostgreSQL and the emulator.
#
#   1. `credentials()` on valid sessions: USERS sessions, PROCESSES instances each asking for every one of them
#      three times; the last round is served from memory. Median and p99 per instance, and SQL statements
#      sent in the last round (target: 0). Three, not two: when an instance's LISTEN connection comes up it
#      makes every session cached before it read the store once more (it may have missed a change).
#   2. Peak memory per 10,000 cached sessions: one instance's resident memory before and after caching them.
#   3. Renewal storm: USERS sessions whose access tokens expired together, every instance asking for every
#      one at once. Wall time, refresh requests at the emulator (target: exactly USERS), statements per renewal
#      (target: at most 6), and the store's calls by operation.
#   4. The provider floor: USERS other expired sessions renewed straight at the emulator by PROCESSES instances
#      of a minimal client (`ProviderClient.renew`, no store, no lease), CONCURRENCY at a time each, as in the
#      storm, just before the storm and again just after it (each on sessions of its own). The storm's wall time
#      over the two floors' mean (target: within 1.5x). The processes of a phase start their timed parts at once
#      (Benchmarks/gate.sh), which is timed from the first process's first call to the last one's last answer. Three storms by default (STORMS), each between two floors
#      (floor, storm, floor, storm, floor, storm, floor), and their median: a shared host's speed drifts by more
#      than a third within minutes (BENCHMARKS.md), and one storm against its two floors is at its mercy.
#   5. `credentials()` while PostgreSQL is hung: one instance serves USERS valid sessions from memory, then
#      every PostgreSQL process is stopped with SIGSTOP and it serves them all again: p99 and statements
#      (target: 0). Only with the cluster of scripts/postgres-start.sh (its processes can be stopped).
#
#     Benchmarks/server.sh                    # USERS=10000 PROCESSES=4 CONCURRENCY=100 by default
#     LOAD_NIO_EXECUTOR=1 Benchmarks/server.sh  # every process (instances and floor clients) runs its tasks on
#                                               # NIO's event loops (NIOSingletons' global executor)
#     LOAD_EVENT_LOOPS=1 Benchmarks/server.sh   # every process gets one NIO event loop instead of one per core
#     SSLMODE=disable Benchmarks/server.sh      # the instances reach PostgreSQL over plain TCP
#     STORMS=1 Benchmarks/server.sh             # one storm between two floors (the default is three, and their median)
#     USERS=100000 STORMS=1 Benchmarks/server.sh  # the size: every phase on USERS sessions (10,000 by default); the
#                                               # last line sums up the size (refreshes, statements, ratio, each
#                                               # instance's peak RSS against its cache capacity, the cold warm-up)
#     USERS=1000 STORMS=1 BUILD=debug BUILD_FLAGS="--traits default,URLSessionOnLinux" CHECK=1 Benchmarks/server.sh
#                                               # CI's run (.ci/run): the debug build the tests made, and exit 1
#                                               # when a target that is not a timing is missed (refresh requests,
#                                               # answers, distinct tokens, statements; errors and statements with
#                                               # PostgreSQL hung). Its timings are a debug build's: not the figures.
#
# By default the instances reach PostgreSQL as the URL says, which for scripts/postgres-start.sh's cluster means
# TLS (`sslmode=prefer`, and the cluster serves TLS): every statement, row and announcement is encrypted and
# decrypted by the instances and by PostgreSQL, which the floor (plain HTTP to the emulator) does not pay for.
# SSLMODE=disable|require|... adds `sslmode` to a URL that has none.
#
# Uses $SESSIONKIT_POSTGRES_URL, or starts a throw-away cluster with scripts/postgres-start.sh (and stops it).
# Builds sessionkit-directory-load and sessionkit-emulator with `swift build -c release` (BUILD, BUILD_FLAGS).
set -euo pipefail
cd "$(dirname "$0")/.."
users=${USERS:-10000}
processes=${PROCESSES:-4}
concurrency=${CONCURRENCY:-100}
storms=${STORMS:-3}
# SessionDirectory's default capacity, which sessionkit-directory-load's instances keep (checked against what they
# print): what a phase that serves from memory can hold.
capacity=10000
held_users=$((users < capacity ? users : capacity))
umask 077

read -ra build_flags <<<"${BUILD_FLAGS:-}"
build=(swift build -c "${BUILD:-release}" "${build_flags[@]}")
"${build[@]}" --product sessionkit-directory-load >&2
"${build[@]}" --product sessionkit-emulator >&2
bin=$("${build[@]}" --show-bin-path)

# CHECK=1: the targets that are not timings, each checked as it is printed; the script exits 1 at the end if one
# was missed.
missed=()
check() { # check DESCRIPTION CONDITION...: records DESCRIPTION when the test command fails
    local what=$1
    shift
    "$@" || missed+=("$what")
}

work=$(mktemp -d /tmp/sessionkit-server-bench.XXXXXX)
pids=()
started_postgres=0
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ "$started_postgres" = 1 ] && scripts/postgres-stop.sh
    rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${SESSIONKIT_POSTGRES_URL:-}" ]; then
    SESSIONKIT_POSTGRES_URL=$(scripts/postgres-start.sh)
    started_postgres=1
fi
case ${SSLMODE:-}:$SESSIONKIT_POSTGRES_URL in
:* | *sslmode=*) ;;
*\?*) SESSIONKIT_POSTGRES_URL="$SESSIONKIT_POSTGRES_URL&sslmode=$SSLMODE" ;;
*) SESSIONKIT_POSTGRES_URL="$SESSIONKIT_POSTGRES_URL?sslmode=$SSLMODE" ;;
esac
export SESSIONKIT_POSTGRES_URL

source Benchmarks/emulator.sh
start_emulator "$bin/sessionkit-emulator" "$work/emulator.log"
issuer=$started_issuer
emulator=$started_pid
source Benchmarks/cpu.sh
source Benchmarks/gate.sh

export LOAD_ISSUER=$issuer LOAD_PASSWORD=alice-demo-password LOAD_CONCURRENCY=$concurrency
export LOAD_KEY_HEX=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
refreshes() { curl -fsS "${issuer}__emulator/requests" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("byGrantType", {}).get("refresh_token", 0))'; }
milliseconds() { date +%s%3N; }

# Signs USERS sessions in under a new service; $1 = 1 stores them as expired. With a name ($2), the fleet can be
# used again later with `use NAME`.
fleet() {
    export LOAD_SERVICE=bench.$(date +%s%N) LOAD_IDS_FILE=$work/ids.${2:-$1}
    LOAD_CREATE=${fleet_size:-$users} LOAD_EXPIRED=$1 LOAD_CONCURRENCY=32 "$bin/sessionkit-directory-load"
    echo "$LOAD_SERVICE" >"$work/service.${2:-$1}"
}
use() { export LOAD_SERVICE=$(cat "$work/service.$1") LOAD_IDS_FILE=$work/ids.$1; }

# The provider floor on fleet $1: its sessions renewed straight at the emulator by PROCESSES minimal clients.
# Prints the clients' summaries and sets floor_wall (from the first client's first grant to the last one's last
# answer) and floor_cpu (all of them).
floor() {
    use "$1"
    local i running=() cpu_before gate
    cpu_before=$(cpu_snapshot "$emulator")
    gate=$(gate_new "$work")
    for i in $(seq 0 $((processes - 1))); do
        LOAD_FLOOR=1 LOAD_SHARD=$i/$processes LOAD_READY_FILE=$gate/ready.$i LOAD_START_FILE=$gate/start \
            "$bin/sessionkit-directory-load" >/dev/null 2>"$work/floor.$1.$i" &
        running+=($!)
    done
    gate_open "$gate" "$processes" "${running[@]}"
    wait "${running[@]}"
    cat "$work"/floor."$1".*
    # The floor clients read their sessions from the store before the timed part: in these figures, not in its wall.
    cpu_report "$users" "$cpu_before" "$(cpu_snapshot "$emulator")"
    floor_wall=$(timed_span "$work"/floor."$1".*)
    floor_cpu=$(cat "$work"/floor."$1".* | sed -n 's/.*cpu: \([0-9]*\) ms.*/\1/p' | paste -sd+ | bc)
}

# Vacuums the store's table before a timed phase, as pgbench does before its runs: so that no phase pays for an
# autovacuum of the rows an earlier one wrote or inserted (signing a fleet in inserts USERS rows; a storm leaves two
# dead versions per session). A storm's own writes may still start one during it.
settle() {
    if command -v psql >/dev/null; then
        psql -q "$SESSIONKIT_POSTGRES_URL" -c "VACUUM (ANALYZE) sessionkit_items" 2>&1 | grep -v '^$' || true
    else
        echo "(psql is not installed: the table is not vacuumed between phases)"
    fi
}

# Runs PROCESSES instances at once with the extra settings given, their timed parts started together; their
# summaries go to $work/summary.N.
instances() {
    local i running=() gate
    gate=$(gate_new "$work")
    for i in $(seq 1 "$processes"); do
        env LOAD_READY_FILE="$gate/ready.$i" LOAD_START_FILE="$gate/start" "$@" "$bin/sessionkit-directory-load" \
            >"$work/out.$i" 2>"$work/summary.$i" &
        running+=($!)
    done
    gate_open "$gate" "$processes" "${running[@]}"
    wait "${running[@]}" # not the emulator
}

echo "== sessionkit-server benchmarks: $users users, $processes instances, $(nproc) cores, commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "-- 1. credentials() on $held_users valid sessions (3 rounds; figures of the last; at most the cache's capacity)"
fleet_size=$held_users fleet 0
instances LOAD_ROUNDS=3
cat "$work"/summary.*
errors=$(cat "$work"/out.* | grep -c ' error ' || true)
echo "errors: $errors"
last_statements=$(cat "$work"/summary.* | sed -n 's/.*statements: \([0-9]*\).*/\1/p' | paste -sd+ | bc)
check "valid sessions: $errors errors (target 0)" test "$errors" -eq 0
check "valid sessions: $last_statements statements in the last round (target 0)" test "$last_statements" -eq 0
warmups=$(cat "$work"/summary.* | sed -n 's/.*first round: \([0-9.]*\) ms.*/\1/p' | sort -n | awk '{ printf "%s%.0f", (NR > 1 ? ", " : ""), $1 }')
printed_capacity=$(sed -n 's/.*cache capacity: \([0-9]*\).*/\1/p' "$work/summary.1")
check "the instances' cache capacity is $printed_capacity (this script assumes $capacity)" test "$printed_capacity" = "$capacity"
echo "a cold instance's warm-up (its first round over $held_users sessions, each read from the store once, $processes instances at once): $warmups ms; later rounds from memory"

echo
echo "-- 2. memory of cached sessions (one instance, one round)"
LOAD_CONCURRENCY=$concurrency "$bin/sessionkit-directory-load" >/dev/null 2>"$work/memory"
cat "$work/memory"
python3 - "$work/memory" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
before = int(re.search(r"resident before: (\d+) KiB", text)[1])
after = int(re.search(r"resident after: (\d+) KiB", text)[1])
# The sessions the instance holds at the end: all of them, or as many as its cache holds.
cached = int(re.search(r"cached: (\d+)", text)[1])
print(f"cached sessions: {cached}; resident growth: {(after - before) / 1024:.1f} MiB, "
      f"{(after - before) * 1024 / cached:.0f} bytes per session, {(after - before) * 10000 / cached / 1024:.1f} MiB per 10,000")
PY

echo
echo "-- 3. and 4. renewal storm: $users expired sessions, $processes instances at once, between two provider floors"
# The floor is measured just before and just after each storm (each on sessions of its own), and the storm is compared
# with their mean: a machine whose speed drifts during the run (a shared host) moves both alike. STORMS=N runs N
# storms, each after the floor that ended the one before, and prints their median ratio too. The table is vacuumed
# before each timed phase (`settle`).
fleet 1 floor.0
for round in $(seq 1 "$storms"); do
    fleet 1 "storm.$round"
    fleet 1 "floor.$round"
done
settle
before=$(refreshes)
floor floor.0
after=$(refreshes)
floor_before=$floor_wall
floor_before_cpu=$floor_cpu
echo "floor before the storm: $floor_before ms; refresh requests: $((after - before)) (target $users)"
ratios=()
storm_refreshes=()
storm_statements=()
storm_peaks=()
for round in $(seq 1 "$storms"); do
    echo
    [ "$storms" -gt 1 ] && echo "storm $round of $storms"
    use "storm.$round"
    settle
    before=$(refreshes)
    start=$(milliseconds)
    cpu_before=$(cpu_snapshot "$emulator")
    instances
    cpu_after=$(cpu_snapshot "$emulator")
    elapsed=$(($(milliseconds) - start))
    after=$(refreshes)
    cat "$work"/summary.*
    cpu_report "$users" "$cpu_before" "$cpu_after"
    statements=$(cat "$work"/summary.* | sed -n 's/.*statements: \([0-9]*\).*/\1/p' | paste -sd+ | bc)
    checks=$(cat "$work"/summary.* | sed -n 's/.*commit checks: \([0-9]*\).*/\1/p' | paste -sd+ | bc)
    ok=$(cat "$work"/out.* | grep -c ' ok ' || true)
    distinct=$(cat "$work"/out.* | awk '$2 == "ok" { print $1, $3 }' | sort -u | wc -l)
    storm_wall=$(timed_span "$work"/summary.*)
    longest=$(cat "$work"/summary.* | sed -n 's/.*wall: \([0-9.]*\) ms.*/\1/p' | sort -n | tail -1)
    echo "wall time: $storm_wall ms from the first instance's first call to the last one's last answer (the longest instance's own: $longest ms; the script's, with start-up: $elapsed ms); refresh requests: $((after - before)) (target $users); answers ok: $ok of $((users * processes));"
    echo "distinct (session, token) pairs: $distinct (target $users); statements: $statements, $(echo "scale=2; $statements / $users" | bc) per renewed session (target 6), of which $checks confirm a write's commit"
    check "storm $round: $((after - before)) refresh requests (target $users)" test $((after - before)) -eq "$users"
    check "storm $round: $ok answers ok (target $((users * processes)))" test "$ok" -eq $((users * processes))
    check "storm $round: $distinct distinct pairs (target $users)" test "$distinct" -eq "$users"
    check "storm $round: $statements statements (target at most $((6 * users)))" test "$statements" -le $((6 * users))
    storm_cpu=$(cat "$work"/summary.* | sed -n 's/.*cpu: \([0-9]*\) ms.*/\1/p' | paste -sd+ | bc)
    echo "CPU of the $processes instances: $storm_cpu ms, $(echo "scale=3; $storm_cpu / $users" | bc) ms per renewed session"
    peaks=$(cat "$work"/summary.* | sed -n 's/.*peak resident: \([0-9]*\) KiB.*/\1/p' | awk '{ printf "%s%.1f", (NR > 1 ? ", " : ""), $1 / 1024 }')
    echo "peak RSS per instance: $peaks MiB (cache capacity $capacity sessions)"
    storm_refreshes+=("$((after - before))")
    storm_statements+=("$(echo "scale=2; $statements / $users" | bc)")
    storm_peaks+=("$peaks")
    echo
    settle
    before=$(refreshes)
    floor "floor.$round"
    after=$(refreshes)
    echo "floor after the storm: $floor_wall ms; refresh requests: $((after - before)) (target $users)"
    echo "CPU of the $processes floor clients per grant: $(echo "scale=3; $floor_before_cpu / $users" | bc) ms before, $(echo "scale=3; $floor_cpu / $users" | bc) ms after"
    floor_mean=$(echo "scale=1; ($floor_before + $floor_wall) / 2" | bc)
    ratio=$(echo "scale=2; $storm_wall / $floor_mean" | bc)
    ratios+=("$ratio")
    echo "storm / floor: $storm_wall / $floor_mean ms (the floors' mean) = $ratio (target at most 1.5); against each floor: $(echo "scale=2; $storm_wall / $floor_before" | bc) and $(echo "scale=2; $storm_wall / $floor_wall" | bc)"
    floor_before=$floor_wall
    floor_before_cpu=$floor_cpu
done
median_ratio=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
if [ "$storms" -gt 1 ]; then
    echo
    echo "storm / floor over $storms storms: ${ratios[*]}; median $median_ratio (target at most 1.5)"
fi

echo
# Only what memory holds rides out a hung database: at most the cache's capacity of sessions.
echo "-- 5. credentials() on $held_users valid sessions while PostgreSQL is hung (SIGSTOP)"
cluster=$(cat .postgres/dir 2>/dev/null || true)
if [ "$started_postgres" = 1 ] && [ -f "$cluster/data/postmaster.pid" ]; then
    fleet_size=$held_users fleet 0
    rm -f "$work/hold"
    LOAD_ROUNDS=2 LOAD_HOLD_FILE=$work/hold "$bin/sessionkit-directory-load" >"$work/held.out" 2>"$work/held.summary" &
    held=$!
    pids+=($held)
    for _ in $(seq 1 600); do grep -q '^held' "$work/held.out" 2>/dev/null && break; sleep 0.1; done
    postmaster=$(head -1 "$cluster/data/postmaster.pid")
    frozen="$postmaster $(pgrep -P "$postmaster" | tr '\n' ' ')"
    # The cluster runs as the postgres user when this script runs as root.
    kill -STOP $frozen
    touch "$work/hold"
    wait "$held" || true
    kill -CONT $frozen
    held_line=$(grep 'held round' "$work/held.summary" || echo "held round: none")
    echo "$held_line"
    check "PostgreSQL hung: $held_line (target: $held_users calls, 0 errors, 0 statements)" \
        grep -q "calls: $held_users, errors: 0, .*statements: 0\$" <<<"$held_line"
else
    echo "skipped: needs the cluster this script starts (unset SESSIONKIT_POSTGRES_URL)"
    check "PostgreSQL hung: skipped" false
fi

echo
echo "== size $users × $processes instances: refresh requests per storm ${storm_refreshes[*]} (target $users each);" \
    "statements per renewed session ${storm_statements[*]}; storm / floor ${ratios[*]} (median $median_ratio);" \
    "peak RSS per instance (MiB) ${storm_peaks[*]}, cache capacity $capacity; a cold instance's first round $warmups ms"

if [ "${CHECK:-0}" = 1 ]; then
    echo
    if [ ${#missed[@]} -gt 0 ]; then
        printf 'missed: %s\n' "${missed[@]}"
        exit 1
    fi
    echo "every target that is not a timing met"
fi
