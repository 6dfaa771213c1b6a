#!/usr/bin/env bash
# Region filters at record time (SYNCTRACE_FILTER, docs/filter.md) on filtered.c, 2 ranks: N
# iterations of MPI_Type_size, MPI_Comm_rank, MPI_Put and MPI_Win_flush_all (in a passive-target
# epoch) next to rounds of a ring exchange and an MPI_Allreduce.
#  - Unfiltered, the trace has N calls of each of the three per rank (the test is not vacuous).
#  - With a Score-P-style filter excluding the three: the application's stdout and exit code are
#    unchanged, the trace has none of their events while MPI_Put (not excluded) keeps its N per
#    rank, every message matches and the collectives are complete (synctrace check), and every
#    other event (communication, RMA epochs, MPI_Put, Init/Finalize: type and fields, times aside)
#    is the same, per location and in order, as in the unfiltered trace, except that the puts a
#    filtered MPI_Win_flush_all would have completed complete at the end of their epoch: the same
#    completions per location, in another place.
#  - A rule that would drop MPI_Send, a malformed file and a missing file are each refused with one
#    distinct line naming the file and line (and the calls and why); the program exits non-zero
#    without doing its work and no archive is written.
# Exact visit counts of the filtered regions are checked where the archive keeps them (the
# per-region summary of filtered calls).
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c filtered "$MPI_DIR/filtered.c")
NP=2 N=50000 R=20
FILTERED="MPI_Type_size MPI_Comm_rank MPI_Win_flush_all"

cat >"$ST_TMP/three.filter" <<'EOF'
# the high-frequency calls of filtered.c
SCOREP_REGION_NAMES_BEGIN
  EXCLUDE MPI_Type_*
          MPI_Comm_rank MPI_Win_flush*
  INCLUDE MPI_Type_commit MPI_Win_flush_local*
SCOREP_REGION_NAMES_END
EOF

# locations DIR OUT: the events of DIR's trace per location (OUT/RANK-THREAD, in recorded order), without
# times, without the filtered regions' and the buffer flushes' enters and leaves
locations() {
    mkdir -p "$2"
    st dump "$1" >"$ST_TMP/dump.txt" 2>"$ST_TMP/dump-err.txt" || fail "synctrace dump $1 failed: $(head -c 300 "$ST_TMP/dump-err.txt")"
    awk -v out="$2" 'NR > 1 {
        if (index($0, "region=\"TRACE BUFFER FLUSH\"")) next
        skip = 0
        for (i = 5; i <= NF; i++) if ($i ~ /^region=(MPI_Type_size|MPI_Comm_rank|MPI_Win_flush_all)$/) skip = 1
        if (skip) next
        line = $4
        # (a lock ticket is the order in which the ranks got the lock: another run may differ)
        for (i = 5; i <= NF; i++) if ($i !~ /^(orig_t|stop_t|ticket)=/) line = line " " $i
        # a filtered MPI_Win_flush_all completes nothing: its operations complete at the epoch end
        if ($4 == "rma_complete_remote") { print line > (out "/" $2 "-" $3 ".completed"); next }
        print line > (out "/" $2 "-" $3)
    }' "$ST_TMP/dump.txt"
}
# enters DIR REGION: how many times REGION was entered in DIR's trace, over all ranks
enters() { grep -c " enter .*region=$2\$" "$ST_TMP/dump-$1.txt" || true; }

# ---- unfiltered: the reference -------------------------------------------------------------------
run_both plain "$bin" "$NP" "$N" "$R"
locations "$ST_TMP/plain" "$ST_TMP/loc-plain"
mv "$ST_TMP/dump.txt" "$ST_TMP/dump-plain.txt"
for r in $FILTERED MPI_Put; do
    want=$((NP * N))
    [ "$r" != MPI_Comm_rank ] || want=$((want + NP)) # once more, before the loop
    assert_eq "unfiltered: calls of $r" "$want" "$(enters plain "$r")"
done

# ---- filtered ------------------------------------------------------------------------------------
ST_ENV="SYNCTRACE_FILTER=$ST_TMP/three.filter SYNCTRACE_VERBOSE=1" run_both filtered "$bin" "$NP" "$N" "$R"
grep -q "filter $ST_TMP/three.filter: the calls of [0-9]* regions are counted, not recorded" "$ST_TMP/err.txt" ||
    fail "SYNCTRACE_VERBOSE=1 does not say the filter is active: $(grep -m2 filter "$ST_TMP/err.txt")"
otf2_ok "$TRACE"
info_complete "$TRACE"
# the filter itself in the archive: its path, the digest of its bytes (computed here) and its rule lines
digest=$(python3 -c 'import sys
h = 0xcbf29ce484222325
d = open(sys.argv[1], "rb").read()
for c in d: h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
print("fnv1a64:%016x %d bytes" % (h, len(d)))' "$ST_TMP/three.filter")
st info "$TRACE" >"$ST_TMP/info.txt" 2>&1 || fail "synctrace info failed: $(head -c 300 "$ST_TMP/info.txt")"
assert_eq "info: the filter line" "filter:          $ST_TMP/three.filter ($digest), 5 rule(s)" "$(grep '^filter:' "$ST_TMP/info.txt")"
assert_eq "info: rule 3" "rule 3         MPI_Comm_rank MPI_Win_flush*" "$(grep -o 'rule 3 .*' "$ST_TMP/info.txt")"
locations "$TRACE" "$ST_TMP/loc-filtered"
mv "$ST_TMP/dump.txt" "$ST_TMP/dump-filtered.txt"
for r in $FILTERED; do
    assert_eq "filtered: events of $r" 0 "$(grep -c "region=$r\$" "$ST_TMP/dump-filtered.txt" || true)"
done
assert_eq "filtered: calls of MPI_Put (not excluded)" $((NP * N)) "$(enters filtered MPI_Put)"
plain_events=$(($(wc -l <"$ST_TMP/dump-plain.txt") - 1)) filtered_events=$(($(wc -l <"$ST_TMP/dump-filtered.txt") - 1))
assert_le "filtered trace: events (unfiltered: $plain_events, less 2 per filtered call)" \
    $((plain_events - 2 * (3 * NP * N + NP))) "$filtered_events"
# every message matched, the collectives complete, no violation: in both traces alike
check_messages "$ST_TMP/plain" "$((NP * R)) $((R + 3)) $((R + 3))"
check_messages "$TRACE" "$((NP * R)) $((R + 3)) $((R + 3))"
# the rest of the trace is the unfiltered one, per location, in order
assert_eq "locations" "$(cd "$ST_TMP/loc-plain" && ls)" "$(cd "$ST_TMP/loc-filtered" && ls)"
for f in "$ST_TMP"/loc-plain/*; do
    loc=$(basename "$f")
    if [ "${loc%.completed}" != "$loc" ]; then # the same operations completed, at other times
        cmp -s <(sort "$f") <(sort "$ST_TMP/loc-filtered/$loc") ||
            fail "location ${loc%.completed}: other RMA operations completed: $(diff <(sort "$f") <(sort "$ST_TMP/loc-filtered/$loc") | head -n 4 | tr '\n' '|')"
        continue
    fi
    cmp -s "$f" "$ST_TMP/loc-filtered/$loc" ||
        fail "location $loc: the events besides the filtered regions differ: $(diff "$f" "$ST_TMP/loc-filtered/$loc" | head -n 4 | tr '\n' '|')"
done
note "filtered: $filtered_events events instead of $plain_events; $(cat "$ST_TMP"/loc-filtered/* | wc -l) other events the same"

# ---- refused files: one line, no work, no archive ------------------------------------------------
# refused NAME FILE 'expected text'...: the run with SYNCTRACE_FILTER=FILE fails with one distinct line
refused() {
    local name=$1 file=$2 rc=0
    shift 2
    ST_ENV="SYNCTRACE_FILTER=$file" run_traced "$ST_TMP/refused-$name" "$NP" "$bin" "$N" "$R" || rc=$?
    [ "$rc" -ne 0 ] || fail "$name: the job exited 0"
    [ ! -s "$ST_TMP/out.txt" ] || fail "$name: the application ran: $(head -n 2 "$ST_TMP/out.txt")"
    [ ! -e "$ST_TMP/refused-$name" ] || fail "$name: an archive directory was made"
    local lines
    lines=$(grep 'SYNCTRACE_FILTER' "$ST_TMP/err.txt" | sed -E 's/^synctrace(\[[0-9]+\])?: //' | sort -u)
    assert_eq "$name: distinct SYNCTRACE_FILTER lines" 1 "$(printf '%s\n' "$lines" | grep -c .)"
    local want
    for want in "$@"; do
        printf '%s\n' "$lines" | grep -qF -- "$want" || fail "$name: the line lacks '$want': $lines"
    done
    note "$name -> exit $rc: $lines"
}
printf 'EXCLUDE MPI_Type_size\nEXCLUDE MPI_Send\n' >"$ST_TMP/send.filter"
refused send "$ST_TMP/send.filter" "$ST_TMP/send.filter:2: excludes 1 region that cannot be filtered: MPI_Send (point-to-point communication"
printf 'EXCLUDE MPI_Comm_*\n' >"$ST_TMP/comm.filter"
refused comm "$ST_TMP/comm.filter" "comm.filter:1: excludes " "MPI_Comm_accept, MPI_Comm_connect" " more;"
printf 'EXCLUDE MPI_Type_size\nINCLDUE MPI_Comm_rank\n' >"$ST_TMP/typo.filter"
refused typo "$ST_TMP/typo.filter" "$ST_TMP/typo.filter:2: 'INCLDUE' is not a keyword" "accepted: EXCLUDE or INCLUDE"
refused missing "$ST_TMP/none.filter" "cannot read the filter file $ST_TMP/none.filter: No such file or directory"
