#!/usr/bin/env bash
# The Fortran trio: ftrio_mpifh.f90 (mpif.h), ftrio_usempi.f90 (`use mpi`) and ftrio_f08.f90
# (`use mpi_f08`) make the same MPI calls as ftrio.c, so under the shim each archive must have
# exactly the C program's events (per rank: enter/leave per region, messages, collective ends) and
# the same matched messages and collective instances, on each MPI family installed:
#  - Open MPI: its Fortran bindings call PMPI_*, so the openmpi library's own Fortran entry points
#    (generated from the wrapper table: build/gen/openmpi/mpi_fortran.c) must record the calls, and
#    the Fortran MPI_INIT start the tool (else: no archive at all); with SYNCTRACE_CALLSITE=1 every
#    call is attributed to its line of the .f90 file;
#  - MPICH: its mpif.h and `use mpi` bindings call the C MPI_* functions, and so do its `use mpi_f08`
#    bindings with a choice buffer (mpi_send_f08ts_ -> MPI_Send); its other mpi_f08 bindings
#    (mpi_init_f08_, mpi_barrier_f08_, mpi_waitall_f08_, ...) call PMPI_*, so the mpich library
#    exports those names only (build/gen/mpich/mpi_fortran.c): the same counts, nothing twice.
# The launchers and compilers are named by family (never the plain mpicc/mpirun); the Open MPI
# root/oversubscribe settings are the test's, not the tool's.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
NP=3 # an odd number: the odd/even split gives communicators of two sizes

# lib_of FAM: the library built for family FAM, lib/FAM/libsynctrace.so (ST_LIB is one of them, or
# lib/libsynctrace.so). The test runs both families itself, whichever ST_LIB names.
LIBDIR=$(dirname "$ST_LIB")
case $(basename "$LIBDIR") in mpich | openmpi) LIBDIR=$(dirname "$LIBDIR") ;; esac
lib_of() { echo "$LIBDIR/$1/libsynctrace.so"; }

# build FAM COMPILER NAME SRC [FLAGS...]: the program compiled with FAM's compiler into $ST_BUILD/NAME-FAM.
build() {
    local out="$ST_BUILD/$3-$1"
    if [ ! -x "$out" ] || [ "$4" -nt "$out" ]; then
        "$2" -O1 -g -o "$out" "$4" "${@:5}" || fail "cannot build $4 with $2"
    fi
    echo "$out"
}

# launch FAM LIB DIR [VAR=VALUE...] -- PROG: PROG on $NP ranks with FAM's launcher, preloading LIB
# with archive DIR (no LIB: untraced); stdout in $ST_TMP/out.txt, stderr in $ST_TMP/err.txt.
launch() {
    local fam=$1 lib=$2 dir=$3 envs=() kv
    shift 3
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local args=()
    if [ "$fam" = openmpi ]; then
        args=(mpirun.openmpi --oversubscribe -n "$NP")
        [ -n "$lib" ] && args+=(-x "LD_PRELOAD=$lib" -x "SYNCTRACE_DIR=$dir" -x SYNCTRACE_ANALYZE_CHECK)
        for kv in "${envs[@]}"; do args+=(-x "$kv"); done
    else
        args=(mpiexec.mpich -n "$NP")
        [ -n "$lib" ] && args+=(-genv LD_PRELOAD "$lib" -genv SYNCTRACE_DIR "$dir")
        for kv in "${envs[@]}"; do args+=(-genv "${kv%%=*}" "${kv#*=}"); done
    fi
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 10 "${ST_TIMEOUT:-120}" "${args[@]}" "$@" \
        >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt"
}

# traced FAM NAME PROG [VAR=VALUE...]: PROG untraced, then traced into $ST_TMP/NAME-FAM; the same
# stdout and exit code 0 both times, a complete archive, its JSON dump in $ST_TMP/NAME-FAM.json.
traced() {
    local fam=$1 name=$2 prog=$3 dir="$ST_TMP/$2-$1"
    shift 3
    launch "$fam" "" "" -- "$prog" || fail "$name ($fam) without the shim failed: $(tail -n 3 "$ST_TMP/err.txt")"
    cp "$ST_TMP/out.txt" "$ST_TMP/plain.txt"
    launch "$fam" "$(lib_of "$fam")" "$dir" "$@" -- "$prog" ||
        fail "$name ($fam) with the shim failed: $(tail -n 5 "$ST_TMP/err.txt" | tr '\n' '|')"
    cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "$name ($fam): stdout differs with the shim"
    [ -f "$dir/traces.otf2" ] || fail "$name ($fam): no archive $dir/traces.otf2: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
    ! grep -q "the metric tree does not hold" "$ST_TMP/err.txt" || fail "$name ($fam): $(grep -m1 "metric tree" "$ST_TMP/err.txt")"
    info_complete "$dir"
    dump_json "$dir" "$ST_TMP/$name-$fam.json"
}

# check_line DIR: the "messages:" and "collectives:" lines of `synctrace check DIR` (no violations).
check_line() {
    st check "$1" >"$ST_TMP/check.txt" 2>&1 || fail "synctrace check $1 failed: $(head -c 300 "$ST_TMP/check.txt")"
    grep -q '^violations: 0' "$ST_TMP/check.txt" || fail "synctrace check $1: $(grep '^violations' "$ST_TMP/check.txt")"
    grep -E '^(messages|collectives):' "$ST_TMP/check.txt" | tr '\n' ' '
}

# trio FAM CC FC "INTERFACES" [VAR=VALUE...]: the C program and the Fortran ones of INTERFACES
# (mpifh usempi f08) under FAM, compared.
trio() {
    local fam=$1 cc=$2 fc=$3 interfaces=$4
    shift 4
    local cbin ref
    # (gcc 12 takes MPICH's MPI_STATUSES_IGNORE, (MPI_Status *)1, for a zero-size array)
    cbin=$(build "$fam" "$cc" ftrio "$MPI_DIR/ftrio.c" -Wno-stringop-overflow)
    traced "$fam" ftrio "$cbin"
    ref=$(check_line "$ST_TMP/ftrio-$fam")
    # per rank: 5 ring messages, 3 exchanges, 1 sendrecv; 6 world collectives, the split, and per
    # half an allreduce and the free
    echo "$ref" | grep -q "^messages: $((9 * NP)) matched, 0 unmatched" || fail "ftrio.c ($fam): $ref"
    echo "$ref" | grep -q "collectives: 11 instances, 0 incomplete" || fail "ftrio.c ($fam): $ref"
    local p bin
    for p in $interfaces; do
        bin=$(build "$fam" "$fc" "ftrio_$p" "$MPI_DIR/ftrio_$p.f90")
        traced "$fam" "ftrio_$p" "$bin" "$@"
        python3 "$MPI_DIR/fortran_same.py" "$ST_TMP/ftrio-$fam.json" "$ST_TMP/ftrio_$p-$fam.json" "ftrio_$p ($fam)" \
            >"$ST_TMP/same.txt" || fail "$(head -n 12 "$ST_TMP/same.txt" | tr '\n' '|')"
        note "$(cat "$ST_TMP/same.txt")"
        assert_eq "ftrio_$p ($fam): synctrace check" "$ref" "$(check_line "$ST_TMP/ftrio_$p-$fam")"
        [ $# = 0 ] && continue
        # call sites (SYNCTRACE_CALLSITE=1, which adds no event): each names its line of the .f90 file
        tracecheck callsite "$ST_TMP/ftrio_$p-$fam.json" "$MPI_DIR/ftrio_$p.f90" >"$ST_TMP/cs.txt" 2>"$ST_TMP/cs-err.txt" ||
            fail "ftrio_$p ($fam) call sites: $(head -n 8 "$ST_TMP/cs.txt" "$ST_TMP/cs-err.txt" | tr '\n' '|')"
        note "ftrio_$p ($fam): $(cat "$ST_TMP/cs-err.txt")"
    done
}

# idx FAM CC FC: ftrio_idx.c and ftrio_idx_f08.f90 (MPI_WAITSOME's indices) under FAM, compared.
idx() {
    local bin
    bin=$(build "$1" "$2" ftrio_idx "$MPI_DIR/ftrio_idx.c")
    traced "$1" ftrio_idx "$bin"
    grep -qx "ftrio_idx: 1 975" "$ST_TMP/out.txt" || fail "ftrio_idx.c ($1): $(head -c 200 "$ST_TMP/out.txt")"
    bin=$(build "$1" "$3" ftrio_idx_f08 "$MPI_DIR/ftrio_idx_f08.f90")
    traced "$1" ftrio_idx_f08 "$bin"
    python3 "$MPI_DIR/fortran_same.py" "$ST_TMP/ftrio_idx-$1.json" "$ST_TMP/ftrio_idx_f08-$1.json" "ftrio_idx_f08 ($1)" \
        >"$ST_TMP/same.txt" || fail "$(head -n 12 "$ST_TMP/same.txt" | tr '\n' '|')"
    note "$(cat "$ST_TMP/same.txt")"
}

ran=
if command -v mpif90.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null && [ -f "$(lib_of openmpi)" ]; then
    trio openmpi mpicc.openmpi mpif90.openmpi "mpifh usempi f08" SYNCTRACE_CALLSITE=1 # call sites through Open MPI's bindings
    idx openmpi mpicc.openmpi mpif90.openmpi
    ran+=" openmpi"
fi
if command -v mpif90.mpich >/dev/null && command -v mpiexec.mpich >/dev/null && [ -f "$(lib_of mpich)" ]; then
    # Nothing twice: the mpich library has the mpi_f08 names that call PMPI_* (and the program's
    # are among them), none of mpif.h / `use mpi` nor the mpi_x_f08ts_ ones (they call MPI_*).
    nm -D --defined-only "$(lib_of mpich)" | awk '{print $3}' >"$ST_TMP/syms-mpich.txt"
    for s in mpi_init_f08_ mpi_finalize_f08_ mpi_barrier_f08_ mpi_waitall_f08_ mpi_waitany_f08_ mpi_comm_split_f08_; do
        grep -qx "$s" "$ST_TMP/syms-mpich.txt" || fail "the mpich library does not export $s"
    done
    twice=$(grep -E '^mpi_.*(_f08ts_|[^8]_)$|^mpi_[a-z0-9_]*[a-z0-9]$|^MPI_[A-Z0-9_]+$' "$ST_TMP/syms-mpich.txt" | head -n 5 | tr '\n' ' ' || true)
    [ -z "$twice" ] || fail "the mpich library exports Fortran names MPICH binds to the C MPI_* functions: $twice"
    trio mpich mpicc.mpich mpif90.mpich "mpifh usempi f08" SYNCTRACE_CALLSITE=1
    idx mpich mpicc.mpich mpif90.mpich # its mpi_f08 MPI_WAITSOME returns 0-based indices before 4.1
    ran+=" mpich"
fi
[ -n "$ran" ] || skip "no MPI family with a Fortran compiler and its library (lib/<fam>/libsynctrace.so)"
note "Fortran trio checked on:$ran"
