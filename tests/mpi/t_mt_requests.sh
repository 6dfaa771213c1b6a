#!/usr/bin/env bash
# Requests under MPI_THREAD_MULTIPLE: 4 ranks x 4 threads, each thread on
# its own duplicated communicator, completing with every Wait/Test variant, then 40,000 receives outstanding
# at once per rank. Exact counts: every message sent is received on the same communicator and thread it was
# posted on (the tag names the thread), all 4 x (4 x 20 x 16 + 40,000) receives are in the trace and
# matched, `synctrace check` finds no violation and no receive request left uncompleted.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c mt_requests "$MPI_DIR/mt_requests.c" -pthread)
np=4 rounds=20 big=40000
ST_TIMEOUT=300 run_traced "$ST_TMP/mt" "$np" "$bin" "$rounds" "$big" || fail "traced run failed: $(tail -n 3 "$ST_TMP/err.txt")"
run_plain "$np" "$bin" "$rounds" "$big" || fail "untraced run failed: $(tail -n 3 "$ST_TMP/plain-err.txt")"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs with the shim: $(cat "$ST_TMP/out.txt")"
! grep -qi "warning\|error" "$ST_TMP/err.txt" || fail "the tool warned: $(grep -i 'warning\|error' "$ST_TMP/err.txt" | head -n 3)"
dump_json "$ST_TMP/mt" "$ST_TMP/mt.json"
python3 - "$ST_TMP/mt.json" "$np" "$rounds" "$big" >"$ST_TMP/counts.txt" <<'PY' || fail "$(cat "$ST_TMP/counts.txt")"
import collections, json, sys
path, np, rounds, big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
NT, K = 4, 16
recv = collections.Counter(); send = collections.Counter(); comm_of = {}; bad = []
for line in open(path):
    e = json.loads(line)
    if e["type"] not in ("irecv", "isend"):
        continue
    tag = e["tag"]
    key = ("world" if tag == 999999 else "t%d" % (tag // 1000000))
    if e["type"] == "irecv":
        recv[(e["rank"], key)] += 1
    else:
        send[(e["rank"], key)] += 1
    # all messages of one thread index share one communicator on a rank, distinct from the others
    prev = comm_of.setdefault((e["rank"], key), e["comm"])
    if prev != e["comm"]:
        bad.append("rank %d %s: tag %d on comm %s, expected %s" % (e["rank"], e["type"], tag, e["comm"], prev))
for r in range(np):
    for t in range(NT):
        for what, c in (("irecv", recv), ("isend", send)):
            if c[(r, "t%d" % t)] != rounds * K:
                bad.append("rank %d thread %d: %d %s events, expected %d" % (r, t, c[(r, "t%d" % t)], what, rounds * K))
    for what, c in (("irecv", recv), ("isend", send)):
        if c[(r, "world")] != big:
            bad.append("rank %d: %d big %s events, expected %d" % (r, c[(r, "world")], what, big))
    comms = [comm_of.get((r, "t%d" % t)) for t in range(NT)]
    if len(set(comms)) != NT:
        bad.append("rank %d: threads share communicators: %s" % (r, comms))
if bad:
    print("%d problems: %s" % (len(bad), "; ".join(bad[:8])))
    sys.exit(1)
print("%d irecv, %d isend, every tag on its thread's communicator" % (sum(recv.values()), sum(send.values())))
PY
note "$(cat "$ST_TMP/counts.txt")"
total=$(( np * (4 * rounds * 16 + big) ))
check_messages "$ST_TMP/mt" "$total"
never=$(sed -nE 's/.* ([0-9]+) receive requests never completed.*/\1/p' "$ST_TMP/check.txt")
assert_eq "receive requests never completed" 0 "${never:-missing}"
