#!/usr/bin/env bash
# t_install.sh — scripts/install.sh into a temporary PREFIX: every file, pkg-config, the Tcl and
# Lmod module files (evaluated with stub module commands when tclsh/lua exist: exact environment
# changes, no LD_PRELOAD), the installed synctrace-run using the installed library, DESTDIR
# staging, re-installation, and refusal of an unusable PREFIX.
source "$ST_ROOT/tests/lib.sh"

T=$ST_TMP
O=$(dirname "$(dirname "$ST_LIB")")   # build output root of this test run
[ -f "$ST_LIB" ] && [ -x "$ST_BIN/synctrace" ] || fail "library or CLI not built in $O"
P=$T/prefix
V=9.8.7

O=$O bash "$ST_ROOT/scripts/install.sh" "$P" "$V" >install.log 2>&1 || fail "install failed: $(cat install.log)"

# ---- files ----------------------------------------------------------------------------------
for f in bin/synctrace bin/synctrace-run bin/synctrace-bench lib/libsynctrace.so; do
    [ -f "$P/$f" ] && [ -x "$P/$f" ] || fail "$P/$f missing or not executable"
done
for f in include/synctrace.h lib/pkgconfig/synctrace.pc share/modulefiles/synctrace/$V share/lmod/synctrace/$V.lua; do
    [ -f "$P/$f" ] || fail "$P/$f missing"
done
cmp -s "$ST_LIB" "$P/lib/libsynctrace.so" || fail "installed library differs from the built one"
cmp -s "$ST_BIN/synctrace" "$P/bin/synctrace" || fail "installed CLI differs from the built one"
cmp -s "$ST_ROOT/include/synctrace.h" "$P/include/synctrace.h" || fail "installed header differs"
gomp=$P/lib/synctrace/gomp/libgomp.so.1
[ -L "$gomp" ] || fail "GOMP stand-in $gomp missing"
target=$(readlink -f "$gomp")
[[ ${target##*/} == libomp*.so* ]] && [ -f "$target" ] || fail "GOMP stand-in points to '$target', not LLVM's libomp"
grep -q "$P/include/synctrace.h" install.log || fail "install does not list what it installs"

# ---- pkg-config -------------------------------------------------------------------------------
export PKG_CONFIG_PATH=$P/lib/pkgconfig
assert_eq "pkg-config --cflags --libs" "-I$P/include" "$(pkg-config --cflags --libs synctrace | sed 's/ *$//')"
assert_eq "pkg-config --modversion" "$V" "$(pkg-config --modversion synctrace)"
assert_eq "pkg-config preload" "$P/lib/libsynctrace.so" "$(pkg-config --variable=preload synctrace)"
assert_eq "pkg-config launcher" "$P/bin/synctrace-run" "$(pkg-config --variable=launcher synctrace)"
printf '#include <synctrace.h>\nint main(void) { return SYNCTRACE_LOADED() ? 0 : 3; }\n' >app.c
# shellcheck disable=SC2046
gcc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags --libs synctrace) -o app app.c || fail "cannot build with pkg-config flags"
set +e; ./app; rc=$?; set -e
assert_eq "API absent without preload" 3 "$rc"

# ---- module files ------------------------------------------------------------------------------
TCL=$P/share/modulefiles/synctrace/$V
LUA=$P/share/lmod/synctrace/$V.lua
head -n1 "$TCL" | grep -q '^#%Module' || fail "Tcl modulefile lacks the #%Module magic line"
grep -v '^[[:space:]]*#' "$TCL" | grep -q LD_PRELOAD && fail "Tcl modulefile touches LD_PRELOAD"
grep -v '^[[:space:]]*--' "$LUA" | grep -q LD_PRELOAD && fail "Lmod file touches LD_PRELOAD"
expected="setenv SYNCTRACE_ROOT $P
setenv SYNCTRACE_LIB $P/lib/libsynctrace.so
prepend PATH $P/bin
prepend PKG_CONFIG_PATH $P/lib/pkgconfig
prepend CPATH $P/include"
if command -v tclsh >/dev/null 2>&1; then
    # stub module commands; every environment change is printed, anything unknown is an error
    cat >stub.tcl <<'EOF'
proc setenv {var val} { puts "setenv $var $val" }
proc prepend-path {var val} { puts "prepend $var $val" }
proc module-whatis {args} {}
proc conflict {args} {}
source [lindex $argv 0]
ModulesHelp
EOF
    tclsh stub.tcl "$TCL" >tcl.out 2>tcl.help || fail "tclsh cannot evaluate the modulefile: $(cat tcl.out tcl.help)"
    assert_eq "Tcl modulefile effect" "$expected" "$(cat tcl.out)"
    grep -q "synctrace $V" tcl.help || fail "ModulesHelp does not name the version"
else
    note "no tclsh: Tcl modulefile checked by grep only"
    grep -q "^setenv  *SYNCTRACE_LIB  *\$root/lib/libsynctrace.so" "$TCL" || fail "Tcl modulefile: SYNCTRACE_LIB"
    grep -q "^set root \"$P\"" "$TCL" || fail "Tcl modulefile: root"
fi
lua=$(command -v lua lua5.4 lua5.3 lua5.2 lua5.1 2>/dev/null | head -n1 || true)
if [ -n "$lua" ]; then
    cat >stub.lua <<'EOF'
function setenv(k, v) print("setenv " .. k .. " " .. v) end
function prepend_path(k, v) print("prepend " .. k .. " " .. v) end
function pathJoin(a, b) return a .. "/" .. b end
function help(s) end
function whatis(s) end
function conflict(s) end
dofile(arg[1])
EOF
    "$lua" stub.lua "$LUA" >lua.out 2>&1 || fail "lua cannot evaluate the Lmod file: $(cat lua.out)"
    assert_eq "Lmod file effect" "$expected" "$(cat lua.out)"
else
    note "no lua: Lmod file checked by grep only"
    grep -q "^local root = \"$P\"" "$LUA" || fail "Lmod file: root"
    grep -q 'setenv("SYNCTRACE_LIB", pathJoin(root, "lib/libsynctrace.so"))' "$LUA" || fail "Lmod file: SYNCTRACE_LIB"
    grep -q 'prepend_path("PATH", pathJoin(root, "bin"))' "$LUA" || fail "Lmod file: PATH"
fi
# the variables the modules set are known to synctrace (the library rejects unknown SYNCTRACE_*)
"$P/bin/synctrace" env >env.txt 2>&1 || fail "synctrace env failed: $(head -c 300 env.txt)"
grep -q SYNCTRACE_ROOT env.txt && grep -q SYNCTRACE_LIB env.txt \
    || fail "'synctrace env' does not list SYNCTRACE_ROOT/SYNCTRACE_LIB, which the module files set"

# ---- the installed synctrace-run uses the installed library, wherever it is copied -----------
grep -qx "ST_LIBDIR='$P/lib'.*" "$P/bin/synctrace-run" || fail "library path not baked into synctrace-run"
grep -q "@[A-Z]*@" "$P/bin/synctrace-run" && fail "placeholders left in synctrace-run: $(grep -o '@[A-Z]*@' "$P/bin/synctrace-run" | sort -u | tr '\n' ' ')"
assert_eq "version" "synctrace-run $V" "$("$P/bin/synctrace-run" --version)"
mkdir -p elsewhere && cp "$P/bin/synctrace-run" elsewhere/
for run in "$P/bin/synctrace-run" elsewhere/synctrace-run; do
    out=$(env -u LD_PRELOAD SYNCTRACE_ENABLE=0 "$run" -v --gomp sh -c 'echo "P=$LD_PRELOAD"; echo "L=$LD_LIBRARY_PATH"' 2>&1) \
        || fail "$run failed: $out"
    echo "$out" | grep -qx "P=$P/lib/libsynctrace.so" || fail "$run does not preload the installed library: $out"
    echo "$out" | grep -qx "L=$P/lib/synctrace/gomp.*" || fail "$run does not use the installed GOMP stand-in: $out"
done

# ---- DESTDIR, re-install, bad prefix ----------------------------------------------------------
O=$O DESTDIR=$T/stage bash "$ST_ROOT/scripts/install.sh" /opt/st "$V" >stage.log 2>&1 || fail "DESTDIR install: $(cat stage.log)"
[ -f "$T/stage/opt/st/lib/libsynctrace.so" ] || fail "DESTDIR: library not staged"
grep -qx "ST_LIBDIR='/opt/st/lib'.*" "$T/stage/opt/st/bin/synctrace-run" || fail "DESTDIR: staged path baked in"
grep -q "^prefix=/opt/st$" "$T/stage/opt/st/lib/pkgconfig/synctrace.pc" || fail "DESTDIR: pc prefix"
O=$O bash "$ST_ROOT/scripts/install.sh" "$P" "$V" >reinstall.log 2>&1 || fail "re-install failed: $(cat reinstall.log)"
set +e
O=$O bash "$ST_ROOT/scripts/install.sh" "$T/with space" "$V" >bad.log 2>&1; rc=$?
set -e
assert_eq "prefix with a space refused" 1 "$rc"
grep -q "PREFIX .* has characters" bad.log || fail "unclear bad-prefix message: $(cat bad.log)"
[ ! -e "$T/with space" ] || fail "bad prefix created files"
echo ok
