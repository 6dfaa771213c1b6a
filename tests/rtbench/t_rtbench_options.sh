#!/usr/bin/env bash
# Bad options: one clear line on stderr (once per job, not per rank), exit status 2, nothing on
# stdout. --help and --version work. Each option error is checked on 1 rank; once per job on 2 ranks
# for a bad option, the idle library and an output file that cannot be created (the ranks past 0
# wait 2 s before they exit, so that the launcher reports rank 0's line: a 2-rank case costs 2 s).
source "$ST_ROOT/tests/rtbench/common.sh"
NP=1
check_bad() { # expected-words args...
    local want=$1; shift
    set +e
    (cd "$ST_TMP" && mpi_run -t 60 -n $NP "$BENCH" "$@" >out.txt 2>err.txt)
    local rc=$?
    set -e
    assert_eq "exit status of $*" 2 "$rc"
    assert_eq "stderr lines of $*" 1 "$(wc -l <"$ST_TMP/err.txt")"
    grep -q "^synctrace-bench: error: .*$want" "$ST_TMP/err.txt" || fail "$*: message '$(cat "$ST_TMP/err.txt")' lacks '$want'"
    [ ! -s "$ST_TMP/out.txt" ] || fail "$*: stdout: $(cat "$ST_TMP/out.txt")"
}
check_bad "unknown operation 'allreduc'" -o allreduc
check_bad "given twice" -o bcast,bcast
check_bad "'0' is not a size" -s 0,8
check_bad "'8x' is not a size" -s 8x
check_bad "runs backwards" -s 64:8
check_bad "'2G' is not a size" -s 2G
check_bad "--slice: '-1' is not a number" --slice -1
check_bad "--slice: '0' is not a number" --slice 0
check_bad "--scheme: 'fast'" --scheme fast
check_bad "--margin: '0.5'" --margin 0.5
check_bad "--max-rounds: '1.5'" --max-rounds 1.5
check_bad "--json needs a value" --json
check_bad "unknown option '--bogus'" --bogus
check_bad "unknown option 'extra'" extra
NP=2 check_bad "given twice" -o bcast,bcast
"$BENCH" --help >"$ST_TMP/help.txt" || fail "--help exit $?"
grep -q -- "--barrier-imbalance" "$ST_TMP/help.txt" || fail "--help does not list --barrier-imbalance"
assert_eq "--version" "synctrace-bench 0.1.0" "$("$BENCH" --version)"
# the library loaded but idle has no synchronized clock: refused, not measured on local clocks
SYNCTRACE_ENABLE=0 NP=2 check_bad "SYNCTRACE_ENABLE=0 leaves the library idle" -s 8
# an output file that cannot be created is reported before the measurements, not after them
NP=2 check_bad "cannot create $ST_TMP/no/such/dir/x.json" -s 8 --json "$ST_TMP/no/such/dir/x.json"
check_bad "cannot create $ST_TMP/no/x.csv" -s 8 --csv "$ST_TMP/no/x.csv"
