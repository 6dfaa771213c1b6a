# tests/cli/lib-cli.sh — helpers for the CLI tests (sourced after tests/lib.sh).
#
#   mk NAME < script      writes archive $ST_TMP/NAME from a mkarchive script (see mkarchive.c)
#   run_st ARGS...        runs synctrace; stdout in $OUT, stderr in $ERR, exit code in $RC
#   has LINE              $OUT contains exactly this line
#   check_counts NAME VIOL MATCHED UNMATCHED [--raw]  runs check and asserts the totals

[ -x "$ST_BIN/synctrace" ] || fail "$ST_BIN/synctrace not built"

MKARCHIVE=$ST_BUILD/mkarchive
if [ ! -x "$MKARCHIVE" ] || [ "$ST_ROOT/tests/cli/mkarchive.c" -nt "$MKARCHIVE" ]; then
    gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -o "$MKARCHIVE.$$" "$ST_ROOT/tests/cli/mkarchive.c" -lotf2 \
        || fail "cannot build mkarchive"
    mv -f "$MKARCHIVE.$$" "$MKARCHIVE"
fi

mk() {
    rm -rf "${ST_TMP:?}/$1"
    "$MKARCHIVE" "$ST_TMP/$1" || fail "mkarchive $1 failed"
}

OUT=$ST_TMP/out.txt ERR=$ST_TMP/err.txt RC=0
run_st() {
    RC=0
    timeout -k 10 60 "$ST_BIN/synctrace" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

has() { grep -qxF -- "$1" "$OUT" || fail "missing line '$1' in output of synctrace: $(head -c 1500 "$OUT")"; }

# check_counts ARCHIVE VIOLATIONS MATCHED UNMATCHED [extra check args]
check_counts() {
    local a=$1 v=$2 m=$3 u=$4; shift 4
    run_st check "$ST_TMP/$a" "$@"
    grep -q "^messages: $m matched, $u unmatched" "$OUT" || fail "$a: expected 'messages: $m matched, $u unmatched', got: $(grep messages "$OUT")"
    has "violations: $v"
    local want=0; [ "$v" -gt 0 ] && want=1
    assert_eq "$a: exit code of check" "$want" "$RC"
}

# kind_count KIND: the number on the "  KIND: N" breakdown line of the last check
kind_count() { sed -n "s/^  $1: //p" "$OUT"; }
