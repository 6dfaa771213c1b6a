#!/usr/bin/env bash
# Open MPI's Fortran entry points (scripts/gen_fortran.py through gen_wrappers.py): written for the
# openmpi family only, byte-identical on a second run, compiled warning-free; the functions that
# keep the generic shape are exactly the known ones; the openmpi library exports every name form a
# gfortran program calls (mpi_x_, mpi_x, mpi_x__, MPI_X, mpi_x_f08_) for table-role, generic and
# lifecycle functions, and the MPICH library none (its Fortran layer calls the C MPI_* functions).
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
[ ! -e "$ST_TMP/gen1/mpich/mpi_fortran.c" ] || fail "MPICH got Fortran entry points (its Fortran layer calls MPI_*)"

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
    n=$(nm -D --defined-only "$MPICH_LIB" | awk '{print $3}' | grep -c -E '^(mpi_|pmpi_)|^MPI_[A-Z0-9_]+$' || true)
    assert_eq "Fortran names exported by the MPICH library" 0 "$n"
fi
note "$(grep -c '^ST_EXPORT' "$F") Fortran entry points generated"
