#!/usr/bin/env bash
# scripts/install-deps.sh — installs every Debian 12 package synctrace needs to build, test and run.
#
# Starts from a fresh minimal Debian 12 (only make and git assumed: no compiler, no python).
# Idempotent and cheap when nothing is missing (one dpkg-query, no network), so `make deps` may
# call it every time. Installs only what is missing, runs `apt-get update` once before doing so,
# never asks questions, works as root or through sudo.
#
# Usage: scripts/install-deps.sh [--check | --list | -h]
#   (none)   install the missing packages
#   --check  report the missing packages; exit 1 if any, install nothing
#   --list   print the package list, one per line
set -euo pipefail

# Every package and why. Packages of Priority "required" (coreutils, findutils, sed, grep, mawk,
# diffutils, util-linux, libc-bin for ldd, hostname, bash) are on every Debian and not listed.
PACKAGES=(
    build-essential    # gcc 12, g++ (libmpich-dev wants it), make, libc6-dev
    python3            # scripts/gen_wrappers.py (standard library only)
    mpich              # mpiexec (hydra), libmpich12
    libmpich-dev       # mpicc, mpif90, mpi.h
    clang              # clang 14: builds OpenMP programs against LLVM's libomp
    libomp-dev         # libomp 14 with OMPT, omp-tools.h (libomp-14-dev), stand-in for gcc's libgomp
    gfortran           # Fortran MPI tests (mpif90)
    libhwloc-dev       # socket/core topology (H3HCA levels)
    libunwind-dev      # call-site capture
    libotf2-trace-dev  # OTF2 3 writer/reader library, otf2-config
    otf2-tools         # otf2-print: the tests validate archives with it
    pkg-config         # tests/infra/t_install.sh checks synctrace.pc
    binutils           # addr2line (call sites), nm/readelf (symbol export tests)
    llvm               # llvm-symbolizer: names inlined frames of call paths right (addr2line misnames some)
    procps             # ps/pgrep in tests (Priority: important, not on minimal images)
    strace             # tests only: t_analyze_split.sh sees which event files each process opens (skipped without it)
    vite               # tests only: tests/viewers/t_vite.sh opens archives in ViTE (skipped without it)
    xvfb               # tests only: xvfb-run, the X server ViTE draws into
    imagemagick        # tests only: import/convert take and measure ViTE's screenshot
    chromium           # tests only: tests/viewers/t_report_html.sh loads report.html headless (skipped without it)
    chromium-driver    # tests only: chromedriver, which selenium drives chromium through
    python3-selenium   # tests only: the browser test's driver (clicks, console errors, screenshot)
    eztrace            # bench only: EZTrace 2.0, the peer tool `make bench` measures next to synctrace (skipped without it)
)

say() { printf 'install-deps: %s\n' "$*"; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

usage() { sed -n '2,13s/^# \{0,1\}//p' "$0"; }

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

# check_tools: after installing, the commands and headers the build relies on must be there.
check_tools() {
    local t bad=()
    for t in gcc make python3 mpicc mpif90 mpiexec clang gfortran otf2-config otf2-print pkg-config \
             addr2line nm readelf ldd; do
        command -v "$t" >/dev/null 2>&1 || bad+=("command $t")
    done
    local res
    res=$(clang -print-resource-dir 2>/dev/null || true)
    [ -f "$res/include/omp-tools.h" ] || bad+=("omp-tools.h under clang's resource dir '$res'")
    [ -f /usr/include/hwloc.h ] || bad+=("/usr/include/hwloc.h")
    [ -f /usr/include/otf2/otf2.h ] || bad+=("/usr/include/otf2/otf2.h")
    [ ${#bad[@]} -eq 0 ] || die "packages installed but still missing: ${bad[*]}"
}

main() {
    case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --list) printf '%s\n' "${PACKAGES[@]}"; exit 0 ;;
    --check|"") ;;
    *) die "unknown option '$1' (accepted: --check, --list, -h)" ;;
    esac
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
        say "all ${#PACKAGES[@]} packages present"
        [ "${1:-}" = --check ] || check_tools
        exit 0
    fi
    if [ "${1:-}" = --check ]; then
        say "missing: ${missing[*]}"
        exit 1
    fi

    say "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    local apt=(apt-get -q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    as_root "${apt[@]}" update || die "apt-get update failed (network? /etc/apt/sources.list?)"
    as_root env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install --no-install-recommends "${missing[@]}" \
        || die "apt-get install failed for: ${missing[*]}"

    mapfile -t missing < <(missing_packages)
    [ ${#missing[@]} -eq 0 ] || die "still not installed after apt-get: ${missing[*]}"
    check_tools
    say "done: all ${#PACKAGES[@]} packages present"
}

main "$@"
