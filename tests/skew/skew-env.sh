# tests/skew/skew-env.sh — sourced by sync tests and the sync benchmark.
#
# skew_build OUTDIR  -> builds OUTDIR/libskew.so (once), prints its path
# skew_t0            -> a common reference time for SKEW_T0_NS (any value shared by all
#                       ranks works; "now" keeps each node's offset near its drawn value)
skew_build() {
    local out=$1/libskew.so src
    src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/skew.c
    if [ ! -f "$out" ] || [ "$src" -nt "$out" ]; then
        mkdir -p "$1"
        gcc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -o "$out" "$src" -ldl -lm || return 1
    fi
    echo "$out"
}
skew_t0() { awk '{printf "%.0f\n", $1 * 1e9}' /proc/uptime; }

# The skew library shifts clock_gettime only, not the TSC: every run under it must stamp
# with clock_gettime. Exported, so the launcher passes it to the ranks (the benches pass SYNCTRACE_*).
export SYNCTRACE_TIMER=clock
