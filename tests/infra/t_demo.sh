#!/usr/bin/env bash
# t_demo.sh — `make demo`'s script end to end with the real library, for every MPI family built
# (lib/<fam>/libsynctrace.so): `make demo` (the default family, MPICH when built) and
# `make demo MPI=openmpi`. Each builds and traces the bundled hybrid example (2 ranks x 2
# threads) with the family's compiler and launcher, within 30 s; the archive is valid OTF2,
# `synctrace info` printed a summary, the example computed exactly what it computes untraced
# (run with the same family's launcher), and its weak synctrace.h calls were resolved by the
# preloaded library. Under Open MPI as root the demo says that it set Open MPI's root variables.
source "$ST_ROOT/tests/lib.sh"

O=$ST_O
fams=()
for f in mpich openmpi; do
    [ -f "$O/lib/$f/libsynctrace.so" ] && command -v "mpicc.$f" >/dev/null && fams+=("$f")
done
[ ${#fams[@]} -gt 0 ] || fams=(mpich) # a build from before the per-family libraries
for f in mpich openmpi; do
    [[ " ${fams[*]} " == *" $f "* ]] || note "$f: not built here, its demo not checked"
done

# demo FAMILY ("" = make demo's default): runs scripts/demo.sh, checks as above
demo() {
    local fam=$1 want=${1:-mpich} dir=$ST_TMP/trace-${1:-default} out=$ST_TMP/demo-${1:-default}.txt start elapsed
    start=$(date +%s)
    # the demo must work without the variables the tests set for Open MPI
    env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM O="$O" DEMO_MPI="$fam" \
        bash "$ST_ROOT/scripts/demo.sh" "$dir" >"$out" 2>&1 || fail "demo ${fam:-(default)} failed: $(tail -n 20 "$out")"
    elapsed=$(($(date +%s) - start))
    note "demo ${fam:-(default)} took $elapsed s"
    assert_le "demo ${fam:-(default)} seconds" 30 "$elapsed"
    grep -q "^\[1/4\] checking the tools and the build (MPI family: $want)" "$out" ||
        fail "demo ${fam:-(default)} did not run under $want: $(grep -m1 '^\[1/4\]' "$out")"
    grep -q "library  $O/lib/$want/libsynctrace.so\$" "$out" || [ ! -f "$O/lib/$want/libsynctrace.so" ] ||
        fail "demo ${fam:-(default)} names another library: $(grep -m1 'library  ' "$out")"
    grep -q '^\[4/4\] summary' "$out" || fail "demo ${fam:-(default)} did not reach the summary step"
    grep -q 'hybrid_demo: clock synctrace global (traced)' "$out" ||
        fail "synctrace_global_time_ns not resolved in the traced example ($want): $(grep hybrid_demo: "$out")"
    if [ "$want" = openmpi ] && [ "$(id -u)" = 0 ]; then
        grep -q 'running as root: the demo sets OMPI_ALLOW_RUN_AS_ROOT=1' "$out" ||
            fail "the Open MPI demo as root does not say that it set Open MPI's root variables"
    fi
    otf2_ok "$dir"
    st info "$dir" >"$ST_TMP/info.txt" 2>&1 || fail "synctrace info ($want): $(head -c 300 "$ST_TMP/info.txt")"
    [ -s "$ST_TMP/info.txt" ] || fail "synctrace info printed nothing ($want)"

    # same numbers untraced (the tool must not change what the application computes)
    local exe=$O/build/examples/$want/hybrid_demo launch=(mpiexec.mpich)
    [ "$want" = openmpi ] && launch=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi --oversubscribe)
    OMP_NUM_THREADS=2 KMP_BLOCKTIME=0 timeout -k 10 120 "${launch[@]}" -n 2 "$exe" >"$ST_TMP/plain.txt" 2>&1 ||
        fail "untraced run ($want) failed: $(tail -n 5 "$ST_TMP/plain.txt")"
    assert_eq "results traced vs untraced ($want)" "$(grep -E 'residual' "$ST_TMP/plain.txt")" "$(grep -E 'residual' "$out")"
    grep -q 'clock MPI_Wtime (not traced)' "$ST_TMP/plain.txt" || fail "untraced run claims to be traced ($want)"
}

demo ""
for f in "${fams[@]}"; do
    [ "$f" = mpich ] || demo "$f"
done
echo ok
