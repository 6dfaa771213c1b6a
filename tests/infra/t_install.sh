#!/usr/bin/env bash
# t_install.sh — scripts/install.sh into a temporary PREFIX: every file (the library of each MPI
# family built, lib/<family>/libsynctrace.so, and the default), pkg-config, the Tcl and Lmod module
# files (evaluated with stub module commands when tclsh/lua exist: exact environment changes, a
# SYNCTRACE_LIB_<FAMILY> for each family installed and none for the others, no LD_PRELOAD), the
# installed synctrace-run using the installed libraries (the one of an MPI program's family),
# DESTDIR staging, re-installation, and refusal of an unusable PREFIX.
source "$ST_ROOT/tests/lib.sh"

T=$ST_TMP
O=$ST_O   # build output root of this test run
[ -f "$ST_LIB" ] && [ -x "$ST_BIN/synctrace" ] || fail "library or CLI not built in $O"
P=$T/prefix
V=9.8.7
# the MPI families built (make: lib/<family>/libsynctrace.so)
fams=
for fam in mpich openmpi; do [ -f "$O/lib/$fam/libsynctrace.so" ] && fams+=" $fam"; done
fams=${fams# }
[ -n "$fams" ] || fail "no lib/<family>/libsynctrace.so built in $O"
note "MPI families built: $fams"

O=$O bash "$ST_ROOT/scripts/install.sh" "$P" "$V" >install.log 2>&1 || fail "install failed: $(cat install.log)"

# ---- files ----------------------------------------------------------------------------------
for f in bin/synctrace bin/synctrace-run bin/synctrace-bench lib/libsynctrace.so; do
    [ -f "$P/$f" ] && [ -x "$P/$f" ] || fail "$P/$f missing or not executable"
done
for f in include/synctrace.h lib/pkgconfig/synctrace.pc share/modulefiles/synctrace/$V share/lmod/synctrace/$V.lua; do
    [ -f "$P/$f" ] || fail "$P/$f missing"
done
cmp -s "$ST_LIB" "$P/lib/libsynctrace.so" || fail "installed library differs from the built one"
for fam in $fams; do
    cmp -s "$O/lib/$fam/libsynctrace.so" "$P/lib/$fam/libsynctrace.so" \
        || fail "$P/lib/$fam/libsynctrace.so missing or not the built one"
done
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
# (their help shows `mpirun -x LD_PRELOAD=...`: only commands that change the variable count)
grep -Eq '^[[:space:]]*(setenv|unsetenv|prepend-path|append-path|pushenv)[[:space:]]+LD_PRELOAD' "$TCL" \
    && fail "Tcl modulefile touches LD_PRELOAD"
grep -Eq '^[[:space:]]*(setenv|unsetenv|prepend_path|append_path|pushenv)[[:space:]]*\([[:space:]]*"LD_PRELOAD"' "$LUA" \
    && fail "Lmod file touches LD_PRELOAD"
grep -q "@[A-Z]*@" "$TCL" "$LUA" && fail "placeholders left in the module files: $(grep -ho '@[A-Z]*@' "$TCL" "$LUA" | sort -u | tr '\n' ' ')"
# module_effect PREFIX FAMILIES: what loading the module of PREFIX must do, one change per line.
module_effect() {
    local f
    echo "setenv SYNCTRACE_ROOT $1"
    echo "setenv SYNCTRACE_LIB $1/lib/libsynctrace.so"
    for f in $2; do echo "setenv SYNCTRACE_LIB_${f^^} $1/lib/$f/libsynctrace.so"; done
    printf 'prepend PATH %s/bin\nprepend PKG_CONFIG_PATH %s/lib/pkgconfig\nprepend CPATH %s/include\n' "$1" "$1" "$1"
}
expected=$(module_effect "$P" "$fams")
# stub module commands; every environment change is printed, anything unknown is an error
cat >stub.tcl <<'EOF'
proc setenv {var val} { puts "setenv $var $val" }
proc prepend-path {var val} { puts "prepend $var $val" }
proc module-whatis {args} {}
proc conflict {args} {}
source [lindex $argv 0]
ModulesHelp
EOF
cat >stub.lua <<'EOF'
function setenv(k, v) print("setenv " .. k .. " " .. v) end
function prepend_path(k, v) print("prepend " .. k .. " " .. v) end
function pathJoin(a, b) return a .. "/" .. b end
function help(s) end
function whatis(s) end
function conflict(s) end
dofile(arg[1])
EOF
lua=$(command -v lua lua5.4 lua5.3 lua5.2 lua5.1 2>/dev/null | head -n1 || true)
# check_modules PREFIX FAMILIES: the module files installed under PREFIX do exactly what they must.
check_modules() {
    local tcl=$1/share/modulefiles/synctrace/$V luaf=$1/share/lmod/synctrace/$V.lua want f
    want=$(module_effect "$1" "$2")
    if command -v tclsh >/dev/null 2>&1; then
        tclsh stub.tcl "$tcl" >tcl.out 2>tcl.help || fail "tclsh cannot evaluate $tcl: $(cat tcl.out tcl.help)"
        assert_eq "Tcl modulefile effect ($2)" "$want" "$(cat tcl.out)"
        grep -q "synctrace $V" tcl.help || fail "ModulesHelp does not name the version"
        grep -q "SYNCTRACE_LIB_OPENMPI" tcl.help || fail "ModulesHelp does not name SYNCTRACE_LIB_OPENMPI"
    else
        note "no tclsh: Tcl modulefile checked by grep only"
        grep -q "^set root \"$1\"" "$tcl" || fail "Tcl modulefile: root"
        grep -q "^setenv  *SYNCTRACE_LIB  *\$root/lib/libsynctrace.so" "$tcl" || fail "Tcl modulefile: SYNCTRACE_LIB"
        for f in mpich openmpi; do
            if [[ " $2 " == *" $f "* ]]; then
                grep -q "^setenv  *SYNCTRACE_LIB_${f^^}  *\$root/lib/$f/libsynctrace.so" "$tcl" || fail "Tcl modulefile: SYNCTRACE_LIB_${f^^}"
            else
                grep -q "SYNCTRACE_LIB_${f^^}  " "$tcl" && fail "Tcl modulefile sets SYNCTRACE_LIB_${f^^}, not installed"
            fi
        done
    fi
    if [ -n "$lua" ]; then
        "$lua" stub.lua "$luaf" >lua.out 2>&1 || fail "lua cannot evaluate $luaf: $(cat lua.out)"
        assert_eq "Lmod file effect ($2)" "$want" "$(cat lua.out)"
    else
        note "no lua: Lmod file checked by grep only"
        grep -q "^local root = \"$1\"" "$luaf" || fail "Lmod file: root"
        grep -q 'setenv("SYNCTRACE_LIB", pathJoin(root, "lib/libsynctrace.so"))' "$luaf" || fail "Lmod file: SYNCTRACE_LIB"
        grep -q 'prepend_path("PATH", pathJoin(root, "bin"))' "$luaf" || fail "Lmod file: PATH"
        for f in mpich openmpi; do
            if [[ " $2 " == *" $f "* ]]; then
                grep -q "^setenv(\"SYNCTRACE_LIB_${f^^}\", pathJoin(root, \"lib/$f/libsynctrace.so\"))" "$luaf" \
                    || fail "Lmod file: SYNCTRACE_LIB_${f^^}"
            else
                grep -q "\"SYNCTRACE_LIB_${f^^}\"" "$luaf" && fail "Lmod file sets SYNCTRACE_LIB_${f^^}, not installed"
            fi
        done
    fi
    return 0
}
check_modules "$P" "$fams"
# the variables the modules set are known to synctrace (the library rejects unknown SYNCTRACE_*)
"$P/bin/synctrace" env >env.txt 2>&1 || fail "synctrace env failed: $(head -c 300 env.txt)"
for v in SYNCTRACE_ROOT SYNCTRACE_LIB SYNCTRACE_LIB_MPICH SYNCTRACE_LIB_OPENMPI; do
    grep -q "^$v " env.txt || fail "'synctrace env' does not list $v, which the module files set"
done

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
# ... and the library of an MPI program's family, for each family installed; a family not
# installed is refused in one line
printf '#include <mpi.h>\nint main(void) { int up = 0; MPI_Initialized(&up); return up; }\n' >mpiapp.c
for fam in mpich openmpi; do
    "mpicc.$fam" -o "app_$fam" mpiapp.c || fail "cannot build an $fam program with mpicc.$fam"
    if [[ " $fams " == *" $fam "* ]]; then
        assert_eq "installed synctrace-run, $fam program" "$P/lib/$fam/libsynctrace.so" \
            "$("$P/bin/synctrace-run" --print-lib "./app_$fam")"
    else
        set +e; "$P/bin/synctrace-run" --print-lib "./app_$fam" >/dev/null 2>miss.txt; rc=$?; set -e
        assert_eq "installed synctrace-run, $fam program, $fam not built" 2 "$rc"
        grep -q "is missing" miss.txt || fail "unclear error for a family not installed: $(cat miss.txt)"
    fi
done

# ---- a build of one family: the module names that family only --------------------------------
first=${fams%% *}
other=openmpi; [ "$first" = mpich ] || other=mpich
mkdir -p one/bin "one/lib/$first"
cp "$ST_BIN/synctrace" "$ST_BIN/synctrace-bench" one/bin/
cp "$O/lib/$first/libsynctrace.so" "one/lib/$first/"
ln -s "$first/libsynctrace.so" one/lib/libsynctrace.so
O=$T/one bash "$ST_ROOT/scripts/install.sh" "$T/p1" "$V" >one.log 2>&1 || fail "one-family install failed: $(cat one.log)"
[ -f "$T/p1/lib/$first/libsynctrace.so" ] || fail "one-family install: lib/$first/libsynctrace.so not installed"
[ ! -e "$T/p1/lib/$other" ] || fail "one-family install: lib/$other installed"
check_modules "$T/p1" "$first"

# ---- DESTDIR, re-install, bad prefix ----------------------------------------------------------
O=$O DESTDIR=$T/stage bash "$ST_ROOT/scripts/install.sh" /opt/st "$V" >stage.log 2>&1 || fail "DESTDIR install: $(cat stage.log)"
[ -f "$T/stage/opt/st/lib/libsynctrace.so" ] || fail "DESTDIR: library not staged"
for fam in $fams; do
    [ -f "$T/stage/opt/st/lib/$fam/libsynctrace.so" ] || fail "DESTDIR: lib/$fam/libsynctrace.so not staged"
done
grep -qx "ST_LIBDIR='/opt/st/lib'.*" "$T/stage/opt/st/bin/synctrace-run" || fail "DESTDIR: staged path baked in"
grep -q "^prefix=/opt/st$" "$T/stage/opt/st/lib/pkgconfig/synctrace.pc" || fail "DESTDIR: pc prefix"
grep -qx 'set root "/opt/st"' "$T/stage/opt/st/share/modulefiles/synctrace/$V" || fail "DESTDIR: module root"
O=$O bash "$ST_ROOT/scripts/install.sh" "$P" "$V" >reinstall.log 2>&1 || fail "re-install failed: $(cat reinstall.log)"
set +e
O=$O bash "$ST_ROOT/scripts/install.sh" "$T/with space" "$V" >bad.log 2>&1; rc=$?
set -e
assert_eq "prefix with a space refused" 1 "$rc"
grep -q "PREFIX .* has characters" bad.log || fail "unclear bad-prefix message: $(cat bad.log)"
[ ! -e "$T/with space" ] || fail "bad prefix created files"
echo ok
