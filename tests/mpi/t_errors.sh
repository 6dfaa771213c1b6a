#!/usr/bin/env bash
# Configuration errors at start-up, and an archive directory the tool cannot create:
#  - SYNCTRACE_BUFFER=lots (not a size) and =1k (below the minimum): one clear line naming
#    SYNCTRACE_BUFFER, the bad value and what is accepted; non-zero exit; the application did
#    no work (its stdout is empty) and no archive is written;
#  - SYNCTRACE_DIR below a regular file: a clear error naming the directory, and the
#    application's stdout and exit code are those of the untraced run.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c p2p "$MPI_DIR/p2p.c")

for bad in lots 1k; do
    rc=0
    ST_ENV="SYNCTRACE_BUFFER=$bad" run_traced "$ST_TMP/bad-$bad" "$ST_NP" "$bin" 4 || rc=$?
    [ "$rc" -ne 0 ] || fail "SYNCTRACE_BUFFER=$bad: the job exited 0"
    [ ! -s "$ST_TMP/out.txt" ] || fail "SYNCTRACE_BUFFER=$bad: the application ran: $(head -n 2 "$ST_TMP/out.txt")"
    [ ! -e "$ST_TMP/bad-$bad/traces.otf2" ] || fail "SYNCTRACE_BUFFER=$bad: an archive was written"
    # one distinct line (each rank may print it once), naming the variable, the value, what is accepted
    lines=$(grep 'SYNCTRACE_BUFFER' "$ST_TMP/err.txt" | sed -E 's/^synctrace(\[[0-9]+\])?: //' | sort -u)
    assert_eq "distinct SYNCTRACE_BUFFER error lines for '$bad'" 1 "$(printf '%s\n' "$lines" | grep -c .)"
    printf '%s\n' "$lines" | grep -q "$bad" || fail "the error does not show the value '$bad': $lines"
    printf '%s\n' "$lines" | grep -qi '64k' || fail "the error does not say what is accepted (64k .. 1G): $lines"
    note "SYNCTRACE_BUFFER=$bad -> exit $rc: $lines"
done

# Unwritable archive directory: its parent is a regular file.
: >"$ST_TMP/regular-file"
dir=$ST_TMP/regular-file/trace
prc=0 trc=0
run_plain "$ST_NP" "$bin" 4 || prc=$?
run_traced "$dir" "$ST_NP" "$bin" 4 || trc=$?
assert_eq "exit code with an unwritable SYNCTRACE_DIR" "$prc" "$trc"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs with an unwritable SYNCTRACE_DIR: $(diff "$ST_TMP/plain.txt" "$ST_TMP/out.txt" | head -n 4 | tr '\n' '|')"
grep -q 'regular-file' "$ST_TMP/err.txt" || fail "no error naming the unwritable directory; stderr: $(head -c 400 "$ST_TMP/err.txt")"
grep -qiE 'error|cannot|warning' "$ST_TMP/err.txt" || fail "the message about $dir is not an error: $(head -c 400 "$ST_TMP/err.txt")"
note "unwritable SYNCTRACE_DIR: $(grep -m1 'regular-file' "$ST_TMP/err.txt")"
