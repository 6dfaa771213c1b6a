#!/usr/bin/env bash
# Communicator handles the MPI does not give back (comm_handles.c): 5000 times Comm_dup, Barrier on the
# duplicate, Comm_free, with at most one duplicate alive. Where handles are pointers (Open MPI) each
# duplicate mostly has a new address, more than the shim's 4096 handle slots; a freed handle's slot must
# be taken again, else later communicators are not traced. Asserts: stdout and exit code unchanged, no
# warning from the tool, every Barrier in the archive (exactly NP x 5000 on the duplicates), and on Open
# MPI that the run had more distinct handles than slots (else it tested nothing).
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c comm_handles "$ST_ROOT/tests/mpi/comm_handles.c")
n=5000 np=2
run_plain "$np" "$bin" "$n" || fail "comm_handles without the shim exited $?: $(tail -n 3 "$ST_TMP/plain-err.txt")"
rc=0
run_traced "$ST_TMP/tr" "$np" "$bin" "$n" || rc=$?
assert_eq "comm_handles: exit code with the shim" 0 "$rc"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" ||
    fail "comm_handles: stdout differs with the shim: $(diff "$ST_TMP/plain.txt" "$ST_TMP/out.txt" | head -n 4 | tr '\n' '|')"
distinct=$(sed -n 's/^distinct handles: //p' "$ST_TMP/err.txt")
note "comm_handles: $(cat "$ST_TMP/out.txt"), $distinct distinct handles"
[ "${ST_MPI:-mpich}" != openmpi ] || assert_ge "comm_handles: distinct communicator handles on Open MPI" 4500 "$distinct"
if grep -qiE 'synctrace.*(warn|not traced)' "$ST_TMP/err.txt"; then
    fail "comm_handles: the tool warned: $(grep -iE 'warn|not traced' "$ST_TMP/err.txt" | head -n 2 | tr '\n' '|')"
fi
barriers=$(otf2-print "$ST_TMP/tr/traces.otf2" | grep -cE 'MPI_COLLECTIVE_END.*Operation: BARRIER, Communicator: "Comm ' || true)
assert_eq "comm_handles: Barriers on the duplicates in the archive" $((np * n)) "$barriers"
