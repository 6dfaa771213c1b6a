#!/usr/bin/env bash
# MPI one-sided communication as OTF2 RMA records (rma.c on ST_NP = 2..4 ranks, N accumulate +
# flush iterations of a Global-Arrays-like epoch): the application's stdout and exit code are
# unchanged; otf2-print reads the archive without a complaint and shows, per rank, exactly the
# RmaWinCreate/Destroy, RmaCollectiveBegin/End (creation, fences, release), RmaGroupSync (PSCW),
# RmaRequestLock/AcquireLock/ReleaseLock (an AcquireLock per target on the host holding the lock's
# ticket: each target's tickets are 1, 2, ... over all ranks' epochs there), RmaPut/Get/Atomic and RmaOpCompleteRemote/NonBlocking records the
# program's calls imply (MPI_Win_sync an RmaSync, the PSCW notes one per post's origin and start's target; each MPI_Win_flush completes the accumulate before
# it, so the Global-Arrays loop alternates RmaAtomic and RmaOpCompleteRemote; with a filter that
# excludes MPI_Win_flush the same operations complete at MPI_Win_unlock_all); python3-otf2 (when
# installed) reads the same archive and finds every operation's window, target, bytes and type,
# each completed once after its issue (rmacheck.py); `synctrace dump` shows the same records;
# `synctrace check` finds no violation and `synctrace analyze` runs, in parallel with the same
# result; `synctrace clc --redo` rewrites the archive with the same RMA records. From Fortran (frma.f90, mpif.h: Open MPI's
# bindings call PMPI_* directly): a fence epoch with a put and a lock epoch with an accumulate give
# the same records per rank. The collectives on a window (creation, fence, release) are relations:
# `synctrace check` counts them; on one host none is reversed and CLC moves nothing, although rank 0
# comes 20 ms late to four of them; on skewed clocks (the clock-skew library, every rank its own
# clock and node, offsets of up to 1 s, no synchronization) some are reversed before CLC and none
# after it.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c rma "$MPI_DIR/rma.c")
NP=$ST_NP N=500 # 4 ranks on 2 cores: each flush waits for its target to be scheduled (about 4.5 ms)
[ "$NP" -ge 2 ] && [ "$NP" -le 4 ] || NP=4

run_both rma "$bin" "$NP" "$N"
otf2_ok "$TRACE"
info_complete "$TRACE"

# expected RECORD RANK: the number of otf2-print RECORD lines rank RANK's location must have
expected() {
    local rec=$1 r=$2 nev=$(((NP + 1) / 2)) put get atomic
    put=$((2 + (r % 2) * nev)) get=2 atomic=$((5 + r % 2 + N))
    case $rec in
        RMA_WIN_CREATE | RMA_WIN_DESTROY) echo 5 ;;
        RMA_COLLECTIVE_BEGIN | RMA_COLLECTIVE_END) echo 12 ;;
        RMA_GROUP_SYNC) echo 4 ;; # two epochs, the second with MPI_MODE_NOCHECK
        RMA_REQUEST_LOCK | RMA_RELEASE_LOCK) echo 4 ;;
        RMA_ACQUIRE_LOCK) echo $((2 + 2 * NP)) ;; # a ticket per lock, one per rank for each lock_all (one host)
        RMA_PUT) echo $put ;;
        RMA_GET) echo $get ;;
        RMA_ATOMIC) echo $atomic ;;
        RMA_OP_COMPLETE_REMOTE) echo $((put + get + atomic)) ;;
        RMA_OP_COMPLETE_NON_BLOCKING) echo 4 ;;
        RMA_SYNC) echo $((1 + (r % 2 ? nev : NP / 2))) ;; # MPI_Win_sync, a post's or start's notes
        *) echo 0 ;;
    esac
}
RECORDS="RMA_WIN_CREATE RMA_WIN_DESTROY RMA_COLLECTIVE_BEGIN RMA_COLLECTIVE_END RMA_GROUP_SYNC RMA_REQUEST_LOCK
RMA_RELEASE_LOCK RMA_SYNC RMA_PUT RMA_GET RMA_ATOMIC RMA_OP_COMPLETE_REMOTE RMA_OP_COMPLETE_NON_BLOCKING
RMA_OP_COMPLETE_BLOCKING RMA_ACQUIRE_LOCK RMA_TRY_LOCK RMA_OP_TEST RMA_WAIT_CHANGE"

# ---- otf2-print: the records per rank (location id = rank: one thread each) ----------------------
awk '$1 ~ /^RMA_/ { n[$1 " " $2]++ } END { for (k in n) print k, n[k] }' "$ST_TMP/otf2-print.txt" >"$ST_TMP/rma-counts.txt"
total=0
for r in $(seq 0 $((NP - 1))); do
    for rec in $RECORDS; do
        got=$(awk -v k="$rec $r" '$1 " " $2 == k { print $3 }' "$ST_TMP/rma-counts.txt")
        assert_eq "otf2-print: $rec records of rank $r" "$(expected "$rec" "$r")" "${got:-0}"
        total=$((total + ${got:-0}))
    done
done
assert_eq "RmaWin definitions" 5 "$(otf2-print -G "$TRACE/traces.otf2" | grep -c '^RMA_WIN ')"
note "otf2-print: $total RMA records on $NP ranks, each count as the calls imply"
# the targets and bytes of the fence epoch's Put (4 ints to the right neighbour) on every rank
for r in $(seq 0 $((NP - 1))); do
    line=$(awk -v r="$r" '$1 == "RMA_PUT" && $2 == r' "$ST_TMP/otf2-print.txt" | head -n 1)
    echo "$line" | grep -qE "Remote: $(((r + 1) % NP)) .*Bytes: 16," ||
        fail "rank $r: the first RmaPut is not 16 bytes to rank $(((r + 1) % NP)): $line"
done

# ---- flushes: each GA accumulate completes at its MPI_Win_flush, right after it ------------------
# at_flush FILE R: how often rank R's RmaAtomic is followed by an RmaOpCompleteRemote as its next RMA record
at_flush() {
    awk -v r="$2" '$1 ~ /^RMA_/ && $2 == r { if (prev == "RMA_ATOMIC" && $1 == "RMA_OP_COMPLETE_REMOTE") n++; prev = $1 }
                   END { print n + 0 }' "$1"
}
for r in $(seq 0 $((NP - 1))); do
    got=$(at_flush "$ST_TMP/otf2-print.txt" "$r")
    [ "$got" -ge "$N" ] || fail "rank $r: $got accumulates completed by the flush right after them, expected at least $N"
done
# A filter may exclude the flushes (their code is skipped): the same completions, at MPI_Win_unlock_all.
printf 'SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE MPI_Win_flush MPI_Win_sync\nSCOREP_REGION_NAMES_END\n' >"$ST_TMP/flush.filter"
# (200 GA iterations suffice here: the run's own counts are what the filter must keep)
N_ALL=$N N=200
ST_ENV="SYNCTRACE_FILTER=$ST_TMP/flush.filter" run_traced "$ST_TMP/rma-filtered" "$NP" "$bin" "$N" ||
    fail "rma with MPI_Win_flush filtered failed: $(tail -n 5 "$ST_TMP/err.txt")"
otf2-print "$ST_TMP/rma-filtered/traces.otf2" >"$ST_TMP/otf2-print-filtered.txt" 2>&1 || fail "otf2-print of the filtered run failed"
for r in $(seq 0 $((NP - 1))); do
    assert_eq "filtered flushes: RMA_OP_COMPLETE_REMOTE records of rank $r" "$(expected RMA_OP_COMPLETE_REMOTE "$r")" \
        "$(awk -v r="$r" '$1 == "RMA_OP_COMPLETE_REMOTE" && $2 == r' "$ST_TMP/otf2-print-filtered.txt" | wc -l)"
    assert_eq "filtered flushes: RMA_SYNC records of rank $r (the notes only)" "$(($(expected RMA_SYNC "$r") - 1))" "$(awk -v r="$r" '$1 == "RMA_SYNC" && $2 == r' "$ST_TMP/otf2-print-filtered.txt" | wc -l)"
    got=$(at_flush "$ST_TMP/otf2-print-filtered.txt" "$r")
    [ "$got" -lt "$N" ] || fail "filtered flushes: rank $r still has $got accumulates completed right after them"
done
check_messages "$ST_TMP/rma-filtered" "0"
N=$N_ALL
note "flushes: every GA accumulate completed by its MPI_Win_flush; with the flushes filtered, at MPI_Win_unlock_all"

# ---- python3-otf2: every operation, its completions, its window ----------------------------------
py=
for p in python3 /usr/bin/python3; do "$p" -c 'import otf2' 2>/dev/null && { py=$p; break; }; done
if [ -n "$py" ]; then
    "$py" "$MPI_DIR/rmacheck.py" "$TRACE" "$NP" "$N" 2>"$ST_TMP/rmacheck.txt" ||
        fail "python3-otf2: the RMA records differ from rma.c's calls:$(sed 's/^/\n/' "$ST_TMP/rmacheck.txt" | tr -d '\n' | head -c 1500)"
    note "python3-otf2: $(head -n 1 "$ST_TMP/rmacheck.txt" | sed 's/^ *//')"
else
    note "python3-otf2 is not installed: the per-operation check (rmacheck.py) is skipped"
fi

# ---- the CLI reads them: dump, check, analyze, clc ---------------------------------------------
st dump "$TRACE" >"$ST_TMP/dump.txt" 2>"$ST_TMP/dump-err.txt" || fail "synctrace dump failed: $(head -c 300 "$ST_TMP/dump-err.txt")"
for pair in "rma_put RMA_PUT" "rma_get RMA_GET" "rma_atomic RMA_ATOMIC" "rma_complete_remote RMA_OP_COMPLETE_REMOTE" \
            "rma_complete_local RMA_OP_COMPLETE_NON_BLOCKING" "rma_group_sync RMA_GROUP_SYNC" "rma_request_lock RMA_REQUEST_LOCK"; do
    set -- $pair
    assert_eq "synctrace dump: $1 events" "$(grep -c "^$2 " "$ST_TMP/otf2-print.txt")" "$(awk -v k="$1" '$4 == k' "$ST_TMP/dump.txt" | wc -l)"
done
first=$(awk '$4 == "rma_put" && $2 == 0' "$ST_TMP/dump.txt" | head -n 1)
echo "$first" | grep -qE "target=$((1 % NP)) bytes=16 id=" || fail "synctrace dump: rank 0's first put: $first"
check_messages "$TRACE" "0"
# the collectives on a window as relations: 12 per rank (5 creations, 2 fences, 5 releases), 11 of
# them relate all ranks (the fence that opens the epoch, MPI_MODE_NOPRECEDE, need not synchronize).
# On one host the ranks read one clock: rank 0 came 20 ms late to four of them, and yet none is
# reversed before CLC, and CLC moved nothing.
assert_eq "synctrace check: window collective instances" 11 \
    "$(sed -nE 's/^rma: ([0-9]+) window collective instances, .*$/\1/p' "$ST_TMP/check.txt")"
# PSCW on B: each odd rank's MPI_Win_complete -> each even rank's MPI_Win_wait, one relation per pair
# and epoch (two epochs)
NODD=$((NP / 2)) NEVEN=$(((NP + 1) / 2))
assert_eq "synctrace check: complete -> wait relations" $((2 * NODD * NEVEN)) \
    "$(sed -nE 's/^rma: [0-9]+ window collective instances, [0-9]+ post -> start, ([0-9]+) complete -> wait, [0-9]+ unlock -> unlock$/\1/p' "$ST_TMP/check.txt")"
# and each even rank's MPI_Win_post -> each odd rank's MPI_Win_start, through the tool's notes: in the
# first epoch only (with MPI_MODE_NOCHECK, which MPI requires on both sides, the tool sends none)
assert_eq "synctrace check: post -> start relations" $((NODD * NEVEN)) \
    "$(sed -nE 's/^rma: [0-9]+ window collective instances, ([0-9]+) post -> start, .*$/\1/p' "$ST_TMP/check.txt")"
st check --raw "$TRACE" >"$ST_TMP/check-raw.txt" 2>&1 ||
    fail "synctrace check --raw: relations reversed on one clock: $(sed -n '/^violations/,$p' "$ST_TMP/check-raw.txt" | tr '\n' ' ')"
st info "$TRACE" >"$ST_TMP/info-one.txt" 2>&1 || fail "synctrace info failed: $(head -c 300 "$ST_TMP/info-one.txt")"
grep -q '^moved by CLC: *0 events' "$ST_TMP/info-one.txt" || fail "CLC moved events on one clock: $(grep -i moved "$ST_TMP/info-one.txt")"
st analyze "$TRACE" >"$ST_TMP/analyze.txt" 2>&1 || fail "synctrace analyze failed: $(head -c 400 "$ST_TMP/analyze.txt")"
# the window collectives' relations are in both analyses' graphs: the parallel one gives the same result
same_in_parallel "the RMA trace" "$TRACE" "$TRACE/analysis.json" "$ST_TMP/analysis-par.json"
st clc "$TRACE" "$ST_TMP/rma-clc" --redo >"$ST_TMP/clc.txt" 2>&1 || fail "synctrace clc --redo failed: $(head -c 400 "$ST_TMP/clc.txt")"
otf2_ok "$ST_TMP/rma-clc"
for rec in $RECORDS; do
    assert_eq "synctrace clc --redo: $rec records" "$(awk -v k="$rec" '$1 == k' "$ST_TMP/rma-counts.txt" | awk '{ s += $3 } END { print s + 0 }')" \
        "$(grep -c "^$rec " "$ST_TMP/otf2-print.txt")"
done
cmp -s <(grep '^RMA_' "$ST_TMP/otf2-print.txt" | awk '{ $3 = ""; print }') <(otf2-print "$TRACE/traces.otf2" | grep '^RMA_' | awk '{ $3 = ""; print }') ||
    fail "synctrace clc --redo: the RMA records differ from the run's"
note "dump, check, analyze and clc --redo read the RMA records"

# ---- Fortran: the same records through the Fortran bindings --------------------------------------
fbin=$(build_mpi_f90 frma "$MPI_DIR/frma.f90")
ST_TMP_F=$ST_TMP/frma
run_traced "$ST_TMP_F" 2 "$fbin" || fail "frma with the shim failed: $(tail -n 5 "$ST_TMP/err.txt")"
otf2_ok "$ST_TMP_F"
for r in 0 1; do
    for pair in "RMA_WIN_CREATE 1" "RMA_WIN_DESTROY 1" "RMA_COLLECTIVE_BEGIN 4" "RMA_COLLECTIVE_END 4" "RMA_PUT 1" \
                "RMA_ATOMIC 1" "RMA_OP_COMPLETE_REMOTE 2" "RMA_REQUEST_LOCK 1" "RMA_RELEASE_LOCK 1"; do
        set -- $pair
        assert_eq "Fortran: $1 records of rank $r" "$2" "$(awk -v k="$1" -v r="$r" '$1 == k && $2 == r' "$ST_TMP/otf2-print.txt" | wc -l)"
    done
    awk -v r="$r" '$1 == "RMA_PUT" && $2 == r' "$ST_TMP/otf2-print.txt" | grep -qE "Remote: $((1 - r)) .*Bytes: 8," ||
        fail "Fortran: rank $r's put is not 8 bytes to rank $((1 - r))"
done
note "Fortran: the window, its epochs and operations recorded on both ranks"

# ---- skewed clocks: CLC keeps the window collectives' order ----------------------------------------
source "$ST_ROOT/tests/skew/skew-env.sh" # (exports SYNCTRACE_TIMER=clock: the library shifts clock_gettime)
skew=$(skew_build "$ST_BUILD") || fail "cannot build the clock-skew library"
# (offsets of up to 1 s, far more than a member waits in any of them: whichever comes last, the
# members' clocks order their begins and ends as they differ)
ST_PRELOAD_FIRST=$skew ST_ENV="SYNCTRACE_SYNC=none SKEW_PER_RANK=1 SYNCTRACE_NODE_SIZE=1 SKEW_SEED=9 SKEW_OFFSET_NS=1000000000 SKEW_T0_NS=$(skew_t0)" \
    run_traced "$ST_TMP/skew" "$NP" "$bin" 200 || fail "rma under the clock-skew library failed: $(tail -n 5 "$ST_TMP/err.txt")"
st check --raw "$ST_TMP/skew" >"$ST_TMP/check-skew-raw.txt" 2>&1 || true
assert_ge "window collectives reversed before CLC (skewed clocks)" 1 \
    "$(sed -nE 's/^  rma: ([0-9]+)$/\1/p' "$ST_TMP/check-skew-raw.txt")"
st check "$ST_TMP/skew" >"$ST_TMP/check-skew.txt" 2>&1 ||
    fail "relations reversed after CLC (skewed clocks): $(sed -n '/^violations/,$p' "$ST_TMP/check-skew.txt" | tr '\n' ' ')"
note "skewed clocks: $(sed -nE 's/^  rma: ([0-9]+)$/\1/p' "$ST_TMP/check-skew-raw.txt") window collectives reversed before CLC, none after ($(sed -nE 's/^violations: //p' "$ST_TMP/check-skew-raw.txt") reversed relations of all kinds before)"
