# Sourced by the benchmark scripts: a phase's processes start their timed parts at once, and the phase is timed from
# the first process's first call to the last one's last answer.
#
#   gate=$(gate_new "$work")      # a fresh folder; each process gets LOAD_READY_FILE=$gate/ready.N LOAD_START_FILE=$gate/start
#   gate_open "$gate" N PID...    # waits until the N processes are ready (or one of them has exited), then lets them go
#   timed_span FILE...            # the phase's wall time in ms, from the processes' `timed from: A to B` summaries
#
# Without the gate, each process would time its own part from when it was ready: a floor client that read its sessions
# sooner would run its first grants while the others still read, on a machine they leave idle, and the longest
# process's own wall time would leave out the time by which the processes' starts were spread.
gate_new() { mktemp -d "$1/gate.XXXXXX"; }
gate_open() {
    local gate=$1 count=$2 pid ready
    shift 2
    for _ in $(seq 1 120000); do
        ready=$(find "$gate" -name 'ready.*' | wc -l)
        [ "$ready" -ge "$count" ] && break
        for pid in "$@"; do
            kill -0 "$pid" 2>/dev/null || { echo "a process exited before it was ready" >&2; touch "$gate/start"; return 1; }
        done
        sleep 0.005
    done
    touch "$gate/start"
}
timed_span() {
    cat "$@" | sed -n 's/.*timed from: \([0-9.]*\) to \([0-9.]*\) ms since 1970.*/\1 \2/p' |
        awk 'NR == 1 || $1 < s { s = $1 } NR == 1 || $2 > e { e = $2 } END { if (NR) printf "%.1f\n", e - s }'
}
