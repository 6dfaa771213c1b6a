#!/usr/bin/env bash
# Exit codes after an abnormal end stay those of the untraced program, in repeated runs under load.
# Every rank of crash.c calls exit(22) without MPI_Finalize (4 ranks), ROUNDS times (default 6,
# at most about 150 s) untraced and traced by turns, with a busy loop competing for the cores.
# Each traced run must have saved the dumps of all ranks (the abnormal-end handshake: every rank
# dumps, signals the others of its host and waits for their dumps before it lets exit() go on),
# and each traced exit code must be one the untraced program gives: one seen in the untraced
# rounds, or found in up to 6 more untraced runs.
#
# What MPICH's hydra (4.0) reports for such a job varies from run to run, with or without the
# tool: 22; 9 when its cleanup killed a rank that had not exited yet; now and then 1 with "EXIT
# CODE: 1 ... Hangup (signal 1)". That last one is hydra's own: its proxy stores the placeholder
# status 1 for a rank whose PMI connection closed without MPI_Finalize, and keeps it when it had
# already reaped that rank (a later wait would have overwritten it) before it read the end of
# the connection; mpiexec reads the raw 1 as "killed by signal 1". No rank gets a SIGHUP. Seen
# untraced in 4 of 12 runs with the launcher slowed by strace, too rare to show up in the
# untraced rounds here. pmi_late.c makes it happen on purpose, untraced (its ranks' PMI
# connections outlive them); when it does, a traced 1 that comes with hydra's "Hangup (signal
# 1)" report counts as one the untraced program gives.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c crash "$MPI_DIR/crash.c")
np=4 code=22 rounds=${ROUNDS:-6}

placeholder=0 # hydra reports a rank reaped before its PMI connection's end as "Hangup (signal 1)"
late=$(build_mpi_c pmi_late "$MPI_DIR/pmi_late.c")
for _ in 1 2 3; do
    rc=0
    timeout 60 mpiexec -n 2 "$late" >"$ST_TMP/late.txt" 2>&1 || rc=$?
    [ "$rc" != 3 ] || break # no PMI_FD: not hydra
    if [ "$rc" = 1 ] && grep -q 'Hangup (signal 1)' "$ST_TMP/late.txt"; then placeholder=1; break; fi
done
if [ $placeholder = 1 ]; then note "hydra's placeholder status, untraced: exit code 1, 'Hangup (signal 1)'"
else note "hydra's placeholder status not seen (pmi_late exited $rc)"; fi

( while :; do :; done ) &
busy=$!
trap 'kill $busy 2>/dev/null || true' EXIT

plain_codes=" " traced_codes=()
run_plain_once() {
    local rc=0
    timeout 120 mpiexec -n $np "$bin" exit $code >"$ST_TMP/plain.txt" 2>"$ST_TMP/plain-err.txt" || rc=$?
    [[ $plain_codes == *" $rc "* ]] || plain_codes+="$rc "
}
start=$(date +%s)
for r in $(seq "$rounds"); do
    [ $(($(date +%s) - start)) -lt 150 ] || break
    run_plain_once
    dir=$ST_TMP/t$r rc=0
    run_traced "$dir" $np "$bin" exit $code || rc=$?
    dumps=$(ls "$dir/partial" 2>/dev/null | grep -c '^rank-[0-9]*\.strd$' || true)
    assert_eq "round $r: dumps saved (exit code $rc)" $np "$dumps"
    hangup=0
    grep -q 'Hangup (signal 1)' "$ST_TMP/out.txt" && hangup=1
    traced_codes+=("$rc:$hangup")
done
note "${#traced_codes[@]} rounds in $(($(date +%s) - start)) s; untraced codes:$plain_codes traced: ${traced_codes[*]}"

for tc in "${traced_codes[@]}"; do
    rc=${tc%:*} hangup=${tc#*:}
    for _ in 1 2 3 4 5 6; do
        [[ $plain_codes == *" $rc "* ]] && break
        run_plain_once
    done
    [[ $plain_codes == *" $rc "* ]] && continue
    if [ "$rc" = 1 ] && [ "$hangup" = 1 ] && [ "$placeholder" = 1 ]; then
        note "a traced run ended with hydra's placeholder status (exit code 1, 'Hangup (signal 1)'), as untraced ones can"
        continue
    fi
    fail "a traced run exited $rc, which the untraced program never did (untraced:$plain_codes)"
done
