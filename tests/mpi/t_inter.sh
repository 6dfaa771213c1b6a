#!/usr/bin/env bash
# An intercommunicator end to end (inter.c), at 4 ranks and at 5 (uneven groups): Intercomm_create
# from a split of WORLD, point-to-point both ways (blocking, nonblocking, Sendrecv), every
# collective class with MPI_ROOT / MPI_PROC_NULL roots and between the groups, Ibcast/Iallreduce,
# Intercomm_merge, Comm_dup, Comm_free. Asserts: stdout and exit code unchanged, nothing from the
# tool or MPI on stderr, exact per-rank event counts (remote peers and roots as world ranks),
# every message matched and no violation (after and before CLC), the CLC moves nothing on one
# node, and the whole traced run (so the tool's finalize) takes seconds.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c inter "$MPI_DIR/inter.c")
# SYNCTRACE_CLC_MU=0: the measured latency (the default's value may change independently)
export ST_ENV="SYNCTRACE_CLC_MU=0"

for np in 4 5; do
    start=$(date +%s)
    full_check "inter$np" inter "$bin" "$np"
    secs=$(( $(date +%s) - start ))
    # the traced run's stderr: nothing from synctrace or from MPI (a UCX warning means tool
    # traffic was left pending at finalize)
    if tool_stderr "$ST_TMP/err.txt" | grep -vE '^\s*$' | grep -qiE 'synctrace|ucx|warn|error'; then
        fail "inter$np: traced run wrote to stderr: $(head -c 400 "$ST_TMP/err.txt")"
    fi
    # The OTF2 roots: a collective without a root argument has root NONE whatever the MPI's MPI_PROC_NULL
    # (MPICH's -1 is the root the wrappers pass for those); each rooted one on the intercommunicator has one
    # SELF and, at 4 ranks (groups of 2), one THIS_GROUP.
    otf2-print "$TRACE/traces.otf2" |
        sed -nE 's/.*COLLECTIVE_END.*Operation: ([A-Z_]+).*Root: ([A-Z_]+|[0-9]+).*/\1 \2/p' >"$ST_TMP/roots.txt"
    [ -s "$ST_TMP/roots.txt" ] || fail "inter$np: no collective end in otf2-print's output"
    bad=$( (grep -vE '^(BCAST|GATHERV?|SCATTERV?|REDUCE) ' "$ST_TMP/roots.txt" || true) | (grep -v ' NONE$' || true) |
        sort | uniq -c | tr -s ' \n' ' ')
    [ -z "$bad" ] || fail "inter$np: collectives without a root argument written with a root: $bad"
    nself=$(grep -c ' SELF$' "$ST_TMP/roots.txt" || true)
    nthis=$(grep -c ' THIS_GROUP$' "$ST_TMP/roots.txt" || true)
    [ "$nself" -gt 0 ] || fail "inter$np: no collective with root SELF"
    [ "$np" != 4 ] || assert_eq "inter$np: THIS_GROUP roots (one per rooted intercommunicator collective)" "$nself" "$nthis"
    rc=0
    st check --raw "$TRACE" >"$ST_TMP/raw.txt" 2>&1 || rc=$?
    assert_eq "inter$np: synctrace check --raw exit code" 0 "$rc"
    grep -q '^violations: 0$' "$ST_TMP/raw.txt" || fail "inter$np: raw violations: $(grep violations "$ST_TMP/raw.txt")"
    st info "$TRACE" >"$ST_TMP/info.txt"
    grep -qE '^moved by CLC: *0 events' "$ST_TMP/info.txt" ||
        fail "inter$np: CLC moved events on one node: $(grep 'moved by CLC' "$ST_TMP/info.txt") (mu $(sed -n 's/^ *SYNCTRACE::CLC_MU_INTRA *//p' "$ST_TMP/info.txt") ns)"
    # untraced + traced run + checks; the tool's finalize used to wait 60 s for a partner
    assert_le "inter$np: seconds for both runs and the checks" 30 "$secs"
    note "inter$np: $secs s for both runs and the checks"
done
