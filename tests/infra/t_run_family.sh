#!/usr/bin/env bash
# t_run_family.sh — how bin/synctrace-run chooses the library of the program's MPI family, on a
# fake tree (bin/ + lib/mpich/, lib/openmpi/, lib/libsynctrace.so -> mpich/) whose libraries are
# probes that say which one was loaded. Checks: the family from the program's loaded libraries (C
# and Fortran programs of MPICH and Open MPI), from the launcher for an interpreter (python3 -c),
# by the launcher's name, its symlink or its --version; --mpi; --print-lib; one error line naming
# what is there when the family's library is missing; the exact argv Open MPI's mpirun receives
# (-x settings right after its name, mpirun itself without the shim) and none added for MPICH's
# mpiexec; the ranks of a real mpirun.openmpi getting the Open MPI library and SYNCTRACE_DIR.
source "$ST_ROOT/tests/lib.sh"

[ -x "$ST_BIN/synctrace-run" ] || fail "$ST_BIN/synctrace-run not built"
for c in mpicc.mpich mpicc.openmpi mpiexec.mpich mpirun.openmpi; do
    command -v "$c" >/dev/null || fail "$c not found (scripts/install-deps.sh installs MPICH and Open MPI)"
done
T=$ST_TMP
mkdir -p "$T/tree/bin" "$T/tree/lib/mpich" "$T/tree/lib/openmpi" "$T/tree/lib/gomp" "$T/fake" "$T/user"
cp "$ST_BIN/synctrace-run" "$T/tree/bin/"
RUN=$T/tree/bin/synctrace-run
LIBM=$T/tree/lib/mpich/libsynctrace.so
LIBO=$T/tree/lib/openmpi/libsynctrace.so
LIBD=$T/tree/lib/libsynctrace.so
cd "$T"
# the runner's SYNCTRACE_* settings would show in the launcher's argv
for v in $(compgen -e SYNCTRACE_); do unset "$v"; done

# ---- probe libraries (no MPI of their own), programs of each family ---------------------------
cat >probe_lib.c <<'EOF'
const char *st_probe_who(void);
const char *st_probe_who(void) { return WHO; }
EOF
gcc -shared -fPIC -DWHO='"mpich"' -o "$LIBM" probe_lib.c || fail "cannot build probe lib"
gcc -shared -fPIC -DWHO='"openmpi"' -o "$LIBO" probe_lib.c || fail "cannot build probe lib"
gcc -shared -fPIC -DWHO='"user"' -o user/libskew.so probe_lib.c || fail "cannot build user lib"
ln -s mpich/libsynctrace.so "$LIBD"
ln -s "$(readlink -f "$(clang -print-file-name=libomp.so.5)")" "$T/tree/lib/gomp/libgomp.so.1"

# app: links its MPI library (MPI_Initialized is callable before MPI_Init) and prints what it
# sees, without starting MPI: the ranks of a launcher run it as a plain process each.
cat >app.c <<'EOF'
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static const char *env(const char *n) { const char *v = getenv(n); return v ? v : "(unset)"; }
int main(void)
{
    int up = 0, n = 0;
    MPI_Initialized(&up);
#pragma omp parallel reduction(+ : n) num_threads(1)
    n += 1; /* with -fopenmp: a program that needs libgomp */
    const char *(*who)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "st_probe_who");
    printf("rank=%s who=%s SYNCTRACE_DIR=%s\n", env("OMPI_COMM_WORLD_RANK"), who ? who() : "(none)",
           env("SYNCTRACE_DIR"));
    return up + n - 1;
}
EOF
mpicc.mpich -o app_mpich app.c -ldl || fail "cannot build the MPICH program"
mpicc.openmpi -o app_ompi app.c -ldl || fail "cannot build the Open MPI program"
mpicc.openmpi -fopenmp -o app_ompi_gomp app.c -ldl || fail "cannot build the Open MPI + libgomp program"
printf 'program p\n  use mpi\n  integer :: ierr\n  call MPI_Init(ierr)\n  call MPI_Finalize(ierr)\nend program\n' >f.f90
fortran=
for fam in mpich openmpi; do
    if command -v "mpif90.$fam" >/dev/null; then
        "mpif90.$fam" -o "f_$fam" f.f90 || fail "cannot build the $fam Fortran program"
        fortran+=" $fam"
    else
        note "no mpif90.$fam: its Fortran program is not checked"
    fi
done
lib_of() { "$RUN" --print-lib "$@"; }

# ---- the family from the program --------------------------------------------------------------
assert_eq "MPICH C program" "$LIBM" "$(lib_of ./app_mpich)"
assert_eq "Open MPI C program" "$LIBO" "$(lib_of ./app_ompi)"
assert_eq "Open MPI program behind mpiexec.mpich's options" "$LIBO" \
    "$(lib_of mpiexec.mpich -np 4 -bind-to core ./app_ompi 2>/dev/null)"
for fam in $fortran; do
    want=$LIBM; [ $fam = mpich ] || want=$LIBO
    assert_eq "$fam Fortran program (its MPI through the Fortran library)" "$want" "$(lib_of ./f_$fam)"
done
assert_eq "no MPI, no launcher: the default library" "$LIBD" "$(lib_of /bin/true)"
assert_eq "no program: the default library" "$LIBD" "$(lib_of)"
"$RUN" -v --print-lib mpirun.openmpi -n 4 --bind-to core ./app_ompi >/dev/null 2>e1.txt
grep -qxF "synctrace-run: MPI family openmpi (Open MPI): ./app_ompi needs libmpi.so.40" e1.txt \
    || fail "-v does not say which family and why: $(cat e1.txt)"

# ---- the family from the launcher: an interpreter loads its MPI late ---------------------------
assert_eq "python3 under mpirun.openmpi" "$LIBO" "$(lib_of mpirun.openmpi -n 2 python3 -c 'import sys')"
assert_eq "python3 under mpiexec.mpich" "$LIBM" "$(lib_of mpiexec.mpich -n 2 python3 -c 'import sys')"
assert_eq "python3 under orterun" "$LIBO" "$(lib_of orterun -n 2 python3 -c 'import sys')"
assert_eq "a script under mpiexec.hydra" "$LIBM" "$(lib_of mpiexec.hydra -n 2 "$RUN" -h)"
# a plain name: through the symlink (Debian's alternatives), or by what --version says
ln -s "$(command -v mpirun.openmpi)" fake/mpiexec
assert_eq "symlinked mpiexec" "$LIBO" "$(PATH=$T/fake:$PATH lib_of mpiexec -n 2 python3 -c 'import sys')"
rm fake/mpiexec
# fake launchers: print their arguments one per line, their LD_PRELOAD and LD_LIBRARY_PATH
fake_launcher() { # NAME VERSION-LINE
    printf '#!/bin/sh\nif [ "$1" = --version ]; then echo "%s"; exit 0; fi\n' "$2" >"fake/$1"
    cat >>"fake/$1" <<'EOF'
for a in "$@"; do echo "arg:$a"; done
echo "launcher LD_PRELOAD=${LD_PRELOAD:-(unset)}"
echo "launcher LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-(unset)}"
EOF
    chmod +x "fake/$1"
}
fake_launcher mpirun "mpirun (Open MPI) 4.1.4"
fake_launcher mpiexec "HYDRA build details:"
fake_launcher mpirun.site "srun: unknown"
assert_eq "mpirun whose --version says Open MPI" "$LIBO" "$(PATH=$T/fake:$PATH lib_of mpirun -n 2 python3 -c 'import sys')"
assert_eq "mpiexec whose --version says HYDRA" "$LIBM" "$(PATH=$T/fake:$PATH lib_of mpiexec -n 2 python3 -c 'import sys')"
PATH=$T/fake:$PATH "$RUN" -v --print-lib mpirun.site -n 2 python3 -c 'import sys' >o2.txt 2>e2.txt
assert_eq "an unknown launcher: the default library" "$LIBD" "$(cat o2.txt)"
grep -q "launcher mpirun.site: MPI family unknown" e2.txt || fail "-v does not say the launcher is unknown: $(cat e2.txt)"
"$RUN" --print-lib mpiexec.mpich -n 1 ./app_ompi 2>e3.txt >/dev/null
grep -q "warning: ./app_ompi is an Open MPI program but the launcher mpiexec.mpich is MPICH's" e3.txt \
    || fail "no warning for an Open MPI program under MPICH's launcher: $(cat e3.txt)"

# ---- --mpi -------------------------------------------------------------------------------------
assert_eq "--mpi mpich overrides" "$LIBM" "$(lib_of --mpi mpich ./app_ompi)"
assert_eq "--mpi=openmpi overrides" "$LIBO" "$("$RUN" --mpi=openmpi --print-lib ./app_mpich)"
assert_eq "--mpi openmpi without a program" "$LIBO" "$("$RUN" --mpi openmpi --print-lib)"
set +e
"$RUN" --mpi lam ./app_mpich >o4.txt 2>e4.txt; rc=$?
set -e
assert_eq "bad --mpi" 2 "$rc"
assert_eq "bad --mpi: one line" "synctrace-run: error: --mpi 'lam' is not an MPI family; accepted: mpich, openmpi" "$(cat e4.txt)"
[ ! -s o4.txt ] || fail "the program ran after a bad --mpi"

# ---- the exact argv of Open MPI's mpirun; nothing added for MPICH's mpiexec --------------------
LD_PRELOAD=$T/user/libskew.so SYNCTRACE_VERBOSE=1 SYNCTRACE_CLC=off PATH=$T/fake:$PATH \
    "$RUN" -o arch1 mpirun -n 2 ./app_ompi >o5.txt || fail "run under the fake Open MPI mpirun failed"
expected="arg:-x
arg:LD_PRELOAD=$T/user/libskew.so:$LIBO
arg:-x
arg:SYNCTRACE_DIR=$T/arch1
arg:-x
arg:SYNCTRACE_CLC=off
arg:-x
arg:SYNCTRACE_VERBOSE=1
arg:-x
arg:LIBOMP_USE_HIDDEN_HELPER_TASK=0
arg:-n
arg:2
arg:./app_ompi
launcher LD_PRELOAD=$T/user/libskew.so"
assert_eq "Open MPI mpirun's argv and its own LD_PRELOAD" "$expected" "$(grep -v LD_LIBRARY_PATH o5.txt)"
# a gcc OpenMP program: the GOMP stand-in goes with -x too
LD_LIBRARY_PATH=/nonexistent PATH=$T/fake:$PATH "$RUN" mpirun -n 2 ./app_ompi_gomp >o6.txt \
    || fail "gomp run under the fake mpirun failed"
assert_eq "Open MPI mpirun's argv with the GOMP stand-in" "arg:-x
arg:LD_PRELOAD=$LIBO
arg:-x
arg:LD_LIBRARY_PATH=$T/tree/lib/gomp:/nonexistent
arg:-x
arg:LIBOMP_USE_HIDDEN_HELPER_TASK=0
arg:-n
arg:2
arg:./app_ompi_gomp" "$(grep ^arg: o6.txt)"
# the user's own -x LD_PRELOAD would replace synctrace's: said
PATH=$T/fake:$PATH "$RUN" mpirun -x LD_PRELOAD=/x.so -n 1 ./app_ompi >/dev/null 2>e7.txt || fail "run with -x LD_PRELOAD failed"
grep -q "warning: the command passes its own -x LD_PRELOAD=/x.so" e7.txt || fail "no warning for -x LD_PRELOAD: $(cat e7.txt)"
# MPICH's hydra passes the environment: argv untouched, LD_PRELOAD exported
PATH=$T/fake:$PATH "$RUN" -o arch2 mpiexec -n 2 ./app_mpich >o8.txt || fail "run under the fake hydra failed"
assert_eq "MPICH mpiexec's argv and environment" "arg:-n
arg:2
arg:./app_mpich
launcher LD_PRELOAD=$LIBM" "$(grep -v LD_LIBRARY_PATH o8.txt)"

# ---- a real mpirun.openmpi: every rank gets the Open MPI library and the settings --------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1   # the tests' business, never the tool's
timeout -k 10 60 "$RUN" -o arch3 mpirun.openmpi --oversubscribe -n 3 ./app_ompi >o9.txt 2>e9.txt \
    || fail "run under mpirun.openmpi failed: $(tail -n 3 e9.txt)"
assert_eq "ranks under mpirun.openmpi" "rank=0 who=openmpi SYNCTRACE_DIR=$T/arch3
rank=1 who=openmpi SYNCTRACE_DIR=$T/arch3
rank=2 who=openmpi SYNCTRACE_DIR=$T/arch3" "$(sort o9.txt)"
grep -q "OMPI_ALLOW_RUN_AS_ROOT\|oversubscribe" <(PATH=$T/fake:$PATH "$RUN" mpirun -n 1 ./app_ompi) \
    && fail "synctrace-run passes Open MPI's root or oversubscription settings itself"

# ---- the family's library is missing: one line naming what there is, nothing runs ---------------
mv "$LIBO" "$T/moved.so"
set +e
"$RUN" ./app_ompi >o10.txt 2>e10.txt; rc=$?
set -e
assert_eq "missing Open MPI library" 2 "$rc"
[ ! -s o10.txt ] || fail "the program ran without its library"
assert_eq "missing library: one line" 1 "$(wc -l <e10.txt)"
grep -q "error: no Open MPI library of synctrace: $LIBO is missing (MPI family openmpi: ./app_ompi needs libmpi.so.40); available: mpich ($LIBM)" e10.txt \
    || fail "unclear missing-library error: $(cat e10.txt)"
assert_eq "MPICH still served" "$LIBM" "$(lib_of ./app_mpich)"
# a tree built for one family (lib/libsynctrace.so only, linked to MPICH) serves MPICH programs only
mkdir -p one/bin one/lib && cp "$RUN" one/bin/
mpicc.mpich -shared -fPIC -Wl,--no-as-needed -DWHO='"mpich"' -o one/lib/libsynctrace.so probe_lib.c || fail "cannot build an MPICH-linked probe"
assert_eq "one-family tree, its family's program" "$T/one/lib/libsynctrace.so" "$(one/bin/synctrace-run --print-lib ./app_mpich)"
set +e
one/bin/synctrace-run --print-lib ./app_ompi >/dev/null 2>e11.txt; rc=$?
set -e
assert_eq "one-family tree, a program of the other MPI" 2 "$rc"
grep -q "available: mpich ($T/one/lib/libsynctrace.so)" e11.txt || fail "one-family tree: unclear error: $(cat e11.txt)"
echo "ok"
