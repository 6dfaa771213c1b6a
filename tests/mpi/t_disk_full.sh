#!/usr/bin/env bash
# A full disk (a 1 MiB tmpfs, filled up to ~30 KiB before each write) must never be reported
# as success. For every writer — the archive at MPI_Finalize, the raw dumps of an aborted run,
# offline `synctrace clc` and `synctrace recover` — there must be an error line naming the
# file and "No space left on device" (not OTF2's "INTEGRITY_FAULT: Buffer deletion failed!"), no "written" and no traces.otf2 left behind (the archive
# is removed, never a truncated one), and the application's stdout and exit code must be the
# same as without the shim. The analysis' files after a written archive appear whole or not at all, and the
# run's summary says which were not written and why. Needs root for the mount; skipped otherwise.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
[ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
FULL=$ST_TMP/full
mkdir -p "$FULL"
mount -t tmpfs -o size=1m tmpfs "$FULL" || skip "cannot mount a tmpfs (mount -t tmpfs failed)"
trap 'umount "$FULL" 2>/dev/null || umount -l "$FULL" 2>/dev/null || true' EXIT
fill() { rm -f "$FULL/filler"; head -c "$(($(stat -f -c '%a*%S' "$FULL") - ${1:-30000}))" /dev/zero >"$FULL/filler" 2>/dev/null || true; }
# expect_enospc WHAT FILE-PREFIX LOG: one line naming a file under FILE-PREFIX and the cause; no "written".
expect_enospc() {
    grep -qE "$2[^ ]*.*No space left on device" "$3" ||
        fail "$1: no error naming a file in $2 and 'No space left on device': $(grep -v '^ring\|^zero' "$3" | head -n 3 | tr '\n' '|')"
    grep -q "written" "$3" && fail "$1: says 'written' although the disk was full: $(grep written "$3" | head -n 1)"
    grep -q "INTEGRITY_FAULT" "$3" && fail "$1: prints OTF2's consequence instead of only the cause: $(grep INTEGRITY_FAULT "$3" | head -n 1)"
    return 0
}
p2p=$(build_mpi_c p2p "$MPI_DIR/p2p.c")

# 1. the archive at MPI_Finalize
run_plain 2 "$p2p" || fail "p2p without the shim failed"
fill
rc=0
ST_ENV="SYNCTRACE_VERBOSE=1" run_traced "$FULL/tr" 2 "$p2p" || rc=$?
assert_eq "exit code with a full disk" 0 "$rc"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs with a full disk"
expect_enospc "MPI_Finalize" "$FULL/tr/traces" "$ST_TMP/err.txt"
[ ! -e "$FULL/tr/traces.otf2" ] || fail "MPI_Finalize: a truncated traces.otf2 was left behind"
note "finalize: $(grep 'No space' "$ST_TMP/err.txt" | head -n 1)"
# 1b. room for the definitions but not for the event files (burst.c: ~30k events per rank)
burst=$(build_mpi_c burst "$MPI_DIR/burst.c")
rm -rf "$FULL/tr"
fill 60000
rc=0
run_traced "$FULL/tr" 2 "$burst" 20 64 || rc=$?
assert_eq "exit code with a full disk (event files)" 0 "$rc"
expect_enospc "MPI_Finalize, event files" "$FULL/tr/traces/" "$ST_TMP/err.txt"
[ ! -e "$FULL/tr/traces.otf2" ] || fail "MPI_Finalize: a truncated traces.otf2 was left behind (event files)"
note "finalize, event files: $(grep 'No space' "$ST_TMP/err.txt" | head -n 1)"

# 1c. room for the archive but not for the analysis' files: sizes from a run on a roomy disk
run_traced "$ST_TMP/roomy" 2 "$p2p" || fail "p2p with the shim on a roomy disk failed"
pages() { local t=0 f; for f in "$@"; do t=$((t + ($(stat -c %s "$f") + 4095) / 4096 * 4096)); done; echo $t; }
arch=$(pages "$ST_TMP/roomy/traces.otf2" "$ST_TMP/roomy/traces.def" "$ST_TMP/roomy/traces"/*)
json=$(stat -c %s "$ST_TMP/roomy/analysis.json") cube=$(stat -c %s "$ST_TMP/roomy/analysis.cubex")
for room in "$((arch + json / 2)) analysis.json" "$((arch + (json + 4095) / 4096 * 4096 + cube / 2)) analysis.cubex"; do
    set -- $room
    rm -rf "$FULL/tr"
    fill "$1"
    rc=0
    run_traced "$FULL/tr" 2 "$p2p" || rc=$?
    assert_eq "exit code with no room for $2" 0 "$rc"
    cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs with no room for $2"
    [ -f "$FULL/tr/traces.otf2" ] || fail "no room for $2: the archive was not written ($1 bytes left): $(grep -m1 error "$ST_TMP/err.txt")"
    grep -q "cannot write $FULL/tr/$2: No space left on device" "$ST_TMP/err.txt" ||
        fail "no room for $2: no error naming it and the cause: $(grep -m2 'analysis' "$ST_TMP/err.txt" | tr '\n' '|')"
    grep -q "$2 not written: No space left on device" "$ST_TMP/err.txt" ||
        fail "no room for $2: the summary does not say so: $(grep -m1 'wait-state analysis:' "$ST_TMP/err.txt")"
    [ ! -e "$FULL/tr/$2" ] || fail "no room for $2: a truncated $2 was left behind"
    [ -z "$(ls "$FULL/tr" | grep tmp-)" ] || fail "no room for $2: temporaries left behind: $(ls "$FULL/tr" | tr '\n' ' ')"
    if [ "$2" = analysis.cubex ]; then
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$FULL/tr/analysis.json" ||
            fail "no room for analysis.cubex: analysis.json is not whole JSON"
        grep -q "; report $FULL/tr/analysis.json" "$ST_TMP/err.txt" || fail "no room for analysis.cubex: the summary does not name the report"
    else
        grep -q "no report" "$ST_TMP/err.txt" || fail "no room for analysis.json: the summary names a report"
    fi
    note "finalize, no room for $2: $(grep -m1 'wait-state analysis:' "$ST_TMP/err.txt")"
done

# 2. the raw dumps of an aborted run
abort=$(build_mpi_c abort "$MPI_DIR/abort.c")
rm -rf "$FULL/tr"
fill 2000
rc=0
ST_TIMEOUT=60 run_traced "$FULL/ab" 2 "$abort" 20 || rc=$?
assert_eq "exit code of MPI_Abort with a full disk" 3 "$rc"
expect_enospc "raw dump" "$FULL/ab/partial/rank-" "$ST_TMP/err.txt"
[ -z "$(ls "$FULL/ab/partial" 2>/dev/null)" ] || fail "raw dump: files left in partial/: $(ls "$FULL/ab/partial" | tr '\n' ' ')"
note "dump: $(grep 'No space' "$ST_TMP/err.txt" | head -n 1)"

# 3. offline synctrace clc, 4. synctrace recover (the dumps made on a roomy disk, then copied)
rm -rf "$FULL/ab" "$FULL/filler"
ST_ENV="SYNCTRACE_CLC=off" run_traced "$ST_TMP/raw" 2 "$p2p" || fail "p2p with SYNCTRACE_CLC=off failed"
ST_TIMEOUT=60 run_traced "$ST_TMP/ab" 2 "$abort" 20 || true
[ -f "$ST_TMP/ab/partial/rank-0.strd" ] || fail "no dump to recover from"
mkdir -p "$FULL/ab" && cp -r "$ST_TMP/ab/partial" "$FULL/ab/"
for cmd in clc recover; do
    fill
    rc=0
    if [ $cmd = clc ]; then st clc "$ST_TMP/raw" "$FULL/out" >"$ST_TMP/$cmd.txt" 2>&1 || rc=$?; out=$FULL/out
    else st recover "$FULL/ab" >"$ST_TMP/$cmd.txt" 2>&1 || rc=$?; out=$FULL/ab; fi
    [ "$rc" -ne 0 ] || fail "synctrace $cmd exited 0 with a full disk: $(head -n 3 "$ST_TMP/$cmd.txt" | tr '\n' '|')"
    expect_enospc "synctrace $cmd" "$out/traces" "$ST_TMP/$cmd.txt"
    grep -qi "recovered" "$ST_TMP/$cmd.txt" && fail "synctrace recover claims success: $(head -n 2 "$ST_TMP/$cmd.txt")"
    [ ! -e "$out/traces.otf2" ] || fail "synctrace $cmd left a truncated traces.otf2"
    note "$cmd: exit $rc: $(grep 'No space' "$ST_TMP/$cmd.txt" | head -n 1)"
done
