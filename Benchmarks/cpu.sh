# Sourced by the benchmark scripts: where a phase's CPU went, from /proc.
#
#   before=$(cpu_snapshot EMULATOR_PID)   ...   cpu_report USERS "$before" "$(cpu_snapshot EMULATOR_PID)"
#
# A snapshot is five numbers of clock ticks: the emulator's CPU; PostgreSQL's (the postmaster of the cluster that
# scripts/postgres-start.sh started, with its exited children and its live ones; 0 without one); the machine's busy
# time and its idle time, all cores; and the CPU of the calling script's children that it has waited for (the
# instances or floor clients of the phase, once `wait` has returned). The report prints each per session (USERS),
# in milliseconds, and what is left of the machine's busy time: other processes on the host (another tenant's
# build) and the kernel's work that no process was charged for.
cpu_ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat" 2>/dev/null || echo 0; }
cpu_snapshot() {
    local postmaster pg=0 child
    postmaster=$(cat .postgres/pid 2>/dev/null || true)
    if [ -n "$postmaster" ]; then
        pg=$(cpu_ticks "$postmaster")
        for child in $(pgrep -P "$postmaster"); do pg=$((pg + $(cpu_ticks "$child"))); done
    fi
    echo "$(cpu_ticks "$1") $pg $(awk '/^cpu /{print $2 + $3 + $4 + $7 + $8, $5 + $6}' /proc/stat)" \
        "$(awk '{print $16 + $17}' "/proc/$$/stat")"
}
cpu_report() {
    local users=$1 hz e0 p0 b0 i0 c0 e1 p1 b1 i1 c1
    hz=$(getconf CLK_TCK)
    read -r e0 p0 b0 i0 c0 <<<"$2"
    read -r e1 p1 b1 i1 c1 <<<"$3"
    each() { echo "scale=3; ($1) * 1000 / $hz / $users" | bc; }
    echo "CPU per session (ms): emulator $(each "$e1 - $e0"), PostgreSQL $(each "$p1 - $p0"), the phase's processes" \
        "$(each "$c1 - $c0"), the rest $(each "($b1 - $b0) - ($e1 - $e0) - ($p1 - $p0) - ($c1 - $c0)");" \
        "the machine busy $(each "$b1 - $b0"), idle $(each "$i1 - $i0")"
}
