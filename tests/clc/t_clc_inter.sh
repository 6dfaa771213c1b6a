#!/usr/bin/env bash
# t_clc_inter.sh — CLC on an intercommunicator program (tests/mpi/inter.c: point-to-point between
# the groups, every collective class with MPI_ROOT / MPI_PROC_NULL roots, merge, dup) with ranks
# on skewed clocks, at 4 and 5 ranks (uneven groups): before the correction `synctrace check --raw`
# finds violations, after it none (collectives on the intercommunicator are checked between the
# groups), both by bulk rounds and by the message-by-message replay (collective trees over both
# groups); the offline `synctrace clc --redo` gives the same timestamps.
. "$ST_ROOT/tests/lib.sh"
. "$ST_ROOT/tests/clc/common.sh"
need_tools
BIN=$(build_mpi_c inter "$ST_ROOT/tests/mpi/inter.c")

for np in 4 5; do
    for rounds in 8 0; do
        dir=$ST_TMP/inter$np-r$rounds
        CLC_ENV="SYNCTRACE_CLC_ROUNDS=$rounds" run_skewed "$dir" "$np" "$BIN"
        ! tool_stderr "$ST_TMP/err.txt" | grep -qiE 'synctrace|ucx' || fail "inter$np (rounds $rounds): $(head -c 300 "$ST_TMP/err.txt")"
        assert_eq "inter$np (rounds $rounds): CLC_STATE" on "$(prop "$dir" CLC_STATE)"
        violations --raw "$dir"
        assert_ge "inter$np: violations before the correction" 1 "$V_TOTAL"
        note "inter$np (rounds $rounds): before the correction $V_TOTAL violations (p2p $V_P2P, collective $V_COLL)"
        corrected_ok "$dir"
        st clc --redo "$dir" "$dir-offline" >"$ST_TMP/clc.txt" 2>&1 || fail "synctrace clc --redo: $(cat "$ST_TMP/clc.txt")"
        dump_json "$dir" "$ST_TMP/run.json"
        dump_json "$dir-offline" "$ST_TMP/offline.json"
        clccheck compare "$ST_TMP/run.json" "$ST_TMP/offline.json" >"$ST_TMP/cmp.txt" ||
            fail "inter$np: in-run and offline correction differ: $(tr '\n' '|' <"$ST_TMP/cmp.txt")"
    done
done
