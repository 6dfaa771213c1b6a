#!/usr/bin/env bash
# Hybrid MPI + OpenMP (hybrid.c: constructs.c on every rank, then MPI_Sendrecv from every
# thread under MPI_THREAD_MULTIPLE), built with clang and with gcc (run through
# synctrace-run, which puts LLVM's GOMP stand-in in front of gcc's libgomp), 2-4 ranks x
# 2-3 threads. The application's output is unchanged; the archive passes otf2-print and
# `synctrace check`; per rank the OpenMP events match the model exactly (ompcheck.py),
# fork/join, barriers, locks and tasks are ordered in time, and each thread's MPI call is
# on its own location.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/omp/common.sh"
need_omp_tools

run_case() { # NAME BIN NP T [launcher...]
    local name=$1 bin=$2 np=$3 t=$4 dir=$ST_TMP/$1
    shift 4
    mpi_run -t 300 -n "$np" "$bin" -t "$t" >"$ST_TMP/plain.txt" 2>"$ST_TMP/plain-err.txt" ||
        fail "$name without the shim failed: $(tail -n 3 "$ST_TMP/plain-err.txt")"
    if [ $# -gt 0 ]; then
        mpi_cmd -n "$np" "$bin" -t "$t"
        timeout -k 10 300 "$@" -o "$dir" "${MPI_CMD[@]}" >"$ST_TMP/out.txt" 2>"$ST_TMP/err.txt" ||
            fail "$name traced failed: $(tail -n 5 "$ST_TMP/err.txt")"
    else
        ST_TIMEOUT=300 run_traced "$dir" "$np" "$bin" -t "$t" || fail "$name traced failed: $(tail -n 5 "$ST_TMP/err.txt")"
    fi
    cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "$name: output differs with the shim"
    omp_verify "$dir" "$ST_TMP/out.txt" "$np" --mpi-region MPI_Sendrecv
    note "$name: $np ranks x $t threads ok"
}

clang_bin=$(build_omp omp-hybrid-clang mpi_cc_clang "$OMP_DIR/hybrid.c" "$OMP_DIR/constructs.c")
gcc_bin=$(build_omp omp-hybrid-gcc mpi_cc "$OMP_DIR/hybrid.c" "$OMP_DIR/constructs.c")
[[ $(ldd "$gcc_bin") == *libgomp.so.1* ]] || fail "$gcc_bin does not use libgomp"
run_case clang-2x3 "$clang_bin" 2 3
run_case clang-4x2 "$clang_bin" 4 2
run_case gcc-3x2 "$gcc_bin" 3 2 "$ST_BIN/synctrace-run"
