/*
 * elffunc.h — the function around a code address, from an object file's ELF symbol table.
 *
 * A call-path frame knows where it made a call; a CUBE or OTF2 region of that function also
 * wants where the function begins and ends. The symbol table (.symtab, else .dynsym) gives the
 * function's address range, which addr2line then turns into lines (addr2line.h). Reads the
 * file, so it serves the shim at MPI_Finalize and `synctrace recover` after the process is gone.
 */
#ifndef ST_UTIL_ELFFUNC_H
#define ST_UTIL_ELFFUNC_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_elf_func {
    uint64_t start, size; /* as the symbol table says: absolute for ET_EXEC, else from the load base */
} st_elf_func_t;

typedef struct st_elf_funcs {
    st_elf_func_t *v; /* sorted by start */
    size_t n;
} st_elf_funcs_t;

/* The function symbols (STT_FUNC, size > 0) of the 64-bit little-endian ELF object path;
 * 0, or -1 (f empty) when the file is not such an object or has no symbol table. */
int st_elf_funcs_load(const char *path, st_elf_funcs_t *f);

/* The functions the unwind tables (.eh_frame: one FDE per function, kept in stripped objects too) of the
 * 64-bit little-endian ELF object path cover; 0, or -1 (f empty) when there are none or the file is no
 * such object. What a stripped object's frames fall in: it names no function, but its code's extent. */
int st_elf_fdes_load(const char *path, st_elf_funcs_t *f);

/* The function whose range holds address rel (addressed like st_elf_func_t), NULL if none. */
const st_elf_func_t *st_elf_func_at(const st_elf_funcs_t *f, uint64_t rel);

void st_elf_funcs_free(st_elf_funcs_t *f);

/*
 * The targets of the direct calls that end at the addresses ret[0..n) of object path (x86-64
 * "call rel32", addressed like st_elf_func_t) into target[0..n); 0 where the instruction before
 * ret[i] is no such call or the object is no x86-64 ELF file. A call's target is what the caller
 * called even when that function's frame is gone (a tail call replaced it).
 */
void st_elf_call_targets(const char *path, const uint64_t *ret, uint64_t *target, size_t n);

#endif
