#!/usr/bin/env bash
# While finalize's heap reuse is on (util/heap.h), a block of 64 MiB (above glibc's 32 MiB ceiling
# for the mmap threshold: the analysis' and CLC's arrays from about 2 * 10^6 events per rank) comes
# from the heap, not a mapping of its own, and once freed its pages serve the next block; with the
# reuse off again such a block is mapped as by default. Asked to, the reuse marks the heap's growth
# for transparent huge pages: a 64 MiB block then lies in memory so marked (smaps' VmFlags "hg"),
# without it not, and after the reuse what is left of that part no longer is. Built without the
# sanitizers: what is tested is glibc's allocator, which ASan replaces.
source "$ST_ROOT/tests/lib.sh"

cat >"$ST_TMP/heap.c" <<'C'
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/heap.h"

enum { BIG = 64 << 20 };

static size_t mapped(void)
{
    return mallinfo2().hblks;
}

/* The VmFlags of the mapping holding p: 1 marked for huge pages, -1 marked against them, 0
 * neither, -2 not mapped. Allocates nothing (a FILE would put a block above the tested ones). */
static int huge_mark(uintptr_t p)
{
    static char text[4 << 20];
    int fd = open("/proc/self/smaps", O_RDONLY), in = 0, mark = -2;
    size_t len = 0;
    for (ssize_t r; fd >= 0 && len < sizeof text - 1 && (r = read(fd, text + len, sizeof text - 1 - len)) > 0;)
        len += (size_t)r;
    if (fd >= 0)
        close(fd);
    text[len] = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        unsigned long a, b;
        char *dash = strchr(line, '-'), *space = strchr(line, ' ');
        if (dash && space && dash < space && sscanf(line, "%lx-%lx ", &a, &b) == 2)
            in = p >= a && p < b;
        else if (in && !strncmp(line, "VmFlags:", 8))
            mark = strstr(line, " hg") ? 1 : strstr(line, " nh") ? -1 : 0;
    }
    return mark;
}

int main(int argc, char **argv)
{
    int thp = argc > 1 && argv[1][0] == '1'; /* the kernel has transparent huge pages */
    size_t m0 = mapped();
    st_heap_reuse(1, 0);
    char *a = malloc(BIG);
    if (!a)
        return printf("out of memory\n"), 1;
    memset(a, 1, BIG);
    int mark = huge_mark((uintptr_t)(a + BIG / 2));
    if (mark != 0)
        return printf("without huge pages asked for, a heap block is marked %d\n", mark), 1;
    if (mapped() != m0)
        return printf("during the reuse a 64 MiB block was mapped on its own (%zu mapped blocks, %zu before)\n",
                      mapped(), m0), 1;
    uintptr_t was = (uintptr_t)a;
    free(a);
    char *b = malloc(BIG);
    if ((uintptr_t)b != was)
        return printf("during the reuse a freed 64 MiB block was not reused (%#jx, then %p)\n", (uintmax_t)was, (void *)b), 1;
    free(b);
    st_heap_reuse(0, 0);
    char *c = malloc(BIG);
    if (!c || mapped() != m0 + 1)
        return printf("after the reuse a 64 MiB block was not mapped (%zu mapped blocks, %zu before)\n", mapped(), m0), 1;
    free(c);
    if (thp) {
        st_heap_reuse(1, (size_t)4 * BIG);
        char *d = malloc(BIG);
        if (!d)
            return printf("out of memory\n"), 1;
        memset(d, 1, BIG);
        uintptr_t mid = (uintptr_t)(d + BIG / 2);
        if (huge_mark(mid) != 1)
            return printf("with 256 MiB of huge pages asked for, a 64 MiB heap block is marked %d, not 1\n",
                          huge_mark(mid)), 1;
        /* cut from the top, above d: d's part of the heap stays when the reuse ends (volatile: kept) */
        char *volatile e = malloc(1 << 20);
        free(d);
        st_heap_reuse(0, 0);
        if (huge_mark(mid) != -1)
            return printf("after the reuse the heap's part once marked for huge pages is marked %d, not -1\n",
                          huge_mark(mid)), 1;
        free(e);
    }
    printf("ok\n");
    return 0;
}
C
gcc -std=c11 -D_GNU_SOURCE -O1 -Wall -Wextra -Werror -I"$ST_ROOT/src" -o "$ST_TMP/heap" "$ST_TMP/heap.c" \
    "$ST_ROOT/src/util/heap.c" || fail "cannot build the heap reuse test program"
thp=0
[ -d /sys/kernel/mm/transparent_hugepage ] && thp=1
out=$("$ST_TMP/heap" $thp) || fail "$out"
[ "$out" = ok ] || fail "unexpected output: $out"
