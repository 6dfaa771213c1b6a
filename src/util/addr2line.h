/*
 * addr2line.h — code addresses to source-level frames, "function (file:line)", one symbolizer
 * process per object and batch. Shared by the shim (call sites and call-path frames at
 * MPI_Finalize, src/mpi/callsite.c) and `synctrace recover` (the frames of a raw dump, which
 * names each frame's object and load address: the process is gone).
 *
 * The symbolizer is llvm-symbolizer where it is installed, else binutils' addr2line; both are
 * asked the same way (GNU output, -a -f -i -C) and read by one reader. With -i an address inside
 * inlined code gives a chain of frames: the inlined function, the function it was inlined into,
 * and so on out to the function the code lies in. (addr2line 2.40 names the innermost frame of
 * a chain after the symbol of the function holding the code when the inlined function has no
 * linkage name, as GCC's static C++ functions have not; llvm-symbolizer names it right.)
 * Names and locations are read whole, of any length (C++ template names of kilobytes).
 */
#ifndef ST_UTIL_ADDR2LINE_H
#define ST_UTIL_ADDR2LINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct st_a2l_frame {
    char *func; /* function name, malloc'd */
    char *loc;  /* "file:line", " (discriminator N)" dropped; "??:0" when unknown; malloc'd */
} st_a2l_frame_t;

typedef struct st_a2l {
    uint64_t rel;       /* address inside the object: absolute for an ET_EXEC object, else from its load base */
    st_a2l_frame_t *fr; /* fr[0..nfr): innermost first (the inlined function), the function holding the code
                         * last; nfr 0 until asked and when the symbolizer cannot name the address */
    uint32_t nfr;
    uint32_t fn_begin, fn_end; /* lines where fr[nfr - 1]'s function begins and ends (st_addr2line_funcs), 0 unknown */
    uint64_t callee, callee_size; /* the function the call ending at rel + 1 goes to directly (start, size,
                                   * addressed like rel; st_addr2line_funcs), 0 when unknown */
    char *callee_func;            /* its name (the outermost frame at its first byte), malloc'd; NULL unknown */
    uint64_t fn_at; /* nfr 0: the start of the function holding rel from the object's unwind tables (a stripped
                     * object keeps them; addressed like rel; st_addr2line_funcs), 0 unknown */
} st_a2l_t;

/* Nonzero when path is an ET_EXEC object (addressed absolutely, not relative to a load base). */
int st_object_fixed(const char *path);

/* The symbolizer command run ("llvm-symbolizer" or "addr2line"), found on PATH once. */
const char *st_symbolizer(void);

/* Fills the frames of q[0..n) (addresses in the object obj); what the symbolizer cannot tell stays empty. */
void st_addr2line(const char *obj, st_a2l_t *const *q, size_t n);

/*
 * st_addr2line, plus the lines where the outermost function of each of q[0..n) begins and ends
 * (fn_begin/fn_end), in the same symbolizer runs: the object's symbol table gives each function's
 * address range (elffunc.h), the symbolizer the lines of its first and last byte. Left 0 where the
 * symbol is missing or the lines are not the same function's. A name the symbolizer took from the
 * symbol table alone (no debug information: location "??:0") is dropped when no function symbol's
 * range holds the address: it would be a neighbour's. Where the call ending at rel + 1 is a
 * direct call to the start of a function of the object, that function is the callee (callee,
 * callee_size, callee_func): a frame that is gone from the stack when it tail-called.
 */
void st_addr2line_funcs(const char *obj, st_a2l_t *const *q, size_t n);
/* (In both cases an address the symbolizer cannot name gets fn_at from the object's .eh_frame.) */

/*
 * The reader: a symbolizer's answer for q[0..n), in GNU style with -a (each address on a line of
 * its own, "0x" and hex digits, then its function/location line pairs). An address whose echo
 * does not come in order, and every one after it, is left empty: a frame is never another
 * address's. Frames with an unknown function ("??") leave the whole address empty.
 */
void st_a2l_read(FILE *in, st_a2l_t *const *q, size_t n);

/* Frees q's frames (q is empty again, rel kept). */
void st_a2l_clear(st_a2l_t *q);

/* The text of frame f: "func (file:line)" (file without its directories) or "func"; malloc'd, NULL when
 * out of memory. */
char *st_a2l_frame_text(const st_a2l_frame_t *f);

/* The text of an address no symbolizer named: "object+0xrel" (object without its directories); malloc'd. */
char *st_a2l_unnamed(const char *obj, uint64_t rel);

/*
 * st_addr2line_funcs for q[0..n), the address of q[i] in the object obj[i], with one symbolizer run per
 * distinct object; entries with obj[i] NULL are left as they are. Out of memory: nothing is asked.
 */
void st_addr2line_objects(st_a2l_t *const *q, const char *const *obj, size_t n);

#endif
