#!/usr/bin/env bash
# t_run.sh — bin/synctrace-run, independent of the real library: it is copied into a fake tree
# (bin/ + lib/) whose lib/mpich/libsynctrace.so is a probe library and lib/libsynctrace.so (the
# default) a symlink to it. Checks: library found relative to the script, LD_PRELOAD composed after
# the user's entries (symbol precedence, not just the string), propagation through MPICH's mpiexec
# to every rank, no duplicate entry, -o/SYNCTRACE_DIR, exit status, libgomp detection and the GOMP
# stand-in, recovery of an unfinished archive, option errors. The choice among MPI families and
# Open MPI's mpirun: t_run_family.sh.
source "$ST_ROOT/tests/lib.sh"

[ -x "$ST_BIN/synctrace-run" ] || fail "$ST_BIN/synctrace-run not built"
T=$ST_TMP
mkdir -p "$T/tree/bin" "$T/tree/lib/gomp" "$T/tree/lib/mpich" "$T/user"
cp "$ST_BIN/synctrace-run" "$T/tree/bin/"
RUN=$T/tree/bin/synctrace-run

# ---- probe library, a user library, a probe program ------------------------------------
cat >"$T/probe_lib.c" <<'EOF'
const char *st_probe_who(void);
const char *st_probe_who(void) { return WHO; }
EOF
gcc -shared -fPIC -DWHO='"synctrace"' -o "$T/tree/lib/mpich/libsynctrace.so" "$T/probe_lib.c" || fail "cannot build probe lib"
ln -s mpich/libsynctrace.so "$T/tree/lib/libsynctrace.so"
gcc -shared -fPIC -DWHO='"user"' -o "$T/user/libskew.so" "$T/probe_lib.c" || fail "cannot build user lib"

# probe [exit-code [mkdir-partial-in-SYNCTRACE_DIR]]: prints what it sees, one "key=value" per line.
cat >"$T/probe.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
static const char *env(const char *n) { const char *v = getenv(n); return v ? v : "(unset)"; }
static void mapped(const char *what)
{
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f) fclose(f);
    printf("mapped %s=%s\n", what, n ? "yes" : "no");
}
int main(int argc, char **argv)
{
    const char *(*who)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "st_probe_who");
    printf("rank=%s\nLD_PRELOAD=%s\nLD_LIBRARY_PATH=%s\nSYNCTRACE_DIR=%s\nwho=%s\n", env("PMI_RANK"),
           env("LD_PRELOAD"), env("LD_LIBRARY_PATH"), env("SYNCTRACE_DIR"), who ? who() : "(none)");
    mapped("libsynctrace.so");
    if (argc > 2) { /* simulate a run that died before MPI_Finalize: raw dumps only */
        char p[4096];
        snprintf(p, sizeof p, "%s", env("SYNCTRACE_DIR"));
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/partial", env("SYNCTRACE_DIR"));
        mkdir(p, 0755);
    }
    return argc > 1 ? atoi(argv[1]) : 0;
}
EOF
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -o "$T/probe" "$T/probe.c" -ldl || fail "cannot build probe"

# OpenMP probes: one built by gcc (libgomp), one by clang (LLVM libomp).
cat >"$T/omp.c" <<'EOF'
#include <omp.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");
    int gomp = 0, llvm = 0;
    while (f && fgets(line, sizeof line, f)) {
        gomp |= strstr(line, "/libgomp.so") != NULL;
        llvm |= strstr(line, "/libomp.so") != NULL;
    }
    printf("threads=%d gcc-libgomp=%d llvm-libomp=%d\n", n, gomp, llvm);
    return 0;
}
EOF
gcc -fopenmp -o "$T/omp_gcc" "$T/omp.c" || fail "cannot build gcc OpenMP probe"
clang -fopenmp -o "$T/omp_clang" "$T/omp.c" || fail "cannot build clang OpenMP probe"
LLVM_OMP=$(readlink -f "$(clang -print-file-name=libomp.so.5)")
[ -f "$LLVM_OMP" ] || fail "LLVM libomp.so.5 not found (clang -print-file-name)"
ln -s "$LLVM_OMP" "$T/tree/lib/gomp/libgomp.so.1"

val() { sed -n "s/^$1=//p" "$2" | head -n1; }
LIB=$T/tree/lib/libsynctrace.so          # programs without MPI: the default library
LIBM=$T/tree/lib/mpich/libsynctrace.so   # under MPICH's mpiexec: the MPICH library

# ---- plain program, empty LD_PRELOAD --------------------------------------------------------
cd "$T"
env -u LD_PRELOAD "$RUN" ./probe >o1.txt || fail "plain run failed"
assert_eq "LD_PRELOAD alone" "$LIB" "$(val LD_PRELOAD o1.txt)"
assert_eq "library mapped" "mapped libsynctrace.so=yes" "$(grep '^mapped' o1.txt)"
assert_eq "probe symbol" synctrace "$(val who o1.txt)"
assert_eq "no SYNCTRACE_DIR by default" "(unset)" "$(val SYNCTRACE_DIR o1.txt)"

# ---- user preload stays first and keeps precedence ---------------------------------------
LD_PRELOAD=$T/user/libskew.so "$RUN" ./probe >o2.txt || fail "run with user LD_PRELOAD failed"
assert_eq "composed LD_PRELOAD" "$T/user/libskew.so:$LIB" "$(val LD_PRELOAD o2.txt)"
assert_eq "user library keeps precedence" user "$(val who o2.txt)"
assert_eq "shim still mapped" "mapped libsynctrace.so=yes" "$(grep '^mapped' o2.txt)"
# ... also when the user separates entries by spaces; and no duplicate when already there
LD_PRELOAD="$T/user/libskew.so $LIB" "$RUN" ./probe >o3.txt || fail "run with shim already preloaded failed"
assert_eq "no duplicate" "$T/user/libskew.so $LIB" "$(val LD_PRELOAD o3.txt)"

# ---- this script's environment is unchanged after the run (helpers ran without the shim) ----
out=$(env -u LD_PRELOAD "$RUN" -v ./probe 2>&1 >/dev/null) || fail "-v run failed"
echo "$out" | grep -q "library $LIB" || fail "-v does not name the library: $out"

# ---- exit status, -o, recovery --------------------------------------------------------------
set +e
"$RUN" ./probe 3 >/dev/null; rc=$?
set -e
assert_eq "exit status passed through" 3 "$rc"

cat >"$T/tree/bin/synctrace" <<'EOF'
#!/usr/bin/env bash
# fake CLI: records the call and assembles a pretend archive
echo "$*" >>"$(dirname "$0")/../calls.txt"
[ "$1" = recover ] && touch "$2/traces.otf2"
EOF
chmod +x "$T/tree/bin/synctrace"
set +e
"$RUN" -o arch1 ./probe 5 partial >o4.txt 2>e4.txt; rc=$?
set -e
assert_eq "exit status after recovery" 5 "$rc"
assert_eq "-o sets an absolute SYNCTRACE_DIR" "$T/arch1" "$(val SYNCTRACE_DIR o4.txt)"
assert_eq "recover called" "recover $T/arch1" "$(cat "$T/tree/calls.txt")"
grep -q "without MPI_Finalize" e4.txt || fail "recovery not announced: $(cat e4.txt)"
"$RUN" -o "$T/arch2" ./probe 0 >/dev/null || fail "run into arch2 failed"
assert_eq "no recovery of a finished (or absent) archive" 1 "$(wc -l <"$T/tree/calls.txt")"
# default directory (no -o, no SYNCTRACE_DIR): a new synctrace-* directory is found and recovered
mkdir -p "$T/wd/synctrace-old/partial"
(cd "$T/wd" && env -u SYNCTRACE_DIR "$RUN" sh -c 'mkdir -p synctrace-20990101-000000-1/partial') \
    || fail "default-dir run failed"
assert_eq "new default dir recovered, old one left alone" "recover synctrace-20990101-000000-1" "$(tail -n1 "$T/tree/calls.txt")"
# an existing archive is refused before anything runs
set +e
"$RUN" -o "$T/arch1" ./probe >/dev/null 2>e5.txt; rc=$?
set -e
assert_eq "existing archive refused" 2 "$rc"
grep -q "already holds an archive" e5.txt || fail "unclear message: $(cat e5.txt)"

# ---- through MPICH's mpiexec: every rank gets the composed environment -------------------------
LD_PRELOAD=$T/user/libskew.so timeout -k 10 60 "$RUN" -o "$T/arch3" mpiexec.mpich -n 2 ./probe >o6.txt \
    || fail "mpiexec run failed: $(cat o6.txt)"
assert_eq "ranks seen" "0 1" "$(sed -n 's/^rank=//p' o6.txt | sort | tr '\n' ' ' | sed 's/ $//')"
assert_eq "ranks: composed LD_PRELOAD" "2" "$(grep -cxF "LD_PRELOAD=$T/user/libskew.so:$LIBM" o6.txt)"
assert_eq "ranks: library mapped" "2" "$(grep -cx 'mapped libsynctrace.so=yes' o6.txt)"
assert_eq "ranks: SYNCTRACE_DIR" "2" "$(grep -cxF "SYNCTRACE_DIR=$T/arch3" o6.txt)"

# ---- OpenMP: gcc/libgomp program runs on LLVM libomp, clang program untouched ----------------
OMP_NUM_THREADS=2 "$RUN" ./omp_gcc >o7.txt || fail "gcc OpenMP run failed"
assert_eq "libgomp program on the stand-in" "threads=2 gcc-libgomp=0 llvm-libomp=1" "$(cat o7.txt)"
OMP_NUM_THREADS=2 "$RUN" --no-gomp ./omp_gcc >o8.txt || fail "gcc OpenMP --no-gomp run failed"
assert_eq "--no-gomp keeps libgomp" "threads=2 gcc-libgomp=1 llvm-libomp=0" "$(cat o8.txt)"
OMP_NUM_THREADS=2 timeout -k 10 60 "$RUN" mpiexec.mpich -n 1 ./omp_gcc >o9.txt || fail "mpiexec gcc OpenMP run failed"
assert_eq "libgomp program found behind mpiexec" "threads=2 gcc-libgomp=0 llvm-libomp=1" "$(cat o9.txt)"
LD_LIBRARY_PATH=/nonexistent "$RUN" ./probe >o10.txt || fail "probe run failed"
assert_eq "no stand-in for programs without libgomp" /nonexistent "$(val LD_LIBRARY_PATH o10.txt)"
LD_LIBRARY_PATH=/nonexistent "$RUN" --gomp ./probe >o11.txt || fail "--gomp run failed"
assert_eq "--gomp forces the stand-in" "$T/tree/lib/gomp:/nonexistent" "$(val LD_LIBRARY_PATH o11.txt)"
OMP_NUM_THREADS=2 "$RUN" ./omp_clang >o12.txt || fail "clang OpenMP run failed"
assert_eq "clang program" "threads=2 gcc-libgomp=0 llvm-libomp=1" "$(cat o12.txt)"

# ---- errors ------------------------------------------------------------------------------------
set +e
"$RUN" >/dev/null 2>e13.txt; rc1=$?
"$RUN" -x ./probe >/dev/null 2>>e13.txt; rc2=$?
"$RUN" ./no-such-program >/dev/null 2>>e13.txt; rc3=$?
rm "$T/tree/lib/libsynctrace.so"
"$RUN" ./probe >/dev/null 2>>e13.txt; rc4=$?
set -e
assert_eq "no command" 2 "$rc1"
assert_eq "unknown option" 2 "$rc2"
assert_eq "command not found" 127 "$rc3"
assert_eq "library missing" 2 "$rc4"
grep -q "unknown option '-x'" e13.txt || fail "unclear option error: $(cat e13.txt)"
grep -q "library not found: $T/tree/lib/libsynctrace.so" e13.txt || fail "unclear library error: $(cat e13.txt)"
"$RUN" -h | grep -q "^usage: synctrace-run" || fail "-h prints no usage"

# ---- the build tree itself: the make rules fill in the version and create the GOMP stand-in ------
"$ST_BIN/synctrace-run" --version | grep -qx 'synctrace-run [0-9][-0-9A-Za-z.+]*' \
    || fail "built synctrace-run has no version: $("$ST_BIN/synctrace-run" --version)"
built_gomp=$ST_BIN/../lib/gomp/libgomp.so.1
[ -e "$built_gomp" ] || fail "$built_gomp missing (Makefile rule for \$(O)/lib/gomp/libgomp.so.1)"
[[ $(readlink -f "$built_gomp") == */libomp*.so* ]] || fail "$built_gomp does not point to LLVM's libomp"
echo "ok"
