#!/usr/bin/env bash
# tests/run-tests.sh — runs every test: unit tests (tests/unit/test_*.c, no MPI) and
# integration tests (tests/<area>/t_*.sh). Usage: tests/run-tests.sh [name-filter]
#
# MPI families: the tests run on the default family (mpich when its library is built, else openmpi);
# a test with a line naming families,
#     # families: mpich openmpi          (a script)      /* families: mpich openmpi */   (a unit test)
# runs once on each of them that is built (lib/<family>/libsynctrace.so), and only on those. A run on a
# family other than the default is named with the family: `mpi/t_p2p [openmpi]`. ST_FAMILIES="openmpi"
# restricts the runs to the families listed. tests/lib.sh maps a family to its compilers and launcher.
#
# A unit test source names what it links in a comment line:
#     /* link: src/clc/clc.c src/util/log.c */
# and is compiled with the project's flags plus AddressSanitizer/UBSan (with the family's MPI C compiler,
# lib.sh's mpi_cc, instead of gcc when it has a line /* compiler: mpicc */; such a test is run as a
# single process, or under the family's launcher with N ranks when it also has a line /* ranks: N */).
# Prints one line per test (a failed one with its log's last 30 lines) and ends with the failed tests'
# names, each with its reason again (the log's last FAIL or check line), and "N passed, N failed[, N skipped]".
# KEEP_TEST_TMP=1 keeps the temporary directory (test logs with their notes, archives).
# The tests run in two lanes at once (the unit tests, then some integration tests; beside them the
# others), then the ones whose verdicts are times, alone (lane_of below: which test runs where).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
filter=${1:-}
O=$(cd "${O:-$ROOT}" && pwd)   # build-output root (make O=...)
export ST_ROOT=$ROOT ST_O=$O ST_BIN=$O/bin
began=$(date +%s)
TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-tests.XXXXXX")
trap '[ -n "${KEEP_TEST_TMP:-}" ] || rm -rf "$TMPROOT"' EXIT
pass=0 failn=0 skipn=0 failed=() why=()

# the families built (a library without the family directory: the MPICH-only layout of older builds)
BUILT=()
for fam in mpich openmpi; do [ -e "$O/lib/$fam/libsynctrace.so" ] && BUILT+=("$fam"); done
[ ${#BUILT[@]} -eq 0 ] && [ -e "$O/lib/libsynctrace.so" ] && BUILT=(mpich)
DEFAULT=${BUILT[0]:-mpich}
echo "MPI families built: ${BUILT[*]:-none} (default $DEFAULT)${ST_FAMILIES:+; running ${ST_FAMILIES}}"

result() { # name rc seconds log
    case $2 in
    0)  pass=$((pass + 1)); printf 'PASS %-40s %5ss\n' "$1" "$3" ;;
    77) skipn=$((skipn + 1)); printf 'SKIP %-40s %s\n' "$1" "$(tail -n1 "$4")" ;;
    *)  failn=$((failn + 1)); failed+=("$1"); printf 'FAIL %-40s %5ss\n' "$1" "$3"; sed 's/^/    | /' "$4" | tail -n 30
        # the reason again at the end (a CI excerpt may keep only the output's head and tail)
        local line
        line=$(grep -E "^(FAIL|ERROR|SUMMARY)|check failed|, expected |Assertion|AddressSanitizer|runtime error" "$4" | tail -n 1)
        why+=("$1: $(printf '%s' "${line:-$(tail -n 1 "$4")}" | cut -c1-400)") ;;
    esac
}

# families_of FILE: the families FILE runs on (its "families:" line, else the default), one a line
families_of() {
    local line
    line=$(sed -n 's,^\(#\|/\*\) families: \([a-z ]*[a-z]\)\( \*/\)\{0\,1\}$,\2,p' "$1" | head -n1)
    printf '%s\n' ${line:-$DEFAULT}
}

# runs_of FILE NAME: "FAMILY DISPLAY-NAME" lines, one per run of the test NAME that the filter
# and ST_FAMILIES keep; a family the test names but that is not built gives "- NAME [family]"
runs_of() {
    local fam shown
    for fam in $(families_of "$1"); do
        shown=$2; [ "$fam" = "$DEFAULT" ] || shown="$2 [$fam]"
        [[ -n $filter && $shown != *"$filter"* ]] && continue
        [[ -n ${ST_FAMILIES:-} && " $ST_FAMILIES " != *" $fam "* ]] && continue
        if [[ " ${BUILT[*]} " == *" $fam "* ]]; then echo "$fam $shown"; else echo "- $shown"; fi
    done
}

# family_cmd FAMILY: sets FAMILY_CMD to a command prefix (a program, so timeout can run it) that runs
# what follows with tests/lib.sh's definitions for FAMILY (mpi_cc, mpi_run, ...)
family_cmd() {
    FAMILY_CMD=(env ST_MPI="$1" bash -c 'source "$ST_ROOT/tests/lib.sh"; set +eu +o pipefail; "$@"' family_cmd)
}

UNIT_CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -I$O/build/gen -Iinclude"

# unit_plan: "FAMILY SRC NAME" lines, one per unit-test run to do
unit_plan() {
    local src run
    for src in tests/unit/test_*.c; do
        [ -e "$src" ] || continue
        while IFS= read -r run; do
            [ -n "$run" ] && echo "${run%% *} $src ${run#* }"
        done < <(runs_of "$src" "unit/$(basename "$src" .c)")
    done
}

# The unit tests' makefile: an executable per family and test, linked from objects compiled once per
# family and compiler (most tests link the same sources, and compiling them with the sanitizers is
# most of a unit test's time). make -j builds them all first; a test's own run makes its executable
# again, alone, so that a build failure is in that test's log.
unit_makefile() { # PLAN-FILE
    local fam src name cc key objdir exe link item objs libs
    echo "CFLAGS := $UNIT_CFLAGS"
    echo ".DELETE_ON_ERROR:"
    for fam in mpich openmpi; do
        for key in gcc mpicc; do
            cc=gcc; [ $key = gcc ] || cc=mpicc.$fam
            objdir=$O/build/tests/$fam/obj-$key
            printf '%s/%%.o: %%.c\n\t@mkdir -p $(@D)\n\t%s -I%s $(CFLAGS) -MMD -MP -c $< -o $@\n' \
                "$objdir" "$cc" "$O/build/gen/$fam"
        done
    done
    while read -r fam src name; do
        [ "$fam" = - ] && continue
        key=gcc; grep -q '/\* compiler: mpicc \*/' "$src" && key=mpicc
        cc=gcc; [ $key = gcc ] || cc=mpicc.$fam
        objdir=$O/build/tests/$fam/obj-$key
        exe=$O/build/tests/$fam/$(basename "$src" .c)
        link=$(sed -n 's|.*/\* link: \(.*\) \*/.*|\1|p' "$src" | head -n1)
        objs="$objdir/${src%.c}.o" libs=
        for item in $link; do
            case $item in
            *.c) objs+=" $objdir/${item%.c}.o" ;;
            *) libs+=" $item" ;;
            esac
        done
        echo "all: $exe"
        printf '%s: %s\n\t@mkdir -p $(@D)\n\t%s $(CFLAGS) -o $@ $^ %s -lotf2 -lm -lpthread\n' "$exe" "$objs" "$cc" "$libs"
        for item in $objs; do echo "-include ${item%.o}.d"; done
    done <"$1"
}

unit_plan >"$TMPROOT/unit.plan"
if grep -qv '^- ' "$TMPROOT/unit.plan"; then
    start=$(date +%s)
    unit_makefile "$TMPROOT/unit.plan" >"$TMPROOT/unit.mk"
    make -k -j"$(nproc)" -f "$TMPROOT/unit.mk" all >"$TMPROOT/unit-build.log" 2>&1
    echo "unit tests built in $(( $(date +%s) - start ))s (a test's time below is its own build check and run)"
fi

run_units() { # the unit tests, one after the other
    local fam src name log start exe launch ranks rc
    while read -r -u 3 fam src name; do
        log=$TMPROOT/$(basename "$src")${fam:+.$fam}.log
        if [ "$fam" = - ]; then echo "SKIP: MPI family not built" >"$log"; result "$name" 77 0 "$log"; continue; fi
        start=$(date +%s)
        export ST_BUILD=$O/build/tests/$fam
        exe=$ST_BUILD/$(basename "$src" .c)
        family_cmd "$fam"
        launch=()
        ranks=$(sed -n 's|^/\* ranks: \([0-9]*\) \*/$|\1|p' "$src" | head -n1)
        [ -n "$ranks" ] && launch=("${FAMILY_CMD[@]}" mpi_run -n "$ranks")
        if make -s -f "$TMPROOT/unit.mk" "$exe" >"$log" 2>&1; then
            (cd "$TMPROOT" && timeout -k 10 300 "${launch[@]}" "$exe") >>"$log" 2>&1
            rc=$?
        else
            rc=1
        fi
        result "$name" $rc $(( $(date +%s) - start )) "$log"
    done 3<"$TMPROOT/unit.plan"
}

# The tests in three parts. Most tests keep one process busy at a time, so two run at once: lane A
# (mpi/, clc/, omp/) beside lane B (the unit tests, then wrappers/, cli/, infra/, viewers/: builds, CLI
# runs, a browser); lane B's scripts compile their programs into a build directory of their own (the
# unit tests' executables, test_*, stay in lane A's: no name is shared). Then, alone,
# the tests whose verdicts are times or shares of time: rtbench/, sync/, analysis/ (injected waits;
# one with a line "# beside others: <why>" runs in lane B), and any test with a line "# alone: <why>".
lane_of() { # SCRIPT -> a | b | alone
    grep -q '^# alone: ' "$1" && { echo alone; return; }
    grep -q '^# beside others: ' "$1" && { echo b; return; } # a test of analysis/ whose verdicts are no times
    case $1 in
    tests/rtbench/* | tests/sync/* | tests/analysis/*) echo alone ;;
    tests/wrappers/* | tests/cli/* | tests/infra/* | tests/viewers/*) echo b ;;
    *) echo a ;;
    esac
}

# run_lane LANE [BUILD-SUFFIX]: runs that lane's integration tests one after the other
run_lane() {
    local t base run fam name start
    for t in tests/*/t_*.sh; do
        [ -e "$t" ] && [ "$(lane_of "$t")" = "$1" ] || continue
        base=${t#tests/}; base=${base%.sh}
        mapfile -t runs < <(runs_of "$t" "$base")
        for run in "${runs[@]}"; do
            fam=${run%% *} name=${run#* }
            export ST_TMP=$TMPROOT/$(echo "$base" | tr / _)
            [ "$fam" = "$DEFAULT" ] || ST_TMP=$ST_TMP.$fam
            mkdir -p "$ST_TMP"
            log=$ST_TMP.log
            if [ "$fam" = - ]; then echo "SKIP: MPI family not built" >"$log"; result "$name" 77 0 "$log"; continue; fi
            export ST_MPI=$fam ST_BUILD=$O/build/tests${2:-}/$fam
            mkdir -p "$ST_BUILD"
            start=$(date +%s)
            (cd "$ST_TMP" && timeout -k 10 300 bash "$ROOT/$t") >"$log" 2>&1
            result "$name" $? $(( $(date +%s) - start )) "$log"
        done
    done
}

# lane B in a subshell; its counts and failures come back through a file
(
    pass=0 failn=0 skipn=0 failed=() why=()
    run_units
    run_lane b -lane-b
    { echo "$pass $failn $skipn"; printf '%s\n' "${failed[@]}"; echo "--"; printf '%s\n' "${why[@]}"; } >"$TMPROOT/lane-b.result"
) &
lane_b=$!
run_lane a
wait $lane_b
if [ -s "$TMPROOT/lane-b.result" ]; then
    { read -r bp bf bs; while IFS= read -r l && [ "$l" != -- ]; do [ -n "$l" ] && failed+=("$l"); done
      while IFS= read -r l; do [ -n "$l" ] && why+=("$l"); done; } <"$TMPROOT/lane-b.result"
    pass=$((pass + bp)) failn=$((failn + bf)) skipn=$((skipn + bs))
else
    failn=$((failn + 1)); failed+=("lane B"); why+=("lane B: ended without its results")
fi
run_lane alone

echo
echo "tests ran $(( $(date +%s) - began )) s (ended $(date -u +%T) UTC)"
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}" && printf '  %s\n' "${why[@]}"
if [ $skipn -gt 0 ]; then echo "$pass passed, $failn failed, $skipn skipped"; else echo "$pass passed, $failn failed"; fi
[ $failn -eq 0 ] && [ $pass -gt 0 ]
