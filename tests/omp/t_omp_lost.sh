#!/usr/bin/env bash
# OpenMP with events lost: a full flush directory (200 KiB tmpfs, 64 KiB buffers) under loops of
# parallel regions, worksharing loops and tasks at 2 threads (tests/bench/omp_bench.c, "user" mode).
# Where a thread lost events, what a hole left open is closed and the rest of a team whose beginning
# is lost is dropped (src/model/gaps.h): every ENTER has its LEAVE, every team begin its end, every
# fork its join, CLC is skipped as in MPI runs (relations whose partner is in a hole cannot be
# matched), `synctrace check` reads the archive and says so, and `synctrace analyze` gives a result (with
# SYNCTRACE_ANALYZE_CHECK=fail: a broken cross-thread total is only a warning with events lost).
# Before, a worker's team end without its begin made the archive unreadable ("not a member of its
# OpenMP team") and barrier waits sat outside any parallel region. Needs root for the tmpfs.
# families: mpich
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_omp_tools
[ "$(id -u)" -eq 0 ] || skip "needs root to mount a small tmpfs"
bin=$(build_omp omp-lost clang -I"$ST_ROOT/tests/include" "$ST_ROOT/tests/bench/omp_bench.c" -lm)
small=$ST_TMP/small
mkdir -p "$small"
mount -t tmpfs -o size=200k tmpfs "$small" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount "$small" 2>/dev/null || true' EXIT
chmod 1777 "$small"

count() { awk -v k="$1" '$1 == k {print $2}' "$ST_TMP/info.txt"; }
for construct in parallel for task; do
    rm -f "$small"/* 2>/dev/null || true
    dir=$ST_TMP/$construct
    OMP_NUM_THREADS=2 LIBOMP_USE_HIDDEN_HELPER_TASK=0 SYNCTRACE_TMPDIR=$small SYNCTRACE_BUFFER=64k \
        SYNCTRACE_DIR=$dir LD_PRELOAD=$ST_LIB timeout -k 10 120 "$bin" "$construct" 0.05 user \
        >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" || fail "$construct: the traced run failed: $(tail -n 3 "$ST_TMP/err.txt")"
    st info "$dir" >"$ST_TMP/info.txt" 2>&1 || fail "$construct: the archive is unreadable: $(head -c 300 "$ST_TMP/info.txt")"
    grep -qE '^incomplete: +yes \([1-9][0-9]* events lost' "$ST_TMP/info.txt" ||
        fail "$construct: no events lost, the test proves nothing: $(grep incomplete "$ST_TMP/info.txt")"
    assert_eq "$construct: LEAVEs as many as ENTERs" "$(count enter)" "$(count leave)"
    assert_eq "$construct: team ends as many as team begins" "$(count omp_team_begin)" "$(count omp_team_end)"
    assert_eq "$construct: joins as many as forks" "$(count omp_fork)" "$(count omp_join)"
    grep -qE 'SYNCTRACE::CLC_STATE +skipped' "$ST_TMP/info.txt" ||
        fail "$construct: CLC not skipped with events lost: $(grep CLC_STATE "$ST_TMP/info.txt")"
    # (check may count violations: a team a hole closed early on the master joins before its workers end)
    crc=0
    st check "$dir" >"$ST_TMP/check.txt" 2>&1 || crc=$?
    [ $crc -le 1 ] && grep -q "CLC skipped, events were lost" "$ST_TMP/check.txt" ||
        fail "$construct: synctrace check (exit $crc): $(head -n 3 "$ST_TMP/check.txt")"
    SYNCTRACE_ANALYZE_CHECK=fail st analyze "$dir" >"$ST_TMP/an.txt" 2>&1 ||
        fail "$construct: synctrace analyze: $(grep -m2 'error\|cannot' "$ST_TMP/an.txt")"
    # A worksharing loop's holes fall inside teams; with the rest of such a team dropped, no barrier
    # wait sits outside a parallel region and the tree holds (without the drop: "Computation at !$omp
    # implicit barrier ... < minimum 0", every run). Parallel regions and tasks that lose events on the
    # master can still break the cross-thread total (a worker's Time is set against its master's).
    if [ "$construct" = for ] && grep -q "does not hold" "$ST_TMP/an.txt"; then
        fail "for: the metric tree does not hold: $(grep -m1 -o 'the first: .*' "$ST_TMP/an.txt" | head -c 300)"
    fi
    note "$construct: $(grep -m1 -o '[0-9]* events lost' "$ST_TMP/info.txt"), $(count enter) enters"
done
