# Sourced by the benchmark scripts: starts the emulator and waits until it serves.
#
#   start_emulator BINARY LOG [emulator options]
#
# Starts `BINARY serve --test-controls [options]` in the background, its output in LOG, and waits (up to 10 s) until
# it serves. Sets `started_issuer` (its issuer URL) and `started_pid`, and adds the pid to the caller's `pids` array
# (which the caller's cleanup kills). Exits the script when the emulator does not start, with its output.
start_emulator() {
    local binary=$1 log=$2
    shift 2
    "$binary" serve --test-controls "$@" >"$log" 2>&1 &
    started_pid=$!
    pids+=("$started_pid")
    for _ in $(seq 1 100); do
        grep -q 'Press Ctrl-C' "$log" 2>/dev/null && break
        sleep 0.1
    done
    started_issuer=$(sed -n 's/^ *issuer: *//p' "$log" | head -1)
    [ -n "$started_issuer" ] || { echo "the emulator did not start: $(cat "$log")" >&2; exit 1; }
}
