#!/usr/bin/env bash
# tests/bench/roundtime_compare.sh, the comparison with IMB-MPI1 and OSU: without their binaries it
# names what it skips and exits 0 without running anything; a binary of the other MPI family is
# refused by name; with stand-ins (fake_compare.c: IMB's and OSU's output formats with known
# figures) its table has IMB's t_max and t_avg and OSU's Max Latency in the right cells, a missing
# OSU benchmark is named and its cells are empty, and synctrace-bench's own figures are there.
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
cd "$ST_ROOT" || exit 1
[ -x "$ST_BIN/synctrace-bench-$ST_MPI" ] || fail "$ST_BIN/synctrace-bench-$ST_MPI not built"
unset IMB_MPI1 IMB_MPI1_MPICH IMB_MPI1_OPENMPI OSU_DIR OSU_DIR_MPICH OSU_DIR_OPENMPI RTC_DATA
export O=$ST_O BENCH_MPI=$ST_MPI RTC_REPS=1 RTC_NP=2 RTC_SLICE=0.05 RTC_TIMEOUT=60
up=${ST_MPI^^}
compare() { bash tests/bench/roundtime_compare.sh >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt"; }

# 1. nothing to compare with
start=$(date +%s)
compare || fail "without IMB/OSU: exit $? ($(head -c 300 "$ST_TMP/err.txt"))"
grep -q "IMB-MPI1 skipped: IMB_MPI1_$up and IMB_MPI1 not set" "$ST_TMP/err.txt" ||
    fail "the IMB skip is not named: $(cat "$ST_TMP/err.txt")"
grep -q "OSU skipped: OSU_DIR_$up and OSU_DIR not set" "$ST_TMP/err.txt" || fail "the OSU skip is not named: $(cat "$ST_TMP/err.txt")"
grep -q "comparison skipped" "$ST_TMP/err.txt" || fail "no 'comparison skipped': $(cat "$ST_TMP/err.txt")"
[ ! -s "$ST_TMP/out.txt" ] || fail "a table without anything to compare: $(head -c 300 "$ST_TMP/out.txt")"
assert_le "seconds taken without anything to compare" 10 $(($(date +%s) - start))

# stand-ins, one binary under five names
mkdir -p "$ST_TMP/fake"
mpi_cc -O1 -o "$ST_TMP/fake/IMB-MPI1" tests/rtbench/fake_compare.c || fail "fake_compare.c does not build"
for op in allreduce bcast barrier; do cp "$ST_TMP/fake/IMB-MPI1" "$ST_TMP/fake/osu_$op"; done

# 2. a binary of the other family is refused (when that family's compiler is there)
other=openmpi
[ "$ST_MPI" = openmpi ] && other=mpich
if command -v "mpicc.$other" >/dev/null; then
    "mpicc.$other" -O1 -o "$ST_TMP/IMB-other" tests/rtbench/fake_compare.c || fail "fake_compare.c does not build with mpicc.$other"
    IMB_MPI1=$ST_TMP/IMB-other compare || fail "other family's IMB: exit $?"
    grep -q "IMB-other is not linked against $ST_MPI's MPI library" "$ST_TMP/err.txt" ||
        fail "the other family's IMB-MPI1 is not refused: $(cat "$ST_TMP/err.txt")"
else
    note "mpicc.$other not installed: the refusal of the other family's binary not checked"
fi

# 3. with stand-ins: IMB through IMB_MPI1 with %f, OSU through the per-family variable
mv "$ST_TMP/fake" "$ST_TMP/fake-$ST_MPI"
export IMB_MPI1="$ST_TMP/fake-%f/IMB-MPI1" "OSU_DIR_$up=$ST_TMP/fake-$ST_MPI" RTC_DATA="$ST_TMP/data.tsv"
compare || fail "with stand-ins: exit $? ($(head -c 400 "$ST_TMP/err.txt"))"
grep -q "osu_alltoall skipped: no $ST_TMP/fake-$ST_MPI/osu_alltoall" "$ST_TMP/err.txt" ||
    fail "the missing osu_alltoall is not named: $(cat "$ST_TMP/err.txt")"
# | MPI | ranks | operation | bytes | Round-Time | barrier scheme | IMB -sync off t_max | IMB t_max | OSU max | IMB t_avg |
cells() { awk -F' [|] ' -v op="$1" -v b="$2" '$3 == op && $4 == b {print $5 "|" $6 "|" $7 "|" $8 "|" $9 "|" $10}' "$ST_TMP/out.txt" | sed 's/ *|$//'; }
check() { # OP BYTES IMB_TMAX OSU_MAX IMB_TAVG
    local c
    c=$(cells "$1" "$2")
    [ -n "$c" ] || fail "no row $1 $2 in the table: $(cat "$ST_TMP/out.txt")"
    IFS='|' read -r rt bar imb0 imb osu avg <<<"$c"
    # a busy machine may leave a short Round-Time slice without a valid round
    [[ $rt =~ ^[0-9.e+]+\ \[ ]] || [ "$rt" = — ] || fail "$1 $2: Round-Time cell '$rt'"
    [ "$rt" != — ] || note "$1 $2: no valid Round-Time round"
    [[ $bar =~ ^[0-9.e+]+\ \[ ]] || fail "$1 $2: barrier scheme cell '$bar'"
    assert_eq "$1 $2: IMB t_max cell" "$3 [$3–$3]" "$imb"
    local t0
    t0=$(awk -v x="$3" 'BEGIN {printf "%.3g", x / 10}')
    assert_eq "$1 $2: IMB -sync off t_max cell" "$t0 [$t0–$t0]" "$imb0"
    assert_eq "$1 $2: OSU max cell" "$4" "$osu"
    assert_eq "$1 $2: IMB t_avg cell" "$5 [$5–$5]" "$avg"
}
check allreduce 8 3 "5 [5–5]" 2
check allreduce 65536 30 "50 [50–50]" 20
check bcast 8 6 "10 [10–10]" 4
check alltoall 65536 90 "—" 60
check barrier "—" 12 "20 [20–20]" 8
# the data file: one figure per operation and size (barrier: one size) of the barrier scheme, IMB's two
# columns and the three OSU benchmarks there are; 2 ranks, repetition 1
n() { awk -F'\t' -v f="$ST_MPI" -v t="$1" '$1 == f && $2 == 2 && $3 == t && $6 == 1' "$ST_TMP/data.tsv" | wc -l; }
assert_eq "barrier scheme figures in RTC_DATA" 7 "$(n bar)"
assert_eq "IMB t_max figures in RTC_DATA" 7 "$(n imb)"
assert_eq "IMB t_avg figures in RTC_DATA" 7 "$(n imbavg)"
assert_eq "IMB -sync off t_max figures in RTC_DATA" 7 "$(n imb0)"
assert_eq "OSU figures in RTC_DATA" 5 "$(n osu)"
