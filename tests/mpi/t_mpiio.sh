#!/usr/bin/env bash
# MPI-IO under the shim on both MPI families (mpiio.c): the trace holds the application's calls and
# only those. The MPI library's own MPI calls inside MPI-IO (ROMIO calls C MPI_* functions: MPICH's,
# and Open MPI's romio321 component, which Open MPI 4.1 uses on request; its default, ompio, calls
# internal functions) are not recorded: exact enter/leave counts per region and rank, no other region,
# no other event than the MPI_Reduce's, one location per rank (no thread of the MPI library's).
# Runs: MPICH; MPICH with its asynchronous progress thread; Open MPI with ompio; Open MPI with romio321
# ("plain": its File_iwrite_at_all crashes, so the program writes that block with File_write_at_all).
# Also: same stdout and exit status as untraced, a complete archive.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LD_PRELOAD SYNCTRACE_DIR
libdir=$(readlink -f "$(dirname "$ST_BIN")/lib") # lib/<family>/libsynctrace.so, whichever family ST_LIB names
np=3

# expect MODE: the application's calls per rank, "REGION COUNT" (mpiio.c's header lists them in order)
expect() {
    printf '%s\n' "MPI_Init 1" "MPI_Comm_rank 1" "MPI_Comm_size 1" "MPI_Type_vector 1" "MPI_Type_commit 1" \
        "MPI_File_open 1" "MPI_File_set_view 1" "MPI_File_write_at 1" "MPI_File_write_all 1" "MPI_File_iwrite 1" \
        "MPI_File_write_at_all_begin 1" "MPI_File_write_at_all_end 1" "MPI_File_sync 1" "MPI_File_read_at_all 1" \
        "MPI_File_iread_at 1" "MPI_File_read_all_begin 1" "MPI_File_read_all_end 1" "MPI_File_get_size 1" \
        "MPI_File_close 1" "MPI_Type_free 1" "MPI_Reduce 1" "MPI_Finalize 1"
    if [ "$1" = plain ]; then
        printf '%s\n' "MPI_File_write_at_all 1" "MPI_Wait 2"
    else
        printf '%s\n' "MPI_File_iwrite_at_all 1" "MPI_Wait 3"
    fi
}

# counts NAME MODE: the archive $ST_TMP/NAME holds, on each of the np ranks, one location whose events
# are exactly an enter and a leave per expected call, and coll_begin/coll_end once in MPI_Reduce.
counts() {
    local name=$1 mode=$2
    dump_json "$ST_TMP/$name" "$ST_TMP/$name.json"
    expect "$mode" >"$ST_TMP/$name.expect"
    python3 - "$ST_TMP/$name.json" "$ST_TMP/$name.expect" "$np" >"$ST_TMP/$name.diff" <<'EOF' ||
import collections, json, sys
dump, expect, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = collections.Counter()
for line in open(expect):
    region, n = line.split()
    for r in range(np):
        for t in ("enter", "leave"):
            want[(r, 0, t, region)] = int(n)
for r in range(np):
    for t in ("coll_begin", "coll_end"):
        want[(r, 0, t, "MPI_Reduce")] = 1
got, stacks = collections.Counter(), collections.defaultdict(list)
for line in open(dump):
    e = json.loads(line)
    loc = (e.get("rank"), e.get("thread"))
    st, t = stacks[loc], e.get("type")
    if t == "enter":
        st.append(e.get("region"))
    region = e.get("region") if t in ("enter", "leave") else (st[-1] if st else None)
    got[loc + (t, region)] += 1
    if t == "leave" and st:
        st.pop()
bad = [(k, want[k], got[k]) for k in sorted(set(want) | set(got), key=str) if want[k] != got[k]]
for k, w, g in bad:
    print("rank %s thread %s %s %s: expected %d, got %d" % (k + (w, g)))
sys.exit(1 if bad else 0)
EOF
        fail "$name: the trace is not the application's calls: $(head -n 12 "$ST_TMP/$name.diff" | tr '\n' '|')"
    note "$name: $(wc -l <"$ST_TMP/$name.json") events, exactly the application's calls on each of $np ranks"
}

# run FAMILY NAME MODE [launcher options...]: mpiio traced and untraced under FAMILY's launcher.
run() {
    local fam=$1 name=$2 mode=$3
    shift 3
    local lib=$libdir/$fam/libsynctrace.so bin=$ST_BUILD/mpiio_$fam
    [ -f "$lib" ] || fail "no $lib: build both MPI families (make)"
    if [ ! -x "$bin" ] || [ "$MPI_DIR/mpiio.c" -nt "$bin" ]; then
        "mpicc.$fam" -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -o "$bin" "$MPI_DIR/mpiio.c" || fail "cannot build mpiio.c for $fam"
    fi
    local args=("$bin" "$ST_TMP/files-$name")
    [ "$mode" = plain ] && args+=(plain)
    mkdir -p "$ST_TMP/files-$name"
    local -a launch plain_env traced_env
    if [ "$fam" = openmpi ]; then
        launch=(mpirun.openmpi --oversubscribe -n "$np" "$@")
        traced_env=(-x "SYNCTRACE_DIR=$ST_TMP/$name" -x "LD_PRELOAD=$lib")
    else
        launch=(mpiexec.mpich -n "$np" "$@")
        traced_env=(-genv SYNCTRACE_DIR "$ST_TMP/$name" -genv LD_PRELOAD "$lib")
    fi
    local prc=0 trc=0
    timeout -k 10 120 "${launch[@]}" "${args[@]}" >"$ST_TMP/$name-plain.out" 2>"$ST_TMP/$name-plain.err" || prc=$?
    assert_eq "$name untraced: exit status" 0 "$prc"
    grep -q "^mpiio: $np ranks, file $((4 * 64 * 4 * np)) bytes, checksum " "$ST_TMP/$name-plain.out" ||
        fail "$name untraced printed: $(head -c 300 "$ST_TMP/$name-plain.out") $(head -c 300 "$ST_TMP/$name-plain.err")"
    timeout -k 10 120 "${launch[@]}" "${traced_env[@]}" "${args[@]}" >"$ST_TMP/$name.out" 2>"$ST_TMP/$name.err" || trc=$?
    assert_eq "$name traced: exit status" 0 "$trc"
    cmp -s "$ST_TMP/$name-plain.out" "$ST_TMP/$name.out" || fail "$name: stdout differs with the shim: $(head -c 300 "$ST_TMP/$name.out")"
    [ -f "$ST_TMP/$name/traces.otf2" ] || fail "$name: no archive; stderr: $(tail -n 5 "$ST_TMP/$name.err")"
    info_complete "$ST_TMP/$name"
    counts "$name" "$mode"
}

ran=0
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
    run mpich mpich full
    run mpich mpich-async full -genv MPIR_CVAR_ASYNC_PROGRESS 1
    ran=1
else
    note "MPICH is not installed: its MPI-IO is not tested"
fi
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
    run openmpi openmpi-ompio full --mca io ompio
    run openmpi openmpi-romio plain --mca io romio321
    ran=1
else
    note "Open MPI is not installed: its MPI-IO is not tested"
fi
[ "$ran" = 1 ] || skip "neither MPI family is installed"
