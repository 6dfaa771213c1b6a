#!/usr/bin/env bash
# Directories prepared by someone else. As root, with a directory owned by
# the unprivileged user "nobody":
#  - a SYNCTRACE_DIR owned by nobody and writable by all, with links planted where the archive and the
#    partial dumps go (traces.otf2, partial/ -> a directory of root's): refused with one line naming the
#    directory and why; the application's output and exit code are those of the untraced run; after an
#    abnormal end (exit() without MPI_Finalize) the victim files are byte-for-byte unchanged;
#  - a SYNCTRACE_DIR of our own, writable by others: refused the same way;
#  - our own archive directory with a planted partial/ link and a planted rank-0 temporary link: the dump
#    goes nowhere through them (victim unchanged);
#  - SYNCTRACE_TMPDIR writable by all without the sticky bit: refused; /tmp-like (sticky) accepted.
# Without root (no second user to plant things) the cases that need one are skipped with a note.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
[ "$(id -u)" -eq 0 ] || skip "needs root to prepare a directory owned by another user"
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to own the hostile directory"
bin=$(build_mpi_c crash "$MPI_DIR/crash.c")
np=2

victim=$ST_TMP/victim; victim2=$ST_TMP/victim-dir
printf 'precious\n' >"$victim"; chmod 600 "$victim"
mkdir -p "$victim2"; printf 'precious too\n' >"$victim2/rank-0.strd.tmp"
sum_before=$(cat "$victim" "$victim2"/* | md5sum)
# The trap: a directory of nobody's, writable by all (nobody can only plant; root would follow).
chmod 755 "$ST_TMP"
trap_dir=$ST_TMP/foreign
mkdir -m 777 "$trap_dir"; chown nobody "$trap_dir"
ln -s "$victim" "$trap_dir/traces.otf2.planted"
ln -s "$victim2" "$trap_dir/partial"
chown -h nobody "$trap_dir/partial" "$trap_dir/traces.otf2.planted"

expect_refused() { # dir what
    grep -q "$1" "$ST_TMP/err.txt" || fail "$2: no error naming $1: $(head -c 400 "$ST_TMP/err.txt")"
    grep -qiE "not by you|other users can write" "$ST_TMP/err.txt" || fail "$2: the error does not say why: $(grep -m1 "$1" "$ST_TMP/err.txt")"
    [ ! -e "$1/traces.otf2" ] || fail "$2: an archive was written into it"
    note "$2: $(grep -m1 "$1" "$ST_TMP/err.txt")"
}

prc=0 trc=0
run_plain "$np" "$bin" exit || prc=$?
run_traced "$trap_dir" "$np" "$bin" exit || trc=$?
# MPICH's launcher reports ranks that exit() without MPI_Finalize as 0 or as 1 from run to run
# (seen once in CI, untraced; the 1 is hydra's placeholder status, t_exit_codes.sh): the traced
# code must be one the untraced program gets.
for _ in 1 2 3 4 5 6 7 8; do
    [ "$prc" = "$trc" ] && break
    prc=0
    run_plain "$np" "$bin" exit || prc=$?
done
assert_eq "exit code with a foreign SYNCTRACE_DIR" "$prc" "$trc"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "stdout differs with a foreign SYNCTRACE_DIR"
expect_refused "$trap_dir" "foreign directory"
[ "$(cat "$victim" "$victim2"/* | md5sum)" = "$sum_before" ] || fail "a victim file was written through a planted link"

own=$ST_TMP/own-but-open
mkdir -m 777 "$own"; chmod 777 "$own"
run_traced "$own" "$np" "$bin" || true
expect_refused "$own" "own directory writable by others"

# Our own directory, but links planted inside (as if left from before): the dump must not follow them.
mine=$ST_TMP/mine
mkdir -m 700 "$mine"
ln -s "$victim2" "$mine/partial"
run_traced "$mine" "$np" "$bin" exit || true
[ "$(cat "$victim" "$victim2"/* | md5sum)" = "$sum_before" ] || fail "the partial dump went through a planted partial/ link"
mine2=$ST_TMP/mine2
mkdir -m 700 "$mine2" "$mine2/partial"
ln -s "$victim" "$mine2/partial/rank-0.strd.tmp"
run_traced "$mine2" "$np" "$bin" exit || true
[ "$(cat "$victim" "$victim2"/* | md5sum)" = "$sum_before" ] || fail "the partial dump was written through a planted temporary link"
[ -f "$mine2/partial/rank-0.strd" ] || fail "rank 0's partial dump is missing in a directory of our own: $(tail -n 3 "$ST_TMP/err.txt")"

# Flush directory writable by all without the sticky bit: refused at start; with the sticky bit: accepted.
open_tmp=$ST_TMP/open-tmp; mkdir -m 777 "$open_tmp"; chmod 777 "$open_tmp"
rc=0
ST_ENV="SYNCTRACE_TMPDIR=$open_tmp" run_traced "$ST_TMP/t1" "$np" "$bin" || rc=$?
[ "$rc" -ne 0 ] || fail "a flush directory writable by all without the sticky bit was accepted"
grep -q "sticky" "$ST_TMP/err.txt" || fail "the refusal does not mention the sticky bit: $(head -c 300 "$ST_TMP/err.txt")"
chmod 1777 "$open_tmp"
ST_ENV="SYNCTRACE_TMPDIR=$open_tmp SYNCTRACE_BUFFER=64k" run_traced "$ST_TMP/t2" "$np" "$bin" ||
    fail "a sticky flush directory was refused: $(head -c 300 "$ST_TMP/err.txt")"
[ -z "$(ls -A "$open_tmp")" ] || fail "files left in the flush directory: $(ls -A "$open_tmp")"
note "victims unchanged; flush directory checks hold"
