#!/usr/bin/env bash
# bin/synctrace links no MPI library, and `synctrace analyze` without a launcher loads none; under
# each MPI family's launcher (mpiexec.mpich, mpirun.openmpi) `synctrace analyze DIR -o OUT` over 2 and
# 4 processes loads that family's plugin (lib/<family>/synctrace-analyze-mpi.so, linked to that
# family's MPI and to no other) and writes, byte for byte, the serial command's analysis.json and
# .cubex, its report printed once. The archive (mkarchive, 4 ranks) has Late Senders inside and
# across the blocks of ranks of the processes, a Barrier and an Allreduce with waits: exact values.
# 4 processes on this 2-core machine are crowded: the plugin's polite waits must carry the exchanges.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"
source "$ST_ROOT/tests/cli/families.sh"

# no MPI in the executable, nor loaded by the serial command
ldd "$ST_BIN/synctrace" >"$ST_TMP/ldd.txt" || fail "ldd $ST_BIN/synctrace failed"
! grep -Eq 'libmpi|libmpich|libopen-(rte|pal)|libpmi' "$ST_TMP/ldd.txt" ||
    fail "bin/synctrace is linked with an MPI library: $(grep -E 'libmpi|libmpich|libopen-|libpmi' "$ST_TMP/ldd.txt" | tr '\n' ' ')"
grep -q 'libopen-trace-format2' "$ST_TMP/ldd.txt" || fail "ldd shows no libotf2: $(head -c 300 "$ST_TMP/ldd.txt")"

mk a <<'S'
ranks 4
# Late Senders: rank 0 -> 3 (across the two processes' blocks {0,1} {2,3}), 3 -> 2 (inside one)
0.0 250 enter MPI_Send
0.0 300 send 3 0 7 8
0.0 310 leave MPI_Send
3.0 100 enter MPI_Recv
3.0 320 recv 0 0 7 8
3.0 330 leave MPI_Recv
3.0 400 enter MPI_Send
3.0 450 send 2 0 9 16
3.0 460 leave MPI_Send
2.0 100 enter MPI_Recv
2.0 470 recv 3 0 9 16
2.0 480 leave MPI_Recv
1.0 100 enter MPI_Send
1.0 110 send 2 0 4 32
1.0 120 leave MPI_Send
2.0 500 enter MPI_Recv
2.0 510 recv 1 0 4 32
2.0 520 leave MPI_Recv
# a Barrier, then an Allreduce, everyone waiting for the last
0.0 400 enter MPI_Barrier
0.0 405 coll_begin
0.0 900 coll_end barrier 0 - 0 0
0.0 910 leave MPI_Barrier
1.0 600 enter MPI_Barrier
1.0 605 coll_begin
1.0 900 coll_end barrier 0 - 0 0
1.0 910 leave MPI_Barrier
2.0 700 enter MPI_Barrier
2.0 705 coll_begin
2.0 900 coll_end barrier 0 - 0 0
2.0 910 leave MPI_Barrier
3.0 880 enter MPI_Barrier
3.0 885 coll_begin
3.0 900 coll_end barrier 0 - 0 0
3.0 910 leave MPI_Barrier
0.0 1000 enter MPI_Allreduce
0.0 1001 coll_begin
0.0 1500 coll_end allreduce 0 - 8 8
0.0 1510 leave MPI_Allreduce
1.0 1200 enter MPI_Allreduce
1.0 1201 coll_begin
1.0 1500 coll_end allreduce 0 - 8 8
1.0 1510 leave MPI_Allreduce
2.0 1300 enter MPI_Allreduce
2.0 1301 coll_begin
2.0 1500 coll_end allreduce 0 - 8 8
2.0 1510 leave MPI_Allreduce
3.0 1450 enter MPI_Allreduce
3.0 1451 coll_begin
3.0 1500 coll_end allreduce 0 - 8 8
3.0 1510 leave MPI_Allreduce
S

# the serial analysis, with LD_DEBUG listing every object loaded: no plugin, no MPI
for ext in json cubex; do
    LD_DEBUG=files "$ST_BIN/synctrace" analyze "$ST_TMP/a" -o "$ST_TMP/serial.$ext" >"$ST_TMP/serial.$ext.txt" \
        2>"$ST_TMP/serial-ld.txt" || fail "serial analyze -o .$ext failed: $(grep -v '^ *[0-9]*:' "$ST_TMP/serial-ld.txt" | tail -3)"
    grep -q 'file=libopen-trace-format2' "$ST_TMP/serial-ld.txt" || fail "LD_DEBUG=files lists no libotf2: no proof"
    ! grep -E 'file=([^ ]*/)?(libmpi|libmpich|libopen-(rte|pal)|libpmi|synctrace-analyze)' "$ST_TMP/serial-ld.txt" >&2 ||
        fail "the serial analyze loaded an MPI library or plugin (above)"
done
# exact values (s): Late Sender 300 ns at rank 2 (from 3), 150 ns at rank 3 (from 0); Barrier waits
# 480, 280, 180 ns at ranks 0-2; N x N waits 450, 250, 150 ns
python3 - "$ST_TMP/serial.json" <<'PY' || fail "the serial analysis has not the archive's wait states"
import json, sys
d = json.load(open(sys.argv[1]))
got = {}
for v in d["values"]:
    if v["metric"] in ("mpi_latesender", "mpi_barrier_wait", "mpi_wait_nxn") and v["value"]:
        got[(v["metric"], v["location"])] = round(v["value"] * 1e9)
want = {("mpi_latesender", 2): 300, ("mpi_latesender", 3): 150,
        ("mpi_barrier_wait", 0): 480, ("mpi_barrier_wait", 1): 280, ("mpi_barrier_wait", 2): 180,
        ("mpi_wait_nxn", 0): 450, ("mpi_wait_nxn", 1): 250, ("mpi_wait_nxn", 2): 150}
if got != want:
    sys.exit(f"serial analysis: {sorted(got.items())}, expected {sorted(want.items())}")
PY

fams=$(families_built)
for fam in $fams; do
    # the plugin needs its own family's MPI and no other
    readelf -d "$(plugin "$fam")" >"$ST_TMP/$fam-dyn.txt" || fail "readelf -d $(plugin "$fam") failed"
    case $fam in
    mpich) want=libmpich.so.12 other=libmpi.so.40 ;;
    openmpi) want=libmpi.so.40 other=libmpich.so.12 ;;
    esac
    grep -q "NEEDED.*\[$want\]" "$ST_TMP/$fam-dyn.txt" || fail "$fam's plugin does not need $want"
    ! grep -q "NEEDED.*\[$other\]" "$ST_TMP/$fam-dyn.txt" || fail "$fam's plugin needs $other, the other family's"
    # the polite waits live in the plugin, with the MPI calls they wait on
    nm -D --defined-only "$(plugin "$fam")" | grep -q ' st_polite_wait_crowded$' ||
        fail "$fam's plugin has no polite wait"
    for n in 2 4; do
        for ext in json cubex; do
            out=$ST_TMP/$fam-par$n.$ext
            launch "$fam" "$n" "$ST_BIN/synctrace" analyze "$ST_TMP/a" -o "$out" >"$out.txt" 2>"$out.err" ||
                fail "$fam: synctrace analyze over $n processes failed: $(tail -n 3 "$out.err")"
            cmp -s "$out" "$ST_TMP/serial.$ext" ||
                fail "$fam: analysis.$ext over $n processes differs from the serial one"
            # the report printed once, as serially (but for the file's name), then the parallel run's timing
            head -n -1 "$ST_TMP/serial.$ext.txt" | sed "s|$ST_TMP/serial.$ext|OUT|" >"$ST_TMP/serial-report.txt"
            head -n -1 "$out.txt" | sed "s|$out|OUT|" >"$ST_TMP/par-report.txt"
            cmp -s "$ST_TMP/serial-report.txt" "$ST_TMP/par-report.txt" ||
                fail "$fam, $n processes: the printed report differs: $(diff "$ST_TMP/serial-report.txt" "$ST_TMP/par-report.txt" | head -n 4 | tr '\n' '|')"
            grep -q "^analysis of 50 events: .* ms, in parallel over $n processes$" "$out.txt" ||
                fail "$fam, $n processes: no line 'analysis of 50 events ... in parallel over $n processes': $(tail -n 1 "$out.txt")"
            ! grep -q . "$out.err" || fail "$fam, $n processes: stderr not empty: $(head -n 3 "$out.err")"
        done
    done
    note "$fam: parallel analysis over 2 and 4 processes == serial (json, cubex)"
done
