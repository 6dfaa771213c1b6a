#!/usr/bin/env bash
# The shim exports only what it must: MPI_* wrappers (PMPI stays in MPICH), ompt_start_tool
# and the public synctrace_* API; everything else is hidden (-fvisibility=hidden).
source "$ST_ROOT/tests/lib.sh"
nm -D --defined-only "$ST_LIB" | awk '{print $3}' > "$ST_TMP/syms.txt"
# (mpi_x_f08_: MPICH's `use mpi_f08` entry points that call PMPI_*, src/mpi/fortran.h)
extra=$(grep -v -E '^(MPI_|MPIX_)|^mpi_[a-z0-9_]+_f08_$|^synctrace_(enabled|global_time_ns)$|^ompt_start_tool$' "$ST_TMP/syms.txt" || true)
[ -z "$extra" ] || fail "unexpected exported symbols: $(echo $extra | head -c 300)"
for s in MPI_Send MPI_Init MPI_Finalize MPI_Waitall MPI_Allreduce MPI_File_open ompt_start_tool synctrace_enabled; do
    grep -qx "$s" "$ST_TMP/syms.txt" || fail "$s is not exported"
done
grep -q '^PMPI_' "$ST_TMP/syms.txt" && fail "PMPI_ symbols must not be defined by the shim"
note "$(wc -l < "$ST_TMP/syms.txt") exported symbols, all expected"
