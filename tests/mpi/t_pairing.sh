#!/usr/bin/env bash
# A library of one MPI family in a program of the other (src/mpi/pairing.h), both ways: the job prints
# exactly one synctrace line (naming the program's MPI, the library loaded and the one to use) and
# otherwise runs as it does untraced: same stdout (the program prints its arguments and LD_PRELOAD, so a
# re-executed rank must have kept both, other LD_PRELOAD entries included), same exit status (3), no
# archive directory. Ranks get the library through the launcher (-x / -genv) or inherit it from a
# launcher started with it (which must stay silent). mpi4py (Open MPI, loaded after start) with the
# MPICH library: the same at MPI_Init. A program without MPI is left alone by both libraries (no line,
# no archive); an OpenMP-only one is traced by both.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LD_PRELOAD SYNCTRACE_DIR
for c in mpicc.mpich mpicc.openmpi mpiexec.mpich mpirun.openmpi; do
    command -v "$c" >/dev/null || skip "$c is not installed: a wrong pairing needs both MPI families"
done
libdir=$(readlink -f "$(dirname "$ST_BIN")/lib") # lib/<family>/libsynctrace.so, whichever family ST_LIB names
declare -A lib=([mpich]=$libdir/mpich/libsynctrace.so [openmpi]=$libdir/openmpi/libsynctrace.so)
declare -A title=([mpich]=MPICH [openmpi]="Open MPI")
declare -A soname=([mpich]=libmpich.so.12 [openmpi]=libmpi.so.40)
for f in mpich openmpi; do [ -f "${lib[$f]}" ] || fail "no ${lib[$f]}: build both MPI families first (make)"; done

# build NAME COMPILER SRC [flags...] -> $ST_BUILD/NAME
build() {
    local out=$ST_BUILD/$1 cc=$2 src=$3
    shift 3
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ]; then
        $cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -o "$out" "$src" "$@" || fail "cannot build $src with $cc"
    fi
    echo "$out"
}
declare -A app=([mpich]=$(build pairing_app_mpich mpicc.mpich "$MPI_DIR/pairing_app.c")
                [openmpi]=$(build pairing_app_openmpi mpicc.openmpi "$MPI_DIR/pairing_app.c"))
other=$ST_BUILD/libpairing_other.so # an LD_PRELOAD entry of the user's, which the re-executed ranks keep
[ -f "$other" ] || echo 'int pairing_other;' | gcc -shared -fPIC -o "$other" -x c - || fail "cannot build $other"

# launch FAMILY NAME PRELOAD PROGRAM [ARGS...]: 2 ranks under FAMILY's launcher; the ranks get
# LD_PRELOAD=PRELOAD (unless empty) and SYNCTRACE_DIR=$ST_TMP/archive-NAME through the launcher.
# Leaves NAME.out, NAME.err, NAME.rc in $ST_TMP.
launch() {
    local fam=$1 name=$2 pre=$3 rc=0
    shift 3
    local -a env
    if [ "$fam" = openmpi ]; then
        env=(-x "SYNCTRACE_DIR=$ST_TMP/archive-$name")
        [ -z "$pre" ] || env+=(-x "LD_PRELOAD=$pre")
        timeout -k 10 120 mpirun.openmpi --oversubscribe -n 2 "${env[@]}" "$@" >"$ST_TMP/$name.out" 2>"$ST_TMP/$name.err" || rc=$?
    else
        env=(-genv SYNCTRACE_DIR "$ST_TMP/archive-$name")
        [ -z "$pre" ] || env+=(-genv LD_PRELOAD "$pre")
        timeout -k 10 120 mpiexec.mpich -n 2 "${env[@]}" "$@" >"$ST_TMP/$name.out" 2>"$ST_TMP/$name.err" || rc=$?
    fi
    echo "$rc" >"$ST_TMP/$name.rc"
}

# refused NAME REF PROGRAM PROG_FAMILY ENDING: run NAME printed what the untraced run REF printed, exited
# as it did, and its stderr holds one synctrace line: the refusal of the other family's library, ending
# with ENDING; no archive directory.
refused() {
    local name=$1 ref=$2 prog=$3 pf=$4 ending=$5 lf
    lf=$([ "$pf" = mpich ] && echo openmpi || echo mpich)
    assert_eq "$name: exit status (as untraced)" "$(cat "$ST_TMP/$ref.rc")" "$(cat "$ST_TMP/$name.rc")"
    cmp -s "$ST_TMP/$ref.out" "$ST_TMP/$name.out" ||
        fail "$name: stdout differs from the untraced run: $(diff "$ST_TMP/$ref.out" "$ST_TMP/$name.out" | head -n 6 | tr '\n' '|')"
    local n line
    n=$(grep -c 'synctrace' "$ST_TMP/$name.err" || true)
    assert_eq "$name: lines of stderr naming synctrace" 1 "$n"
    line=$(grep 'synctrace' "$ST_TMP/$name.err")
    [[ $line == "synctrace: error: $prog uses ${title[$pf]} ("*"/${soname[$pf]}) but ${lib[$lf]} is the ${title[$lf]} build of synctrace: preload ${lib[$pf]} instead, or start it with synctrace-run, which chooses the build; $ending" ]] ||
        fail "$name: not the expected line: $line"
    [ ! -e "$ST_TMP/archive-$name" ] || fail "$name: the refused run left $ST_TMP/archive-$name: $(ls -R "$ST_TMP/archive-$name" | head -c 300)"
    note "$name: one line, stdout ($(wc -l <"$ST_TMP/$name.out") lines) and exit status $(cat "$ST_TMP/$name.rc") as untraced, no archive"
}

for pf in openmpi mpich; do # the program's family; the library is the other one
    lf=$([ "$pf" = mpich ] && echo openmpi || echo mpich)
    prog=${app[$pf]}
    launch "$pf" "$pf-plain" "$other" "$prog" 3 "an argument" "x=1"
    assert_eq "$pf program untraced: exit status" 3 "$(cat "$ST_TMP/$pf-plain.rc")"
    grep -q "^ranks 2, sum of ranks 1$" "$ST_TMP/$pf-plain.out" || fail "$pf program untraced printed: $(head -c 300 "$ST_TMP/$pf-plain.out")"
    # the ranks get the library (after the user's own entry) from the launcher's options
    launch "$pf" "$pf-with-$lf" "$other:${lib[$lf]}" "$prog" 3 "an argument" "x=1"
    refused "$pf-with-$lf" "$pf-plain" "$prog" "$pf" "running it untraced"
    # the launcher itself runs with the library (as under synctrace-run) and must stay silent
    launch "$pf" "$pf-plain-bare" "" "$prog" 3 "an argument" "x=1"
    LD_PRELOAD=${lib[$lf]} launch "$pf" "$pf-launcher-with-$lf" "" "$prog" 3 "an argument" "x=1"
    refused "$pf-launcher-with-$lf" "$pf-plain-bare" "$prog" "$pf" "running it untraced"
done

# mpi4py (Debian's, on Open MPI) loads libmpi.so.40 after start: refused at MPI_Init, restarted untraced
if /usr/bin/python3 -c 'import mpi4py' 2>/dev/null; then
    cat >"$ST_TMP/late.py" <<'EOF'
import os, sys
from mpi4py import MPI
c = MPI.COMM_WORLD
s = c.allreduce(c.Get_rank())
if c.Get_rank() == 0:
    print("ranks", c.Get_size(), "sum of ranks", s, "arguments", sys.argv[1:], "LD_PRELOAD", os.environ.get("LD_PRELOAD"))
sys.exit(3)
EOF
    launch openmpi py-plain "" /usr/bin/python3 "$ST_TMP/late.py" a "b c"
    assert_eq "mpi4py untraced: exit status" 3 "$(cat "$ST_TMP/py-plain.rc")"
    launch openmpi py-with-mpich "${lib[mpich]}" /usr/bin/python3 "$ST_TMP/late.py" a "b c"
    refused py-with-mpich py-plain /usr/bin/python3 openmpi "restarting it untraced"
else
    note "no python3-mpi4py: the refusal at MPI_Init of an MPI loaded late is not tested"
fi

# Without MPI: left alone (no line, no archive); OpenMP-only: traced by either library.
nompi=$(build pairing_nompi gcc "$MPI_DIR/pairing_nompi.c")
"$nompi" 5 x >"$ST_TMP/nompi-plain.out" 2>&1 && fail "the program without MPI exited 0, not 5" || true
for f in mpich openmpi; do
    rc=0
    LD_PRELOAD=${lib[$f]} SYNCTRACE_DIR=$ST_TMP/archive-nompi-$f "$nompi" 5 x >"$ST_TMP/nompi-$f.out" 2>"$ST_TMP/nompi-$f.err" || rc=$?
    assert_eq "no MPI with the $f library: exit status" 5 "$rc"
    cmp -s "$ST_TMP/nompi-plain.out" "$ST_TMP/nompi-$f.out" || fail "no MPI with the $f library: stdout differs"
    [ ! -s "$ST_TMP/nompi-$f.err" ] || fail "no MPI with the $f library: stderr: $(head -c 300 "$ST_TMP/nompi-$f.err")"
    [ ! -e "$ST_TMP/archive-nompi-$f" ] || fail "no MPI with the $f library: an archive directory appeared"
done
note "no MPI: both libraries silent, no archive, stdout and exit status 5 as untraced"
# Through synctrace-run, which asked for an archive: one line says why none was written.
rc=0
"$ST_BIN/synctrace-run" -o "$ST_TMP/archive-nompi-run" "$nompi" 5 x >"$ST_TMP/nompi-run.out" 2>"$ST_TMP/nompi-run.err" || rc=$?
assert_eq "no MPI under synctrace-run: exit status" 5 "$rc"
cmp -s "$ST_TMP/nompi-plain.out" "$ST_TMP/nompi-run.out" || fail "no MPI under synctrace-run: stdout differs"
assert_eq "no MPI under synctrace-run: lines on stderr" 1 "$(wc -l <"$ST_TMP/nompi-run.err")"
grep -q "no archive written to $ST_TMP/archive-nompi-run: no program on the command line loads an MPI library" \
    "$ST_TMP/nompi-run.err" || fail "no MPI under synctrace-run: $(head -c 300 "$ST_TMP/nompi-run.err")"
[ ! -e "$ST_TMP/archive-nompi-run" ] || fail "no MPI under synctrace-run: an archive directory appeared"
note "no MPI under synctrace-run: one line, no archive, exit status 5"
if command -v clang >/dev/null; then
    omp=$(build pairing_omp clang "$MPI_DIR/pairing_nompi.c" -fopenmp)
    "$omp" 5 x >"$ST_TMP/omp-plain.out" 2>&1 && fail "the OpenMP program exited 0, not 5" || true
    for f in mpich openmpi; do
        rc=0
        LD_PRELOAD=${lib[$f]} SYNCTRACE_DIR=$ST_TMP/archive-omp-$f "$omp" 5 x >"$ST_TMP/omp-$f.out" 2>"$ST_TMP/omp-$f.err" || rc=$?
        assert_eq "OpenMP-only with the $f library: exit status" 5 "$rc"
        cmp -s "$ST_TMP/omp-plain.out" "$ST_TMP/omp-$f.out" || fail "OpenMP-only with the $f library: stdout differs"
        [ -f "$ST_TMP/archive-omp-$f/traces.otf2" ] || fail "OpenMP-only with the $f library: no archive: $(head -c 300 "$ST_TMP/omp-$f.err")"
        ! grep -q 'synctrace: error' "$ST_TMP/omp-$f.err" || fail "OpenMP-only with the $f library: $(grep 'synctrace: error' "$ST_TMP/omp-$f.err")"
    done
    note "OpenMP-only: traced by both libraries"
fi
