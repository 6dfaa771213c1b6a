#!/usr/bin/env bash
# scripts/install.sh PREFIX VERSION — installs a built synctrace under PREFIX (`make install`).
#
# Environment: O = build output root (make O=...; default: the source tree);
#              DESTDIR = staging root for packagers: files go to $DESTDIR$PREFIX, while the paths
#              written into them (synctrace-run, synctrace.pc, module files) say PREFIX;
#              LLVM_OMP = LLVM's libomp.so.5 to use as the libgomp stand-in (default: clang's).
# Layout:
#   PREFIX/bin/synctrace, PREFIX/bin/synctrace-run (installed paths baked in)
#   PREFIX/bin/synctrace-bench (finds the library as bin/../lib/libsynctrace.so)
#   PREFIX/lib/libsynctrace.so                   (the default MPI family's library)
#   PREFIX/lib/FAM/libsynctrace.so               (one per MPI family built: mpich, openmpi)
#   PREFIX/lib/synctrace/gomp/libgomp.so.1 -> LLVM libomp.so.5 (GOMP stand-in, see synctrace-run)
#   PREFIX/include/synctrace.h
#   PREFIX/lib/pkgconfig/synctrace.pc
#   PREFIX/share/modulefiles/synctrace/VERSION   (Environment Modules, Tcl)
#   PREFIX/share/lmod/synctrace/VERSION.lua      (Lmod)
# Re-running it over an existing installation replaces the files.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: [O=BUILD] [DESTDIR=STAGE] scripts/install.sh PREFIX VERSION"
PREFIX=$1 VERSION=$2
[[ $PREFIX == /* ]] || PREFIX=$(pwd)/$PREFIX
PREFIX=$(readlink -m -- "$PREFIX")
# The prefix is written into shell, Tcl, Lua and pkg-config files: keep it to characters that
# need no quoting in any of them.
[[ $PREFIX =~ ^[-A-Za-z0-9._+/:=,~]+$ ]] \
    || die "PREFIX '$PREFIX' has characters that module and pkg-config files cannot hold; accepted: letters, digits and -._+/:=,~"
[[ $VERSION =~ ^[A-Za-z0-9][-A-Za-z0-9._+]*$ ]] || die "VERSION '$VERSION' is not a version (e.g. 0.1.0)"
O=$(cd "${O:-$ROOT}" 2>/dev/null && pwd) || die "build directory O='${O:-}' does not exist; run make first"
D=${DESTDIR:-}

for f in lib/libsynctrace.so bin/synctrace bin/synctrace-bench; do
    [ -f "$O/$f" ] || die "$O/$f is not built; run 'make${O:+ O=$O}' first"
done

# find_llvm_omp: prints the path of LLVM's libomp.so.5 (the runtime that implements both the GOMP
# ABI and OMPT), or nothing.
find_llvm_omp() {
    local p
    if [ -n "${LLVM_OMP:-}" ]; then readlink -f -- "$LLVM_OMP"; return; fi
    p=$(clang -print-file-name=libomp.so.5 2>/dev/null || true)
    if [[ $p == /* ]] && [ -f "$p" ]; then readlink -f -- "$p"; return; fi
    for p in $(ls -d /usr/lib/llvm-*/lib/libomp.so.5 2>/dev/null | sort -rV); do
        readlink -f -- "$p"; return
    done
}

# put MODE SRC DEST: installs one file and says so.
put() {
    install -D -m "$1" "$2" "$D$3"
    echo "  $3"
}

# subst SRC: prints SRC with the install-time placeholders filled in.
subst() {
    sed -e "s|@PREFIX@|$PREFIX|g" -e "s|@VERSION@|$VERSION|g" \
        -e "s|@LIBDIR@|$PREFIX/lib|g" -e "s|@GOMPDIR@|$PREFIX/lib/synctrace/gomp|g" "$1"
}

echo "installing synctrace $VERSION from $O into ${D:+$D}$PREFIX"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

put 755 "$O/lib/libsynctrace.so" "$PREFIX/lib/libsynctrace.so"
for lib in "$O"/lib/*/libsynctrace.so; do
    [ -f "$lib" ] || continue
    fam=$(basename "$(dirname "$lib")")
    put 755 "$lib" "$PREFIX/lib/$fam/libsynctrace.so"
done
put 755 "$O/bin/synctrace" "$PREFIX/bin/synctrace"
put 755 "$O/bin/synctrace-bench" "$PREFIX/bin/synctrace-bench"
subst "$ROOT/scripts/synctrace-run.in" >"$TMP/synctrace-run"
put 755 "$TMP/synctrace-run" "$PREFIX/bin/synctrace-run"
put 644 "$ROOT/include/synctrace.h" "$PREFIX/include/synctrace.h"
subst "$ROOT/scripts/synctrace.pc.in" >"$TMP/synctrace.pc"
put 644 "$TMP/synctrace.pc" "$PREFIX/lib/pkgconfig/synctrace.pc"
subst "$ROOT/scripts/modulefiles/synctrace.tcl.in" >"$TMP/modulefile"
put 644 "$TMP/modulefile" "$PREFIX/share/modulefiles/synctrace/$VERSION"
subst "$ROOT/scripts/modulefiles/synctrace.lua.in" >"$TMP/modulefile.lua"
put 644 "$TMP/modulefile.lua" "$PREFIX/share/lmod/synctrace/$VERSION.lua"

omp=$(find_llvm_omp)
if [ -n "$omp" ] && [ -f "$omp" ]; then
    mkdir -p "$D$PREFIX/lib/synctrace/gomp"
    ln -sfn "$omp" "$D$PREFIX/lib/synctrace/gomp/libgomp.so.1"
    echo "  $PREFIX/lib/synctrace/gomp/libgomp.so.1 -> $omp"
else
    echo "install: warning: LLVM's libomp.so.5 not found (install libomp-dev, or set LLVM_OMP=path):" \
         "OpenMP events of gcc/libgomp programs will not be traced" >&2
fi

echo "done. Use: $PREFIX/bin/synctrace-run -o DIR mpiexec -n 4 ./app"
echo "      module use $PREFIX/share/modulefiles   (Lmod: module use $PREFIX/share/lmod); module load synctrace"
