#!/usr/bin/env bash
# synctrace info and dump on an archive with known content: counts, duration, flushes,
# properties, the incomplete flag; dump order (time, then location), offsets, quoting, JSON.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

mk small <<'S'
ranks 2
threads 1 2
offset 500
prop SYNCTRACE::SYNC_SCHEME h2hca
prop SYNCTRACE::CLC_MAX_JUMP 1234
prop OTHER::THING x
0.0 1000 enter main
0.0 1100 enter "TRACE BUFFER FLUSH"
0.0 1200 leave "TRACE BUFFER FLUSH"
0.0 1300 enter "TRACE BUFFER FLUSH"
0.0 1400 leave "TRACE BUFFER FLUSH"
0.0 1510 send 1 0 3 16
0.0 3000 leave main
1.0 1500 enter MPI_Recv orig=1400 callsite="main (a\b.c:3)"
1.0 1600 recv 0 0 3 16
1.0 2000 leave MPI_Recv
1.1 1500 enter work
1.1 2600 leave work
S

run_st info "$ST_TMP/small"
assert_eq "info exit" 0 "$RC"
has "ranks:           2"
has "locations:       3 (threads per rank: 1..2)"
has "events:          12 (all locations)"
has "  enter                5"
has "  leave                5"
has "  send                 1"
has "  recv                 1"
has "duration:        0.000002000 s (first to last event, 2000 ticks)"
has "timer:           1000000000 ticks/s, global offset 500"
has "buffer flushes:  2 (all locations)"
has "moved by CLC:    1 events (all locations)"
has "incomplete:      no"
has "  SYNCTRACE::SYNC_SCHEME                   h2hca"
has "  SYNCTRACE::CLC_MAX_JUMP                  1234"
grep -q OTHER "$OUT" && fail "info shows non-SYNCTRACE properties"

mk incomplete <<'S'
ranks 1
prop SYNCTRACE::INCOMPLETE true
0.0 10 enter main
S
run_st info "$ST_TMP/incomplete"
has "incomplete:      yes (the run ended without MPI_Finalize)"

# A dump's reason (SYNCTRACE::END, with the MPI_Finalize phase it cut short); "?": none was written.
mk ended <<'S'
ranks 1
prop SYNCTRACE::INCOMPLETE true
prop SYNCTRACE::END MPI_Abort
0.0 10 enter main
S
run_st info "$ST_TMP/ended"
has "incomplete:      yes (ended by MPI_Abort)"
mk unknown <<'S'
ranks 1
prop SYNCTRACE::INCOMPLETE true
prop SYNCTRACE::END ?
0.0 10 enter main
S
run_st info "$ST_TMP/unknown"
has "incomplete:      yes (the run ended without MPI_Finalize)"

# The sync summary says whose each figure is (the archive's properties are rank 0's; the _MAX ones the
# largest of any rank; a resync duration a rank's sum over all its resyncs), so that the slowest rank's
# total (16.958 ms) never reads as part of rank 0's (0.231 ms).
mk synced <<'S'
ranks 2
prop SYNCTRACE::SYNC_SCHEME h2hca:hca3/prop
prop SYNCTRACE::SYNC_NODES 1
prop SYNCTRACE::SYNC_CLOCK monotonic
prop SYNCTRACE::SYNC_INIT_MS 0.512
prop SYNCTRACE::SYNC_INIT_MS_MAX 2.250
prop SYNCTRACE::SYNC_RESYNCS 3
prop SYNCTRACE::SYNC_RESYNC_MS 0.231
prop SYNCTRACE::SYNC_RESYNC_MS_MAX 16.958
prop SYNCTRACE::SYNC_RTT_MIN_INTRA_NS 1340
prop SYNCTRACE::SYNC_RTT_MIN_INTER_NS -1
prop SYNCTRACE::SYNC_CHECK_0 "after_s=0.000 max_offset_ns=812 rank=1 bound_ns=1500"
prop SYNCTRACE::SYNC_CHECK_1 garbled
prop SYNCTRACE::TIMER tsc
prop SYNCTRACE::TIMER_TSC_HZ 2100000000
prop SYNCTRACE::TIMER_TSC_SOURCE node
prop SYNCTRACE::TIMER_TSC_POINTS 6
prop SYNCTRACE::TIMER_TSC_DRIFT_NS -4472
prop SYNCTRACE::TIMER_TSC_NONLINEARITY_NS 1
0.0 10 enter main
1.0 10 enter main
S
run_st info "$ST_TMP/synced"
has "clock sync:      h2hca:hca3/prop on 1 node(s), clock monotonic"
has "  initial sync   took 0.512 ms on rank 0, 2.250 ms on the slowest rank"
has "  resyncs        3, all of them together took 0.231 ms on rank 0, 16.958 ms on the slowest rank"
has "  min RTT        1340 ns within nodes, - ns between nodes (the smallest of any rank)"
has "  clock check 0  0.000 s after the initial sync: largest offset from rank 0's clock 812 ns (rank 1), largest bound of any rank 1500 ns"
has "  clock check 1  garbled"
has "  stamped by     tsc at 2100.000000 MHz (node clock); rank 0's 6 calibration points: drift -4472 ns over the run, nonlinearity 1 ns"
has "properties (rank 0's; after a recovery without rank 0, the lowest rank's):"

# Text dump: golden output (times relative to the global offset 500; ties by location).
run_st dump "$ST_TMP/small"
assert_eq "dump exit" 0 "$RC"
cat >"$ST_TMP/want.txt" <<'W'
              t  rank thread  type              fields
            500     0      0  enter             region=main
            600     0      0  enter             region="TRACE BUFFER FLUSH"
            700     0      0  leave             region="TRACE BUFFER FLUSH"
            800     0      0  enter             region="TRACE BUFFER FLUSH"
            900     0      0  leave             region="TRACE BUFFER FLUSH"
           1000     1      0  enter             region=MPI_Recv callsite="main (a\\b.c:3)" orig_t=900
           1000     1      1  enter             region=work
           1010     0      0  send              peer=1 comm=0 tag=3 bytes=16
           1100     1      0  recv              peer=0 comm=0 tag=3 bytes=16
           1500     1      0  leave             region=MPI_Recv
           2100     1      1  leave             region=work
           2500     0      0  leave             region=main
W
diff -u "$ST_TMP/want.txt" "$OUT" || fail "dump text differs from the golden output"

# JSON lines: valid JSON, same order, the documented fields.
run_st dump "$ST_TMP/small" --json
assert_eq "dump --json exit" 0 "$RC"
python3 - "$OUT" <<'P' || fail "dump --json is not the expected JSON"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 12, len(rows)
assert [r["t"] for r in rows] == [500, 600, 700, 800, 900, 1000, 1000, 1010, 1100, 1500, 2100, 2500]
assert rows[5] == {"t": 1000, "rank": 1, "thread": 0, "type": "enter", "region": "MPI_Recv",
                   "callsite": "main (a\\b.c:3)", "orig_t": 900}, rows[5]
assert rows[7] == {"t": 1010, "rank": 0, "thread": 0, "type": "send", "peer": 1, "comm": 0, "tag": 3, "bytes": 16}
assert rows[6]["thread"] == 1 and rows[6]["region"] == "work"
P

# Local definition files are optional: the same events without them dump the same.
{ echo nolocaldefs; sed -n '/^mk small/,/^S$/p' "$ST_ROOT/tests/cli/t_info_dump.sh" | sed '1d;$d'; } | mk nolocal
[ ! -e "$ST_TMP/nolocal/traces/0.def" ] || fail "mkarchive nolocaldefs wrote local definitions"
run_st dump "$ST_TMP/nolocal"
diff -u "$ST_TMP/want.txt" "$OUT" || fail "dump without local definition files differs"

# An archive without events.
mk empty <<'S'
ranks 1
S
run_st info "$ST_TMP/empty"
assert_eq "empty info exit" 0 "$RC"
has "events:          0 (all locations)"
run_st dump "$ST_TMP/empty" --json
assert_eq "empty dump exit" 0 "$RC"
[ ! -s "$OUT" ] || fail "empty archive: dump --json printed something"

# Output closed early (| head) is not an error report.
{ echo "ranks 1"; seq 1 30000 | awk '{ print "0.0 " $1 * 10 " enter main"; print "0.0 " $1 * 10 + 5 " leave main" }'; } | mk big
set +o pipefail
"$ST_BIN/synctrace" dump "$ST_TMP/big" 2>"$ERR" | head -n 2 >/dev/null
set -o pipefail
[ ! -s "$ERR" ] || fail "dump | head printed: $(cat "$ERR")"
