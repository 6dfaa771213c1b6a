#!/usr/bin/env bash
# synctrace check: collective instances (sequence per communicator, nonblocking, COMM_SELF,
# incomplete) and the happened-before rule of each operation class (docs/clc.md, "Logical messages").
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

# N-to-N: rank 2 ends (115) before rank 1 begins (120). The second instance is clean; it
# is only paired right when instances are numbered per communicator.
mk allreduce <<'S'
ranks 3
0.0 100 coll_begin
0.0 150 coll_end allreduce 0 - 8 8
0.0 300 coll_begin
0.0 310 coll_end allreduce 0 - 8 8
1.0 120 coll_begin
1.0 160 coll_end allreduce 0 - 8 8
1.0 305 coll_begin
1.0 320 coll_end allreduce 0 - 8 8
2.0 90 coll_begin
2.0 115 coll_end allreduce 0 - 8 8
2.0 302 coll_begin
2.0 330 coll_end allreduce 0 - 8 8
S
check_counts allreduce 1 0 0
assert_eq "allreduce collective" 1 "$(kind_count collective)"
has "collectives: 2 instances, 0 incomplete, 0 without a relation"

# 1-to-N on a sub-communicator [2 0 1]: root = comm rank 1 = world 0 (begins at 200);
# rank 1 ends at 190 -> 1 violation (with an untranslated root there would be none).
mk bcast <<'S'
ranks 3
comm 2 sub 2 0 1
0.0 200 coll_begin
0.0 210 coll_end bcast 2 1 8 0
1.0 100 coll_begin
1.0 190 coll_end bcast 2 1 0 8
2.0 150 coll_begin
2.0 205 coll_end bcast 2 1 0 8
S
check_counts bcast 1 0 0
run_st dump "$ST_TMP/bcast" --json
grep -qF '"type":"coll_end","op":"bcast","comm":2,"root":0,"sent":0,"recv":8}' "$OUT" || fail "bcast: root not shown as world rank 0"

# N-to-1: the root (0) ends at 120, rank 2 begins at 130 -> 1 violation.
mk reduce <<'S'
ranks 3
0.0 100 coll_begin
0.0 120 coll_end reduce 0 0 8 8
1.0 110 coll_begin
1.0 200 coll_end reduce 0 0 8 0
2.0 130 coll_begin
2.0 140 coll_end reduce 0 0 8 0
S
check_counts reduce 1 0 0

# Scan: rank i depends on ranks <= i only (instance 0 clean although rank 0 ends before
# rank 2 begins; instance 1: rank 1 ends before rank 0 begins); Exscan: ranks < i.
mk scan <<'S'
ranks 3
0.0 100 coll_begin
0.0 110 coll_end scan 0 - 8 8
0.0 300 coll_begin
0.0 310 coll_end scan 0 - 8 8
0.0 400 coll_begin
0.0 405 coll_end exscan 0 - 8 8
1.0 105 coll_begin
1.0 150 coll_end scan 0 - 8 8
1.0 250 coll_begin
1.0 260 coll_end scan 0 - 8 8
1.0 390 coll_begin
1.0 395 coll_end exscan 0 - 8 8
2.0 200 coll_begin
2.0 210 coll_end scan 0 - 8 8
2.0 320 coll_begin
2.0 330 coll_end scan 0 - 8 8
2.0 380 coll_begin
2.0 410 coll_end exscan 0 - 8 8
S
check_counts scan 2 0 0
has "collectives: 3 instances, 0 incomplete, 0 without a relation"

# Nonblocking (request .. complete): rank 0 completes before rank 1 starts. COMM_SELF
# collectives are one instance per rank; a collective rank 1 never joined is incomplete.
# Those three relate no two locations.
mk nonblocking <<'S'
ranks 2
0.0 100 icoll_request 1
0.0 150 icoll_complete barrier 0 - 0 0 1
0.0 300 coll_begin
0.0 310 coll_end allreduce 1 - 8 8
0.0 400 coll_begin
0.0 410 coll_end allreduce 0 - 8 8
1.0 200 icoll_request 7
1.0 210 icoll_complete barrier 0 - 0 0 7
1.0 305 coll_begin
1.0 306 coll_end allreduce 1 - 8 8
S
check_counts nonblocking 1 0 0
has "collectives: 4 instances, 1 incomplete, 3 without a relation"

# Handle creation is numbered but relates nothing; --raw uses the pre-CLC times.
mk raw <<'S'
ranks 2
0.0 100 coll_begin
0.0 110 coll_end create_handle 0 - 0 0
0.0 200 coll_begin
0.0 250 coll_end barrier 0 - 0 0 orig=205
1.0 150 coll_begin
1.0 160 coll_end create_handle 0 - 0 0
1.0 210 coll_begin orig=240
1.0 260 coll_end barrier 0 - 0 0
S
check_counts raw 0 0 0
has "collectives: 2 instances, 0 incomplete, 1 without a relation"
check_counts raw 1 0 0 --raw

# Intercommunicator A = {0,1}, B = {2,3}: data flows between the groups only.
# Allreduce: rank 1 ends (190) before B's latest begin (rank 3, 200) -> 1; rank 2 ends (130)
# after A's latest begin (110), although before rank 3 begins: no violation.
# Bcast, root world 2 (B rank 0, 'self'), rank 3 is the rest of its group ('group'): rank 0
# ends (265) before the root begins (300) -> 1; rank 3 ending at 230 takes no part.
# Reduce, root world 0 ('self'): ends (280) before B's latest begin (rank 3, 500) -> 1;
# rank 1 (the root's group) begins at 600 and does not count.
mk inter <<'S'
ranks 4
intercomm 2 inter 0 1 / 2 3
0.0 100 coll_begin
0.0 250 coll_end allreduce 2 - 8 8
0.0 260 coll_begin
0.0 265 coll_end bcast 2 0 0 8
0.0 270 coll_begin
0.0 280 coll_end reduce 2 self 0 8
1.0 110 coll_begin
1.0 190 coll_end allreduce 2 - 8 8
1.0 270 coll_begin
1.0 400 coll_end bcast 2 0 0 8
1.0 600 coll_begin
1.0 610 coll_end reduce 2 group 0 0
2.0 120 coll_begin
2.0 130 coll_end allreduce 2 - 8 8
2.0 300 coll_begin
2.0 301 coll_end bcast 2 self 16 0
2.0 302 coll_begin
2.0 303 coll_end reduce 2 0 8 0
3.0 200 coll_begin
3.0 210 coll_end allreduce 2 - 8 8
3.0 220 coll_begin
3.0 230 coll_end bcast 2 group 0 0
3.0 500 coll_begin
3.0 510 coll_end reduce 2 0 8 0
S
check_counts inter 3 0 0
has "collectives: 3 instances, 0 incomplete, 0 without a relation"
run_st dump "$ST_TMP/inter" --json
grep -qF '"rank":2,"thread":0,"type":"coll_end","op":"bcast","comm":2,"root":2,' "$OUT" || fail "inter: MPI_ROOT not shown as the root's own world rank"
grep -qF '"rank":3,"thread":0,"type":"coll_end","op":"bcast","comm":2,"sent"' "$OUT" || fail "inter: the rest of the root's group shows a root"
grep -qF '"rank":0,"thread":0,"type":"coll_end","op":"bcast","comm":2,"root":2,' "$OUT" || fail "inter: remote root not translated"
