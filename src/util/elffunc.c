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

/* A 64-bit little-endian ELF file open for reading: its size, header and section headers. */
typedef struct elf {
    int         fd;
    uint64_t    size;
    Elf64_Ehdr *eh;
    Elf64_Shdr *sh; /* [eh->e_shnum] */
} elf_t;

/* Opens path as such a file (a regular file only: a FIFO named by a damaged dump must not block); 0, or -1
 * with nothing left open when it is not one or its section headers do not lie in it. */
static int elf_open(const char *path, elf_t *o)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    if ((o->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
        return -1;
    o->size = fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    Elf64_Ehdr *eh = o->eh = o->size ? read_at(o->fd, o->size, 0, sizeof *eh) : NULL;
    if (eh && !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
        eh->e_ident[EI_DATA] == ELFDATA2LSB && eh->e_shentsize == sizeof *o->sh &&
        (o->sh = read_at(o->fd, o->size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof *o->sh)))
        return 0;
    free(o->eh);
    close(o->fd);
    memset(o, 0, sizeof *o);
    return -1;
}

static void elf_close(elf_t *o)
{
    free(o->sh), free(o->eh);
    close(o->fd);
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
    elf_t o;
    if (elf_open(path, &o))
        return -1;
    Elf64_Sym *sym = NULL;
    int rc = -1;
    const Elf64_Shdr *tab = symtab_of(o.sh, o.eh->e_shnum, SHT_SYMTAB);
    if (!tab) /* stripped: the dynamic symbols still name the exported functions */
        tab = symtab_of(o.sh, o.eh->e_shnum, SHT_DYNSYM);
    if (!tab || !(sym = read_at(o.fd, o.size, tab->sh_offset, tab->sh_size)))
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
    free(sym);
    elf_close(&o);
    if (rc)
        st_elf_funcs_free(f);
    return rc;
}

/* ---- .eh_frame (the System V x86-64 ABI's unwind tables, DWARF call frame information) ---- */

typedef struct eh {
    const unsigned char *d; /* the section */
    uint64_t n, addr;       /* its size and address */
} eh_t;

/* An unsigned LEB128 at *p (advanced); 0 past the end (*p then n). */
static uint64_t uleb(const eh_t *e, uint64_t *p)
{
    uint64_t v = 0;
    for (unsigned sh = 0; *p < e->n; sh += 7) {
        unsigned char b = e->d[(*p)++];
        if (sh < 64)
            v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return v;
    }
    return 0;
}

static uint64_t le(const eh_t *e, uint64_t p, unsigned k)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < k; i++)
        v |= (uint64_t)e->d[p + i] << (8 * i);
    return v;
}

/* A pointer of encoding enc (DW_EH_PE_*) at *p (advanced); -1 for an encoding not read here (indirect,
 * text-, data- or function-relative, aligned), or past the end. pcrel adds the field's address. */
static int eh_ptr(const eh_t *e, uint64_t *p, unsigned enc, int apply, uint64_t *v)
{
    static const unsigned size[16] = { 8, 0, 2, 4, 8, 0, 0, 0, 0, 0, 2, 4, 8, 0, 0, 0 };
    uint64_t at = *p;
    unsigned fmt = enc & 0x0f, k = size[fmt];
    if (enc == 0xff || (enc & 0x80) || ((enc & 0x70) != 0x00 && (enc & 0x70) != 0x10))
        return -1;
    if (fmt == 0x01 || fmt == 0x09) { /* uleb128, sleb128: as read (no sign for the sizes seen here) */
        *v = uleb(e, p);
    } else {
        if (!k || *p > e->n || k > e->n - *p)
            return -1;
        *v = le(e, *p, k);
        if (fmt >= 0x0a && k < 8 && (*v >> (8 * k - 1) & 1)) /* signed: extended */
            *v |= ~0ull << (8 * k);
        *p += k;
    }
    if (apply && (enc & 0x70) == 0x10)
        *v += e->addr + at;
    return 0;
}

/* The FDE pointer encoding of the CIE at off (its augmentation's 'R'; absptr without one), -1 if malformed. */
static int cie_enc(const eh_t *e, uint64_t off)
{
    if (off > e->n || e->n - off < 9)
        return -1;
    uint64_t len = le(e, off, 4), p = off + 4;
    if (len == 0xffffffffu)
        return -1; /* a 64-bit CIE: not made for x86-64 code */
    if (le(e, p, 4) != 0 || len > e->n - p)
        return -1;
    uint64_t end = p + len;
    p += 4;
    if (p >= end) /* no room for the version and the augmentation string */
        return -1;
    unsigned version = e->d[p++];
    const char *aug = (const char *)e->d + p;
    uint64_t alen = strnlen(aug, end - p);
    if (p + alen >= end)
        return -1;
    p += alen + 1;
    uleb(e, &p); /* code alignment */
    uleb(e, &p); /* data alignment (its sign does not matter here) */
    if (version == 1)
        p++;
    else
        uleb(e, &p); /* return address register */
    if (aug[0] != 'z')
        return aug[0] ? -1 : 0x00;
    uleb(e, &p); /* augmentation data length */
    for (uint64_t i = 1; i < alen && p < end; i++) {
        uint64_t v;
        switch (aug[i]) {
        case 'R': return e->d[p];
        case 'L': p++; break;
        case 'P': {
            unsigned penc = e->d[p++];
            if (eh_ptr(e, &p, penc & 0x7f, 0, &v))
                return -1;
            break;
        }
        case 'S': case 'B': break;
        default: return -1;
        }
    }
    return 0x00;
}

int st_elf_fdes_load(const char *path, st_elf_funcs_t *f)
{
    memset(f, 0, sizeof *f);
    elf_t o;
    if (elf_open(path, &o))
        return -1;
    const Elf64_Ehdr *eh = o.eh;
    const Elf64_Shdr *sh = o.sh;
    char *names = NULL;
    unsigned char *data = NULL;
    int rc = -1;
    if (eh->e_shstrndx >= eh->e_shnum ||
        !(names = read_at(o.fd, o.size, sh[eh->e_shstrndx].sh_offset, sh[eh->e_shstrndx].sh_size)))
        goto out;
    const Elf64_Shdr *s = NULL;
    for (uint16_t i = 0; i < eh->e_shnum && !s; i++)
        if (sh[i].sh_type == SHT_PROGBITS && sh[i].sh_name < sh[eh->e_shstrndx].sh_size &&
            !strncmp(names + sh[i].sh_name, ".eh_frame", sh[eh->e_shstrndx].sh_size - sh[i].sh_name) &&
            strnlen(names + sh[i].sh_name, sh[eh->e_shstrndx].sh_size - sh[i].sh_name) == 9)
            s = &sh[i];
    if (!s || !(data = read_at(o.fd, o.size, s->sh_offset, s->sh_size)))
        goto out;
    eh_t e = { data, s->sh_size, s->sh_addr };
    size_t n = 0, cap = 0;
    uint64_t last_cie = UINT64_MAX;
    int enc = -1;
    for (uint64_t off = 0; off <= e.n && e.n - off >= 8;) {
        uint64_t len = le(&e, off, 4), p = off + 4;
        if (len == 0 || len == 0xffffffffu || len > e.n - p)
            break; /* the terminator, or an entry not made for x86-64 code */
        uint64_t next = p + len, id = le(&e, p, 4);
        if (id != 0 && id <= p) { /* an FDE: its CIE lies id bytes back */
            uint64_t cie = p - id, start, range;
            if (cie != last_cie)
                enc = cie_enc(&e, cie), last_cie = cie;
            p += 4;
            if (enc >= 0 && !eh_ptr(&e, &p, (unsigned)enc, 1, &start) &&
                !eh_ptr(&e, &p, (unsigned)enc & 0x0f, 0, &range) && range > 0) {
                if (n == cap) {
                    st_elf_func_t *v = realloc(f->v, (cap = cap ? 2 * cap : 256) * sizeof *v);
                    if (!v)
                        goto out;
                    f->v = v;
                }
                f->v[n++] = (st_elf_func_t){ start, range };
            }
        }
        off = next;
    }
    if (!n)
        goto out;
    qsort(f->v, n, sizeof *f->v, by_start);
    f->n = n;
    rc = 0;
out:
    free(data), free(names);
    elf_close(&o);
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
