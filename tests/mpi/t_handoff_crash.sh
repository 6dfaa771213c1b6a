#!/usr/bin/env bash
# A rank that dies while the writer thread still holds its full buffers: handoff_crash.c on 2 ranks
# with 64 KiB buffers (1024 events) and spill writes slowed to 300 ms each (slow_spill.c, preloaded
# first), so that at the end a buffer is in the writer's hands (its log ends in "begin": a write was
# in flight). Rank 1 ends by SIGTERM, then by SIGSEGV, through synctrace-run (which recovers the
# dumps): its events in the archive must be exactly what it recorded (30 bursts: 960 MPI_Isend,
# 960 MPI_Irecv, 30 MPI_Waitall), none lost with the buffer in flight, and the archive is marked
# incomplete with the signal as its end.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c handoff_crash "$MPI_DIR/handoff_crash.c")
slow=$(build_slow_spill) || exit 1
bursts=30
# calls RANK DUMP: "ISEND IRECV WAITALL" enters of RANK in a synctrace dump --json
calls() {
    python3 - "$1" "$2" <<'PY'
import json, sys
rank, n = int(sys.argv[1]), {"MPI_Isend": 0, "MPI_Irecv": 0, "MPI_Waitall": 0}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e.get("rank") == rank and e.get("type") == "enter" and e.get("region") in n:
        n[e["region"]] += 1
print(n["MPI_Isend"], n["MPI_Irecv"], n["MPI_Waitall"])
PY
}
for how in term segv; do
    out=$ST_TMP/$how
    rm -f "$ST_TMP/spill-$how".*
    mpi_cmd -e SYNCTRACE_BUFFER=64k -e SLOW_SPILL_MS=300 -e SLOW_SPILL_LOG="$ST_TMP/spill-$how" \
        -e LD_PRELOAD="$slow:$ST_LIB" -n 2 "$bin" $how $bursts
    rc=0
    timeout -k 10 120 "$ST_BIN/synctrace-run" -o "$out" "${MPI_CMD[@]}" >"$ST_TMP/$how-out.txt" 2>"$ST_TMP/$how-err.txt" || rc=$?
    [ "$rc" -ne 0 ] || fail "$how: a job whose rank died exited 0"
    [ -f "$out/traces.otf2" ] || fail "$how: no archive: $(tail -n 3 "$ST_TMP/$how-err.txt" | tr '\n' '|')"
    [ "$(tail -n 1 "$ST_TMP/spill-$how.1" 2>/dev/null)" = begin ] ||
        fail "$how: no spill write in flight when rank 1 ended (log: $(tail -n 2 "$ST_TMP/spill-$how.1" 2>&1 | tr '\n' ' '))"
    st info "$out" >"$ST_TMP/$how-info.txt" 2>&1 || fail "$how: synctrace info failed: $(head -c 300 "$ST_TMP/$how-info.txt")"
    grep -qiE '^incomplete:[[:space:]]*yes' "$ST_TMP/$how-info.txt" || fail "$how: the archive is not marked incomplete"
    sig=$(echo $how | sed 's/term/SIGTERM/; s/segv/SIGSEGV/')
    grep -q "SYNCTRACE::END *$sig" "$ST_TMP/$how-info.txt" || fail "$how: the archive does not say the run ended with $sig"
    dump_json "$out" "$ST_TMP/$how.json"
    assert_eq "$how: rank 1's MPI_Isend MPI_Irecv MPI_Waitall" "$((bursts * 32)) $((bursts * 32)) $bursts" \
        "$(calls 1 "$ST_TMP/$how.json")"
    flushes=$(grep -c '"rank": *1,.*"type": *"enter", *"region": *"TRACE BUFFER FLUSH"' "$ST_TMP/$how.json" || true)
    note "$how: rank 1 complete; $(grep -c begin "$ST_TMP/spill-$how.1") spill writes begun, $flushes waits"
done
