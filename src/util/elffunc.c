/* elffunc.c — function address ranges from an ELF symbol table (see elffunc.h). */
#include "elffunc.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads n bytes at off into a fresh buffer; NULL if they are not all in the file. */
static void *read_at(int fd, uint64_t size, uint64_t off, uint64_t n)
{
    if (off > size || n > size - off || n == 0)
        return NULL;
    char *b = malloc(n);
    for (uint64_t got = 0; b && got < n;) {
        ssize_t k = pread(fd, b + got, n - got, (off_t)(off + got));
        if (k <= 0) {
            free(b);
            return NULL;
        }
        got += (uint64_t)k;
    }
    return b;
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const st_elf_func_t *)a)->start, y = ((const st_elf_func_t *)b)->start;
    return (x > y) - (x < y);
}

/* The symbol table section of type want among the n section headers, NULL if none or malformed. */
static const Elf64_Shdr *symtab_of(const Elf64_Shdr *sh, uint16_t n, uint32_t want)
{
    for (uint16_t i = 0; i < n; i++)
        if (sh[i].sh_type == want && sh[i].sh_entsize == sizeof(Elf64_Sym))
            return &sh[i];
    return NULL;
}

int st_elf_funcs_load(const char *path, st_elf_funcs_t *f)
{
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO named by a damaged dump must not block */
    struct stat st;
    if (fd < 0)
        return -1;
    Elf64_Ehdr *eh = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read_at(fd, (uint64_t)st.st_size, 0, sizeof *eh) : NULL;
    Elf64_Shdr *sh = NULL;
    Elf64_Sym *sym = NULL;
    int rc = -1;
    if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shentsize != sizeof *sh)
        goto out;
    sh = read_at(fd, (uint64_t)st.st_size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *sh);
    const Elf64_Shdr *tab = sh ? symtab_of(sh, eh->e_shnum, SHT_SYMTAB) : NULL;
    if (sh && !tab) /* stripped: the dynamic symbols still name the exported functions */
        tab = symtab_of(sh, eh->e_shnum, SHT_DYNSYM);
    if (!tab || !(sym = read_at(fd, (uint64_t)st.st_size, tab->sh_offset, tab->sh_size)))
        goto out;
    size_t nsym = tab->sh_size / sizeof *sym, n = 0;
    if (!(f->v = malloc((nsym ? nsym : 1) * sizeof *f->v)))
        goto out;
    for (size_t i = 0; i < nsym; i++)
        if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_size > 0 && sym[i].st_shndx != SHN_UNDEF)
            f->v[n++] = (st_elf_func_t){ sym[i].st_value, sym[i].st_size };
    qsort(f->v, n, sizeof *f->v, by_start);
    f->n = n;
    rc = 0;
out:
    free(sym), free(sh), free(eh);
    close(fd);
    if (rc)
        st_elf_funcs_free(f);
    return rc;
}

const st_elf_func_t *st_elf_func_at(const st_elf_funcs_t *f, uint64_t rel)
{
    size_t lo = 0, hi = f->n; /* the last function starting at or before rel */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->v[mid].start <= rel)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* aliases share a start: any of them with the range will do */
    for (size_t i = lo; i-- > 0 && f->v[i].start == f->v[lo - 1].start;)
        if (rel - f->v[i].start < f->v[i].size)
            return &f->v[i];
    return NULL;
}

void st_elf_funcs_free(st_elf_funcs_t *f)
{
    free(f->v);
    memset(f, 0, sizeof *f);
}

/* The file offset of the n bytes at address at, from the loadable segments ph[0..nph); -1 if not all in one. */
static int64_t file_offset(const Elf64_Phdr *ph, uint16_t nph, uint64_t at, uint64_t n)
{
    for (uint16_t i = 0; i < nph; i++)
        if (ph[i].p_type == PT_LOAD && at >= ph[i].p_vaddr && at - ph[i].p_vaddr <= ph[i].p_filesz &&
            n <= ph[i].p_filesz - (at - ph[i].p_vaddr))
            return (int64_t)(ph[i].p_offset + (at - ph[i].p_vaddr));
    return -1;
}

void st_elf_call_targets(const char *path, const uint64_t *ret, uint64_t *target, size_t n)
{
    memset(target, 0, n * sizeof *target);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    uint64_t size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    Elf64_Ehdr *eh = size ? read_at(fd, size, 0, sizeof *eh) : NULL;
    Elf64_Phdr *ph = NULL;
    if (eh && !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
        eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_machine == EM_X86_64 && eh->e_phentsize == sizeof *ph)
        ph = read_at(fd, size, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof *ph);
    for (size_t i = 0; ph && i < n; i++) {
        unsigned char insn[5]; /* e8 and a 32-bit displacement from ret */
        int64_t off = ret[i] >= 5 ? file_offset(ph, eh->e_phnum, ret[i] - 5, 5) : -1;
        if (off < 0 || pread(fd, insn, 5, off) != 5 || insn[0] != 0xe8)
            continue;
        int32_t disp = (int32_t)((uint32_t)insn[1] | (uint32_t)insn[2] << 8 | (uint32_t)insn[3] << 16 |
                                 (uint32_t)insn[4] << 24);
        target[i] = ret[i] + (uint64_t)(int64_t)disp;
    }
    free(ph), free(eh);
    close(fd);
}
