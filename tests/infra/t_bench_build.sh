#!/usr/bin/env bash
# The benchmark programs `make bench` compiles still build from today's sources (make check does not
# run the benchmarks), with every MPI family's compiler the bench uses (tests/bench/family.sh:
# mpicc.mpich, mpicc.openmpi; on clang for the OpenMP ones): record_bench.c with the sources its
# "/* link: */" line names, as run-bench.sh builds it, and the MPI programs the bench scripts compile.
# A source file moved or split without the benchmarks' link lines following it fails here, not
# first in `make bench`.
source "$ST_ROOT/tests/lib.sh"
cd "$ST_ROOT"
O=$ST_O
source tests/bench/family.sh
gen=$O/build/gen
# build_family FAM (in a subshell; both families build at once): exit 0 built, 2 compiler not installed
build_family() {
    local fam=$1 out=$ST_TMP/$1 p want
    command -v "mpicc.$fam" >/dev/null || { note "mpicc.$fam not installed: $fam not checked"; exit 2; }
    # fam_use also wants the family's library: the programs build without it
    fam_use "$fam" 2>/dev/null || true
    [ "$FAM" = "$fam" ] || fail "family.sh: fam_use $fam set FAM=$FAM"
    mkdir -p "$out"
    "${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -pthread -I"$gen/$fam" -I"$gen" -Isrc -Iinclude \
        -o "$out/record_bench" tests/bench/record_bench.c $(sed -n 's|^/\* link: \(.*\) \*/$|\1|p' tests/bench/record_bench.c) \
        -lunwind -lpthread -lm >"$out.cc.txt" 2>&1 ||
        fail "record_bench.c does not build with ${FAM_CC[*]}: $(grep -m3 -E 'error|undefined' "$out.cc.txt" | tr '\n' '|')"
    for p in pingpong clc_bench finwait callpath_bench filter_bench rma_bench; do
        "${FAM_CC[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -o "$out/$p" "tests/bench/$p.c" >"$out.cc.txt" 2>&1 ||
            fail "tests/bench/$p.c does not build with ${FAM_CC[*]}: $(head -c 300 "$out.cc.txt")"
    done
    if command -v clang >/dev/null; then
        "${FAM_CC_CLANG[@]}" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -fopenmp -Wl,--no-as-needed \
            -o "$out/omp_bench" tests/bench/omp_bench.c >"$out.cc.txt" 2>&1 ||
            fail "tests/bench/omp_bench.c does not build with ${FAM_CC_CLANG[*]}: $(head -c 300 "$out.cc.txt")"
        # the OpenMP bench makes no MPI call but must be this family's program (the library checks the pairing)
        want=libmpich.so.12
        [ "$fam" = openmpi ] && want=libmpi.so.40
        readelf -d "$out/omp_bench" | grep -q "NEEDED.*\[$want\]" || fail "omp_bench ($fam) does not need $want"
    fi
}
declare -A builder
for fam in mpich openmpi; do
    (build_family "$fam") &
    builder[$fam]=$!
done
built=()
for fam in mpich openmpi; do
    rc=0
    wait "${builder[$fam]}" || rc=$?
    case $rc in
    0) built+=("$fam") ;;
    2) ;;
    *) exit 1 ;; # its FAIL line is already on stderr
    esac
done
[ ${#built[@]} -gt 0 ] || fail "no MPI family's compiler installed"
# user_bench.sh's reading of how far apart the two CPUs are: builds, and prints its line where there are two
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -pthread -o "$ST_TMP/core_to_core" tests/bench/core_to_core.c \
    >"$ST_TMP/cc.txt" 2>&1 || fail "tests/bench/core_to_core.c does not build: $(head -c 300 "$ST_TMP/cc.txt")"
if [ "$(nproc)" -ge 2 ]; then
    line=$("$ST_TMP/core_to_core" 2000) || fail "core_to_core failed on $(nproc) CPUs"
    [[ $line =~ ^core_to_core_ns\ [0-9]+\ [0-9]+\ [0-9]+$ ]] || fail "core_to_core printed '$line'"
fi
# the launch each family's bench uses: -genv for MPICH's hydra, -x for Open MPI
fam_use mpich 2>/dev/null || true
fam_cmd 2 A=1 B=x=y -- prog arg
assert_eq "mpich launch" "mpiexec.mpich -n 2 -genv A 1 -genv B x=y prog arg" "${CMD[*]}"
fam_use openmpi 2>/dev/null || true
fam_cmd 2 A=1 B=x=y -- prog arg
assert_eq "openmpi launch" "mpirun.openmpi --oversubscribe -n 2 -x A=1 -x B=x=y prog arg" "${CMD[*]}"
note "record_bench, pingpong, clc_bench, finwait, callpath_bench, omp_bench build for: ${built[*]}; core_to_core builds"
