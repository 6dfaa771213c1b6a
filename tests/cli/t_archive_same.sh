#!/usr/bin/env bash
# t_archive_same.sh — the archives and reports synctrace writes for a fixed input are the bytes they
# were: the outputs of two pipelines are compared with the golden files in tests/cli/golden/archive_same/,
# written by the code before the source tree was restructured into its layers (docs/architecture.md).
#
#   1. mkrichdump.c's raw dumps of a 2-rank, 2-thread run (p2p, collectives, OpenMP, call sites, a
#      drifting clock) -> `synctrace recover` (re-map, the archive writer) -> `synctrace clc` (reader,
#      relations, CLC, writer) -> `synctrace analyze` (JSON, CUBE4), `report` (text, HTML), `export`.
#   2. a mkarchive script of the same kinds (an archive that libotf2 wrote, not synctrace) -> `synctrace
#      clc` -> `synctrace analyze`.
# Text outputs (command output, `synctrace dump`, `info`, `check`, analysis.json, the Chrome trace) are
# compared as files, so a failure shows the diff; the OTF2 files of every archive (the anchor file
# through `otf2-print -A` without its random trace identifier), the raw dumps, CUBE4 and HTML by
# SHA-256 in sha256sums. The OTF2 bytes depend on libotf2's version (3.0.2 wrote the goldens).
#
# A deliberate change of an output rewrites the goldens: ST_GOLDEN_WRITE=1 bash tests/run-tests.sh
# t_archive_same (with O=DIR, the synctrace built there writes them; the fixtures are built from
# this tree); review `git diff tests/cli/golden` before committing it.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

GOLD=$ST_ROOT/tests/cli/golden/archive_same
MKRICHDUMP=$ST_BUILD/mkrichdump
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -I"$ST_O/build/gen" -o "$MKRICHDUMP" \
    "$ST_ROOT/tests/cli/mkrichdump.c" "$ST_ROOT/src/model/rankdata.c" "$ST_ROOT/src/model/rankdata_dump.c" "$ST_ROOT/src/util/log.c" ||
    fail "cannot build mkrichdump"
command -v otf2-print >/dev/null || fail "otf2-print (libotf2's tools) not installed"

# the defaults, whatever the caller's environment sets (CLC's parameters, the analysis', ...)
for v in $(env | sed -n 's/^\(SYNCTRACE_[A-Z0-9_]*\)=.*/\1/p'); do
    [ "$v" = SYNCTRACE_ANALYZE_CHECK ] || unset "$v"
done
cd "$ST_TMP" # every command names its archives relative to here: no temporary path in any output
mkdir out
# run NAME CMD...: CMD's stdout and stderr (one file) and exit code into out/NAME.txt; the one line
# that tells how long something took (the analysis' own time) says "(time)" instead
run() {
    local name=$1 rc=0; shift
    "$@" >"out/$name.raw" 2>&1 || rc=$?
    sed -E 's/^(analysis of [0-9]+ events): .* ms\)$/\1: (time)/' "out/$name.raw" >"out/$name.txt"
    rm "out/$name.raw"
    echo "exit $rc" >>"out/$name.txt"
}
# archive_sums DIR: SHA-256 of every file of archive DIR; the anchor file through otf2-print without
# the trace identifier OTF2 draws at random
archive_sums() {
    (cd "$1" && find . -type f ! -name traces.otf2 ! -name 'analysis.*' | LC_ALL=C sort | xargs sha256sum |
        sed "s|  \./|  $1/|")
    echo "$(otf2-print -A "$1/traces.otf2" | grep -v '^Trace identifier' | sha256sum | cut -d' ' -f1)  $1/traces.otf2 (otf2-print -A)"
}

# ---- 1. raw dumps -> recover -> clc -> analyze, report, export ----
"$MKRICHDUMP" rec || fail "mkrichdump failed"
run recover "$ST_BIN/synctrace" recover rec
run rec.dump "$ST_BIN/synctrace" dump rec
run rec.check "$ST_BIN/synctrace" check rec
run clc "$ST_BIN/synctrace" clc rec cor
run cor.dump "$ST_BIN/synctrace" dump cor
run cor.info "$ST_BIN/synctrace" info cor
run cor.check "$ST_BIN/synctrace" check cor
run cor.analyze.json "$ST_BIN/synctrace" analyze cor -o cor.analysis.json
run cor.analyze.cubex "$ST_BIN/synctrace" analyze cor -o cor.analysis.cubex
run cor.report "$ST_BIN/synctrace" report cor
run cor.report.html "$ST_BIN/synctrace" report cor --html -o cor.report.html
run cor.export "$ST_BIN/synctrace" export cor --chrome cor.chrome.json
cp cor.analysis.json cor.chrome.json out/
archive_sums rec >>out/sha256sums
archive_sums cor >>out/sha256sums
sha256sum cor.analysis.cubex cor.report.html >>out/sha256sums

# ---- 2. an archive libotf2 wrote -> clc -> analyze ----
# 2 ranks of 2 threads; rank 1's receive precedes the send, its broadcast ends before the root began
# it, and thread 0.1 acquires the lock before 0.0 released it: three violations CLC corrects.
mk lib <<'S'
ranks 2
threads 0 2
threads 1 2
team 2 0 0 1
team 3 1 0 1
0.0 1000 enter main callsite="main (app.c:10)"
0.0 1100 enter MPI_Send callsite="step (app.c:20)"
0.0 1110 send 1 0 7 4096
0.0 1300 leave MPI_Send
0.0 1400 enter MPI_Irecv
0.0 1410 irecv_request 11
0.0 1420 leave MPI_Irecv
0.0 1500 fork 2 pid=9
0.0 1510 team_begin 2 pid=9
0.0 1511 enter "!$omp parallel"
0.0 1600 enter "!$omp barrier"
0.0 1700 leave "!$omp barrier"
0.0 1706 enter "!$omp critical"
0.0 1710 acquire 77 1
0.0 1750 release 77 1
0.0 1754 leave "!$omp critical"
0.0 1800 enter "!$omp implicit barrier"
0.0 1900 leave "!$omp implicit barrier"
0.0 1909 leave "!$omp parallel"
0.0 1910 team_end 2 pid=9
0.0 1920 join pid=9
0.0 2000 enter MPI_Wait
0.0 2400 irecv 1 0 8 128 11
0.0 2410 leave MPI_Wait
0.0 2500 enter MPI_Allreduce
0.0 2510 coll_begin
0.0 2900 coll_end allreduce 0 - 8 8
0.0 2910 leave MPI_Allreduce
0.0 3000 enter MPI_Bcast
0.0 3010 coll_begin
0.0 3100 coll_end bcast 0 0 64 0
0.0 3110 leave MPI_Bcast
0.0 3200 enter MPI_Ibarrier
0.0 3210 icoll_request 21
0.0 3220 leave MPI_Ibarrier
0.0 3300 enter MPI_Wait
0.0 3600 icoll_complete barrier 0 - 0 0 21
0.0 3610 leave MPI_Wait
0.0 3700 enter MPI_Barrier
0.0 3710 coll_begin
0.0 4000 coll_end barrier 0 - 0 0
0.0 4010 leave MPI_Barrier
0.0 4100 leave main
0.1 1505 team_begin 2 pid=9
0.1 1506 enter "!$omp parallel"
0.1 1650 enter "!$omp barrier"
0.1 1705 leave "!$omp barrier"
0.1 1716 enter "!$omp critical"
0.1 1720 acquire 77 2
0.1 1760 release 77 2
0.1 1764 leave "!$omp critical"
0.1 1810 enter "!$omp implicit barrier"
0.1 1905 leave "!$omp implicit barrier"
0.1 1914 leave "!$omp parallel"
0.1 1915 team_end 2 pid=9
1.0 900 enter main callsite="main (app.c:10)"
1.0 1000 enter MPI_Recv callsite="step (app.c:30)"
1.0 1050 recv 0 0 7 4096
1.0 1060 leave MPI_Recv
1.0 1100 enter MPI_Isend
1.0 1110 isend 0 0 8 128 31
1.0 1120 leave MPI_Isend
1.0 1200 fork 2 pid=4
1.0 1210 team_begin 3 pid=4
1.0 1211 enter "!$omp parallel"
1.0 1300 enter "!$omp barrier"
1.0 1500 leave "!$omp barrier"
1.0 1600 enter "!$omp implicit barrier"
1.0 1700 leave "!$omp implicit barrier"
1.0 1709 leave "!$omp parallel"
1.0 1710 team_end 3 pid=4
1.0 1720 join pid=4
1.0 1800 enter MPI_Wait
1.0 1810 isend_complete 31
1.0 1820 leave MPI_Wait
1.0 2000 enter MPI_Allreduce
1.0 2010 coll_begin
1.0 2600 coll_end allreduce 0 - 8 8
1.0 2610 leave MPI_Allreduce
1.0 2700 enter MPI_Bcast
1.0 2710 coll_begin
1.0 2800 coll_end bcast 0 0 0 64
1.0 2810 leave MPI_Bcast
1.0 3000 enter MPI_Ibarrier
1.0 3010 icoll_request 41
1.0 3020 leave MPI_Ibarrier
1.0 3100 enter MPI_Wait
1.0 3400 icoll_complete barrier 0 - 0 0 41
1.0 3410 leave MPI_Wait
1.0 3500 enter MPI_Barrier
1.0 3510 coll_begin
1.0 3900 coll_end barrier 0 - 0 0
1.0 3910 leave MPI_Barrier
1.0 4200 leave main
1.1 1205 team_begin 3 pid=4
1.1 1206 enter "!$omp parallel"
1.1 1310 enter "!$omp barrier"
1.1 1490 leave "!$omp barrier"
1.1 1610 enter "!$omp implicit barrier"
1.1 1690 leave "!$omp implicit barrier"
1.1 1704 leave "!$omp parallel"
1.1 1705 team_end 3 pid=4
S
run lib.dump "$ST_BIN/synctrace" dump lib
run lib.clc "$ST_BIN/synctrace" clc lib libcor
run libcor.dump "$ST_BIN/synctrace" dump libcor
run libcor.analyze.json "$ST_BIN/synctrace" analyze libcor -o libcor.analysis.json
cp libcor.analysis.json out/
archive_sums libcor >>out/sha256sums

if [ -n "${ST_GOLDEN_WRITE:-}" ]; then
    rm -rf "$GOLD" && mkdir -p "$GOLD" && cp out/* "$GOLD/"
    note "goldens written to $GOLD by $ST_BIN/synctrace: $(ls "$GOLD" | wc -l) files"
    exit 0
fi
[ -d "$GOLD" ] || fail "no goldens in $GOLD"
diff -r "$GOLD" out >"$ST_TMP/diff.txt" 2>&1 || {
    head -n 60 "$ST_TMP/diff.txt" >&2
    fail "the outputs differ from the goldens in tests/cli/golden/archive_same (diff above; KEEP_TEST_TMP=1 keeps them in $ST_TMP/out)"
}
note "$(ls out | wc -l) outputs, $(wc -l <out/sha256sums) checksums equal to the goldens"
