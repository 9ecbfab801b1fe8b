#!/usr/bin/env bash
# Where the CPU goes in server.sh's storm and floor: one storm (PROCESSES instances, every one asking for each of
# USERS expired sessions) and one floor (the same grants straight at the emulator), each under
# `perf record -a -g` for the whole machine, then the samples by process.
#
#     USERS=3000 Benchmarks/server-profile.sh       # needs perf (Debian: linux-perf) and root or perf_event_paranoid<=0
#     perf report -i /tmp/sessionkit-profile/storm.data --pid PID --no-children --sort sym   # then, per process
#
# Starts (and stops) a throw-away PostgreSQL with scripts/postgres-start.sh; builds like server.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
users=${USERS:-3000}
processes=${PROCESSES:-4}
out=${OUT:-/tmp/sessionkit-profile}
umask 077
swift build -c release --product sessionkit-directory-load >&2
swift build -c release --product sessionkit-emulator >&2
bin=$(swift build -c release --show-bin-path)
rm -rf "$out" && mkdir -p "$out"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    scripts/postgres-stop.sh >/dev/null 2>&1 || true
}
trap cleanup EXIT
# TLS to PostgreSQL (the cluster serves it) unless SSLMODE says otherwise, as in server.sh.
SESSIONKIT_POSTGRES_URL="$(scripts/postgres-start.sh)${SSLMODE:+?sslmode=$SSLMODE}"
export SESSIONKIT_POSTGRES_URL
source Benchmarks/emulator.sh
start_emulator "$bin/sessionkit-emulator" "$out/emulator.log"
emulator=$started_pid
export LOAD_ISSUER=$started_issuer LOAD_PASSWORD=alice-demo-password LOAD_CONCURRENCY=100
LOAD_KEY_HEX=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export LOAD_KEY_HEX
fleet() {
    export LOAD_SERVICE=bench.$(date +%s%N) LOAD_IDS_FILE=$out/ids.$1
    LOAD_CREATE=$users LOAD_EXPIRED=1 LOAD_CONCURRENCY=32 "$bin/sessionkit-directory-load"
}

# Samples by process: the emulator, the instances (or floor clients) together, PostgreSQL, the rest.
shares() {
    # `perf script -F pid,comm` prints the command name, then the process id.
    perf script -i "$1" -F pid,comm 2>/dev/null | awk -v emulator="$emulator" -v self="$2" '
        { total++; if ($2 == emulator) e++; else if ($1 == "postgres") p++; else if (index(self, " " $2 " ")) s++; else o++ }
        END { printf "samples %d: emulator %.0f%%, %s %.0f%%, postgres %.0f%%, other %.0f%%\n",
              total, 100*e/total, "instances", 100*s/total, 100*p/total, 100*o/total }'
}

fleet storm
running=()
for _ in $(seq 1 "$processes"); do "$bin/sessionkit-directory-load" >/dev/null 2>>"$out/storm.summary" & running+=($!); done
perf record -F 499 -a -g -o "$out/storm.data" -- sleep "${STORM_SECONDS:-8}" >/dev/null 2>&1
wait "${running[@]}"
echo "storm: $(grep -o 'wall: [0-9.]* ms' "$out/storm.summary" | sort -t' ' -k2 -n | tail -1)"
echo "storm $(shares "$out/storm.data" " ${running[*]} ")"

fleet floor
running=()
for i in $(seq 0 $((processes - 1))); do
    LOAD_FLOOR=1 LOAD_SHARD=$i/$processes "$bin/sessionkit-directory-load" >/dev/null 2>>"$out/floor.summary" &
    running+=($!)
done
perf record -F 499 -a -g -o "$out/floor.data" -- sleep "${FLOOR_SECONDS:-3}" >/dev/null 2>&1
wait "${running[@]}"
echo "floor: $(grep -o 'floor wall: [0-9.]* ms' "$out/floor.summary" | sort -t' ' -k3 -n | tail -1)"
echo "floor $(shares "$out/floor.data" " ${running[*]} ")"
