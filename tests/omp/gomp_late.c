/*
 * gomp_late.c — a program that is not linked with an OpenMP runtime and loads one while it runs, as
 * Python loads numpy's OpenBLAS (tests/omp/t_gomp_notice.sh): it dlopens LIB (RTLD_LOCAL, as Python
 * loads an extension module) and calls its gomp_late_work(), which runs parallel regions.
 * Usage: gomp_late LIB. Prints the work's sum.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    long (*work)(int) = h ? (long (*)(int))dlsym(h, "gomp_late_work") : NULL;
    if (!work) {
        fprintf(stderr, "gomp_late: %s\n", dlerror());
        return 1;
    }
    printf("sum %ld\n", work(20));
    return 0;
}
