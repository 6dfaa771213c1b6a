#!/usr/bin/env bash
# The metric tree holds as a whole against the run (docs/analysis.md, "Consistency of the metric
# tree"), with and without SYNCTRACE_CALLPATH=1, on deep call paths (treewalk.*: MPI calls 4-6 frames
# deep, recursion, one function from two callers, OpenMP regions inside functions) of an MPI-only C
# program (mpi_cc), a hybrid one (clang, LLVM libomp), a Fortran one (mpi_f90) and a C++ one (mpi_cxx
# with clang++, libomp), 2 ranks x 2 threads: the analysis' own check (SYNCTRACE_ANALYZE_CHECK=fail,
# tests/lib.sh) finds nothing in the run or offline; analysis.json in-run (at MPI_Finalize), offline
# (`synctrace analyze`) and offline in parallel (`synctrace analyze` on 2 processes of the launcher) are one file; and
# anacheck.py's `whole` holds on it: on every location Time over all call paths adds up to the
# location's span (first to last event in `synctrace dump`; a worker thread: its master's), at every
# (call path, location) a parent holds its children (exactly where Scalasca's is their sum), a
# thread's Idle threads less Limited parallelism is at most its master's Time outside parallel
# regions; with call paths the deep paths are in the tree. The cube holds the JSON's values.
source "$ST_ROOT/tests/lib.sh"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"
for tool in clang clang++ "$MPI_F90" "$MPI_CXX"; do command -v "$tool" >/dev/null || skip "$tool not installed"; done
src=$ST_ROOT/tests/analysis
# no sibling calls: every function keeps its frame, so the paths are the source's
declare -A BIN
BIN[c]=$(build_mpi_c treewalk "$src/treewalk.c" -fno-optimize-sibling-calls) || exit 1
BIN[h]=$(build_mpi_omp treewalk_omp "$src/treewalk.c" -fno-optimize-sibling-calls) || exit 1
BIN[f]=$(build_mpi_f90 treewalk_f "$src/treewalk.f90" -fno-optimize-sibling-calls) || exit 1
BIN[cc]=$ST_BUILD/treewalk_cc
if [ ! -x "${BIN[cc]}" ] || [ "$src/treewalk.cc" -nt "${BIN[cc]}" ]; then
    mpi_cxx_clang -std=c++17 -O1 -g -Wall -Wextra -Werror -fopenmp -fno-optimize-sibling-calls \
        -o "${BIN[cc]}" "$src/treewalk.cc" || fail "cannot build treewalk.cc"
fi
# with call paths, paths that must be in the tree (whole paths; a frame is matched by a part of its
# name: Fortran module procedures and C++ member functions carry more; the compiler's outlined body
# of a parallel region is no frame: the region stands for it)
f() { echo "[^/]*$1[^/]*"; }
PATHS_c=("main/phase_a/work/exchange/MPI_Sendrecv" "main/phase_b/work/exchange/MPI_Sendrecv"
         "main(/descend){6}/MPI_Allreduce")
PATHS_h=("${PATHS_c[@]}" "main/hybrid_step/exchange/MPI_Sendrecv"
         "main/hybrid_step/parallel_part/!\\\$omp parallel/team_critical/!\\\$omp critical"
         "!\\\$omp parallel/team_barrier/!\\\$omp barrier")
PATHS_f=("main/.*$(f phase_a)/$(f work)/$(f exchange)/MPI_Sendrecv"
         "main/.*$(f phase_b)/$(f work)/$(f exchange)/MPI_Sendrecv" "main/.*(/$(f descend)){6}/MPI_Allreduce")
PATHS_cc=("main/$(f step)/$(f phase_a)/$(f work)/$(f exchange)/MPI_Sendrecv"
          "main/$(f step)/$(f phase_b)/$(f work)/$(f exchange)/MPI_Sendrecv"
          "main/$(f step)(/$(f descend)){5}/MPI_Allreduce"
          "main/$(f step)/$(f threads)/!\\\$omp parallel/!\\\$omp critical")

for p in c h f cc; do
    for cp in 0 1; do
        run=$p-callpath$cp dir=$ST_TMP/$p-callpath$cp
        ST_ENV="OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 SYNCTRACE_CALLPATH=$cp" run_traced "$dir" 2 "${BIN[$p]}" \
            || fail "$run: exited $?: $(tail -n 3 "$ST_TMP/err.txt")"
        grep -qx done "$ST_TMP/out.txt" || fail "$run printed: $(head -c 200 "$ST_TMP/out.txt")"
        ! grep -q "metric tree does not hold" "$ST_TMP/err.txt" ||
            fail "$run, in-run: $(grep "metric tree" "$ST_TMP/err.txt")"
        [ -s "$dir/analysis.json" ] || fail "$run: no in-run analysis.json: $(tail -n 3 "$ST_TMP/err.txt")"
        cp "$dir/analysis.json" "$ST_TMP/$run-inrun.json"
        st analyze "$dir" >"$ST_TMP/$run-summary.txt" 2>&1 ||
            fail "$run: analyze failed: $(tail -n 3 "$ST_TMP/$run-summary.txt")"
        cmp -s "$ST_TMP/$run-inrun.json" "$dir/analysis.json" || fail "$run: in-run and offline analysis.json differ"
        same_in_parallel "$run" "$dir" "$dir/analysis.json" "$ST_TMP/$run-par.json"
        st dump --json "$dir" >"$ST_TMP/$run-dump.json" || fail "$run: dump failed"
        paths=()
        if [ $cp = 1 ]; then v=PATHS_$p[@]; paths=("${!v}"); fi
        python3 "$src/anacheck.py" "$dir/analysis.json" whole "$ST_TMP/$run-dump.json" "${paths[@]}" \
            >"$ST_TMP/$run-check.txt" || fail "$run: $(head -n 4 "$ST_TMP/$run-check.txt" | tr '\n' '|')"
        note "$run: $(cat "$ST_TMP/$run-check.txt")"
        python3 "$src/cubecheck.py" "$dir/analysis.cubex" "$dir/analysis.json" >"$ST_TMP/$run-cube.txt" 2>&1 \
            || fail "$run: analysis.cubex does not hold analysis.json's values: $(tail -n 2 "$ST_TMP/$run-cube.txt")"
    done
done
exit 0
