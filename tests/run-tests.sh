#!/usr/bin/env bash
# tests/run-tests.sh — runs every test: unit tests (tests/unit/test_*.c, no MPI) and
# integration tests (tests/<area>/t_*.sh). Usage: tests/run-tests.sh [name-filter]
#
# A unit test source names what it links in a comment line:
#     /* link: src/clc/clc.c src/util/log.c */
# and is compiled with the project's flags plus AddressSanitizer/UBSan (with mpicc instead of gcc
# when it has a line /* compiler: mpicc */; such a test is run as a single process, or under
# `mpiexec -n N` when it also has a line /* ranks: N */).
# Prints one line per test and ends with "N passed, N failed[, N skipped]".
# KEEP_TEST_TMP=1 keeps the temporary directory (test logs with their notes, archives).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
filter=${1:-}
O=$(cd "${O:-$ROOT}" && pwd)   # build-output root (make O=...)
export ST_ROOT=$ROOT ST_LIB=$O/lib/libsynctrace.so ST_BIN=$O/bin ST_BUILD=$O/build/tests
mkdir -p "$ST_BUILD"
TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-tests.XXXXXX")
trap '[ -n "${KEEP_TEST_TMP:-}" ] || rm -rf "$TMPROOT"' EXIT
pass=0 failn=0 skipn=0 failed=()

result() { # name rc seconds log
    case $2 in
    0)  pass=$((pass + 1)); printf 'PASS %-40s %5ss\n' "$1" "$3" ;;
    77) skipn=$((skipn + 1)); printf 'SKIP %-40s %s\n' "$1" "$(tail -n1 "$4")" ;;
    *)  failn=$((failn + 1)); failed+=("$1"); printf 'FAIL %-40s %5ss\n' "$1" "$3"; sed 's/^/    | /' "$4" | tail -n 30 ;;
    esac
}

UNIT_CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -I$O/build/gen -Iinclude"
for src in tests/unit/test_*.c; do
    [ -e "$src" ] || continue
    name=unit/$(basename "$src" .c)
    [[ -n $filter && $name != *$filter* ]] && continue
    link=$(sed -n 's|.*/\* link: \(.*\) \*/.*|\1|p' "$src" | head -n1)
    log=$TMPROOT/$(basename "$src").log
    start=$(date +%s)
    cc=gcc
    grep -q '/\* compiler: mpicc \*/' "$src" && cc=mpicc
    launch=()
    ranks=$(sed -n 's|^/\* ranks: \([0-9]*\) \*/$|\1|p' "$src" | head -n1)
    [ -n "$ranks" ] && launch=(mpiexec -n "$ranks")
    if $cc $UNIT_CFLAGS -o "$ST_BUILD/$(basename "$src" .c)" "$src" $link -lotf2 -lm -lpthread >"$log" 2>&1; then
        (cd "$TMPROOT" && timeout 300 "${launch[@]}" "$ST_BUILD/$(basename "$src" .c)") >>"$log" 2>&1
        rc=$?
    else
        rc=1
    fi
    result "$name" $rc $(( $(date +%s) - start )) "$log"
done

for t in tests/*/t_*.sh; do
    [ -e "$t" ] || continue
    name=${t#tests/}; name=${name%.sh}
    [[ -n $filter && $name != *$filter* ]] && continue
    export ST_TMP=$TMPROOT/$(echo "$name" | tr / _)
    mkdir -p "$ST_TMP"
    log=$ST_TMP.log
    start=$(date +%s)
    (cd "$ST_TMP" && timeout 600 bash "$ROOT/$t") >"$log" 2>&1
    result "$name" $? $(( $(date +%s) - start )) "$log"
done

echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
if [ $skipn -gt 0 ]; then echo "$pass passed, $failn failed, $skipn skipped"; else echo "$pass passed, $failn failed"; fi
[ $failn -eq 0 ] && [ $pass -gt 0 ]
