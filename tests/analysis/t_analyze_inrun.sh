#!/usr/bin/env bash
# The in-run parallel analysis (SYNCTRACE_ANALYZE, at MPI_Finalize after CLC) equals the offline
# one exactly: analysis.json (every metric x call path x location value, the worst instances,
# the statistics) and analysis.cubex byte for byte, on MPI-only runs (waits.c, 4 ranks; the
# CLC tests' clc_mpi.c) and a hybrid one (ompwaits.c, 2 ranks x 3 threads); `synctrace analyze` on N processes (N = ranks,
# fewer, 1) equals the serial command; N > ranks is refused with one line. The run's summary
# goes to stderr only; FINALIZE_ANALYSIS_MS is in the archive; SYNCTRACE_CLC=off analyses the
# uncorrected times (and says so); SYNCTRACE_ANALYZE=off writes no report; a failure on one rank is
# reported once and the analysis skipped everywhere, the application unaffected.
# families: mpich openmpi
# beside others: its verdicts are equalities of reports from the same archive, and one 30 s bound
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools

# same DIR FILE: the offline serial analysis of DIR written to FILE.json / .cubex equals the
# in-run one (copied to FILE.inrun.*), and so does the parallel one with each of the given N
same() {
    local dir=$1 name=$2; shift 2
    cp "$dir/analysis.json" "$ST_TMP/$name.inrun.json" && cp "$dir/analysis.cubex" "$ST_TMP/$name.inrun.cubex" ||
        fail "$name: no in-run report in $dir: $(tail -n 5 "$ST_TMP/err.txt")"
    grep -q '"worst": \[$' "$ST_TMP/$name.inrun.json" && grep -q '"metric": "mpi_' "$ST_TMP/$name.inrun.json" ||
        fail "$name: in-run report without values or worst instances"
    st analyze "$dir" -o "$ST_TMP/$name.json" >/dev/null || fail "$name: analyze failed"
    st analyze "$dir" -o "$ST_TMP/$name.cubex" >/dev/null || fail "$name: analyze .cubex failed"
    python3 - "$ST_TMP/$name.inrun.json" "$ST_TMP/$name.json" <<'PY' >&2 || fail "$name: in-run and offline analyses differ"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda v: (v["metric"], v["cnode"], v["location"])
va, vb = ({key(v): v["value"] for v in d["values"]} for d in (a, b))
diff = sorted(k for k in set(va) | set(vb) if va.get(k) != vb.get(k))
for k in diff[:10]:
    print("  %s cnode %d location %d: in-run %r, offline %r" % (k + (va.get(k), vb.get(k))))
for part in ("cnodes", "locations", "worst", "stats"):
    if a[part] != b[part]:
        print("  %s differ" % part)
        diff.append(part)
sys.exit(1 if diff else 0)
PY
    cmp -s "$ST_TMP/$name.inrun.json" "$ST_TMP/$name.json" || fail "$name: analysis.json not byte-identical"
    cmp -s "$ST_TMP/$name.inrun.cubex" "$ST_TMP/$name.cubex" || fail "$name: analysis.cubex not byte-identical"
    local n
    for n in "$@"; do
        mpi_run -t 120 -n "$n" "$ST_BIN/synctrace" analyze "$dir" -o "$ST_TMP/$name.par$n.json" \
            >"$ST_TMP/par.txt" 2>&1 || fail "$name: $MPI_LAUNCHER -n $n synctrace analyze failed: $(tail -3 "$ST_TMP/par.txt")"
        cmp -s "$ST_TMP/$name.par$n.json" "$ST_TMP/$name.json" || fail "$name: parallel analysis over $n processes differs"
    done
    note "$name: in-run == offline == parallel offline (N = $*)"
}

# MPI only: waits.c, 4 ranks
bin=$(build_mpi_c waits "$ST_ROOT/tests/analysis/waits.c" -ldl)
run_traced "$ST_TMP/run" 4 "$bin" || fail "waits exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q 'wait states\|wait-state' "$ST_TMP/out.txt" && fail "the summary went to the application's stdout"
grep -Eq '^  mpi_wait_nxn +[0-9.]+ s +[0-9.]+%$' "$ST_TMP/err.txt" || fail "no summary on stderr: $(tail -8 "$ST_TMP/err.txt")"
grep -q "^wait-state analysis: .* ms; report $ST_TMP/run/analysis.json" "$ST_TMP/err.txt" ||
    fail "summary without the report's path: $(tail -3 "$ST_TMP/err.txt")"
st info "$ST_TMP/run" | grep -Eq 'SYNCTRACE::FINALIZE_ANALYSIS_MS +[0-9.]+$' || fail "no FINALIZE_ANALYSIS_MS in the archive"
same "$ST_TMP/run" mpi 4 2 3 1
rc=0; mpi_run -t 60 -n 5 "$ST_BIN/synctrace" analyze "$ST_TMP/run" >"$ST_TMP/n5.txt" 2>&1 || rc=$?
assert_eq "analyze with more processes than ranks" 1 "$rc"
assert_eq "lines for more processes than ranks" 1 "$(grep -c 'cannot analyse' "$ST_TMP/n5.txt")"
grep -q '5 processes for an archive of 4 ranks' "$ST_TMP/n5.txt" || fail "unclear refusal: $(cat "$ST_TMP/n5.txt")"

# every relation kind of the CLC tests (nonblocking, wildcard, persistent, collectives on sub-communicators)
cbin=$(build_mpi_c clc_mpi "$ST_ROOT/tests/clc/clc_mpi.c")
run_traced "$ST_TMP/clc" 4 "$cbin" 3 || fail "clc_mpi exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
same "$ST_TMP/clc" clc 4
# the same with more of CLC's endpoints per process than the analysis reads of them at a time (parts
# of 2048, parallel.c take_derived): 200 rounds, about 20k events per rank
run_traced "$ST_TMP/clc2" 2 "$cbin" 200 || fail "clc_mpi 200 exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
same "$ST_TMP/clc2" clc_parts 2

# Late Receiver against a late MPI_Irecv: the posting call's enter travels to the sender
lbin=$(build_mpi_c late_post "$ST_ROOT/tests/analysis/late_post.c")
run_traced "$ST_TMP/lp" 2 "$lbin" || fail "late_post exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q '"metric": "mpi_latereceiver"' "$ST_TMP/lp/analysis.json" || fail "late_post: no Late Receiver"
same "$ST_TMP/lp" late_post 2

# nonblocking collectives (icoll.c): the completing calls' waits against the remote I-calls
ibin=$(build_mpi_c icoll "$ST_ROOT/tests/analysis/icoll.c" -ldl)
run_traced "$ST_TMP/ic" 4 "$ibin" || fail "icoll exited $?: $(tail -n 5 "$ST_TMP/err.txt")"
same "$ST_TMP/ic" icoll 4 3

# a failure in the middle of the exchange (rank 1's message corrupted; CLC off, so the first tool
# message is the analysis's): reported once, skipped on every rank, the application unchanged, no wait
CORRUPT_LIB=$ST_BUILD/libcorrupt.so
gcc -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden $(mpi_incflags) \
    -o "$CORRUPT_LIB" "$ST_ROOT/tests/clc/corrupt.c" -ldl || fail "cannot build corrupt.c"
run_plain 4 "$cbin" 3 || fail "clc_mpi without the shim failed"
start=$(date +%s) rc=0
ST_PRELOAD_FIRST=$CORRUPT_LIB ST_ENV="CORRUPT_RANK=1 SYNCTRACE_CLC=off" run_traced "$ST_TMP/bad" 4 "$cbin" 3 || rc=$?
assert_eq "analysis failing: exit code" 0 "$rc"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "analysis failing: the application's stdout differs"
assert_eq "analysis failing: reports" 1 "$(grep -c 'analysis: failed on at least one rank; skipped' "$ST_TMP/err.txt")"
grep -q 'malformed message' "$ST_TMP/err.txt" || fail "analysis failing: no reason: $(head -c 300 "$ST_TMP/err.txt")"
! grep -q 'made no progress\|wait states' "$ST_TMP/err.txt" || fail "analysis failing: waited, or a summary anyway"
[ -e "$ST_TMP/bad/analysis.json" ] && fail "analysis failing: a report written anyway"
[ -e "$ST_TMP/bad/traces.otf2" ] || fail "analysis failing: no archive"
assert_le "analysis failing: seconds" 30 $(( $(date +%s) - start ))

# without CLC: the uncorrected times, said so
ST_ENV="SYNCTRACE_CLC=off" run_traced "$ST_TMP/noclc" 4 "$bin" || fail "waits (CLC off) exited $?"
grep -q 'on uncorrected timestamps (SYNCTRACE_CLC=off)' "$ST_TMP/err.txt" || fail "CLC off not said: $(tail -3 "$ST_TMP/err.txt")"
same "$ST_TMP/noclc" noclc 4

# off: no report
ST_ENV="SYNCTRACE_ANALYZE=off" run_traced "$ST_TMP/off" 4 "$bin" || fail "waits (analysis off) exited $?"
[ -e "$ST_TMP/off/analysis.json" ] && fail "SYNCTRACE_ANALYZE=off wrote a report"
grep -q 'wait states' "$ST_TMP/err.txt" && fail "SYNCTRACE_ANALYZE=off printed a summary"

# hybrid: ompwaits.c with MPI, 2 ranks x 3 threads
command -v clang >/dev/null || skip "clang not installed (hybrid part)"
hbin=$(build_mpi_omp ompwaits_mpi "$ST_ROOT/tests/analysis/ompwaits.c" -DWITH_MPI) || exit 1
ST_ENV="OMP_NUM_THREADS=3 KMP_BLOCKTIME=0" run_traced "$ST_TMP/hyb" 2 "$hbin" ||
    fail "hybrid ompwaits failed: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q '"metric": "omp_' "$ST_TMP/hyb/analysis.json" || fail "hybrid in-run report without OpenMP metrics"
same "$ST_TMP/hyb" hybrid 2 1

# call paths (SYNCTRACE_CALLPATH=1): the parts' function names are merged by name
pbin=$(build_mpi_omp pathwaits "$ST_ROOT/tests/analysis/pathwaits.c" -fno-optimize-sibling-calls) || exit 1
ST_ENV="OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 SYNCTRACE_CALLPATH=1" run_traced "$ST_TMP/cp" 2 "$pbin" ||
    fail "pathwaits failed: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q "\"region\": \"late_sender_victim" "$ST_TMP/cp/analysis.json" || fail "in-run report without the functions"
same "$ST_TMP/cp" callpath 2 1
