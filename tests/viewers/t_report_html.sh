#!/usr/bin/env bash
# t_report_html.sh — `synctrace report DIR --html` in a real browser (headless Chromium through
# selenium, htmlcheck.py). For the injected-waits programs (tests/analysis/): waits.c (4 ranks) and
# ompwaits.c (4 OpenMP threads) the page loads with no JavaScript error, the metric pane shows the
# injected wait states, clicking mpi_latesender makes the call tree show the MPI calls that waited;
# MPI_Waitany's wait, all of it Wrong Order, shows only once Late Sender is collapsed (inclusive
# value; expanded it shows the part in none of its sub-metrics); the timeline draws one row per
# location; the time base lists each rank's sync epochs; zoom, pan and a click on the worst wait state move the timeline;
# the Causes view: clicking the Late Receiver (Ssend) and the barrier lists their delays, the largest on the rank
# that slept (2, 1), and a click on a delay selects its delay cost in the trees; the critical path drawn on the
# timeline (each hop on its location's row, gone when switched off), also on the aggregated page; with
# SYNCTRACE_ROOTCAUSE=off the page says so and draws no path. The function that
# caused a wait: on an mkarchive archive with main/solve/MPI_Recv, and on waits.c itself when the
# library records application call paths (SYNCTRACE_CALLPATH=1; without them the check must fail).
# The checks fail on a page with a JavaScript exception or with cut data. The page's data equals
# the dump, analysis.json and the Chrome export of the archive (htmldata.py). Also: -o, DIR given
# as its traces.otf2, aggregation beyond --max-events (bins hold each location's time in regions),
# usage and write errors; a link planted as report.html is replaced, not written through.
# Screenshot: $ST_TMP/report.png (kept with KEEP_TEST_TMP=1; copied to docs/img/report-waits.png
# by hand for the README).
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_tools

# selenium comes from Debian's python3-selenium: the system python, whatever python3 is first in PATH.
PY=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import selenium' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "python3-selenium not installed (scripts/install-deps.sh --for check installs chromium, chromium-driver, python3-selenium)"
for t in chromium chromedriver; do
    command -v "$t" >/dev/null 2>&1 || skip "$t not installed (scripts/install-deps.sh --for check installs it)"
done
# The browser checks are queued (check NAME PAGE OPTIONS...) and run in one browser once every page
# is made (run_checks: starting Chromium is half of a check's time); then `checked NAME` is a check's
# exit status and $ST_TMP/checks/NAME.txt what it printed. Chromium's profile and singleton files go
# to TMPDIR: the test's directory.
mkdir -p "$ST_TMP/checks"
: >"$ST_TMP/checks.batch"
check() { printf '%q ' "$@" >>"$ST_TMP/checks.batch" && echo >>"$ST_TMP/checks.batch"; }
run_checks() {
    local rc=0
    TMPDIR=$ST_TMP "$PY" "$ST_ROOT/tests/viewers/htmlcheck.py" --batch "$ST_TMP/checks.batch" "$ST_TMP/checks" \
        >"$ST_TMP/checks.log" 2>&1 || rc=$?
    [ $rc -ne 77 ] || skip "$(tail -n 1 "$ST_TMP/checks.log")"
    [ $rc -eq 0 ] || fail "htmlcheck --batch exited $rc: $(tail -n 5 "$ST_TMP/checks.log")"
}
checked() { # NAME: the check's exit status (no status: the batch stopped before it)
    [ -f "$ST_TMP/checks/$1.rc" ] || fail "check $1 did not run: $(tail -n 5 "$ST_TMP/checks.log")"
    cat "$ST_TMP/checks/$1.rc"
}
said() { cat "$ST_TMP/checks/$1.txt"; }

# ---- MPI waits -------------------------------------------------------------------------------
bin=$(build_mpi_c waits "$ST_ROOT/tests/analysis/waits.c" -ldl)
calls=MPI_Recv,MPI_Wait,MPI_Waitall,MPI_Sendrecv
function_arg=()
if st env | grep -q SYNCTRACE_CALLPATH; then # application call paths: the function above the MPI call
    export ST_ENV="SYNCTRACE_CALLPATH=1"
    function_arg=(--function)
fi
run_traced "$ST_TMP/run" 4 "$bin" 0.5 || fail "waits exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
unset ST_ENV
st report "$ST_TMP/run" --html >out.txt 2>err.txt || fail "report --html: $(cat err.txt)"
assert_eq "printed path" "$ST_TMP/run/report.html" "$(cat out.txt)"
page=$ST_TMP/run/report.html
grep -qiE '<script[^>]+src=|<link[^>]+href=|https?://' "$page" && fail "the page refers to something outside itself"
# The data in the page against independent outputs of the same archive: dump (every enter/leave),
# analysis.json (every value), the Chrome export (every message).
st dump "$ST_TMP/run" --json >dump.jsonl && st analyze "$ST_TMP/run" >/dev/null &&
    st export "$ST_TMP/run" --chrome chrome.json >/dev/null || fail "dump, analyze or export failed"
python3 "$ST_ROOT/tests/viewers/htmldata.py" "$page" dump.jsonl "$ST_TMP/run/analysis.json" chrome.json >data.txt 2>&1 ||
    fail "page data: $(head -n 5 data.txt)"
note "$(cat data.txt)"
check waits "$page" --screenshot "$ST_TMP/report.png" --rows 4 --epochs 4 \
    --metrics time,mpi_point2point,mpi_latesender,mpi_latereceiver,mpi_barrier_wait,mpi_wait_nxn,mpi_latebroadcast,mpi_earlyreduce,mpi_finalize_wait \
    --click mpi_latesender --calls "$calls" --inclusive-calls MPI_Waitany "${function_arg[@]}" \
    --cause mpi_latereceiver:2,mpi_barrier_wait:1 --cpath

# The function check on an archive with a user function above the MPI call (mkarchive: rank 0
# waits in main/solve/MPI_Recv for rank 1's late send); on the flat waits page it must fail.
source "$ST_ROOT/tests/cli/lib-cli.sh"
mk callpath <<'S'
ranks 2
0.0 100 enter main
0.0 150 enter solve
0.0 200 enter MPI_Recv
0.0 900 recv 1 0 5 4
0.0 901 leave MPI_Recv
0.0 950 leave solve
0.0 1000 leave main
1.0 100 enter main
1.0 800 enter MPI_Send
1.0 810 send 0 0 5 4
1.0 820 leave MPI_Send
1.0 1000 leave main
S
st report "$ST_TMP/callpath" --html >/dev/null 2>err.txt || fail "report --html (call path): $(cat err.txt)"
check callpath "$ST_TMP/callpath/report.html" --rows 2 --click mpi_latesender --calls MPI_Recv --function
[ ${#function_arg[@]} -gt 0 ] || check nofunction "$page" --rows 4 --click mpi_latesender --function

# A broken page must fail the same checks: a script exception, data cut short.
sed 's|</head>|<script>window.addEventListener("load", () => { throw new Error("injected"); });</script></head>|' \
    "$page" >broken.html
check broken broken.html --rows 4
awk '/^"msgs":/ { cut = 1 } cut && /<\/script>/ { cut = 0 } !cut' "$page" >cut.html # the data ends mid-object
check cut cut.html --rows 4

# -o and aggregation: beyond --max-events each location's time in bins, still one row per location.
st report "$ST_TMP/run" --html -o agg.html --max-events 100 >out.txt 2>err.txt || fail "report --max-events: $(cat err.txt)"
assert_eq "printed path with -o" "agg.html" "$(cat out.txt)"
st report "$ST_TMP/run/traces.otf2" --html >out.txt 2>err.txt || fail "report --html of the anchor file: $(cat err.txt)"
assert_eq "printed path for DIR/traces.otf2" "$ST_TMP/run/report.html" "$(cat out.txt)"
grep -q '"detail":"aggregated"' agg.html || fail "--max-events 100 did not aggregate"
grep -q '"tl":' agg.html && fail "aggregated page still holds every event"
check agg agg.html --aggregated --rows 4 --metrics mpi_latesender --cpath
python3 "$ST_ROOT/tests/viewers/htmldata.py" agg.html dump.jsonl "$ST_TMP/run/analysis.json" chrome.json >data.txt 2>&1 ||
    fail "aggregated page data: $(head -n 5 data.txt)"

# without the root-cause analysis: no causes, no path (and the page's data still the JSON's)
SYNCTRACE_ROOTCAUSE=off st report "$ST_TMP/run" --html -o off.html >/dev/null 2>err.txt || fail "report --html, root causes off: $(cat err.txt)"
SYNCTRACE_ROOTCAUSE=off st analyze "$ST_TMP/run" -o off.json >/dev/null || fail "analyze, root causes off"
python3 "$ST_ROOT/tests/viewers/htmldata.py" off.html dump.jsonl off.json chrome.json >data.txt 2>&1 ||
    fail "page data, root causes off: $(head -n 5 data.txt)"
check off off.html --rows 4 --no-causes

# ---- OpenMP waits ------------------------------------------------------------------------------
if command -v clang >/dev/null 2>&1; then
    obin=$(build_omp ompwaits clang "$ST_ROOT/tests/analysis/ompwaits.c")
    OMP_NUM_THREADS=4 SYNCTRACE_DIR=$ST_TMP/omp LD_PRELOAD=$ST_LIB timeout -k 10 120 "$obin" >omp-out.txt 2>omp-err.txt ||
        fail "ompwaits failed: $(tail -n 5 omp-err.txt)"
    st report "$ST_TMP/omp" --html >/dev/null 2>err.txt || fail "report --html (OpenMP): $(cat err.txt)"
    check omp "$ST_TMP/omp/report.html" --rows 4 \
        --metrics time,omp_ebarrier_wait,omp_ibarrier_wait,omp_lock_contention_critical,omp_lock_contention_api,omp_idle_threads \
        --click omp_ebarrier_wait --calls '!$omp barrier'
fi

# ---- the browser checks --------------------------------------------------------------------------
run_checks
[ "$(checked waits)" = 0 ] || fail "waits: $(said waits)"
note "$(said waits)"
[ -s "$ST_TMP/report.png" ] || fail "no screenshot"
note "page $(stat -c %s "$page") bytes; screenshot $ST_TMP/report.png"
[ "$(checked callpath)" = 0 ] || fail "call path: $(said callpath)"
grep -q "top main/.*/MPI_Recv" "$ST_TMP/checks/callpath.txt" || fail "call path: $(said callpath)"
[ ${#function_arg[@]} -gt 0 ] || assert_eq "the function check on a page without call paths" 1 "$(checked nofunction)"
assert_eq "htmlcheck on a page with an exception" 1 "$(checked broken)"
grep -q "injected" "$ST_TMP/checks/broken.txt" || fail "the exception is not named: $(said broken)"
assert_eq "htmlcheck on a page with cut data" 1 "$(checked cut)"
[ "$(checked agg)" = 0 ] || fail "aggregated: $(said agg)"
[ "$(checked off)" = 0 ] || fail "root causes off: $(said off)"
if grep -q '^omp ' "$ST_TMP/checks.batch"; then
    [ "$(checked omp)" = 0 ] || fail "OpenMP waits: $(said omp)"
    note "$(said omp)"
fi

# usage and write errors
rc=0; st report "$ST_TMP/run" --max-events 10 >/dev/null 2>&1 || rc=$?
assert_eq "--max-events without --html" 2 "$rc"
rc=0; st report "$ST_TMP/run" --html --max-events 0 >/dev/null 2>&1 || rc=$?
assert_eq "--max-events 0" 2 "$rc"
rc=0; st report "$ST_TMP/run" --html --metric mpi >/dev/null 2>&1 || rc=$?
assert_eq "--html with --metric" 2 "$rc"
rc=0; st report "$ST_TMP/run" --html -o /dev/full >/dev/null 2>full.err || rc=$?
assert_eq "report --html -o /dev/full" 1 "$rc"
grep -qx "synctrace: report: cannot write /dev/full: No space left on device" full.err || fail "/dev/full: $(cat full.err)"
# a link planted where the page goes (the archive's directory may be someone else's) is replaced, never written
# through; a file that was there stays until the new page is whole
echo victim >"$ST_TMP/victim.txt"
rm -f "$ST_TMP/run/report.html" && ln -s "$ST_TMP/victim.txt" "$ST_TMP/run/report.html"
st report "$ST_TMP/run" --html >/dev/null 2>err.txt || fail "report --html over a planted link: $(cat err.txt)"
[ "$(cat "$ST_TMP/victim.txt")" = victim ] || fail "report --html wrote through a link planted as report.html"
[ -f "$ST_TMP/run/report.html" ] && [ ! -L "$ST_TMP/run/report.html" ] || fail "report.html is not the page after a planted link"
[ -z "$(ls "$ST_TMP/run" | grep 'tmp-')" ] || fail "temporaries left in the archive's directory: $(ls "$ST_TMP/run" | tr '\n' ' ')"
echo ok
