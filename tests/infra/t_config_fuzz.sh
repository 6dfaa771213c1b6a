#!/usr/bin/env bash
# Every SYNCTRACE_* variable, given hostile values through the real library (LD_PRELOAD in front of
# /bin/true, and one MPI run): each bad value stops the program before it runs with a non-zero exit and
# exactly one line on stderr naming the variable. The variables come from `synctrace env`, so a new one
# is fuzzed without editing this test. Values: empty, blank, negative, overflow, hexadecimal, inf/nan,
# garbage, unicode, newline. Strings and paths take text: they only get the newline/garbage values that
# their own checks must refuse (TMPDIR must be a directory, FILTER a readable filter file).
source "$ST_ROOT/tests/lib.sh"
mapfile -t vars < <(st env | sed -n 's/^\(SYNCTRACE_[A-Z_]*\) (default.*/\1/p')
[ "${#vars[@]}" -ge 20 ] || fail "synctrace env lists only ${#vars[@]} variables"
bad=("" " " "-1" " -1" "+3" "0x10" "inf" "nan" "1e999" "99999999999999999999" "4294967296" "garbage"
     $'\xc2\xb5' $'1\n2' "1,5")
skipvars=" SYNCTRACE_DIR SYNCTRACE_FILTER SYNCTRACE_SYNC SYNCTRACE_ROOT SYNCTRACE_LIB SYNCTRACE_LIB_MPICH SYNCTRACE_LIB_OPENMPI SYNCTRACE_TMPDIR "
n=0
check_one() { # var value
    local rc=0
    env "$1=$2" LD_PRELOAD="$ST_LIB" /bin/echo APP-RAN >"$ST_TMP/o.txt" 2>"$ST_TMP/e.txt" || rc=$?
    local shown=${2//$'\n'/\\n}
    [ "$rc" -ne 0 ] || fail "$1='$shown' was accepted"
    [ ! -s "$ST_TMP/o.txt" ] || fail "$1='$shown': the program ran"
    assert_eq "stderr lines for $1='$shown'" 1 "$(wc -l <"$ST_TMP/e.txt")"
    grep -q "$1" "$ST_TMP/e.txt" || fail "$1='$shown': the message does not name it: $(cat "$ST_TMP/e.txt")"
    grep -q "accepted" "$ST_TMP/e.txt" || fail "$1='$shown': the message does not say what is accepted"
    n=$((n + 1))
}
for v in "${vars[@]}"; do
    [[ $skipvars == *" $v "* ]] && continue
    for b in "${bad[@]}"; do check_one "$v" "$b"; done
done
for b in "/nonexistent/dir" "/etc/passwd" $'/tmp\n/x'; do check_one SYNCTRACE_TMPDIR "$b"; done
# a filter file (empty: none): missing, a directory, not a filter, a name with a newline
for b in "/nonexistent/filter" "/etc" "/etc/passwd" $'/tmp\n/x'; do check_one SYNCTRACE_FILTER "$b"; done
check_one SYNCTRACE_SYNC 'hca3(pp=10000,fit=1000)'
note "$n bad values refused with one line each"

# The same through the launcher: the job stops before the application does any work, one distinct line.
command -v "$MPI_LAUNCHER" >/dev/null || fail "$MPI_LAUNCHER not found (scripts/install-deps.sh installs it)"
rc=0
ST_ENV="SYNCTRACE_NODE_SIZE=4294967296" run_traced "$ST_TMP/arch" 2 /bin/echo APP-RAN || rc=$?
[ "$rc" -ne 0 ] || fail "$MPI_LAUNCHER with SYNCTRACE_NODE_SIZE=4294967296 exited 0"
[ ! -s "$ST_TMP/out.txt" ] || fail "the application ran under $MPI_LAUNCHER"
assert_eq "distinct error lines under $MPI_LAUNCHER" 1 "$(sed -E 's/^synctrace(\[[0-9]+\])?: //' "$ST_TMP/err.txt" | sort -u | grep -c .)"
