#!/usr/bin/env bash
# The back end for front ends under load (issue 15): two sessionkit-bff instances sharing PostgreSQL, USERS
# (1,000) users signed in through them, and the emulator as the upstream API.
#
#   swift build -c release --product sessionkit-bff && swift build -c release --product sessionkit-emulator
#   scripts/postgres-start.sh            # or SESSIONKIT_POSTGRES_URL=...
#   Benchmarks/bff.sh                    # USERS, DURATION (s), CONNECTIONS (per wrk, one wrk per target),
#                                        LIFETIME (s, access tokens; 120, or 8 x DURATION + 40 when longer),
#                                        BIN (.build/release), STORM=0 (no storm), PIN=1 (the tiers on their
#                                        own cores, see below), UPSTREAM=nginx (see below), FLOOR=1 (see below),
#                                        BFF_ARGS (more sessionkit-bff options, such as --no-event-loop-forwarding)
#
# 1. wrk against the upstream directly (GET /.well-known/jwks.json, two wrk processes at once), without a token,
#    with one bearer token, and with the next of USERS tokens on every request (picked in Lua, as the forwarded run
#    picks cookies), then through the two instances (GET /api/.well-known/jwks.json, one wrk on each, every request
#    with the next user's cookie), then the direct runs again: requests per second, p50/p99 latency and CPU per
#    request of the emulator, the instances and wrk, in the same run, and the forwarded rate over the mean of each
#    direct pair.
# 2. A renewal storm: once every access token has expired (they live LIFETIME s), every user's GET /api/userinfo on both
#    instances at once; the emulator counts the refresh requests (exactly one per user is the claim).
#
# UPSTREAM=nginx: the upstream is nginx serving a small static file (Debian's `nginx`; installed when missing), which
# costs almost nothing per request, so that the BFF is the bottleneck and its own CPU per forwarded request shows
# (issue 46's "half the CPU per forwarded request"). The direct runs then ask nginx for the file, the forwarded ones
# /api/<file> through the instances, and "emulator" in the CPU line is nginx's (its workers').
#
# FLOOR=1 (with UPSTREAM=nginx): also the floor of the stack the BFF is built on, right after the forwarded runs:
# `stack-floor` from the benchmarks package (swift build --package-path Benchmarks -c release --product stack-floor;
# FLOOR_BIN, else Benchmarks/.build/release), two processes on the instances' CPU as the instances are, answering a
# 1.2 KB body from memory with Hummingbird alone ("floor-static"), and relaying nginx's file with Hummingbird and
# AsyncHTTPClient and nothing of SessionKit's ("floor-relay"), and relaying it on SwiftNIO alone, a channel pipeline
# with neither library ("floor-nio"); its CPU per request is printed in the instances' place. With PIN=1 each runs
# one event loop, as the instances size theirs to the one CPU they are allowed.
#
# PIN=1 stands in for separate machines on this one: the upstream and the load generators (the emulator and
# both wrk processes) run on CPU 0, the two BFF instances on CPU 1, so that the BFF's own work does not take
# CPU time from the upstream it forwards to (in production it runs on hosts of its own). The direct runs get
# the same CPU 0 as the forwarded ones. Without PIN, every process shares both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
users=${USERS:-1000}
duration=${DURATION:-10}
connections=${CONNECTIONS:-16}
bin=${BIN:-.build/release}
# The access tokens must outlive the seven phases (renewals inside a phase would be measured as forwarding):
# 120 s for 10 s phases, longer for longer ones.
lifetime=${LIFETIME:-$((8 * duration + 40 > 120 ? 8 * duration + 40 : 120))}
upstream_cpus=()
bff_cpus=()
if [ "${PIN:-0}" = 1 ]; then
    [ "$(nproc)" -ge 2 ] || { echo "PIN=1 needs two CPUs" >&2; exit 1; }
    upstream_cpus=(taskset -c 0)
    bff_cpus=(taskset -c 1)
fi
for program in sessionkit-bff sessionkit-emulator; do
    [ -x "$bin/$program" ] || { echo "build first: swift build -c release --product $program" >&2; exit 1; }
done
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
database=${SESSIONKIT_POSTGRES_URL:-$(cat .postgres/url 2>/dev/null || true)}
[ -n "$database" ] || { echo "no PostgreSQL: run scripts/postgres-start.sh" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    # SIGTERM asks for a graceful stop: one that has not happened within 10 s is reported, not left running.
    for pid in "${pids[@]}"; do
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "$(cat "/proc/$pid/comm" 2>/dev/null) ($pid) did not stop within 10 s of SIGTERM; killed" >&2
            kill -9 "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$work" ${nginx_dir:+"$nginx_dir"}
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { # URL: until it answers at all
    for _ in $(seq 200); do python3 - "$1" 2>/dev/null <<'PY' && return 0 || sleep 0.1; done
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=1)
except urllib.error.HTTPError:
    pass
PY
    echo "$1 did not answer" >&2; exit 1
}

if [ "${UPSTREAM:-emulator}" = nginx ] && ! command -v nginx >/dev/null; then
    apt-get install -y -q nginx >/dev/null || { echo "nginx is missing: apt-get install nginx" >&2; exit 1; }
fi
emulator_port=$(free_port)
issuer="http://127.0.0.1:$emulator_port"
echo "{\"lifetimes\": {\"accessToken\": $lifetime}}" > "$work/emulator.json"
"${upstream_cpus[@]}" "$bin/sessionkit-emulator" serve --port "$emulator_port" --config "$work/emulator.json" --test-controls \
    --auto-sign-in alice@example.com > "$work/emulator.log" 2>&1 &
pids+=($!)
wait_for "$issuer/.well-known/openid-configuration"

python3 -c 'import secrets; print(secrets.token_hex(32))' > "$work/key"
printf %s sessionkit-backend-demo-secret-not-for-production > "$work/secret"
chmod 600 "$work/key" "$work/secret"
# The upstream the instances forward /api to, and the path the runs ask for: the emulator's key set by default.
upstream=$issuer
path=.well-known/jwks.json
if [ "${UPSTREAM:-emulator}" = nginx ]; then
    nginx_port=$(free_port)
    # A folder of its own, readable by nginx's unprivileged worker; $work (the keys) stays private.
    nginx_dir=$(mktemp -d)
    chmod 755 "$nginx_dir"
    mkdir -p "$nginx_dir/www" "$nginx_dir/tmp"
    # About the size of the emulator's key set, so that both upstreams send alike.
    head -c 1200 /dev/zero | tr '\0' x | sed 's/^/{"static": "/; s/$/"}/' > "$nginx_dir/www/static.json"
    cat > "$nginx_dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $nginx_dir/nginx.pid;
error_log $nginx_dir/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $nginx_dir/tmp;
    proxy_temp_path $nginx_dir/tmp;
    fastcgi_temp_path $nginx_dir/tmp;
    uwsgi_temp_path $nginx_dir/tmp;
    scgi_temp_path $nginx_dir/tmp;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$nginx_port;
        root $nginx_dir/www;
        default_type application/json;
    }
}
CONF
    chmod -R a+rX "$nginx_dir"
    "${upstream_cpus[@]}" nginx -c "$nginx_dir/nginx.conf" -e "$nginx_dir/error.log" >/dev/null 2>&1 &
    nginx_pid=$!
    upstream="http://127.0.0.1:$nginx_port"
    path=static.json
    wait_for "$upstream/$path"
fi
a_port=$(free_port)
b_port=$(free_port)
for port in "$a_port" "$b_port"; do
    "${bff_cpus[@]}" "$bin/sessionkit-bff" --port "$port" --public-url "http://127.0.0.1:$a_port" --issuer "$issuer/" \
        --upstream "$upstream" \
        --client-secret-file "$work/secret" --database-url "$database" --sealing-key-file "$work/key" \
        --service "bench.bff.$$" --min-token-ttl 5 ${BFF_ARGS:-} > "$work/bff-$port.log" 2>&1 &
    pids+=($!)
    wait_for "http://127.0.0.1:$port/auth/me"
done
# The processes whose CPU per request each run reports as the servers' under test: the two instances.
measured=("${pids[1]}" "${pids[2]}")
measured_name="BFF instances"
# The processes whose CPU is the upstream's: the emulator, or nginx's master and worker.
upstream_pids=${pids[0]}
if [ -n "${nginx_pid:-}" ]; then
    pids+=("$nginx_pid")
    upstream_pids="$nginx_pid $(pgrep -P "$nginx_pid" | tr '\n' ' ')"
fi
a="http://127.0.0.1:$a_port"
b="http://127.0.0.1:$b_port"

seeded_at=$(date +%s)
python3 Benchmarks/bff-driver.py seed "$users" "$a" "$work/ids"

# A wrk script that sends, on every request, the next line of the file $1 in the headers that the Lua table $2
# makes of it (`value`). The requests are made once, when wrk starts: on the upstream's CPU (PIN=1), wrk should
# cost as little per request as it can.
rotating_script() {
    cat <<LUA
local requests = {}
init = function(args)
    for value in io.lines("$1") do requests[#requests + 1] = wrk.format("GET", nil, $2) end
end
local counter = 0
request = function()
    counter = counter + 1
    return requests[(counter % #requests) + 1]
end
LUA
}
rotating_script "$work/ids" '{["Cookie"] = "sessionkit=" .. value, ["X-CSRF"] = "1"}' >"$work/users.lua"
summary() { # LABEL FILE...: requests/s summed, p50 and p99 of each
    local total=0 line="$1:"
    shift
    for file in "$@"; do
        rps=$(awk '/Requests\/sec/ {print $2}' "$file")
        p50=$(awk '$1 == "50%" {print $2}' "$file")
        p99=$(awk '$1 == "99%" {print $2}' "$file")
        errors=$(grep -E "Non-2xx|Socket errors" "$file" | tr '\n' ' ' || true)
        total=$(python3 -c "print(round($total + $rps))")
        line="$line [p50 $p50, p99 $p99, $rps req/s${errors:+, $errors}]"
    done
    echo "$line total $total req/s"
}
cpu_ticks() { # PID...: user + system clock ticks so far, summed
    python3 - "$@" <<'PY'
import sys
print(sum(sum(int(x) for x in open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[11:13]) for pid in sys.argv[1:]))
PY
}
run_pair() { # LABEL URL1 URL2 [SCRIPT]: also the CPU time the emulator and the instances spent per request
    local label=$1 first=$2 second=$3 script=${4:-}
    local emulator_before bff_before
    emulator_before=$(cpu_ticks $upstream_pids)
    bff_before=$(cpu_ticks "${measured[@]}")
    # The load generators' CPU: this shell's waited-for children (the two wrk processes, and the few short helpers).
    local wrk_before
    wrk_before=$(awk '{print $16 + $17}' /proc/$$/stat)
    "${upstream_cpus[@]}" wrk -t1 -c"$connections" -d"${duration}s" --latency ${script:+-s "$script"} "$first" \
        > "$work/$label-1" &
    local one=$!
    "${upstream_cpus[@]}" wrk -t1 -c"$connections" -d"${duration}s" --latency ${script:+-s "$script"} "$second" > "$work/$label-2"
    wait "$one"
    local wrk_after
    wrk_after=$(awk '{print $16 + $17}' /proc/$$/stat)
    summary "$label" "$work/$label-1" "$work/$label-2"
    python3 - "$(cpu_ticks $upstream_pids)" "$emulator_before" "$(cpu_ticks "${measured[@]}")" "$bff_before" \
        "$(getconf CLK_TCK)" "$wrk_after" "$wrk_before" "$measured_name" "$work/$label-1" "$work/$label-2" <<'PY'
import re, sys
emulator, emulator0, bff, bff0, tick, wrk, wrk0 = (int(x) for x in sys.argv[1:8])
requests = sum(int(re.search(r"(\d+) requests in", open(f).read()).group(1)) for f in sys.argv[9:])
per = lambda ticks: f"{ticks / tick / requests * 1e6:.0f} us"
print(f"  CPU per request: emulator {per(emulator - emulator0)}, {sys.argv[8]} {per(bff - bff0)}, "
      f"wrk {per(wrk - wrk0)} ({requests} requests)")
PY
}
echo "== $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD), $users users, ${duration}s, 2 x wrk -t1 -c$connections," \
    "$([ "${PIN:-0}" = 1 ] && echo "upstream and wrk on CPU 0, BFF instances on CPU 1" || echo "all processes on all CPUs")"
# Real access tokens of the emulator's (the password grant, same user), USERS of them.
python3 - "$issuer" "$users" > "$work/tokens" <<'PY'
import json, sys, urllib.parse, urllib.request
form = urllib.parse.urlencode({"grant_type": "password", "client_id": "sessionkit-native", "username": "alice@example.com",
                               "password": "alice-demo-password", "scope": "openid profile email"}).encode()
for _ in range(int(sys.argv[2])):
    print(json.load(urllib.request.urlopen(sys.argv[1] + "/oauth/token", form))["access_token"])
PY
# A front end that held its tokens would send one with each API call: "direct-bearer" sends the first of them in
# `Authorization`, as the BFF does on every forwarded call.
echo "wrk.headers[\"Authorization\"] = \"Bearer $(head -n 1 "$work/tokens")\"" > "$work/bearer.lua"
# "direct-tokens": USERS front ends each sending its own token, the next one picked per request in Lua exactly as the
# forwarded run picks the next user's cookie, so that the load generators (on the upstream's CPU with PIN=1) do the
# same work per request in both (on 2026-11-26, 10 us of wrk's CPU per direct-tokens request against 9 us static;
# 15 us when the script formatted every request anew).
rotating_script "$work/tokens" '{["Authorization"] = "Bearer " .. value}' >"$work/tokens.lua"
run_pair direct "$upstream/$path" "$upstream/$path"
run_pair direct-bearer "$upstream/$path" "$upstream/$path" "$work/bearer.lua"
run_pair direct-tokens "$upstream/$path" "$upstream/$path" "$work/tokens.lua"
run_pair bff "$a/api/$path" "$b/api/$path" "$work/users.lua"
if [ "${FLOOR:-0}" = 1 ]; then
    # Two processes, one for each wrk, as the two instances are.
    floor_ports=("$(free_port)" "$(free_port)")
    nio_ports=("$(free_port)" "$(free_port)")
    measured=()
    for i in 0 1; do
        port=${floor_ports[$i]}
        env ${bff_cpus[0]:+NIO_SINGLETON_GROUP_LOOP_COUNT=1} "${bff_cpus[@]}" \
            "${FLOOR_BIN:-Benchmarks/.build/release}/stack-floor" "$port" "$upstream" "${nio_ports[$i]}" \
            > "$work/floor-$port.log" 2>&1 &
        pids+=($!)
        measured+=($!)
        wait_for "http://127.0.0.1:$port/static"
    done
    measured_name="stack-floor"
    f1="http://127.0.0.1:${floor_ports[0]}"
    f2="http://127.0.0.1:${floor_ports[1]}"
    run_pair floor-static "$f1/static" "$f2/static"
    run_pair floor-relay "$f1/relay/$path" "$f2/relay/$path"
    run_pair floor-nio "http://127.0.0.1:${nio_ports[0]}/nio/$path" "http://127.0.0.1:${nio_ports[1]}/nio/$path"
    measured=("${pids[1]}" "${pids[2]}")
    measured_name="BFF instances"
fi
run_pair direct-tokens-again "$upstream/$path" "$upstream/$path" "$work/tokens.lua"
run_pair direct-bearer-again "$upstream/$path" "$upstream/$path" "$work/bearer.lua"
run_pair direct-again "$upstream/$path" "$upstream/$path"
python3 - "$work" <<'PY'
import re, sys
def rps(label):
    return sum(float(re.search(r"Requests/sec:\s*([\d.]+)", open(f"{sys.argv[1]}/{label}-{i}").read()).group(1)) for i in (1, 2))
bff = rps("bff")
for base in ("direct", "direct-bearer", "direct-tokens"):
    mean = (rps(base) + rps(base + "-again")) / 2
    print(f"forwarded / {base} (mean of the runs before and after): {bff / mean * 100:.0f}%")
PY

# The storm renews through /api/userinfo, which only the emulator serves.
[ "${STORM:-$([ "${UPSTREAM:-emulator}" = nginx ] && echo 0 || echo 1)}" = 1 ] || exit 0
# Every access token was issued after seeded_at and lives $lifetime s; the instances renew 5 s before expiry.
wait_until=$((seeded_at + lifetime))
now=$(date +%s)
[ "$now" -ge "$wait_until" ] || { echo "waiting $((wait_until - now)) s for every access token to need renewal"; sleep $((wait_until - now)); }
python3 - "$issuer" <<'PY'
import sys, urllib.request
urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/__emulator/requests", method="DELETE"))
PY
echo "== renewal storm: every user's GET /api/userinfo on A and on B at once"
python3 Benchmarks/bff-driver.py storm "$work/ids" "$a" "$b"
python3 - "$issuer" <<'PY'
import json, sys, urllib.request
counts = json.load(urllib.request.urlopen(sys.argv[1] + "/__emulator/requests"))
print("emulator request counts during the storm:", json.dumps(counts, sort_keys=True))
PY
