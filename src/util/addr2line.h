/*
 * addr2line.h — code addresses to "function (file:line)" with binutils' addr2line, one
 * process per object and batch. Shared by the shim (call sites and call-path frames at
 * MPI_Finalize, src/mpi/callsite.c) and `synctrace recover` (the frames of a raw dump,
 * which names each frame's object and load address: the process is gone).
 */
#ifndef ST_UTIL_ADDR2LINE_H
#define ST_UTIL_ADDR2LINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_a2l {
    uint64_t rel;   /* address inside the object: absolute for an ET_EXEC object, else from its load base */
    char func[256]; /* what addr2line says ("" until asked, "??" unknown) */
    char loc[512];  /* "file:line" ("??:0" unknown), " (discriminator N)" dropped */
    uint32_t fn_begin, fn_end; /* lines where func begins and ends (st_addr2line_funcs), 0 unknown */
} st_a2l_t;

/* Nonzero when path is an ET_EXEC object (addressed absolutely, not relative to a load base). */
int st_object_fixed(const char *path);

/* Fills func/loc of q[0..n) (addresses in the object obj); what addr2line cannot tell stays empty. */
void st_addr2line(const char *obj, st_a2l_t *const *q, size_t n);

/*
 * st_addr2line, plus the lines where the functions of q[0..n) begin and end (fn_begin/fn_end),
 * in the same addr2line runs: the object's symbol table gives each function's address range
 * (elffunc.h), addr2line the lines of its first and last byte. Left 0 where the symbol is missing
 * or the lines are not the same function's (an address inside inlined code names the inlined
 * function, whose range is not a symbol's).
 */
void st_addr2line_funcs(const char *obj, st_a2l_t *const *q, size_t n);

/*
 * The text of a resolved address: "func (file:line)" (file without its directories) or "func";
 * 0, or -1 when addr2line did not know the function (out untouched).
 */
int st_a2l_text(const st_a2l_t *q, char *out, size_t len);

#endif
