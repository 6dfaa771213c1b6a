#!/usr/bin/env bash
# t_header.sh — include/synctrace.h: compiles warning-free as C99/C11/C++ with gcc and clang;
# a program using it runs without synctrace (weak functions are NULL) and, preloaded with an
# implementation, calls it; the real libsynctrace.so exports exactly those functions.
source "$ST_ROOT/tests/lib.sh"

T=$ST_TMP
H=$ST_ROOT/include
cat >"$T/app.c" <<'EOF'
#include <synctrace.h>
#include <stdio.h>
int main(void)
{
    if (!SYNCTRACE_LOADED()) {
        printf("loaded=0\n");
        return 0;
    }
    printf("loaded=1 enabled=%d time=%llu\n", synctrace_enabled(),
           (unsigned long long)synctrace_global_time_ns());
    return 0;
}
EOF
cp "$T/app.c" "$T/app.cc"

W="-Wall -Wextra -Werror -pedantic"
gcc -std=c99 $W -I"$H" -o "$T/app_c99" "$T/app.c" || fail "gcc -std=c99"
gcc -std=c11 $W -I"$H" -o "$T/app_c11" "$T/app.c" || fail "gcc -std=c11"
clang -std=c11 $W -I"$H" -o "$T/app_clang" "$T/app.c" || fail "clang -std=c11"
g++ -std=c++11 $W -I"$H" -o "$T/app_cxx" "$T/app.cc" || fail "g++ -std=c++11"
mpi_cc -std=c11 $W -I"$H" -o "$T/app_mpicc" "$T/app.c" || fail "$MPI_CC -std=c11"
# the header alone, as C11 with every warning (a header must compile on its own)
echo '#include <synctrace.h>' | gcc -std=c11 $W -Wmissing-prototypes -I"$H" -x c -fsyntax-only - \
    || fail "header not self-contained"

# an implementation built the way the library is: hidden visibility, SYNCTRACE_BUILDING
cat >"$T/impl.c" <<'EOF'
#define SYNCTRACE_BUILDING 1
#include <synctrace.h>
int synctrace_enabled(void) { return 1; }
uint64_t synctrace_global_time_ns(void) { return 12345; }
int st_internal(void);
int st_internal(void) { return 0; }
EOF
gcc -std=c11 $W -fPIC -fvisibility=hidden -shared -I"$H" -o "$T/libimpl.so" "$T/impl.c" || fail "impl"
exports=$(nm -D --defined-only "$T/libimpl.so" | awk '{print $3}' | grep -v '^_' | sort | tr '\n' ' ')
assert_eq "exports of an implementation" "synctrace_enabled synctrace_global_time_ns " "$exports"

for app in app_c99 app_c11 app_clang app_cxx app_mpicc; do
    assert_eq "$app without synctrace" "loaded=0" "$("$T/$app")"
    assert_eq "$app preloaded" "loaded=1 enabled=1 time=12345" "$(LD_PRELOAD=$T/libimpl.so "$T/$app")"
done

# the real library must provide the API (define SYNCTRACE_BUILDING before including the header)
[ -f "$ST_LIB" ] || fail "$ST_LIB not built"
for f in synctrace_enabled synctrace_global_time_ns; do
    nm -D --defined-only "$ST_LIB" | awk '{print $3}' | grep -qx "$f" \
        || fail "$ST_LIB does not export $f (include/synctrace.h; define SYNCTRACE_BUILDING in its source)"
done
out=$(SYNCTRACE_ENABLE=0 LD_PRELOAD=$ST_LIB timeout -k 10 60 "$T/app_c11") || fail "app with the real library failed"
[[ $out == "loaded=1 enabled=0 "* ]] || fail "real library, SYNCTRACE_ENABLE=0: expected loaded=1 enabled=0, got '$out'"
echo ok
