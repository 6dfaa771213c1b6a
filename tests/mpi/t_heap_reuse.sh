#!/usr/bin/env bash
# While finalize's heap reuse is on (util/heap.h), a block of 64 MiB (above glibc's 32 MiB ceiling
# for the mmap threshold: the analysis' and CLC's arrays from about 2 * 10^6 events per rank) comes
# from the heap, not a mapping of its own, and once freed its pages serve the next block; with the
# reuse off again such a block is mapped as by default. Built without the sanitizers: what is tested
# is glibc's allocator, which ASan replaces.
source "$ST_ROOT/tests/lib.sh"

cat >"$ST_TMP/heap.c" <<'C'
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/heap.h"

enum { BIG = 64 << 20 };

static size_t mapped(void)
{
    return mallinfo2().hblks;
}

int main(void)
{
    size_t m0 = mapped();
    st_heap_reuse(1);
    char *a = malloc(BIG);
    if (!a)
        return printf("out of memory\n"), 1;
    memset(a, 1, BIG);
    if (mapped() != m0)
        return printf("during the reuse a 64 MiB block was mapped on its own (%zu mapped blocks, %zu before)\n",
                      mapped(), m0), 1;
    uintptr_t was = (uintptr_t)a;
    free(a);
    char *b = malloc(BIG);
    if ((uintptr_t)b != was)
        return printf("during the reuse a freed 64 MiB block was not reused (%#jx, then %p)\n", (uintmax_t)was, (void *)b), 1;
    free(b);
    st_heap_reuse(0);
    char *c = malloc(BIG);
    if (!c || mapped() != m0 + 1)
        return printf("after the reuse a 64 MiB block was not mapped (%zu mapped blocks, %zu before)\n", mapped(), m0), 1;
    free(c);
    printf("ok\n");
    return 0;
}
C
gcc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I"$ST_ROOT/src" -o "$ST_TMP/heap" "$ST_TMP/heap.c" \
    "$ST_ROOT/src/util/heap.c" || fail "cannot build the heap reuse test program"
out=$("$ST_TMP/heap") || fail "$out"
[ "$out" = ok ] || fail "unexpected output: $out"
