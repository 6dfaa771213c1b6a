#!/usr/bin/env bash
# MPI calls from a thread of the MPI library's own are not the application's (src/mpi/lib_threads.c):
# a stand-in component (mca_st_progress.so, named like an Open MPI component) runs a thread that calls
# MPI_Comm_size 5 times; on both MPI families the trace holds one location per rank, whose events are
# exactly the application's MPI_Comm_rank and MPI_Comm_size (and MPI_Init / MPI_Finalize).
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LD_PRELOAD SYNCTRACE_DIR
libdir=$(readlink -f "$(dirname "$ST_BIN")/lib")
ran=0
for fam in mpich openmpi; do
    command -v "mpicc.$fam" >/dev/null || { note "$fam is not installed"; continue; }
    lib=$libdir/$fam/libsynctrace.so
    [ -f "$lib" ] || fail "no $lib: build both MPI families (make)"
    dir=$ST_BUILD/lib_thread_$fam
    mkdir -p "$dir"
    "mpicc.$fam" -std=c11 -O1 -g -Wall -Wextra -Werror -shared -fPIC -o "$dir/mca_st_progress.so" "$MPI_DIR/lib_thread_component.c" -pthread ||
        fail "cannot build the stand-in component for $fam"
    "mpicc.$fam" -std=c11 -O1 -g -Wall -Wextra -Werror -o "$dir/lib_thread" "$MPI_DIR/lib_thread.c" "$dir/mca_st_progress.so" -Wl,-rpath,"$dir" ||
        fail "cannot build lib_thread.c for $fam"
    rc=0
    if [ "$fam" = openmpi ]; then
        timeout -k 10 120 mpirun.openmpi --oversubscribe -n 2 -x "SYNCTRACE_DIR=$ST_TMP/$fam" -x "LD_PRELOAD=$lib" "$dir/lib_thread" \
            >"$ST_TMP/$fam.out" 2>"$ST_TMP/$fam.err" || rc=$?
    else
        timeout -k 10 120 mpiexec.mpich -n 2 -genv SYNCTRACE_DIR "$ST_TMP/$fam" -genv LD_PRELOAD "$lib" "$dir/lib_thread" \
            >"$ST_TMP/$fam.out" 2>"$ST_TMP/$fam.err" || rc=$?
    fi
    assert_eq "$fam: exit status" 0 "$rc"
    assert_eq "$fam: stdout" "size 2, seen by the library's thread 2" "$(cat "$ST_TMP/$fam.out")"
    dump_json "$ST_TMP/$fam" "$ST_TMP/$fam.json"
    got=$(python3 -c '
import collections, json, sys
c = collections.Counter()
for line in open(sys.argv[1]):
    e = json.loads(line)
    c["%s/%s %s %s" % (e["rank"], e["thread"], e["type"], e.get("region"))] += 1
print(" ".join("%s=%d" % (k, c[k]) for k in sorted(c)))' "$ST_TMP/$fam.json")
    want=$(python3 -c '
import sys
items = []
for r in (0, 1):
    for t in ("enter", "leave"):
        for reg in ("MPI_Comm_rank", "MPI_Comm_size", "MPI_Finalize", "MPI_Init"):
            items.append("%d/0 %s %s=1" % (r, t, reg))
print(" ".join(sorted(items)))')
    assert_eq "$fam: the trace's locations and events" "$want" "$got"
    note "$fam: one location per rank, the library's thread's 5 MPI_Comm_size calls not recorded"
    ran=1
done
[ "$ran" = 1 ] || skip "neither MPI family is installed"
