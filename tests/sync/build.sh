# tests/sync/build.sh — sourced: sync_build OUTDIR [MPICC] builds OUTDIR/sync_prog (the clock
# module linked directly into a test program, no shim) with MPICC (an MPI family's C compiler wrapper,
# default mpicc.mpich; tests/lib.sh's $MPI_CC) and prints its path. OUTDIR is the family's.
sync_build() {
    local root out=$1/sync_prog cc=${2:-mpicc.mpich}
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    local srcs=("$root"/tests/sync/sync_prog.c "$root"/src/clock/*.c "$root"/src/util/log.c "$root"/src/util/nodeid.c "$root"/src/config/config.c "$root"/src/util/archive_dir.c)
    local newest=0 f
    for f in "${srcs[@]}" "$root"/src/clock/*.h "$root"/src/config/variables.def; do
        [ "$f" -nt "$out" ] && newest=1
    done
    if [ ! -x "$out" ] || [ $newest = 1 ]; then
        mkdir -p "$1"
        "$cc" -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I"$root/src/record" -I"$root/include" \
            -Wl,--wrap=st_sync_measure -o "$out" "${srcs[@]}" -lhwloc -lm -ldl -lpthread || return 1
    fi
    echo "$out"
}
