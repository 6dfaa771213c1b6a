#!/usr/bin/env bash
# scripts/install-deps.sh — installs the Debian 12 packages synctrace needs for one purpose: building and
# running it (make, make demo, make deps), its tests (make check) or its benchmarks (make bench).
#
# Starts from a fresh minimal Debian 12 (only make and git assumed: no compiler, no python).
# Idempotent and cheap when nothing is missing (one dpkg-query, no network), so make may call it every
# time. Installs only what is missing with --no-install-recommends (so every package a tool needs at run
# time is listed, Recommends included), runs `apt-get update` once before doing so, never asks
# questions, works as root or through sudo.
#
# Usage: scripts/install-deps.sh [--for build|check|bench|all] [--check | --list | -h]
#   --for P  the purpose (default build): build = build and run synctrace, the demo too;
#            check = build + what the tests add; bench = build + what the benchmarks add; all = every group
#   (none)   install the missing packages
#   --check  report the missing packages; exit 1 if any, install nothing
#   --list   print the package list, one per line
set -euo pipefail

# Every package and why, in groups. Packages of Priority "required" (coreutils, findutils, sed, grep,
# mawk, diffutils, util-linux for mcookie, libc-bin for ldd, hostname, bash) are on every Debian.
BUILD=(                # building and running synctrace, `make demo`
    build-essential    # gcc 12, g++ (libmpich-dev wants it), make, libc6-dev
    python3            # scripts/gen_wrappers.py, scripts/embed_html.py (standard library only)
    mpich              # mpiexec.mpich (hydra), libmpich12: the MPICH family
    libmpich-dev       # mpicc.mpich, mpif90.mpich, mpicxx.mpich, MPICH's mpi.h
    openmpi-bin        # mpirun.openmpi, libmpi40: the Open MPI family (Debian's default MPI)
    libopenmpi-dev     # mpicc.openmpi, mpif90.openmpi, mpicxx.openmpi, Open MPI's mpi.h
    clang              # clang 14: builds OpenMP programs against LLVM's libomp
    libomp-dev         # libomp 14 with OMPT, omp-tools.h (libomp-14-dev), stand-in for gcc's libgomp
    gfortran           # Fortran applications (mpif90.mpich and mpif90.openmpi call it)
    libhwloc-dev       # socket/core topology (H3HCA levels)
    libunwind-dev      # call-site capture
    libotf2-trace-dev  # OTF2 3 writer/reader library, otf2-config
    otf2-tools         # otf2-print, the README's first look at an archive
    binutils           # addr2line (call sites, run time), nm/readelf
    llvm               # llvm-symbolizer: names inlined frames of call paths right (addr2line misnames some)
)
TESTS=(                # what `make check` adds
    pkg-config         # tests/infra/t_install.sh checks synctrace.pc
    procps             # ps/pgrep in tests (Priority: important, not on minimal images)
    python3-mpi4py     # an mpi4py script traced on Open MPI (tests/mpi/t_mpi4py.sh; Debian's is built on it)
    python3-otf2       # OTF2's Python reader: tests/mpi/t_rma.sh reads the RMA records with it (skipped without it)
    strace             # t_analyze_split.sh sees which event files each process opens (skipped without it)
    vite               # tests/viewers/t_vite.sh opens archives in ViTE (skipped without it)
    xvfb               # xvfb-run, the X server ViTE draws into
    xauth              # xvfb-run refuses to start without it (a Recommends of xvfb)
    imagemagick        # import/convert take and measure ViTE's screenshot
)
BROWSER=(              # what `make check` and `make bench` add: report.html in a headless browser
    chromium           # tests/viewers/t_report_html.sh, tests/bench/html_bench.sh (skipped without it)
    chromium-driver    # chromedriver, which selenium drives chromium through
    python3-selenium   # the browser's driver (clicks, console errors, screenshot, timings)
)
BENCH=(                # what `make bench` adds
    eztrace            # EZTrace 2.0, the peer tool `make bench` measures next to synctrace (skipped without it)
    nwchem-mpich       # NWChem 7.0 on MPICH: the real code of docs/score.md's score -> filter -> rerun example
    nwchem-data        # its basis sets (the example's water SCF needs them)
)
PACKAGES=()            # the packages of the chosen purpose (choose)

say() { printf 'install-deps: %s\n' "$*"; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

usage() { sed -n '2,17s/^# \{0,1\}//p' "$0"; }

# missing_packages: prints the packages of PACKAGES that dpkg does not report as installed.
missing_packages() {
    local p status
    for p in "${PACKAGES[@]}"; do
        status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
        [ "${status:0:2}" = ii ] || echo "$p"
    done
}

# as_root CMD...: runs CMD as root (directly, or via sudo; sudo -n when there is no terminal to ask on).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        if [ -t 0 ]; then sudo "$@"; else sudo -n "$@"; fi
    else
        die "not root and no sudo: run as root: apt-get update && apt-get install -y $*"
    fi
}

# choose PURPOSE: sets PACKAGES to the groups PURPOSE needs (build|check|bench|all).
choose() {
    case "$1" in
    build) PACKAGES=("${BUILD[@]}") ;;
    check) PACKAGES=("${BUILD[@]}" "${TESTS[@]}" "${BROWSER[@]}") ;;
    bench) PACKAGES=("${BUILD[@]}" "${BROWSER[@]}" "${BENCH[@]}") ;;
    all)   PACKAGES=("${BUILD[@]}" "${TESTS[@]}" "${BROWSER[@]}" "${BENCH[@]}") ;;
    *) die "unknown purpose '$1' (accepted: --for build, check, bench, all)" ;;
    esac
}

# check_tools PURPOSE: after installing, the commands and headers PURPOSE relies on must be there.
check_tools() {
    local t bad=() cmds=(gcc make python3 mpicc.mpich mpif90.mpich mpicxx.mpich mpiexec.mpich \
                         mpicc.openmpi mpif90.openmpi mpicxx.openmpi mpirun.openmpi clang gfortran \
                         otf2-config otf2-print addr2line nm readelf ldd)
    case "$1" in check|all) cmds+=(pkg-config ps pgrep strace vite xvfb-run xauth import convert) ;; esac
    case "$1" in check|bench|all) cmds+=(chromium chromedriver) ;; esac
    case "$1" in bench|all) cmds+=(eztrace) ;; esac
    for t in "${cmds[@]}"; do
        command -v "$t" >/dev/null 2>&1 || bad+=("command $t")
    done
    local res
    res=$(clang -print-resource-dir 2>/dev/null || true)
    [ -f "$res/include/omp-tools.h" ] || bad+=("omp-tools.h under clang's resource dir '$res'")
    [ -f /usr/include/hwloc.h ] || bad+=("/usr/include/hwloc.h")
    [ -f /usr/include/otf2/otf2.h ] || bad+=("/usr/include/otf2/otf2.h")
    # Debian's python3 (not one earlier in PATH, such as pyenv's) holds python3-mpi4py
    case "$1" in check|all) /usr/bin/python3 -c 'import mpi4py' 2>/dev/null || bad+=("/usr/bin/python3's mpi4py") ;; esac
    [ ${#bad[@]} -eq 0 ] || die "packages installed but still missing: ${bad[*]}"
}

main() {
    local purpose=build action=install
    while [ $# -gt 0 ]; do
        case "$1" in
        -h|--help) usage; exit 0 ;;
        --for) [ $# -ge 2 ] || die "--for needs a purpose: build, check, bench or all"; purpose=$2; shift ;;
        --for=*) purpose=${1#--for=} ;;
        --list) action=list ;;
        --check) action=check ;;
        *) die "unknown option '$1' (accepted: --for build|check|bench|all, --check, --list, -h)" ;;
        esac
        shift
    done
    choose "$purpose"
    [ "$action" = list ] && { printf '%s\n' "${PACKAGES[@]}"; exit 0; }
    command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
        || die "needs Debian's dpkg and apt-get (Debian 12); install by hand: ${PACKAGES[*]}"
    if [ -r /etc/os-release ]; then
        local id ver
        id=$(. /etc/os-release && echo "${ID:-}") ver=$(. /etc/os-release && echo "${VERSION_ID:-}")
        [ "$id $ver" = "debian 12" ] || say "warning: made for Debian 12, this is '$id $ver'; trying anyway"
    fi

    local missing
    mapfile -t missing < <(missing_packages)
    if [ ${#missing[@]} -eq 0 ]; then
        say "all ${#PACKAGES[@]} packages for $purpose present"
        [ "$action" = check ] || check_tools "$purpose"
        exit 0
    fi
    if [ "$action" = check ]; then
        say "missing for $purpose: ${missing[*]}"
        exit 1
    fi

    say "installing for $purpose: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    local apt=(apt-get -q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    as_root "${apt[@]}" update || die "apt-get update failed (network? /etc/apt/sources.list?)"
    as_root env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install --no-install-recommends "${missing[@]}" \
        || die "apt-get install failed for: ${missing[*]}"

    mapfile -t missing < <(missing_packages)
    [ ${#missing[@]} -eq 0 ] || die "still not installed after apt-get: ${missing[*]}"
    check_tools "$purpose"
    say "done: all ${#PACKAGES[@]} packages for $purpose present"
}

main "$@"
