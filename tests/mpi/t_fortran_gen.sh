#!/usr/bin/env bash
# The Fortran entry points (scripts/gen_fortran.py through gen_wrappers.py): byte-identical on a
# second run, compiled warning-free; the functions that keep the generic shape are exactly the known
# ones; the openmpi library exports every name form a gfortran program calls (mpi_x_, mpi_x, mpi_x__,
# MPI_X, mpi_x_f08_) for table-role, generic and lifecycle functions; the MPICH library only the
# mpi_x_f08_ names of MPICH's mpi_f08 bindings that call PMPI_* (each one MPICH defines), none of its
# mpif.h / `use mpi` nor mpi_x_f08ts_ ones (those call the C MPI_* functions).
source "$ST_ROOT/tests/lib.sh"
command -v mpicc.openmpi >/dev/null || skip "no mpicc.openmpi"
inc() { "$1" -show | tr ' ' '\n' | sed -n 's/^-I//p' | head -n1; }
args=(--table "$ST_ROOT/wrappers/mpi_functions.tbl" --mpi-h "openmpi=$(inc mpicc.openmpi)/mpi.h")
command -v mpicc.mpich >/dev/null && args+=(--mpi-h "mpich=$(inc mpicc.mpich)/mpi.h")
for run in 1 2; do
    (cd "$ST_ROOT" && python3 scripts/gen_wrappers.py "${args[@]}" --out "$ST_TMP/gen$run") >"$ST_TMP/gen.txt" 2>&1 ||
        fail "generator failed: $(head -c 400 "$ST_TMP/gen.txt")"
done
F=$ST_TMP/gen1/openmpi/mpi_fortran.c
[ -s "$F" ] || fail "no openmpi/mpi_fortran.c"
cmp -s "$F" "$ST_TMP/gen2/openmpi/mpi_fortran.c" || fail "two runs wrote different mpi_fortran.c"
M=$ST_TMP/gen1/mpich/mpi_fortran.c
if command -v mpicc.mpich >/dev/null; then
    [ -s "$M" ] || fail "no mpich/mpi_fortran.c"
    cmp -s "$M" "$ST_TMP/gen2/mpich/mpi_fortran.c" || fail "two runs wrote different mpich/mpi_fortran.c"
    grep -q '^ST_EXPORT void mpi_[a-z0-9_]*_f08_(' "$M" || fail "mpich/mpi_fortran.c has no mpi_x_f08_ entry point"
    other=$(grep '^ST_EXPORT' "$M" | grep -v '^ST_EXPORT void mpi_[a-z0-9_]*_f08_(' | head -n 3 || true)
    [ -z "$other" ] || fail "mpich/mpi_fortran.c: not an mpi_x_f08_ entry point: $other"
    mpicc.mpich -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -fvisibility=hidden -I"$ST_TMP/gen1" \
        -I"$ST_TMP/gen1/mpich" -I"$ST_ROOT/src" -I"$ST_ROOT/include" -c "$M" -o "$ST_TMP/m.o" 2>"$ST_TMP/cc.txt" ||
        fail "mpich/mpi_fortran.c does not compile cleanly: $(head -c 600 "$ST_TMP/cc.txt")"
fi

# the functions that fall back to the generic shape, exactly
got=$(sed -n '/^\/\* With the generic enter\/leave shape/,/^ \* No Fortran entry point/p' "$F" | sed -n 's/^ \*   \(MPI_[A-Za-z_]*\)$/\1/p' | tr '\n' ' ')
assert_eq "functions with the generic shape in Fortran" \
    "MPI_Alltoallw MPI_Comm_idup MPI_Ialltoallw MPI_Ineighbor_alltoallw MPI_Neighbor_alltoallw " "$got"

mpicc.openmpi -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -fvisibility=hidden -I"$ST_TMP/gen1" \
    -I"$ST_TMP/gen1/openmpi" -I"$ST_ROOT/src" -I"$ST_ROOT/include" -c "$F" -o "$ST_TMP/f.o" 2>"$ST_TMP/cc.txt" ||
    fail "mpi_fortran.c does not compile cleanly: $(head -c 600 "$ST_TMP/cc.txt")"

# exported names of the built libraries
OMPI_LIB=$(dirname "$ST_LIB")
case $(basename "$OMPI_LIB") in mpich | openmpi) OMPI_LIB=$(dirname "$OMPI_LIB") ;; esac
MPICH_LIB=$OMPI_LIB/mpich/libsynctrace.so
OMPI_LIB=$OMPI_LIB/openmpi/libsynctrace.so
if [ -f "$OMPI_LIB" ]; then
    nm -D --defined-only "$OMPI_LIB" | awk '{print $3}' >"$ST_TMP/syms.txt"
    for f in send waitall allreduce comm_rank init init_thread finalize abort; do
        for s in "mpi_$f" "mpi_${f}_" "mpi_${f}__" "MPI_${f^^}" "mpi_${f}_f08_"; do
            grep -qx "$s" "$ST_TMP/syms.txt" || fail "$OMPI_LIB does not export $s"
        done
    done
    grep -q '^pmpi_' "$ST_TMP/syms.txt" && fail "the shim must not define Open MPI's pmpi_ entry points"
    note "openmpi library: $(grep -c '^mpi_' "$ST_TMP/syms.txt") Fortran names exported"
fi
if [ -f "$MPICH_LIB" ]; then
    nm -D --defined-only "$MPICH_LIB" | awk '{print $3}' >"$ST_TMP/msyms.txt"
    n=$(grep -E '^(mpi_|pmpi_)|^MPI_[A-Z0-9_]+$' "$ST_TMP/msyms.txt" | grep -c -v -E '^mpi_[a-z0-9_]+_f08_$' || true)
    assert_eq "MPICH library: Fortran names other than mpi_x_f08_" 0 "$n"
    for s in mpi_init_f08_ mpi_init_thread_f08_ mpi_finalize_f08_ mpi_abort_f08_ mpi_barrier_f08_ mpi_waitall_f08_ \
        mpi_comm_rank_f08_ mpi_alloc_mem_f08_; do
        grep -qx "$s" "$ST_TMP/msyms.txt" || fail "$MPICH_LIB does not export $s"
    done
    for s in mpi_send_f08_ mpi_allreduce_f08_ mpi_free_mem_f08_; do # MPICH: mpi_x_f08ts_, calling MPI_X
        grep -qx "$s" "$ST_TMP/msyms.txt" && fail "$MPICH_LIB exports $s (MPICH's mpi_f08 binding is mpi_x_f08ts_)"
    done
    # each exported name is one MPICH's mpi_f08 library defines (the one the entry point forwards to)
    # (awk reads all of ldconfig's output: an early exit could end ldconfig with SIGPIPE, which
    # pipefail and set -e turn into a silent end of this test; seen once on a fresh machine)
    FORT=$(ldconfig -p | awk '/libmpichfort\.so\.12 / && !f {f = $NF} END {print f}')
    if [ -f "$FORT" ]; then
        nm -D --defined-only "$FORT" | awk '{print $3}' | sort -u >"$ST_TMP/fort.txt"
        grep -E '^mpi_[a-z0-9_]+_f08_$' "$ST_TMP/msyms.txt" | sort -u >"$ST_TMP/ours.txt"
        dead=$(comm -23 "$ST_TMP/ours.txt" "$ST_TMP/fort.txt" | head -n 5 | tr '\n' ' ')
        [ -z "$dead" ] || fail "exported but not defined by $FORT: $dead"
        note "mpich library: $(wc -l <"$ST_TMP/ours.txt") mpi_x_f08_ names, all defined by $(basename "$FORT")"
    fi
fi
note "$(grep -c '^ST_EXPORT' "$F") Fortran entry points generated"
