#!/usr/bin/env bash
# t_clc_one_clock.sh — on one node every rank reads the same clock, so a correctly recorded
# trace has no reversed relation and the CLC must leave it alone. one_clock.c sends 8-byte
# ping-pongs in pairs, Sendrecv rings and collectives of every class with nonzero payloads,
# as fast as MPI delivers them (100-300 ns from a send's event to its receive's here).
# With the default settings, 2 ranks and 4 ranks, with the default buffer and with 64k
# buffers and slowed spill writes (flushes between the events):
#  - `synctrace check --raw` finds no violation and the statistics no reversed relation;
#  - CLC moves no event (CLC_MOVED 0): mu is 0 (CLC_MU_SOURCE none), not an estimate of the
#    latency that real messages undercut (docs/clc.md, "mu");
#  - the application's output is unchanged.
# SYNCTRACE_CLC_MU still sets mu (CLC_MU_SOURCE user); a bound above the true latencies
# moves events on the same program, which is what the first part rules out.
. "$ST_ROOT/tests/lib.sh"
. "$ST_ROOT/tests/clc/common.sh"
need_tools
BIN=$(build_mpi_c one_clock "$CLC_DIR/one_clock.c")

# untouched NAME NP ITERS [VAR=value ...]: a run on the real (shared) clock that CLC must not touch.
untouched() {
    local name=$1 np=$2 iters=$3 dir=$ST_TMP/$1 k
    shift 3
    run_plain "$np" "$BIN" "$iters" || fail "one_clock without the shim failed"
    ST_ENV="$*" run_traced "$dir" "$np" "$BIN" "$iters" || fail "$name: exited with $?: $(tail -n 5 "$ST_TMP/err.txt")"
    cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "$name: output differs with the shim: $(cat "$ST_TMP/out.txt")"
    violations --raw "$dir"
    assert_eq "$name: violations before the correction" 0 "$V_TOTAL"
    for k in P2P COLL OMP; do
        assert_eq "$name: CLC_REVERSED_$k" 0 "$(prop "$dir" "CLC_REVERSED_$k")"
    done
    assert_eq "$name: events moved by CLC" 0 "$(prop "$dir" CLC_MOVED)"
    assert_eq "$name: CLC_MU_SOURCE" none "$(prop "$dir" CLC_MU_SOURCE)"
    assert_eq "$name: CLC_MU_INTRA" 0 "$(prop "$dir" CLC_MU_INTRA)"
    assert_eq "$name: CLC_MU_INTER" 0 "$(prop "$dir" CLC_MU_INTER)"
    assert_ge "$name: p2p relations" "$((np * iters))" "$(prop "$dir" CLC_MESSAGES_P2P)"
    note "$name: $(prop "$dir" CLC_EVENTS) events, $(st info "$dir" | sed -n 's/^buffer flushes: *//p') flushes, none moved"
}

untouched pp2 2 20000
# A thread waits for the disk (a flush region between its events) only when the writer thread falls
# behind: spill writes slowed to 2 ms each (tests/mpi/slow_spill.c) make it fall behind often.
slow=$(build_slow_spill) || exit 1
ST_PRELOAD_FIRST=$slow untouched pp2-64k 2 20000 SYNCTRACE_BUFFER=64k SLOW_SPILL_MS=2
assert_ge "buffer flushes with SYNCTRACE_BUFFER=64k" 100 "$(st info "$ST_TMP/pp2-64k" | sed -n 's/^buffer flushes: *//p')"
# 4 ranks on 2 cores: every message waits for a context switch, so fewer iterations.
untouched pp4 4 300
ST_PRELOAD_FIRST=$slow untouched pp4-64k 4 300 SYNCTRACE_BUFFER=64k SLOW_SPILL_MS=2

# The user's bound is applied and recorded.
# 5 ms: above every latency even on a loaded machine (20 us was not, with other jobs running)
ST_ENV="SYNCTRACE_CLC_MU=5000000" run_traced "$ST_TMP/user" 2 "$BIN" 2000 || fail "SYNCTRACE_CLC_MU=5000000: exited with $?"
assert_eq "CLC_MU_SOURCE with SYNCTRACE_CLC_MU" user "$(prop "$ST_TMP/user" CLC_MU_SOURCE)"
assert_eq "CLC_MU_INTRA with SYNCTRACE_CLC_MU" 5000000 "$(prop "$ST_TMP/user" CLC_MU_INTRA)"
assert_eq "CLC_MU_INTER with SYNCTRACE_CLC_MU" 5000000 "$(prop "$ST_TMP/user" CLC_MU_INTER)"
assert_ge "events moved with mu above the true latencies" 1000 "$(prop "$ST_TMP/user" CLC_MOVED)"
violations "$ST_TMP/user"
assert_eq "violations after the correction with SYNCTRACE_CLC_MU" 0 "$V_TOTAL"
