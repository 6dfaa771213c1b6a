#!/usr/bin/env bash
# synctrace check: point-to-point matching (post order, channels, communicator
# translation, threads, cancellation) and receive-before-send violations, on archives
# with known content written by mkarchive.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

# Two blocking messages; the second receive completes before its send.
mk basic <<'S'
ranks 2
0.0 100 enter MPI_Send
0.0 110 send 1 0 7 8
0.0 120 leave MPI_Send
0.0 160 send 1 0 7 8
1.0 50 enter MPI_Recv
1.0 130 recv 0 0 7 8
1.0 131 leave MPI_Recv
1.0 140 enter MPI_Recv
1.0 150 recv 0 0 7 8
1.0 151 leave MPI_Recv
S
check_counts basic 1 2 0
assert_eq "basic p2p" 1 "$(kind_count p2p)"
run_st check "$ST_TMP/basic" -v
grep -q '^  p2p: recv at rank 1 thread 0 t=150 is 10 ns before send at rank 0 thread 0 t=160' "$OUT" \
    || fail "basic: -v example missing: $(cat "$OUT")"

# Irecvs match in post order (MpiIrecvRequest), not in completion order: B (posted second,
# completed first at 150) belongs to the send at 200 -> exactly 1 violation.
mk postorder <<'S'
ranks 2
0.0 100 isend 1 0 5 4 1
0.0 101 isend_complete 1
0.0 200 isend 1 0 5 4 2
0.0 201 isend_complete 2
1.0 50 irecv_request 11
1.0 60 irecv_request 12
1.0 150 irecv 0 0 5 4 12
1.0 250 irecv 0 0 5 4 11
S
check_counts postorder 1 2 0

# An Irecv posted before a blocking Recv matches the first send: recv(300) gets the send at 350.
mk irecvpost <<'S'
ranks 2
0.0 100 send 1 0 0 4
0.0 350 send 1 0 0 4
1.0 20 irecv_request 3
1.0 30 enter MPI_Recv
1.0 300 recv 0 0 0 4
1.0 301 leave MPI_Recv
1.0 390 enter MPI_Wait
1.0 400 irecv 0 0 0 4 3
1.0 401 leave MPI_Wait
S
check_counts irecvpost 1 2 0

# A blocking Recv is posted at its Enter: on two threads, thread 0's Recv (entered at 30)
# precedes thread 1's Irecv (posted at 40) although it completes earlier -> no violation.
mk enterpost <<'S'
ranks 2
threads 1 2
0.0 100 send 1 0 0 4
0.0 320 send 1 0 0 4
1.0 30 enter MPI_Recv
1.0 300 recv 0 0 0 4
1.0 301 leave MPI_Recv
1.1 40 irecv_request 9
1.1 350 irecv 0 0 0 4 9
S
check_counts enterpost 0 2 0

# Cancelled requests are left out; unmatched sends/receives and pending requests are reported.
mk cancel <<'S'
ranks 2
0.0 100 isend 1 0 1 4 5
0.0 110 cancelled 5
0.0 120 send 1 0 2 4
1.0 50 irecv_request 9
1.0 60 cancelled 9
1.0 70 irecv_request 10
1.0 80 enter MPI_Recv
1.0 90 recv 0 0 3 4
1.0 91 leave MPI_Recv
S
check_counts cancel 0 0 2
has "messages: 0 matched, 2 unmatched (1 sends, 1 receives), 2 cancelled, 1 receive requests never completed"

# Communicator ranks are translated to world ranks: sub-communicator, COMM_SELF,
# GLOBAL_MEMBERS group, intercommunicator. Only the sub-communicator message is late.
mk comms <<'S'
ranks 4
comm 2 sub 3 1
globalcomm 3 glob 0 2
intercomm 4 inter 0 1 / 2 3
3.0 100 send 1 2 9 4
1.0 90 recv 0 2 9 4
2.0 100 send 0 1 4 4
2.0 110 recv 0 1 4 4
0.0 200 send 2 3 6 4
2.0 210 recv 0 3 6 4
0.0 300 send 1 4 8 4
3.0 310 recv 0 4 8 4
S
check_counts comms 1 4 0
run_st dump "$ST_TMP/comms" --json
grep -qF '{"t":100,"rank":3,"thread":0,"type":"send","peer":1,"comm":2,"tag":9,"bytes":4}' "$OUT" || fail "comms: sub-comm peer"
grep -qF '{"t":90,"rank":1,"thread":0,"type":"recv","peer":3,"comm":2,"tag":9,"bytes":4}' "$OUT" || fail "comms: sub-comm source"
grep -qF '"rank":0,"thread":0,"type":"send","peer":3,"comm":4' "$OUT" || fail "comms: intercomm peer"
grep -qF '"rank":3,"thread":0,"type":"recv","peer":0,"comm":4' "$OUT" || fail "comms: intercomm source"
grep -qF '"rank":2,"thread":0,"type":"send","peer":2,"comm":1' "$OUT" || fail "comms: COMM_SELF peer"

# Sends of several threads of one rank are ordered by time, then location.
mk threads <<'S'
ranks 2
threads 0 2
0.0 200 send 1 0 0 4
0.1 100 send 1 0 0 4
1.0 140 enter MPI_Recv
1.0 150 recv 0 0 0 4
1.0 151 leave MPI_Recv
1.0 240 enter MPI_Recv
1.0 250 recv 0 0 0 4
1.0 251 leave MPI_Recv
S
check_counts threads 0 2 0

# --raw compares the timestamps before CLC (synctrace:orig_time).
mk raw <<'S'
ranks 2
prop SYNCTRACE::CLC_STATE on
0.0 110 send 1 0 0 4
1.0 100 enter MPI_Recv orig=80
1.0 120 recv 0 0 0 4 orig=90
1.0 121 leave MPI_Recv
S
check_counts raw 0 1 0
has "timestamps: as written (after CLC correction)"
check_counts raw 1 1 0 --raw
has "timestamps: raw (before CLC correction)"
# An archive recorded with SYNCTRACE_CLC=off is not "after CLC correction"; one without a state says so.
mk clcoff <<'S'
ranks 2
prop SYNCTRACE::CLC_STATE off
0.0 110 send 1 0 0 4
1.0 120 recv 0 0 0 4
S
check_counts clcoff 0 1 0
has "timestamps: as written (CLC was off: not corrected)"
mk nostate <<'S'
ranks 2
0.0 110 send 1 0 0 4
1.0 120 recv 0 0 0 4
S
check_counts nostate 0 1 0
has "timestamps: as written (no CLC state recorded)"

# Records synctrace does not write (here an OTF2 BufferFlush) are no relation, not an error.
mk foreign <<'S'
ranks 2
0.0 100 send 1 0 0 4
0.0 150 flush 160
1.0 90 enter MPI_Recv
1.0 95 recv 0 0 0 4
1.0 96 leave MPI_Recv
S
check_counts foreign 1 1 0
