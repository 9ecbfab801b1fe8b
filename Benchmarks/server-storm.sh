#!/usr/bin/env bash
# One renewal storm (or one provider floor) as server.sh runs it, with PostgreSQL's view of it: for looking into
# where a storm's time goes, not for the issue's figures (server.sh gives those, each storm between two floors).
#
#   1. Starts a throw-away cluster (scripts/postgres-start.sh) with pg_stat_statements loaded, and the emulator.
#   2. Signs USERS sessions in, stored as expired, and vacuums the table.
#   3. Runs PROCESSES instances of sessionkit-directory-load at once, each asking for every session (the storm),
#      CONCURRENCY calls in flight each; or, with FLOOR=1, PROCESSES minimal clients renewing a share each straight
#      at the emulator (the floor).
#   4. Prints the longest instance's wall time, the instances' CPU per session and statements, then PostgreSQL's
#      side: WAL written, row updates (and how many were HOT: written in the row's own page, with no index entry),
#      the table's size, and the statements by execution time (pg_stat_statements).
#
#     Benchmarks/server-storm.sh                          # USERS=10000 PROCESSES=4 CONCURRENCY=100
#     PROCESSES=1 Benchmarks/server-storm.sh              # one instance: every renewal, no one waiting on another
#     FLOOR=1 PROCESSES=1 Benchmarks/server-storm.sh      # the floor with one client
#     FILLFACTOR=50 Benchmarks/server-storm.sh            # the table's fillfactor, set before the sessions are made
#     EXPIRED=0 Benchmarks/server-storm.sh                # sessions still valid: every call a read, no renewal
#     PERF=/tmp/storm.data Benchmarks/server-storm.sh     # and the processes sampled by perf (call graphs)
#     LOAD_BINARY=/tmp/old-load Benchmarks/server-storm.sh  # another build of sessionkit-directory-load, timed
#     PRELOAD=6 Benchmarks/server-storm.sh                # after six more fleets, as server.sh's storms come
#
# Runs as root (the cluster runs as the `postgres` user); builds like server.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
users=${USERS:-10000}
processes=${PROCESSES:-4}
umask 077

swift build -c release --product sessionkit-directory-load >&2
swift build -c release --product sessionkit-emulator >&2
bin=$(swift build -c release --show-bin-path)
# The timed processes' binary: LOAD_BINARY=/path/to/a/copy compares another build on the same fleet and cluster.
load=${LOAD_BINARY:-$bin/sessionkit-directory-load}
work=$(mktemp -d /tmp/sessionkit-storm.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    scripts/postgres-stop.sh >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

SESSIONKIT_POSTGRES_URL="$(scripts/postgres-start.sh)${SSLMODE:+?sslmode=$SSLMODE}"
export SESSIONKIT_POSTGRES_URL
cluster=$(cat .postgres/dir)
port=$(cat .postgres/port)
as_postgres() { runuser -u postgres -- psql -q -X -h "$cluster" -p "$port" "$@"; }
as_postgres -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'" >/dev/null
scripts/postgres-restart.sh >/dev/null
as_postgres -d sessionkit_test -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" \
    -c "ALTER SYSTEM SET pg_stat_statements.track_planning = on" -c "SELECT pg_reload_conf()" >/dev/null
database() { as_postgres -d sessionkit_test "$@"; }

source Benchmarks/emulator.sh
start_emulator "$bin/sessionkit-emulator" "$work/emulator.log"
export LOAD_ISSUER=$started_issuer LOAD_PASSWORD=alice-demo-password LOAD_CONCURRENCY=${CONCURRENCY:-100}
LOAD_KEY_HEX=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export LOAD_KEY_HEX LOAD_SERVICE=bench.$(date +%s%N) LOAD_IDS_FILE=$work/ids

# The first fleet creates the table (the store migrates it); a fillfactor applies to the rows written after it is
# set, so the table is emptied and the fleet made again.
LOAD_CREATE=1 LOAD_EXPIRED=1 "$bin/sessionkit-directory-load" >/dev/null
# PRELOAD=N: N more fleets signed in first under services of their own, as server.sh's storms meet a table and a
# provider that earlier phases filled.
for n in $(seq 1 "${PRELOAD:-0}"); do
    LOAD_SERVICE=$LOAD_SERVICE.preload$n LOAD_IDS_FILE=$work/preload LOAD_CREATE=$users LOAD_EXPIRED=1 \
        LOAD_CONCURRENCY=32 "$bin/sessionkit-directory-load" >/dev/null 2>&1
done
if [ -n "${FILLFACTOR:-}" ]; then
    database -c "TRUNCATE sessionkit_items" -c "ALTER TABLE sessionkit_items SET (fillfactor = $FILLFACTOR)"
fi
LOAD_CREATE=$users LOAD_EXPIRED=${EXPIRED:-1} LOAD_CONCURRENCY=32 "$bin/sessionkit-directory-load" >&2
database -c "VACUUM (ANALYZE) sessionkit_items" -c "SELECT pg_stat_statements_reset()" -c "SELECT pg_stat_reset()" \
    >/dev/null
wal_before=$(database -At -c "SELECT pg_current_wal_lsn()")

source Benchmarks/cpu.sh
cpu_before=$(cpu_snapshot "$started_pid")

echo "== one $([ "${FLOOR:-0}" = 1 ] && echo floor || echo storm): $users sessions, $processes processes × $LOAD_CONCURRENCY in flight, commit $(git rev-parse --short HEAD), $(date -u +%Y-%m-%dT%H:%MZ)"
running=()
source Benchmarks/gate.sh
gate=$(gate_new "$work")
for i in $(seq 0 $((processes - 1))); do
    export LOAD_READY_FILE=$gate/ready.$i LOAD_START_FILE=$gate/start
    if [ "${FLOOR:-0}" = 1 ]; then
        LOAD_FLOOR=1 LOAD_SHARD=$i/$processes "$load" >/dev/null 2>"$work/summary.$i" &
    else
        "$load" >/dev/null 2>"$work/summary.$i" &
    fi
    running+=($!)
done
unset LOAD_READY_FILE LOAD_START_FILE
gate_open "$gate" "$processes" "${running[@]}"
if [ -n "${PERF:-}" ]; then
    # The whole machine with call graphs until the processes exit (`perf record -p` would miss the threads they
    # start later); their pids go to $PERF.pids, for `perf report --pid`. perf is waited for like them, so its own
    # CPU counts among the phase's processes in cpu_report's line.
    perf record -F 999 -a -g -o "$PERF" >/dev/null 2>&1 &
    recorder=$!
    (IFS=,; echo "${running[*]}") >"$PERF.pids"
fi
wait "${running[@]}"
if [ -n "${PERF:-}" ]; then kill -INT "$recorder"; wait "$recorder" || true; fi
# Each process's own line: its calls' median and p99, its statements, and its store calls (statements) by kind.
sed -E "s/.*(median: [0-9.]+ ms, p99: [0-9.]+ ms).*(statements: [0-9]+, of which commit checks: [0-9]+).*(calls by operation.*)/\1 \2 \3/" "$work"/summary.* >&2
wall=$(cat "$work"/summary.* | sed -n 's/.*wall: \([0-9.]*\) ms.*/\1/p' | sort -n | tail -1)
span=$(timed_span "$work"/summary.*)
cpu=$(cat "$work"/summary.* | sed -n 's/.*cpu: \([0-9]*\) ms.*/\1/p' | paste -sd+ | bc)
statements=$(cat "$work"/summary.* | sed -n 's/.*statements: \([0-9]*\).*/\1/p' | paste -sd+ | bc)
echo "wall: $span ms (from the first process's first call to the last one's last answer; the longest process's own: $wall ms); CPU of the $processes processes: $cpu ms, $(echo "scale=3; $cpu / $users" | bc) ms per session; statements: ${statements:-0}"
cpu_report "$users" "$cpu_before" "$(cpu_snapshot "$started_pid")"
database -c "SELECT pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), '$wal_before')) AS wal_written" \
    -c "SELECT n_tup_upd AS row_updates, n_tup_hot_upd AS hot_updates,
               pg_size_pretty(pg_relation_size(relid)) AS table_size
        FROM pg_stat_user_tables WHERE relname = 'sessionkit_items'" \
    -c "SELECT calls, round(total_exec_time::numeric) AS exec_ms, plans, round(total_plan_time::numeric) AS plan_ms,
               rows, wal_bytes,
               left(regexp_replace(query, '\s+', ' ', 'g'), 70) AS statement
        FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%' AND query NOT LIKE '%pg_current_wal%'
        ORDER BY total_exec_time DESC LIMIT 6"
