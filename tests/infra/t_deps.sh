#!/usr/bin/env bash
# t_deps.sh — scripts/install-deps.sh. On this machine everything the tests need is installed (make
# check ran it): --for check --check passes and the list matches dpkg. The build's list (the default,
# make deps and make demo) holds both MPI families and no test-only or bench-only package, check's and
# bench's hold the build's and their own (mpi4py: the tests'). Then, with fake dpkg-query/apt-get/id/sudo first in
# PATH (no network, nothing really installed): only the missing packages are installed, after one
# `apt-get update`, non-interactively; as non-root through `sudo -n` (no terminal); nothing is run
# when nothing is missing; a failing apt-get is reported clearly.
source "$ST_ROOT/tests/lib.sh"

S=$ST_ROOT/scripts/install-deps.sh
bash "$S" --for check --check >check.txt 2>&1 || fail "--check on a prepared machine: $(cat check.txt)"
mapfile -t pkgs < <(bash "$S" --for check --list)
[ ${#pkgs[@]} -ge 10 ] || fail "--list prints ${#pkgs[@]} packages"
for p in "${pkgs[@]}"; do
    [[ $p =~ ^[a-z0-9][a-z0-9.+-]+$ ]] || fail "--list: '$p' is not a package name"
    [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | cut -c1-2)" = ii ] || fail "$p listed but not installed"
done
list() { bash "$S" "$@" --list | sort; }
has() { grep -qx -- "$2" <<<"$1" || fail "$2 missing from the $3 list"; }
hasnt() { ! grep -qx -- "$2" <<<"$1" || fail "$2 in the $3 list"; }
build=$(list --for build) check=$(list --for check) bench=$(list --for bench)
assert_eq "the default list is the build's" "$build" "$(list)"
for p in build-essential python3 mpich libmpich-dev openmpi-bin libopenmpi-dev clang libomp-dev libotf2-trace-dev \
         otf2-tools binutils; do
    has "$build" "$p" build
done
for p in vite xvfb xauth imagemagick chromium chromium-driver python3-selenium strace eztrace python3-mpi4py; do
    hasnt "$build" "$p" build
done
for p in vite xvfb xauth imagemagick chromium chromium-driver python3-selenium strace procps pkg-config python3-mpi4py; do
    has "$check" "$p" check
done
hasnt "$check" eztrace check
for p in eztrace chromium chromium-driver python3-selenium; do has "$bench" "$p" bench; done
hasnt "$bench" vite bench
hasnt "$bench" python3-mpi4py bench
[ -z "$(comm -23 <(echo "$build") <(echo "$check"))" ] || fail "check's list lacks build packages"
[ -z "$(comm -23 <(echo "$build") <(echo "$bench"))" ] || fail "bench's list lacks build packages"

# ---- fakes -------------------------------------------------------------------------------------
F=$ST_TMP/fake
mkdir -p "$F"
STATE=$ST_TMP/state; LOG=$ST_TMP/calls.txt
cat >"$F/dpkg-query" <<EOF
#!/usr/bin/env bash
# installed unless listed in $STATE/missing
grep -qx "\${@: -1}" "$STATE/missing" 2>/dev/null && exit 1
printf 'ii '
EOF
cat >"$F/apt-get" <<EOF
#!/usr/bin/env bash
echo "apt-get \$* DEBIAN_FRONTEND=\${DEBIAN_FRONTEND:-}" >>"$LOG"
[ -e "$STATE/apt-fails" ] && exit 100
if [[ " \$* " == *" install "* ]]; then : >"$STATE/missing"; fi
exit 0
EOF
cat >"$F/id" <<EOF
#!/usr/bin/env bash
[ "\$1" = -u ] && { cat "$STATE/uid"; exit 0; }
exec /usr/bin/id "\$@"
EOF
cat >"$F/sudo" <<EOF
#!/usr/bin/env bash
echo "sudo \$1" >>"$LOG"
[ "\$1" = -n ] && shift
exec "\$@"
EOF
chmod +x "$F"/*
mkdir -p "$STATE"
fake() { PATH=$F:$PATH bash "$S" "$@" </dev/null; }

# nothing missing: no apt-get at all
echo 0 >"$STATE/uid"; : >"$STATE/missing"; : >"$LOG"
fake >out1.txt 2>&1 || fail "nothing missing: $(cat out1.txt)"
[ ! -s "$LOG" ] || fail "apt-get called with nothing missing: $(cat "$LOG")"

# two missing, as root
printf 'clang\notf2-tools\n' >"$STATE/missing"; : >"$LOG"
fake >out2.txt 2>&1 || fail "install as root: $(cat out2.txt)"
grep -q "installing for build: clang otf2-tools" out2.txt || fail "does not say what it installs: $(cat out2.txt)"
assert_eq "apt-get calls as root" \
"apt-get -q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold update DEBIAN_FRONTEND=noninteractive
apt-get -q -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold install --no-install-recommends clang otf2-tools DEBIAN_FRONTEND=noninteractive" \
    "$(cat "$LOG")"

# a test-only package missing: nothing to do for the build, installed for the tests
printf 'xauth\n' >"$STATE/missing"; : >"$LOG"
fake >out2b.txt 2>&1 || fail "build with a test package missing: $(cat out2b.txt)"
[ ! -s "$LOG" ] || fail "the build's install ran apt-get for a test-only package: $(cat "$LOG")"
fake --for check >out2c.txt 2>&1 || fail "install for check: $(cat out2c.txt)"
grep -q "installing for check: xauth" out2c.txt || fail "does not install xauth for check: $(cat out2c.txt)"
grep -q "install --no-install-recommends xauth " "$LOG" || fail "apt-get install for check: $(cat "$LOG")"

# --check reports and installs nothing
printf 'gfortran\n' >"$STATE/missing"; : >"$LOG"
set +e; fake --check >out3.txt 2>&1; rc=$?; set -e
assert_eq "--check with a missing package" 1 "$rc"
grep -q "missing for build: gfortran" out3.txt || fail "--check does not name the package: $(cat out3.txt)"
[ ! -s "$LOG" ] || fail "--check ran apt-get"

# not root: sudo -n (stdin is not a terminal)
echo 1000 >"$STATE/uid"; : >"$LOG"
fake >out4.txt 2>&1 || fail "install through sudo: $(cat out4.txt)"
assert_eq "sudo used non-interactively" "2" "$(grep -c '^sudo -n$' "$LOG")"

# apt-get fails: clear message, non-zero
echo 0 >"$STATE/uid"; printf 'gfortran\n' >"$STATE/missing"; touch "$STATE/apt-fails"
set +e; fake >out5.txt 2>&1; rc=$?; set -e
[ "$rc" -ne 0 ] || fail "failing apt-get not reported"
grep -q "install-deps: error: apt-get update failed" out5.txt || fail "unclear apt failure message: $(cat out5.txt)"
echo ok
