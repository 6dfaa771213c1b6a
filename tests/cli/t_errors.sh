#!/usr/bin/env bash
# synctrace on unreadable archives: missing or wrong directories, garbage anchor files,
# missing, truncated and corrupted files. Every case must end with exit 0 (the corruption
# went unnoticed by OTF2 and the CLI: data silently different) or exit 1 with exactly one
# line "synctrace: cannot read archive DIR: <reason>" — never a crash, a hang, or more.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

# unreadable DIR REASON-REGEX [command]: exit 1 and the one-line message
unreadable() {
    run_st "${3:-info}" "$1"
    assert_eq "exit code for $1" 1 "$RC"
    assert_eq "stderr lines for $1: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
    grep -Eq "^synctrace: cannot read archive $1: $2" "$ERR" || fail "unexpected message: $(cat "$ERR")"
}

mk good <<'S'
ranks 2
threads 1 2
comm 2 sub 1 0
team 3 1 0 1
0.0 100 enter MPI_Send callsite="main (a.c:1)"
0.0 110 send 0 2 7 8
0.0 120 leave MPI_Send
0.0 130 coll_begin
0.0 140 coll_end allreduce 0 - 8 8
1.0 50 enter MPI_Recv
1.0 115 recv 1 2 7 8 orig=105
1.0 116 leave MPI_Recv
1.0 131 coll_begin
1.0 141 coll_end allreduce 0 - 8 8
1.0 150 fork 2 pid=1
1.0 151 team_begin 3 pid=1
1.0 160 team_end 3 pid=1
1.0 170 join pid=1
1.1 152 team_begin 3 pid=1
1.1 159 team_end 3 pid=1
S
run_st check "$ST_TMP/good"
assert_eq "good archive" 0 "$RC"

unreadable "$ST_TMP/nonexistent" "no such file or directory"
mkdir -p "$ST_TMP/emptydir"
unreadable "$ST_TMP/emptydir" "no traces.otf2 in it" dump
echo "not an archive" >"$ST_TMP/plainfile"
unreadable "$ST_TMP/plainfile" "not a directory" check
mkdir -p "$ST_TMP/garbage"
head -c 300 /dev/urandom >"$ST_TMP/garbage/traces.otf2"
unreadable "$ST_TMP/garbage" "bad anchor file"
cp -r "$ST_TMP/good" "$ST_TMP/noevt"
rm "$ST_TMP/noevt/traces/65536.evt"
unreadable "$ST_TMP/noevt" "bad events of location 65536 \(rank 1 thread 0\)"
cp -r "$ST_TMP/good" "$ST_TMP/nodef"
rm "$ST_TMP/nodef/traces.def"
unreadable "$ST_TMP/nodef" "" dump

# A corrupt count in the anchor file (byte 61) makes OTF2 try to map ~25 GB; the guard's
# address-space cap while loading turns that into an allocation failure.
cp -r "$ST_TMP/good" "$ST_TMP/hugecount"
printf '\136' | dd of="$ST_TMP/hugecount/traces.otf2" bs=1 seek=61 conv=notrunc status=none
unreadable "$ST_TMP/hugecount" "bad anchor file: Memory allocation failed"

# The anchor can also be named directly.
run_st info "$ST_TMP/good/traces.otf2"
assert_eq "info on the .otf2 file" 0 "$RC"

# Corrupted copies: every file truncated at several offsets and with bytes overwritten.
cases=0 detected=0
corrupt_and_run() { # FILE MODE OFFSET
    local c=$ST_TMP/c
    rm -rf "$c"; cp -r "$ST_TMP/good" "$c"
    case $2 in
    trunc) truncate -s "$3" "$c/$1" ;;
    *)     printf "\\$2" | dd of="$c/$1" bs=1 seek="$3" conv=notrunc status=none ;;
    esac
    local cmd
    for cmd in info "dump --json" check; do
        cases=$((cases + 1))
        RC=0
        timeout -k 10 30 "$ST_BIN/synctrace" $cmd "$c" >"$OUT" 2>"$ERR" || RC=$?
        case $RC in
        0) [ ! -s "$ERR" ] || fail "$1 $2@$3 ($cmd): exit 0 with stderr: $(cat "$ERR")" ;;
        1) if [ -s "$ERR" ]; then
               assert_eq "$1 $2@$3 ($cmd) stderr lines: $(cat "$ERR")" 1 "$(wc -l <"$ERR")"
               grep -q "^synctrace: cannot read archive $c: ." "$ERR" || fail "$1 $2@$3 ($cmd): $(cat "$ERR")"
               detected=$((detected + 1))
           else
               [ "$cmd" = check ] || fail "$1 $2@$3 ($cmd): exit 1 without a message"
           fi ;;
        124) fail "$1 $2@$3 ($cmd): hangs" ;;
        *) fail "$1 $2@$3 ($cmd): exit $RC: $(head -c 300 "$ERR")" ;;
        esac
    done
}
for f in traces.otf2 traces.def traces/0.evt traces/65536.evt traces/65537.evt traces/0.def; do
    size=$(stat -c %s "$ST_TMP/good/$f")
    for off in 0 1 4 9 $((size / 3)) $((size / 2)) $((size - 2)); do
        [ "$off" -ge 0 ] && [ "$off" -lt "$size" ] || continue
        corrupt_and_run "$f" trunc "$off"
        corrupt_and_run "$f" 377 "$off"
        corrupt_and_run "$f" 000 "$off"
    done
done
note "$cases runs on corrupted copies, $detected reported as unreadable"
# Truncation to 0 or 1 byte is always detected: at least 2 files x 2 offsets x 3 commands.
assert_ge "corruptions detected" 100 "$detected"

# recover on a directory that already holds an archive: one line, exit 1; when dumps lie next to
# it (a signal during the write's closing agreement) and it reads back, the line says both are
# there and how to rebuild from the dumps instead (one that does not read back was cut short:
# t_recover_remap)
mkdir -p "$ST_TMP/both/partial" && cp -r "$ST_TMP/good/traces.otf2" "$ST_TMP/good/traces.def" "$ST_TMP/good/traces" "$ST_TMP/both/"
run_st recover "$ST_TMP/both"
assert_eq "recover over an archive with dumps: exit code" 1 "$RC"
assert_eq "recover over an archive with dumps: stderr lines" 1 "$(wc -l <"$ERR")"
grep -q "holds an archive and the dumps of a signal.*remove traces.otf2, traces.def and traces/ first" "$ERR" ||
    fail "recover over an archive with dumps: $(cat "$ERR")"
rmdir "$ST_TMP/both/partial"
run_st recover "$ST_TMP/both"
assert_eq "recover over an archive: exit code" 1 "$RC"
grep -q "already holds an archive; nothing to do" "$ERR" || fail "recover over an archive: $(cat "$ERR")"
