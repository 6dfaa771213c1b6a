#!/usr/bin/env bash
# `synctrace analyze` on 2 processes of the launcher, of a 4-rank archive (waits.c, SYNCTRACE_ANALYZE=off): each process
# reads the definitions and the event files of its own ranks only (process 0 traces/0.evt and 1.evt,
# process 1 traces/2.evt and 3.evt; seen with strace: the files each process opens), and the report is
# byte-identical to the serial one (analysis.json).
source "$ST_ROOT/tests/lib.sh"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"
command -v strace >/dev/null || skip "strace not installed"
bin=$(build_mpi_c waits "$ST_ROOT/tests/analysis/waits.c" -ldl)
ST_ENV="SYNCTRACE_ANALYZE=off" run_traced "$ST_TMP/run" 4 "$bin" || fail "waits exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
ls "$ST_TMP/run/traces/" | grep -qx '3.evt' || fail "unexpected event file names: $(ls "$ST_TMP/run/traces" | head)"
st analyze "$ST_TMP/run" -o "$ST_TMP/serial.json" >"$ST_TMP/serial.txt" 2>&1 || fail "serial analyze failed: $(tail -3 "$ST_TMP/serial.txt")"
mpi_run -t 120 -n 2 bash -c 'exec strace -f -qq -e trace=openat,open -o "$1.${!2}" "${@:3}"' _ "$ST_TMP/opened" "$MPI_RANK_VAR" \
    "$ST_BIN/synctrace" analyze "$ST_TMP/run" -o "$ST_TMP/par.json" >"$ST_TMP/par.txt" 2>&1 ||
    fail "$MPI_LAUNCHER -n 2 synctrace analyze failed: $(tail -3 "$ST_TMP/par.txt")"
cmp -s "$ST_TMP/par.json" "$ST_TMP/serial.json" || fail "parallel analysis.json differs from the serial one"
evts() { grep -o 'traces/[0-9]*\.evt"' "$ST_TMP/opened.$1" | tr -d '"' | sed 's|traces/||' | sort -u | tr '\n' ' '; }
assert_eq "event files process 0 opened" "0.evt 1.evt " "$(evts 0)"
assert_eq "event files process 1 opened" "2.evt 3.evt " "$(evts 1)"
grep -q 'traces.def"' "$ST_TMP/opened.1" || fail "process 1 did not read the global definitions"
