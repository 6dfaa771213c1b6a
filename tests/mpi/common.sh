# shellcheck shell=bash
# tests/mpi/common.sh — helpers of the MPI integration tests, sourced after tests/lib.sh.
#
# The test programs (p2p.c, nonblock.c, coll.c, fring.f90, ...) print checksums on rank 0
# and write their timing-dependent call counts with "-c FILE" (st_test.h). tracecheck.py
# holds one model per program: the exact events every rank must have in the trace.

MPI_DIR=$ST_ROOT/tests/mpi
tracecheck() { python3 "$MPI_DIR/tracecheck.py" "$@"; }

need_tools() {
    [ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first (make all)"
    [ -f "$ST_LIB" ] || fail "no $ST_LIB: build first (make all)"
}

# run_both NAME BIN NP [ARGS...]: runs BIN without and with the shim (archive in $ST_TMP/NAME);
# asserts the application's stdout and exit code are the same. Sets TRACE and COUNTS.
run_both() {
    local name=$1 bin=$2 np=$3
    shift 3
    TRACE=$ST_TMP/$name
    COUNTS=$ST_TMP/counts-$name
    local prc=0 trc=0
    run_plain "$np" "$bin" -c "$ST_TMP/plain-counts-$name" "$@" || prc=$?
    [ "$prc" -eq 0 ] || fail "$name without the shim exited $prc: $(tail -n 5 "$ST_TMP/plain-err.txt")"
    [ -s "$ST_TMP/plain.txt" ] || fail "$name without the shim printed nothing"
    run_traced "$TRACE" "$np" "$bin" -c "$COUNTS" "$@" || trc=$?
    [ "$trc" -eq "$prc" ] || fail "$name with the shim exited $trc (without: $prc): $(tail -n 5 "$ST_TMP/err.txt")"
    cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" ||
        fail "$name: stdout differs with the shim: $(diff "$ST_TMP/plain.txt" "$ST_TMP/out.txt" | head -n 6 | tr '\n' '|')"
    [ -f "$TRACE/traces.otf2" ] || fail "$name: no archive $TRACE/traces.otf2; stderr: $(tail -n 5 "$ST_TMP/err.txt")"
    note "$name: stdout and exit code unchanged ($(wc -l <"$ST_TMP/out.txt") lines)"
}

# dump_json DIR OUT: `synctrace dump --json DIR` into OUT (must not be empty).
dump_json() {
    st dump --json "$1" >"$2" 2>"$ST_TMP/dump-err.txt" || fail "synctrace dump --json $1 failed: $(head -c 300 "$ST_TMP/dump-err.txt")"
    [ -s "$2" ] || fail "synctrace dump --json $1 printed nothing"
}

# check_counts PROG DUMP NP [PROGRAM ARGS...]: exact event counts of the program model.
check_counts() {
    local prog=$1 dump=$2 np=$3
    shift 3
    tracecheck counts "$prog" "$dump" "$np" "$COUNTS" "$@" >"$ST_TMP/counts.txt" 2>"$ST_TMP/counts-err.txt" ||
        fail "$prog: event counts differ from the program's calls:$(head -n 25 "$ST_TMP/counts.txt" "$ST_TMP/counts-err.txt" | sed 's/^/\n    /' | tr -d '\n')"
    note "$(cat "$ST_TMP/counts-err.txt")"
}

# check_messages DIR "N CMIN CMAX": `synctrace check` matches all N point-to-point messages,
# finds CMIN..CMAX collective instances, none incomplete, and no violations.
check_messages() {
    local dir=$1 want cmin cmax rc=0
    read -r want cmin cmax <<<"$2"
    st check "$dir" >"$ST_TMP/check.txt" 2>&1 || rc=$?
    local line matched unmatched violations colls cinc
    line=$(grep -E '^messages: [0-9]+ matched, [0-9]+ unmatched' "$ST_TMP/check.txt" | head -n 1) ||
        fail "synctrace check: no 'messages: N matched, N unmatched' line: $(head -c 400 "$ST_TMP/check.txt")"
    matched=$(echo "$line" | sed -E 's/^messages: ([0-9]+) matched.*/\1/')
    unmatched=$(echo "$line" | sed -E 's/^messages: [0-9]+ matched, ([0-9]+) unmatched.*/\1/')
    violations=$(sed -nE 's/^violations: ([0-9]+).*/\1/p' "$ST_TMP/check.txt" | head -n 1)
    [ -n "$violations" ] || fail "synctrace check: no 'violations: N' line: $(head -c 400 "$ST_TMP/check.txt")"
    assert_eq "matched messages" "$want" "$matched"
    assert_eq "unmatched messages" 0 "$unmatched"
    assert_eq "violations" 0 "$violations"
    assert_eq "synctrace check exit code" 0 "$rc"
    if [ -n "$cmin" ]; then
        colls=$(sed -nE 's/^collectives: ([0-9]+) instances.*/\1/p' "$ST_TMP/check.txt" | head -n 1)
        cinc=$(sed -nE 's/^collectives: [0-9]+ instances, ([0-9]+) incomplete.*/\1/p' "$ST_TMP/check.txt" | head -n 1)
        [ -n "$colls" ] || fail "synctrace check: no 'collectives: N instances' line: $(head -c 400 "$ST_TMP/check.txt")"
        assert_ge "collective instances" "$cmin" "$colls"
        assert_le "collective instances" "$cmax" "$colls"
        assert_eq "incomplete collective instances" 0 "$cinc"
    fi
    note "check: $matched matched, $unmatched unmatched, ${colls:-?} collective instances, $violations violations"
}

# full_check NAME PROG BIN NP [ARGS...]: the standard test of one program.
full_check() {
    local name=$1 prog=$2 bin=$3 np=$4
    shift 4
    run_both "$name" "$bin" "$np" "$@"
    otf2_ok "$TRACE"
    info_complete "$TRACE"
    dump_json "$TRACE" "$ST_TMP/$name.json"
    check_counts "$prog" "$ST_TMP/$name.json" "$np" "$@"
    check_messages "$TRACE" "$(tracecheck messages "$prog" "$np" "$@")"
}

# info_incomplete DIR: `synctrace info DIR` says the archive is incomplete.
# info_complete DIR: ... says it is not.
info_incomplete() {
    st info "$1" >"$ST_TMP/info.txt" 2>&1 || fail "synctrace info $1 failed: $(head -c 300 "$ST_TMP/info.txt")"
    # "incomplete: yes (...)"; a complete archive says "incomplete: no"
    grep -qiE '^incomplete:[[:space:]]*yes' "$ST_TMP/info.txt" ||
        fail "synctrace info does not mark $1 incomplete: $(grep -i incomplete "$ST_TMP/info.txt" | head -n 2 | tr '\n' '|')"
}

info_complete() {
    st info "$1" >"$ST_TMP/info.txt" 2>&1 || fail "synctrace info $1 failed: $(head -c 300 "$ST_TMP/info.txt")"
    grep -qiE '^incomplete:[[:space:]]*no' "$ST_TMP/info.txt" ||
        fail "synctrace info does not mark $1 complete: $(grep -i incomplete "$ST_TMP/info.txt" | head -n 2 | tr '\n' '|')"
}

# recover_if_needed DIR: a run that ended without MPI_Finalize under the plain launcher leaves
# per-rank raw data; `synctrace recover DIR` turns it into an archive.
recover_if_needed() {
    if [ ! -f "$1/traces.otf2" ]; then
        [ -d "$1" ] || fail "no $1 at all after the run: $(tail -n 5 "$ST_TMP/err.txt")"
        st recover "$1" >"$ST_TMP/recover.txt" 2>&1 || fail "synctrace recover $1 failed: $(head -c 400 "$ST_TMP/recover.txt")"
        [ -f "$1/traces.otf2" ] || fail "synctrace recover $1 wrote no traces.otf2: $(head -c 400 "$ST_TMP/recover.txt")"
        note "recovered: $(head -n 2 "$ST_TMP/recover.txt" | tr '\n' ' ')"
    fi
}

# app_events FILE: the events of `synctrace info`'s output less the flush regions' two each (a thread waits for
# the disk, a flush region, only when the writer thread falls behind, which differs from run to run).
app_events() { awk '$1 == "events:" {e = $2} /^buffer flushes:/ {f = $3} END {print e - 2 * f}' "$@"; }

# signal_outcome WHAT DIR EVENTS PHASE NP: what a SIGTERM left in DIR, checked whole. One of:
#  - the archive alone, complete before the signal: marked complete, EVENTS application events, read whole
#    by otf2-print;
#  - that archive and the dumps: the signal came while the ranks agreed that the archive was complete (MPI's
#    write's closing agreement); recover explains that instead of rebuilding. (An archive that does not read
#    back was cut short after its anchor file: the next case, where recover replaces it.)
#  - the dumps of all NP ranks (and maybe an archive the signal cut short) and a message on stderr;
#    `synctrace recover` makes them an archive (over a cut one it says so), marked incomplete, with EVENTS
#    application events, ended by SIGTERM, or "SIGTERM during ... PHASE" (the phase the signal cut short).
# Sets OUTCOME (complete or dumped) and OUTCOME_NOTE (what it found).
signal_outcome() {
    local what=$1 dir=$2 events=$3 phase=$4 np=$5 cut=0 got ended r
    [ -d "$dir" ] || fail "$what: no archive directory: $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
    if [ ! -d "$dir/partial" ] || { [ -f "$dir/traces.otf2" ] && st info "$dir" >/dev/null 2>&1; }; then
        [ -f "$dir/traces.otf2" ] ||
            fail "$what: neither an archive nor dumps: $(ls -R "$dir" | head -n 8 | tr '\n' ' '); $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
        info_complete "$dir"
        assert_eq "$what: events of the archive" "$events" "$(app_events "$ST_TMP/info.txt")"
        otf2_ok "$dir"
        OUTCOME=complete OUTCOME_NOTE="archive complete"
        [ -d "$dir/partial" ] || return 0
        st recover "$dir" >"$ST_TMP/recover.txt" 2>&1 && fail "$what: recover rebuilt over a complete archive"
        grep -q "holds an archive and the dumps of a signal" "$ST_TMP/recover.txt" ||
            fail "$what: recover does not explain the archive next to the dumps: $(head -c 300 "$ST_TMP/recover.txt")"
        OUTCOME_NOTE="archive complete, redundant dumps (signal during the write's closing agreement)"
        return 0
    fi
    for r in $(seq 0 $((np - 1))); do
        [ -f "$dir/partial/rank-$r.strd" ] ||
            fail "$what: dumps but none of rank $r: $(ls "$dir/partial" | tr '\n' ' '); $(tail -n 3 "$ST_TMP/err.txt" | tr '\n' '|')"
    done
    grep -q 'partial trace' "$ST_TMP/err.txt" || fail "$what: dumps without a message on stderr"
    [ -f "$dir/traces.otf2" ] && cut=1
    st recover "$dir" >"$ST_TMP/recover.txt" 2>&1 || fail "$what: synctrace recover failed: $(head -c 300 "$ST_TMP/recover.txt")"
    [ $cut = 0 ] || grep -q "was cut short by the signal" "$ST_TMP/recover.txt" ||
        fail "$what: recover replaced an unreadable archive without saying so: $(head -c 300 "$ST_TMP/recover.txt")"
    info_incomplete "$dir"
    got=$(app_events "$ST_TMP/info.txt")
    assert_eq "$what: events of the recovered archive" "$events" "$got"
    ended=$(sed -n 's/^incomplete: *yes (ended by \(SIGTERM.*\))$/\1/p' "$ST_TMP/info.txt")
    case $ended in
    SIGTERM | "SIGTERM during "*" $phase") ;;
    *) fail "$what: info says the run ended by '$ended', not by SIGTERM (in a phase $phase): $(grep '^incomplete' "$ST_TMP/info.txt")" ;;
    esac
    OUTCOME=dumped
    OUTCOME_NOTE="dumped ($ended), recovered $got events$([ $cut = 0 ] || echo " (over the archive the signal cut short)")"
}

# term_job WHAT SECONDS: SIGTERM to the background job $job; fails if it still runs SECONDS later or
# its stderr ($ST_TMP/err.txt) shows a crash. Clears job.
term_job() {
    kill -TERM "$job" 2>/dev/null || true
    for _ in $(seq $(($2 * 10))); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$job" 2>/dev/null && fail "$1: the job still runs $2 s after SIGTERM"
    wait "$job" || true
    job=
    local crash='Segmentation|SIGSEGV|core dumped|AddressSanitizer|Assertion'
    ! grep -qE "$crash" "$ST_TMP/err.txt" || fail "$1: crash: $(grep -E "$crash" "$ST_TMP/err.txt" | head -n 2)"
}
