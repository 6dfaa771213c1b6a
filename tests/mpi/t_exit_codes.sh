#!/usr/bin/env bash
# Exit codes after an abnormal end stay those of the untraced program, in repeated runs under load.
# Every rank of crash.c calls exit(22) without MPI_Finalize (4 ranks), ROUNDS times (default 6,
# at most about 150 s) untraced and traced by turns, with a busy loop competing for the cores.
# Each traced run must have saved the dumps of all ranks (the abnormal-end handshake: every rank
# dumps, signals the others of its host and waits for their dumps before it lets exit() go on),
# and each traced exit code must be one the untraced program gives: seen in the untraced rounds
# or in up to 6 more untraced runs, or one of the launcher's below, shown untraced in this test.
#
# What MPICH's hydra (4.0) reports for such a job varies from run to run, with or without the
# tool: 22; 9 ("Killed (signal 9)") when its cleanup killed a rank that had not exited yet (a few
# percent of the runs here, untraced and traced alike); now and then 1 with "EXIT CODE: 1 ... Hangup
# (signal 1)". That last one is hydra's own: its proxy stores the placeholder status 1 for a rank
# whose PMI connection closed without MPI_Finalize, and keeps it when it had already reaped that
# rank (a later wait would have overwritten it) before it read the end of the connection; mpiexec
# reads the raw 1 as "killed by signal 1". No rank gets a SIGHUP. Seen untraced in 4 of 12 runs
# with the launcher slowed by strace. hydra_codes.c shows both on purpose, untraced (a rank still
# asleep when the others exit; PMI connections that outlive their ranks); a traced 9 or 1 counts
# as the launcher's only if that worked and the traced run's report is the same.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c crash "$MPI_DIR/crash.c")
np=4 code=22 rounds=${ROUNDS:-6}

# demo CODE REPORT LAUNCHER... -n N PROG ARGS...: if the untraced job (up to 4 runs) exits CODE with REPORT in
# its output, the launcher gives CODE with that report for this kind of end: "CODE:REPORT" into launcher.
launcher=()
demo() {
    local code=$1 report=$2 rc what
    shift 2
    what="$*"
    for _ in 1 2 3 4; do
        rc=0
        timeout -k 10 60 "$@" >"$ST_TMP/demo.txt" 2>&1 || rc=$?
        if [ "$rc" = "$code" ] && grep -qF "$report" "$ST_TMP/demo.txt"; then
            launcher+=("$code:$report")
            note "untraced, $what: exit code $code, '$report'"
            return
        fi
    done
    note "untraced, $what: exit code $rc, not $code with '$report'"
}
# (hydra's reports; Open MPI's mpirun has neither: the demos, 8 runs that show nothing there, are not run)
if [ "$ST_MPI" = mpich ]; then
    codes=$(build_mpi_c hydra_codes "$MPI_DIR/hydra_codes.c")
    mpi_cmd -n $np "$codes" killed
    demo 9 "Killed (signal 9)" "${MPI_CMD[@]}"
    mpi_cmd -n $np "$codes" hangup
    demo 1 "Hangup (signal 1)" "${MPI_CMD[@]}"
fi

( while :; do :; done ) &
busy=$!
trap 'kill $busy 2>/dev/null || true' EXIT

plain_codes=" " traced_codes=()
run_plain_once() {
    local rc=0
    mpi_run -t 120 -n $np "$bin" exit $code >"$ST_TMP/plain.txt" 2>"$ST_TMP/plain-err.txt" || rc=$?
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
    cp "$ST_TMP/out.txt" "$ST_TMP/out-$r.txt"
    traced_codes+=("$rc")
done
note "${#traced_codes[@]} rounds in $(($(date +%s) - start)) s; untraced codes:$plain_codes traced: ${traced_codes[*]}"

# launcher_gave RC OUT: RC is one of the launcher's shown above, and OUT holds its report.
launcher_gave() {
    local l
    for l in "${launcher[@]}"; do
        [ "${l%%:*}" = "$1" ] && grep -qF "${l#*:}" "$2" && return 0
    done
    return 1
}
r=0
for rc in "${traced_codes[@]}"; do
    r=$((r + 1))
    for _ in 1 2 3 4 5 6; do
        [[ $plain_codes == *" $rc "* ]] && break
        launcher_gave "$rc" "$ST_TMP/out-$r.txt" && break
        run_plain_once
    done
    [[ $plain_codes == *" $rc "* ]] && continue
    if launcher_gave "$rc" "$ST_TMP/out-$r.txt"; then
        note "round $r: exit code $rc, the launcher's (shown untraced)"
        continue
    fi
    fail "round $r: exit code $rc, which the untraced program never gave (untraced:$plain_codes)"
done
