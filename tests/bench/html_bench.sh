#!/usr/bin/env bash
# tests/bench/html_bench.sh — the HTML report of a 1-million-event trace (`make bench`).
#
# Workload: tests/bench/clc_bench.c on 4 ranks, HTML_BENCH_ITERS iterations (default 8700:
# about 990,000 events, just under the 1M events the page holds in full). Measures
#   write s     `synctrace report DIR --html` wall time (load, analysis, page)
#   size        the page's bytes
#   render ms   headless Chromium (tests/viewers/htmlcheck.py): navigation start to the first
#               full timeline draw (window.stReport.readyAt), median of HTML_BENCH_REPS loads
#               (default 3); "script" is the page's own part of it (parse, build, draw)
# for the full page and for the same trace aggregated (--max-events 500000: binned timeline).
# Target: render <= 2000 ms for the full page. Skips with a message without chromium/selenium.
# Environment: O (build root), HTML_BENCH_ITERS, HTML_BENCH_REPS.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tests/bench/clc_prog.sh"
clc_bench_setup html_bench
ITERS=${HTML_BENCH_ITERS:-8700}
REPS=${HTML_BENCH_REPS:-3}
echo "HTML report of a 1M-event trace (synctrace report --html, headless Chromium)"
PY=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'import selenium' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ] || ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    echo "  skipped: chromium, chromium-driver or python3-selenium not installed (scripts/install-deps.sh --for bench)"
    exit 0
fi
clc_prog html_bench
TMP=$(mktemp -d "${TMPDIR:-/tmp}/synctrace-html-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fam_cmd 4 LD_PRELOAD="$LIB" SYNCTRACE_DIR="$TMP/run" SYNCTRACE_BUFFER=64M -- "$PROG" "$ITERS"
timeout -k 10 300 "${CMD[@]}" >"$TMP/run.txt" 2>&1 || { echo "html_bench: traced run failed: $(tail -n 3 "$TMP/run.txt")" >&2; exit 1; }
events=$("$BIN" info "$TMP/run" | sed -nE 's/^events:[[:space:]]*([0-9]+).*/\1/p')

status=0
# measure NAME [report options]: one table row
measure() {
    local name=$1 page=$TMP/$1.html agg=() s0 s1
    shift
    s0=$(date +%s.%N)
    "$BIN" report "$TMP/run" --html -o "$page" "$@" >/dev/null 2>"$TMP/err.txt" ||
        { echo "html_bench: report failed: $(cat "$TMP/err.txt")" >&2; status=1; return; }
    s1=$(date +%s.%N)
    grep -q '"detail":"aggregated"' "$page" && agg=(--aggregated)
    : >"$TMP/$name.ms"
    for i in $(seq "$REPS"); do
        if TMPDIR=$TMP "$PY" "$ROOT/tests/viewers/htmlcheck.py" "$page" --rows 4 "${agg[@]}" >"$TMP/check.txt" 2>&1; then
            awk '$1 == "ready_ms" {print $2, $4}' "$TMP/check.txt" >>"$TMP/$name.ms"
        else
            echo "html_bench: the page fails in Chromium: $(tail -n 3 "$TMP/check.txt")" >&2; status=1; return
        fi
    done
    local ready script verdict
    ready=$(cut -d' ' -f1 "$TMP/$name.ms" | median)
    script=$(cut -d' ' -f2 "$TMP/$name.ms" | median)
    verdict=$(awk -v v="$ready" 'BEGIN {print (v + 0 <= 2000) ? "ok" : "ABOVE TARGET"}')
    [ "$name" = full ] || verdict="-"
    printf '| %-10s | %9s | %7.2f | %8.1f | %9.0f | %9.0f | %-12s |\n' "$name" "$events" \
        "$(awk -v a="$s0" -v b="$s1" 'BEGIN {print b - a}')" "$(stat -c %s "$page" | awk '{print $1 / 1048576}')" \
        "$ready" "$script" "$verdict"
}
echo "| page       |    events | write s | size MiB | render ms | script ms | <= 2000 ms   |"
echo "|------------|-----------|---------|----------|-----------|-----------|--------------|"
measure full
measure aggregated --max-events 500000
echo "(4 ranks, $ITERS iterations of clc_bench; render = navigation start to the first full timeline draw, median of $REPS loads;"
echo " load average $(cut -d' ' -f1-3 /proc/loadavg))"
exit $status
