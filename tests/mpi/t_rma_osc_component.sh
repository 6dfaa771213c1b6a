#!/usr/bin/env bash
# Open MPI chooses each window's one-sided component itself, and only some return from MPI_Win_lock
# holding the lock (docs/clc.md, Decisions 13): lock tickets follow the window's component, not the
# environment. empty_lock.c on 3 ranks (one MPI_Win_create window; two exclusive epochs at rank 0):
#  - a site's parameter file (pml ob1, btl tcp,self, osc ^ucx: a TCP cluster without UCX), with no
#    OMPI_MCA_osc in the environment: Open MPI gives the window osc pt2pt, whose lock returns at once.
#    No RMA_ACQUIRE_LOCK record, no unlock -> unlock relation, the verbose line names pt2pt, no violation.
#    (Judged by the environment, the tool took tickets there: 2 records.)
#  - OMPI_MCA_osc=^ucx on one machine: osc rdma, whose lock returns held: one ticket per epoch
#    (2 records) and the relation. (Judged by the environment, a list that may leave pt2pt in: none.)
#  - the default: the same 2 records.
# The component is asked of the window only in a build that found Open MPI's own headers; otherwise the
# test is skipped, naming why.
# families: openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c empty_lock "$MPI_DIR/empty_lock.c")
[ "$(nm -D "$ST_LIB" | grep -c ' process_vm_readv')" -gt 0 ] ||
    skip "this build of the library cannot read a window's component (Open MPI's headers were not found)"

conf=$ST_TMP/site-params.conf
# (TCP over the loopback: Open MPI leaves it out by default, and a machine may have no other interface)
printf 'pml = ob1\nbtl = tcp,self\nbtl_tcp_if_include = lo\nosc = ^ucx\n' >"$conf"

# case NAME EXPECTED_RECORDS EXPECTED_RELATIONS ENV...
case_run() {
    local name=$1 want=$2 rel=$3
    shift 3
    ST_ENV="SYNCTRACE_VERBOSE=1 $*" run_traced "$ST_TMP/$name" 3 "$bin" ||
        fail "$name: the traced run failed: $(tail -n 3 "$ST_TMP/err.txt")"
    otf2_ok "$ST_TMP/$name"
    assert_eq "$name: RMA_ACQUIRE_LOCK records" "$want" "$(grep -c '^RMA_ACQUIRE_LOCK' "$ST_TMP/otf2-print.txt")"
    check_messages "$ST_TMP/$name" "0"
    assert_eq "$name: synctrace check's unlock -> unlock relations" "$rel" \
        "$(sed -nE 's/^rma: .* ([0-9]+) unlock -> unlock$/\1/p' "$ST_TMP/check.txt")"
}

case_run site-tcp 0 0 OMPI_MCA_mca_base_param_files="$conf"
grep -q "osc pt2pt, whose MPI_Win_lock is not known to return holding the lock" "$ST_TMP/err.txt" ||
    fail "site-tcp: no line naming the window's component pt2pt: $(grep -m2 'RMA\|lock' "$ST_TMP/err.txt")"
note "site parameter file (TCP, no UCX): osc pt2pt, no tickets"
case_run osc-not-ucx 2 1 OMPI_MCA_osc=^ucx
note "OMPI_MCA_osc=^ucx: osc rdma, 2 tickets"
case_run default 2 1
note "default: 2 tickets"
echo "PASS"
