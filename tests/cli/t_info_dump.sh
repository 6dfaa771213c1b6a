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
has "events:          12"
has "  enter                5"
has "  leave                5"
has "  send                 1"
has "  recv                 1"
has "duration:        0.000002000 s (first to last event, 2000 ticks)"
has "timer:           1000000000 ticks/s, global offset 500"
has "buffer flushes:  2"
has "moved by CLC:    1 events"
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
has "events:          0"
run_st dump "$ST_TMP/empty" --json
assert_eq "empty dump exit" 0 "$RC"
[ ! -s "$OUT" ] || fail "empty archive: dump --json printed something"

# Output closed early (| head) is not an error report.
{ echo "ranks 1"; seq 1 30000 | awk '{ print "0.0 " $1 * 10 " enter main"; print "0.0 " $1 * 10 + 5 " leave main" }'; } | mk big
set +o pipefail
"$ST_BIN/synctrace" dump "$ST_TMP/big" 2>"$ERR" | head -n 2 >/dev/null
set -o pipefail
[ ! -s "$ERR" ] || fail "dump | head printed: $(cat "$ERR")"
