#!/usr/bin/env bash
# An mpi4py script (ring4py.py: blocking and nonblocking rings, four collectives) on Debian's
# python3-mpi4py, which is built on Open MPI, traced through `mpirun -x LD_PRELOAD=...` (lib.sh's
# run_traced): the interpreter links no MPI, mpi4py loads libmpi when the script imports it. stdout and
# exit code are the untraced ones; the archive is complete, otf2-print reads it; the script's calls
# have their exact events (tracecheck.py's mpi4py model), `synctrace check` matches every message
# and collective.
# families: openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
PY=/usr/bin/python3   # Debian's, which python3-mpi4py is for (not a python3 earlier in PATH)
lib=$($PY -c 'from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0].rstrip("\0"))' 2>&1) ||
    fail "no mpi4py for $PY (scripts/install-deps.sh --for check installs python3-mpi4py): $lib"
case $ST_MPI:$lib in
openmpi:*"Open MPI"*|mpich:*MPICH*) ;;
*) skip "mpi4py is built on '$lib', not on $ST_MPI" ;;
esac
np=4 rounds=10 COUNTS=
prc=0 trc=0
run_plain $np $PY "$MPI_DIR/ring4py.py" $rounds || prc=$?
[ "$prc" -eq 0 ] || fail "ring4py.py without the shim exited $prc: $(tail -n 5 "$ST_TMP/plain-err.txt")"
grep -q "^ring4py: $np ranks" "$ST_TMP/plain.txt" || fail "ring4py.py printed: $(head -c 300 "$ST_TMP/plain.txt")"
TRACE=$ST_TMP/trace
run_traced "$TRACE" $np $PY "$MPI_DIR/ring4py.py" $rounds || trc=$?
assert_eq "exit code with the shim" "$prc" "$trc"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs with the shim: $(head -c 300 "$ST_TMP/out.txt")"
[ -f "$TRACE/traces.otf2" ] || fail "no archive: $(tail -n 5 "$ST_TMP/err.txt")"
otf2_ok "$TRACE"
info_complete "$TRACE"
dump_json "$TRACE" "$ST_TMP/mpi4py.json"
check_counts mpi4py "$ST_TMP/mpi4py.json" $np $rounds
check_messages "$TRACE" "$(tracecheck messages mpi4py $np $rounds)"
