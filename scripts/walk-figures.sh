#!/usr/bin/env bash
# Issue 45's guard figures for three walks, measured on real runs of a checkout's debug build: the files of ours
# whose code ran, and the calls that crossed from one of our SwiftPM targets into another.
#
# Usage: scripts/walk-figures.sh [CHECKOUT...]    (default: this checkout; results in CHECKOUT/.build-walks/)
#        scripts/walk-figures.sh --self-test      (the tracer on a two-target package whose answer is known)
#   Before and after:  git worktree add --detach /tmp/before a0ecddc && scripts/walk-figures.sh /tmp/before .
#
# The walks (each checkout builds sessionctl, sessionkit-emulator and sessionkit-bff, debug, with nice):
#   1 token-cached   `sessionctl token`, the stored access token valid (--store file, a fresh home)
#   2 token-expired  `sessionctl token`, the stored access token expired (the emulator's last 65 s; it waits)
#   3 bff-forward    one GET /api/userinfo that sessionkit-bff forwards to the emulator with the access token,
#                    the session signed in and used once before (so not the first request after start-up)
#   4 bff-renewed    two sessionkit-bff on one PostgreSQL (--min-token-ttl 25, tokens living 65 s): A renews the
#                    user's expiring session on a request; then B, which had used the session before, serves the
#                    user's next request. Traced on B from A's renewal to B's answer: the announcement of A's
#                    record reaching B, and B's request (printed apart as 4a and 4b too).
# The environment of every program is emptied (env -i) but for the walk's settings, so that no SSL_CERT_FILE or
# proxy variable of the machine changes what runs.
#
# Definitions:
#   files      distinct files under Sources/ with a function entered during the walk (the file of a function is
#              that of its first instruction in the line table; compiler-generated code has none, so thunks,
#              metadata accessors and value witnesses count for no file);
#   crossings  calls during the walk whose caller and callee are both our code but in different targets (the
#              target of a function is the folder under Sources/ of its file); each call event counts once. The
#              caller is the frame above the callee, skipping compiler-generated thunks (a protocol witness thunk
#              of B called from A counts as A -> B); for an async callee lldb unwinds to the awaiting function's
#              continuation. Also printed: distinct caller-callee function pairs, and edges (caller target ->
#              callee target). A call that goes through code not ours (a closure of ours that the standard
#              library calls) is not a crossing.
# Method: lldb (Python) puts a breakpoint on the entry of every function of ours (scripts/walk_trace.py), records
# each hit and its caller, and lets the program go on; BFF walks attach to the running server, so start-up is not
# traced, and phases (idle, request) are told apart by marker files. About 4 minutes a checkout once built, on two
# busy cores (walk 2 waits a minute for its token to expire); a first debug build of the three products takes 5-10.
set -euo pipefail
[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '5,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0; }
checkouts=()
if [[ ${1:-} != --self-test ]]; then
    for checkout in "$@"; do checkouts+=("$(cd "$checkout" && pwd)"); done
fi
cd "$(dirname "$0")/.."
[[ ${#checkouts[@]} -gt 0 ]] || checkouts=("$PWD")
tracer=$PWD/scripts/walk_trace.py

toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
export PATH=$toolchain:$PATH  # llvm-nm, llvm-symbolizer, lldb of the toolchain
# The toolchain's lldb links libpython3.10; Debian 12 has 3.11 only, so look for one (pyenv has it here).
lldb_libs=$(ldd "$toolchain/lldb" | awk '/libpython.*not found/ {print $1}')
lldb_path=""
if [[ -n $lldb_libs ]]; then
    found=$(find /root/.pyenv/versions /usr/local/lib /opt -name "$lldb_libs" 2>/dev/null | head -n 1 || true)
    [[ -n $found ]] || { echo "lldb needs $lldb_libs, which is not on this machine" >&2; exit 1; }
    lldb_path=$(dirname "$found")
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
browser() { python3 "$tracer" browser "$@"; }
pids=()
started_postgres=""
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
    if [[ -n $started_postgres ]]; then "$started_postgres/scripts/postgres-stop.sh" >/dev/null 2>&1 || true; fi
    started_postgres=""
}
trap cleanup EXIT

# trace OUT [VAR=VALUE...] -- runs lldb with the tracer; WALK_ variables say what to trace.
trace() {
    local out=$1
    shift
    env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH="$lldb_path" "$@" WALK_OUT="$out" \
        nice -n 10 "$toolchain/lldb" --batch -o "command script import $tracer" -o walk-trace >"$out.log" 2>&1 ||
        { tail -n 20 "$out.log" >&2; exit 1; }
    [[ -f $out ]] || { tail -n 20 "$out.log" >&2; exit 1; }
}

# attach_trace OUT PID MARK... -- attaches to PID in the background; returns once every breakpoint is set.
attach_trace() {
    local out=$1 pid=$2
    shift 2
    local marks
    marks=$(IFS=:; echo "$*")
    rm -f "$out" "$out.ready" "$out.done" "$@"
    trace "$out" WALK_TABLE="$table_bff" WALK_PID="$pid" WALK_READY="$out.ready" WALK_DONE="$out.done" \
        WALK_MARKS="$marks" &
    tracing=$!
    while [[ ! -f $out.ready ]]; do
        kill -0 "$tracing" 2>/dev/null || { echo "the tracer of $out stopped" >&2; exit 1; }
        sleep 0.2
    done
}
end_trace() { touch "$1.done"; wait "$tracing"; }

# bff NAME ISSUER [FLAGS...] -- starts sessionkit-bff on a free port; sets $bff_url and $bff_pid.
bff() {
    local name=$1 issuer=$2 port
    shift 2
    port=$(free_port)
    env -i PATH=/usr/bin:/bin HOME="$work/home-bff" nice -n 10 "$bin/sessionkit-bff" --port "$port" \
        --issuer "$issuer" --store postgres --database-url "$database" --sealing-key-file "$work/sealing-key" \
        "$@" >"$work/$name.log" 2>&1 &
    bff_pid=$!
    pids+=("$bff_pid")
    bff_url=http://127.0.0.1:$port
    browser wait "$bff_url/auth/me" "$work/none"
}

# emulator NAME LIFETIME -- a sessionkit-emulator on a free port whose access tokens live LIFETIME seconds;
# sets $issuer.
emulator() {
    local port
    port=$(free_port)
    echo "{\"lifetimes\": {\"accessToken\": $2}}" >"$work/$1.json"
    env -i PATH=/usr/bin:/bin HOME="$work" nice -n 10 "$bin/sessionkit-emulator" serve --port "$port" \
        --config "$work/$1.json" --auto-sign-in alice@example.com >"$work/$1.log" 2>&1 &
    pids+=($!)
    issuer=http://127.0.0.1:$port/
    browser wait "${issuer}.well-known/openid-configuration" "$work/none"
}

# sessionctl_env HOME ISSUER -- the walk's sessionctl environment, for login and for the tracer.
sessionctl_env() {
    echo HOME="$1" XDG_CONFIG_HOME="$1/config" XDG_STATE_HOME="$1/state" SESSIONCTL_SESSIONS_DIR="$1/sessions" \
        SESSIONCTL_STORE=file SESSIONCTL_ISSUER="$2" SESSIONCTL_CLIENT_ID=sessionkit-native NO_COLOR=1
}
sign_in_cli() {
    mkdir -p "$1"
    # shellcheck disable=SC2046
    echo alice-demo-password | env -i PATH=/usr/bin:/bin $(sessionctl_env "$1" "$2") \
        "$bin/sessionctl" login --password-stdin --username alice@example.com >"$1.login.log" 2>&1
}

measure() {
    local tree=$1
    work=$tree/.build-walks
    rm -rf "$work"
    mkdir -p "$work"
    local revision
    revision=$(git -C "$tree" rev-parse --short HEAD)$(git -C "$tree" diff --quiet HEAD -- Sources || echo +)
    echo "== $tree ($revision)"
    local start=$SECONDS
    for product in sessionctl sessionkit-emulator sessionkit-bff; do
        (cd "$tree" && nice -n 10 swift build --product "$product" >"$work/build-$product.log" 2>&1) ||
            { tail -n 20 "$work/build-$product.log" >&2; exit 1; }
    done
    bin=$tree/.build/debug
    echo "   built in $((SECONDS - start)) s"
    python3 "$tracer" table "$bin/sessionctl" "$tree" "$work/sessionctl.table.json" | sed 's/^/   /'
    table_bff=$work/sessionkit-bff.table.json
    python3 "$tracer" table "$bin/sessionkit-bff" "$tree" "$table_bff" | sed 's/^/   /'

    if [[ -f $tree/.postgres/url ]] && kill -0 "$(cat "$tree/.postgres/pid" 2>/dev/null)" 2>/dev/null; then
        database=$(cat "$tree/.postgres/url")
    else
        database=$("$tree/scripts/postgres-start.sh" 2>"$work/postgres.log")
        started_postgres=$tree
    fi
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/sealing-key"
    chmod 600 "$work/sealing-key"
    emulator daily 86400
    local daily=$issuer
    emulator short 65
    local short=$issuer

    # Walks 1 and 2: sessionctl. The expired session is signed in first, and traced once its token has expired.
    sign_in_cli "$work/home-expired" "$short"
    local expired_at=$((SECONDS + 67))
    sign_in_cli "$work/home-cached" "$daily"
    # shellcheck disable=SC2046
    trace "$work/1-token-cached.json" WALK_TABLE="$work/sessionctl.table.json" WALK_LAUNCH='["token"]' \
        $(sessionctl_env "$work/home-cached" "$daily")

    # Walk 3: one forwarded request, after a sign-in and a first request.
    bff bff-3 "$daily"
    local cookies=$work/cookies-3
    browser sign-in "$bff_url/auth/login" "$cookies"
    browser get "$bff_url/api/userinfo" "$cookies"
    attach_trace "$work/3-bff-forward.json" "$bff_pid" "$work/mark-3"
    sleep 2  # the idle phase (0): what the server does by itself
    touch "$work/mark-3"
    browser get "$bff_url/api/userinfo" "$cookies"
    end_trace "$work/3-bff-forward.json"
    kill "$bff_pid"

    # Walk 4: two instances; the session signed in on A, used on B; A renews it once it is expiring.
    bff bff-4a "$short" --min-token-ttl 25
    local a_url=$bff_url
    bff bff-4b "$short" --min-token-ttl 25 --public-url "$a_url"
    local b_url=$bff_url b_pid=$bff_pid
    cookies=$work/cookies-4
    browser sign-in "$a_url/auth/login" "$cookies"
    local expiring_at=$((SECONDS + 42))
    browser get "$b_url/api/userinfo" "$cookies"

    # Walk 2 now that its token has expired.
    while ((SECONDS < expired_at)); do sleep 1; done
    # shellcheck disable=SC2046
    trace "$work/2-token-expired.json" WALK_TABLE="$work/sessionctl.table.json" WALK_LAUNCH='["token"]' \
        $(sessionctl_env "$work/home-expired" "$short")

    attach_trace "$work/4-bff-renewed.json" "$b_pid" "$work/mark-4a" "$work/mark-4b"
    while ((SECONDS < expiring_at)); do sleep 1; done
    touch "$work/mark-4a"
    browser get "$a_url/api/userinfo" "$cookies"
    sleep 2  # the announcement of A's record reaches B
    touch "$work/mark-4b"
    browser get "$b_url/api/userinfo" "$cookies"
    end_trace "$work/4-bff-renewed.json"
    cleanup

    {
        python3 "$tracer" summary "$work/1-token-cached.json" 1-token-cached
        python3 "$tracer" summary "$work/2-token-expired.json" 2-token-expired
        python3 "$tracer" summary "$work/3-bff-forward.json" 3-bff-forward 1
        python3 "$tracer" summary "$work/4-bff-renewed.json" 4-bff-renewed 1,2
        python3 "$tracer" summary "$work/4-bff-renewed.json" 4a-announcement 1
        python3 "$tracer" summary "$work/4-bff-renewed.json" 4b-request-on-B 2
        python3 "$tracer" summary "$work/3-bff-forward.json" idle-2s-bff-3 0
        python3 "$tracer" summary "$work/4-bff-renewed.json" idle-bff-4b 0
    } | sed "s/^/$revision /" >"$work/summary.txt"
    {
        python3 "$tracer" report "$work/1-token-cached.json" "1 token-cached"
        python3 "$tracer" report "$work/2-token-expired.json" "2 token-expired"
        python3 "$tracer" report "$work/3-bff-forward.json" "3 bff-forward" 1
        python3 "$tracer" report "$work/4-bff-renewed.json" "4 bff-renewed (on B, from A's renewal)" 1,2
        python3 "$tracer" report "$work/4-bff-renewed.json" "4a announcement on B" 1
        python3 "$tracer" report "$work/4-bff-renewed.json" "4b request on B" 2
    } >"$work/report.txt"
    summaries+=("$work/summary.txt")
    echo "   measured in $((SECONDS - start)) s; details: $work/report.txt"
}

# The self-test: Tool calls Lib 7 times (three sync calls in a loop, an async one, a protocol call, a closure
# taker, an async protocol call), Lib calls back into Tool 4 times (a witness, a closure, an async witness twice),
# and Lib calls itself 5 times; three files ran, one (Helper.swift's unused function aside) in each place.
self_test() {
    local package
    package=$(mktemp -d "${TMPDIR:-/tmp}/walk-self-test.XXXXXX")
    mkdir -p "$package/Sources/Lib" "$package/Sources/Tool"
    cat >"$package/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "WalkSelfTest",
    targets: [.target(name: "Lib"), .executableTarget(name: "Tool", dependencies: ["Lib"])]
)
SWIFT
    cat >"$package/Sources/Lib/Calls.swift" <<'SWIFT'
public func syncAdd(_ a: Int, _ b: Int) -> Int { helper(a) + b }
public func asyncTwice(_ x: Int) async -> Int {
    await Task.yield()
    return syncAdd(x, x)
}
public protocol Doer { func doIt() -> Int }
public func callDoer(_ doer: any Doer) -> Int { doer.doIt() }
public func apply(_ body: (Int) -> Int) -> Int { body(3) }
public protocol AsyncSource: Sendable { func value() async -> Int }
public func sum(_ source: any AsyncSource) async -> Int {
    await Task.yield()
    let first = await source.value()
    return await first + source.value()
}
SWIFT
    cat >"$package/Sources/Lib/Helper.swift" <<'SWIFT'
func helper(_ x: Int) -> Int { x }
func unused(_ x: Int) -> Int { x + 1 }
SWIFT
    cat >"$package/Sources/Tool/main.swift" <<'SWIFT'
import Lib

struct MyDoer: Doer { func doIt() -> Int { 7 } }
struct MySource: AsyncSource {
    func value() async -> Int {
        await Task.yield()
        return 5
    }
}

func run() async -> Int {
    var total = 0
    for i in 0..<3 { total += syncAdd(i, 1) }
    total += await asyncTwice(2)
    total += callDoer(MyDoer())
    total += apply { $0 + 1 }
    total += await sum(MySource())
    return total
}
print(await run())
SWIFT
    (cd "$package" && nice -n 10 swift build >"$package/build.log" 2>&1) || { cat "$package/build.log" >&2; exit 1; }
    python3 "$tracer" table "$package/.build/debug/Tool" "$package" "$package/table.json"
    trace "$package/trace.json" WALK_TABLE="$package/table.json" WALK_LAUNCH='[]'
    python3 "$tracer" report "$package/trace.json" self-test
    local got
    got=$(python3 "$tracer" summary "$package/trace.json" self-test)
    rm -rf "$package"
    # name, files, crossings, pairs, edges, calls of ours
    [[ $got == "self-test 3 11 9 2 20" ]] ||
        { echo "self-test: expected 3 files, 11 crossings; got: $got" >&2; exit 1; }
    echo "self-test passed"
}

if [[ ${1:-} == --self-test ]]; then
    self_test
    exit 0
fi
summaries=()
for checkout in "${checkouts[@]}"; do measure "$checkout"; done
echo
printf '%-10s %-22s %6s %10s %6s %6s %12s\n' checkout walk files crossings pairs edges "calls of ours"
cat "${summaries[@]}" | while read -r revision name files crossings pairs edges calls; do
    printf '%-10s %-22s %6s %10s %6s %6s %12s\n' "$revision" "$name" "$files" "$crossings" "$pairs" "$edges" "$calls"
done
