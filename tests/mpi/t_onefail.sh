#!/usr/bin/env bash
# One rank of three ends abnormally — MPI_Abort, SIGSEGV, exit() without MPI_Finalize — while the
# others compute outside MPI (onefail.c). MPICH's hydra then SIGKILLs the others at once, so they
# must have saved before: the failing rank tells the ranks of its host (ST_ABEND_SIGNAL) and
# waits for their dumps. Every rank's dump must be in DIR/partial, the job must end within 20 s
# with the same exit code as without the shim (exit() under MPICH: 4 or 9 both ways, hydra's race), and the recovered archive (marked incomplete)
# must hold every rank with its 20 ring sends and receives, say how the run ended and pass
# `synctrace check`.
# families: mpich openmpi
# alone: ms until the job ends are bounded (Open MPI takes 9-14 s of the 20 here) (tests/run-tests.sh runs it with no other test beside it)
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c onefail "$MPI_DIR/onefail.c")
np=3
for mode in abort segv exit; do
    prc=0 trc=0
    ST_TIMEOUT=60 run_plain $np "$bin" $mode || prc=$?
    TRACE=$ST_TMP/$mode
    start=$(date +%s%N)
    ST_TIMEOUT=60 run_traced "$TRACE" $np "$bin" $mode || trc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    if [ $mode = exit ] && [ "$ST_MPI" = mpich ]; then # hydra reports rank 1's 4 or a killed rank's 9, whichever it sees first, shim or not
        case $prc:$trc in [49]:[49]) ;; *) fail "exit: exit code $trc with the shim, $prc without (expected 4 or 9)" ;; esac
    else
        assert_eq "$mode: exit code with the shim" "$prc" "$trc"
    fi
    assert_le "$mode: ms until the job ended" 20000 "$ms"
    for r in $(seq 0 $((np - 1))); do
        [ -f "$TRACE/partial/rank-$r.strd" ] ||
            fail "$mode: no dump of rank $r (have: $(ls "$TRACE/partial" 2>&1 | tr '\n' ' ')); stderr: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
    done
    st recover "$TRACE" >"$ST_TMP/recover.txt" 2>&1 || fail "$mode: synctrace recover failed: $(head -c 300 "$ST_TMP/recover.txt")"
    info_incomplete "$TRACE"
    otf2_ok "$TRACE"
    want=$(case $mode in abort) echo MPI_Abort ;; segv) echo SIGSEGV ;; exit) echo "exit without MPI_Finalize" ;; esac)
    grep -q "SYNCTRACE::END *$want" "$ST_TMP/info.txt" || fail "$mode: the archive does not say the run ended with $want: $(grep END "$ST_TMP/info.txt")"
    st check "$TRACE" >"$ST_TMP/check.txt" 2>&1 || fail "$mode: synctrace check fails on the recovered archive: $(head -n 8 "$ST_TMP/check.txt" | tr '\n' '|')"
    dump_json "$TRACE" "$ST_TMP/$mode.json"
    tracecheck ring "$ST_TMP/$mode.json" $np 20 exact >"$ST_TMP/ring.txt" ||
        fail "$mode: ring events: $(tr '\n' '|' <"$ST_TMP/ring.txt")"
    note "$mode: exit $trc after ${ms} ms, all $np ranks recovered: $(tr '\n' '|' <"$ST_TMP/ring.txt")"
done
