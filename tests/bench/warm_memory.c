/*
 * warm_memory.c — touches and frees MB mebibytes of anonymous memory (huge pages where the system
 * has them), then exits: run just before a measured process, so that the pages that process gets
 * fresh are ones the machine has just had in use.
 *
 * Why (docs/performance.md, "Fresh memory on this machine"): in a virtual machine whose host takes
 * back the memory a guest frees (virtio-balloon free page reporting), the first touch of a page the
 * host has to back again costs 2-4 ms per 2 MiB huge page and 7 ms per 2 MiB of 4 KiB pages here,
 * against 0.13 ms per 2 MiB for a page the guest freed a moment ago. Finalize's phases touch tens of
 * MiB of fresh memory, so their times swing by 2-3 times with what the machine did in the seconds
 * before; on a machine without such a host only the kernel's clearing of a page remains.
 * Usage: warm_memory [MB] (default 1024).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    long mb = argc > 1 ? strtol(argv[1], NULL, 10) : 1024;
    if (mb <= 0 || mb > (1L << 20)) {
        fprintf(stderr, "usage: warm_memory [MB: 1 .. 1048576]\n");
        return 2;
    }
    size_t n = (size_t)mb << 20;
    volatile char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("warm_memory: mmap");
        return 1;
    }
    (void)madvise((void *)p, n, MADV_HUGEPAGE);
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    munmap((void *)p, n);
    return 0;
}
