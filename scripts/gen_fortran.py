"""gen_fortran.py - Fortran entry points of the MPI families, generated from the same table as the C wrappers.

scripts/gen_wrappers.py plans the C wrappers (one per MPI function of mpi.h: the table role's
substituted pre/post code, or the generic enter/leave shape) and calls render() to write each
family's mpi_fortran.c, for the Fortran calls that never reach a C wrapper:
 - openmpi: all its Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) call the C PMPI_*
   functions: entry points for every name (mpi_x_, its aliases, mpi_x_f08_), each forwarding to
   Open MPI's own Fortran profiling entry (pmpi_x_, pmpi_x_f08_, weak references);
 - mpich: its mpif.h and `use mpi` bindings call the C MPI_* functions, and so do its `use
   mpi_f08` bindings of functions with a choice buffer (mpi_x_f08ts_: TS 29113 descriptors), all
   recorded by the C wrappers; only its other `use mpi_f08` bindings (mpi_x_f08_) call PMPI_*.
   So only those names, each forwarding to MPICH's own mpi_x_f08_ (it has no pmpi_x_f08_; found
   with dlsym(RTLD_NEXT)): nothing is recorded twice.
So what the call does stays exactly the MPI library's.

Around the forwarded call runs the same code as in the C wrapper, on C values converted from
the Fortran arguments the role's code reads, and only those (src/mpi/fortran.h): handles with
PMPI_*_f2c, statuses with PMPI_Status_f2c (MPI_STATUS(ES)_IGNORE replaced by local storage, as
the C wrapper does), request arrays and 1-based indices into thread-local scratch, LOGICAL flags,
the MPI_IN_PLACE / MPI_BOTTOM sentinels, ierr (optional in mpi_f08: may be NULL) as rc.

The Fortran argument list of MPI_X is its C parameter list (each by reference), then ierr, then
one hidden length per character argument (gfortran: size_t). A function whose role reads an
argument of a kind not converted here (arrays of datatypes, a pointer to a handle kept beyond
the call, ...) gets the generic enter/leave shape; render() lists those in the file. Functions
with no Fortran binding in the same shape (MPI_T_*, MPIX_*, large-count _c, functions returning
a value) get no entry point.
"""
import os
import re
import textwrap

IDENT_RE = re.compile(r"[A-Za-z_]\w*")

# C handle types -> their f2c conversion (Open MPI's mpi.h declares PMPI_X_f2c for each).
HANDLE_F2C = {
    "MPI_Comm": "PMPI_Comm_f2c", "MPI_Datatype": "PMPI_Type_f2c", "MPI_Op": "PMPI_Op_f2c",
    "MPI_Info": "PMPI_Info_f2c", "MPI_Group": "PMPI_Group_f2c", "MPI_Errhandler": "PMPI_Errhandler_f2c",
    "MPI_Win": "PMPI_Win_f2c", "MPI_File": "PMPI_File_f2c", "MPI_Message": "PMPI_Message_f2c",
    "MPI_Request": "PMPI_Request_f2c",
}
# INTEGER kinds that Fortran passes as the C type itself.
SCALARS = {"int", "MPI_Aint", "MPI_Offset", "MPI_Count"}
# Parameters whose int is a Fortran LOGICAL or a 1-based index (standard names; MPICH says indx).
LOGICALS = {"flag"}
INDEX_NAMES = {"index", "indx"}
INDICES_NAMES = {"array_of_indices"}
# Parameters giving the length of request and status arrays.
COUNT_NAMES = ("count", "incount")
# Manual in C (src/mpi/init.c, finalize.c, ends.c): hand-written in src/mpi/fortran.c.
HAND_WRITTEN = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Abort"}
# MPICH's mpi_f08: the void * parameters that are not choice buffers (a function with any other
# void * parameter is bound as mpi_x_f08ts_ and calls the C MPI_X), and the functions of its
# mpi.h without an mpi_f08 binding (removed from MPI-3 on; status conversions).
MPICH_NOT_CHOICE = {"attribute_val", "baseptr", "buffer_addr", "extra_state"}
MPICH_NO_F08 = {
    "MPI_Address", "MPI_Attr_delete", "MPI_Attr_get", "MPI_Attr_put", "MPI_Errhandler_create",
    "MPI_Errhandler_get", "MPI_Errhandler_set", "MPI_Keyval_create", "MPI_Keyval_free", "MPI_Type_extent",
    "MPI_Type_hindexed", "MPI_Type_hvector", "MPI_Type_lb", "MPI_Type_struct", "MPI_Type_ub",
    "MPI_Status_c2f", "MPI_Status_f2c", "MPI_Status_c2f08", "MPI_Status_f082c", "MPI_Status_f082f",
    "MPI_Status_f2f08",
}
FAMILIES = ("openmpi", "mpich")


class Unsupported(Exception):
    """A parameter the role's code reads cannot be converted: the function takes the generic shape."""


def has_fortran(proto):
    """Whether the MPI library has a Fortran binding of the C shape for this function."""
    n = proto.name
    return (n.startswith("MPI_") and not n.startswith("MPI_T_") and not n.endswith("_c")
            and proto.ret == ["int"] and not proto.variadic and n not in HAND_WRITTEN)


def mpich_f08_calls_pmpi(proto):
    """Whether MPICH's `use mpi_f08` binding of this function is mpi_x_f08_, which calls PMPI_X
    (no choice buffer; the mpi_x_f08ts_ bindings of the others call the C MPI_X)."""
    return proto.name not in MPICH_NO_F08 and not any(
        param_kind(p)[0] == "buf" and p.name not in MPICH_NOT_CHOICE for p in proto.params)


def param_kind(p):
    """(kind, base type) of a C parameter from its tokens: scalar, handle, buf, ptr, array, other."""
    toks = [t for t in p.tokens if t not in ("const", "volatile", "restrict", "__restrict")]
    base = toks[0]
    stars = toks.count("*") + toks.count("[")
    if "(" in toks or "char" in toks:
        return "other", base
    if base == "void" and stars == 1:
        return "buf", base
    if stars == 0:
        return ("scalar" if base in SCALARS else "handle" if base in HANDLE_F2C else "other"), base
    if stars == 1:
        return ("ptr" if "*" in toks else "array"), base
    return "other", base


def uses(lines, name):
    return any(name in IDENT_RE.findall(l) for l in lines)


def only_deref(lines, name):
    """True when every use of name in lines is *name (the value, never the pointer itself)."""
    text = " ".join(lines)
    return all(text[max(0, m.start() - 1):m.start()] == "*"
               for m in re.finditer(r"(?<![\w.>])" + re.escape(name) + r"\b", text))


def count_param(proto):
    for c in COUNT_NAMES:
        if c in proto.arg_names():
            return f"(int)*(const MPI_Fint *)f_{c}"
    raise Unsupported("no count for an array")


def conversions(w, family):
    """(before, after, guards): C lines declaring and setting the C values the role's code reads.

    before runs ahead of the call (and of the role's pre code), after right after it (before the
    post code); guards are the converted arrays that are NULL when out of memory (the call then
    keeps the generic shape)."""
    before, after, guards = [], [], []
    code = w.pre + w.post
    for p in w.proto.params:
        n = p.name
        if not uses(code, n):
            continue
        kind, base = param_kind(p)
        f = f"f_{n}"
        in_pre, in_post = uses(w.pre, n), uses(w.post, n)
        if kind == "scalar":
            ctype = "int" if base == "int" else base
            src = f"*(const MPI_Fint *){f}" if base == "int" else f"*(const {base} *){f}"
            before.append(f"{ctype} {n} = {src};")
        elif kind == "handle":
            before.append(f"{base} {n} = {HANDLE_F2C[base]}(*(const MPI_Fint *){f});")
        elif kind == "buf":
            if family != "openmpi":  # MPICH's mpi_x_f08_ have no choice buffer
                raise Unsupported(n)
            const = "const " if "const" in p.tokens else ""
            before.append(f"{const}void *{n} = st_f_buf({f});")
        elif kind == "ptr" and base == "int":
            if n in LOGICALS or n in INDEX_NAMES:
                conv = f"*(const MPI_Fint *){f} != 0" if n in LOGICALS else f"st_f_index(*(const MPI_Fint *){f})"
                before.append(f"int st_v_{n} = 0, *{n} = &st_v_{n};")
                after.append(f"st_v_{n} = {conv};")
            else:
                before.append(f"int *{n} = (int *){f};")
        elif kind == "array" and base == "int":
            if n in INDICES_NAMES:
                if not (in_post and not in_pre) or "outcount" not in w.proto.arg_names():
                    raise Unsupported(n)
                before.append(f"int *{n} = NULL;")
                after.append(f"{n} = st_f_indices((const MPI_Fint *){f}, (int)*(const MPI_Fint *)f_outcount);")
            else:
                const = "const " if "const" in p.tokens else ""
                before.append(f"{const}int *{n} = ({const}int *){f};")
        elif kind == "ptr" and base in HANDLE_F2C:
            # The C value lives in this call's frame: a pointer the role keeps beyond the call (as
            # Comm_idup keeps newcomm) cannot be given. Request pointers are read during the call only.
            if base != "MPI_Request" and not only_deref(code, n):
                raise Unsupported(n)
            f2c = HANDLE_F2C[base]
            init = f"{f2c}(*(const MPI_Fint *){f})" if in_pre else HANDLE_NULL[base]
            before.append(f"{base} st_v_{n} = {init}, *{n} = &st_v_{n};")
            if in_post:
                after.append(f"st_v_{n} = {f2c}(*(const MPI_Fint *){f});")
        elif kind == "array" and base == "MPI_Request":
            if in_post:
                raise Unsupported(n)
            before.append(f"MPI_Request *{n} = st_f_requests((const MPI_Fint *){f}, {count_param(w.proto)});")
            guards.append(n)
        elif kind == "ptr" and base == "MPI_Status":
            before.append(f"MPI_Fint st_fs_{n}[ST_F_STATUS_SIZE];")
            before.append(f"if (st_f_status_ignore((const MPI_Fint *){f})) {f} = st_fs_{n};")
            before.append(f"MPI_Status st_v_{n}, *{n} = &st_v_{n};")
            after.append(f"PMPI_Status_f2c((const MPI_Fint *){f}, {n});")
        elif kind == "array" and base == "MPI_Status":
            cnt = count_param(w.proto)
            before.append(f"{f} = st_f_statuses_arg({f}, {cnt});")
            before.append(f"MPI_Status *{n} = st_f_cstatuses({f}, {cnt});")
            after.append(f"st_f_statuses_f2c((const MPI_Fint *){f}, {n}, {cnt});")
        else:
            raise Unsupported(n)
    return before, after, guards


HANDLE_NULL = {
    "MPI_Comm": "MPI_COMM_NULL", "MPI_Datatype": "MPI_DATATYPE_NULL", "MPI_Op": "MPI_OP_NULL",
    "MPI_Info": "MPI_INFO_NULL", "MPI_Group": "MPI_GROUP_NULL", "MPI_Errhandler": "MPI_ERRHANDLER_NULL",
    "MPI_Win": "MPI_WIN_NULL", "MPI_File": "MPI_FILE_NULL", "MPI_Message": "MPI_MESSAGE_NULL",
    "MPI_Request": "MPI_REQUEST_NULL",
}


def fortran_params(proto):
    """The Fortran argument list as C: (declarations, forwarded names)."""
    decl = [f"void *f_{p.name}" for p in proto.params] + ["MPI_Fint *f_ierr"]
    names = [f"f_{p.name}" for p in proto.params] + ["f_ierr"]
    for p in proto.params:
        if "char" in p.tokens:
            decl.append(f"size_t l_{p.name}")
            names.append(f"l_{p.name}")
    return decl, names


def emit(w, fname, target, before, after, guards):
    """One entry point fname forwarding to the MPI library's entry target, with the role's code
    around it: target is Open MPI's pmpi_x_ (a weak reference), or for MPICH its own fname found
    with dlsym(RTLD_NEXT) on the first call (st_f_next)."""
    p = w.proto
    decl, names = fortran_params(p)
    args = ", ".join(names)
    region = f"ST_REGION_{p.name}"
    code = w.pre + w.post
    if target == fname:
        pname = "next"
        lines = [f"typedef void st_ft_{fname}({', '.join(decl)});", f"static void *st_next_{fname};",
                 f"ST_EXPORT void {fname}({', '.join(decl)})", "{",
                 f"    st_ft_{fname} *next = (st_ft_{fname} *)st_f_next(&st_next_{fname}, \"{fname}\");"]
    else:
        pname = target
        lines = [f"extern void {pname}({', '.join(decl)}) __attribute__((weak));",
                 f"ST_EXPORT void {fname}({', '.join(decl)})", "{"]
    lines += [f"    if (!{pname}) {{ st_f_missing(\"{fname}\", f_ierr); return; }}",
             "    st_thread_t *th = st_mpi_begin();",
             f"    if (!th) {{ {pname}({args}); return; }}"]
    if w.keep is None:  # filterable: the same region as the C function, counted as it is there
        lines += [f"    if (ST_UNLIKELY(st_mpi_filtered(th, {region}))) {{",
                  f"        uint64_t st_t0 = st_mpi_filter_begin(); {pname}({args}); st_mpi_filter_end(th, {region}, st_t0); return;",
                  "    }"]
    lines += [f"    st_mpi_enter(th, {region});"]
    if code:
        lines += ["    MPI_Fint st_ierr = MPI_SUCCESS;", "    if (!f_ierr) f_ierr = &st_ierr;"]
    lines += [f"    {l}" for l in before]
    for g in guards:  # out of memory: the generic shape
        lines.append(f"    if (!{g}) {{ {pname}({args}); st_mpi_leave(th, {region}); st_mpi_end(th); return; }}")
    lines += [f"    {l}" for l in w.pre]
    lines.append(f"    {pname}({args});")
    if code:
        lines.append("    int rc = (int)*f_ierr;")
        if not uses(code, "rc"):
            lines.append("    (void)rc;")
    lines += [f"    {l}" for l in after + w.post]
    lines += [f"    st_mpi_leave(th, {region});", "    st_mpi_end(th);", "}"]
    return lines


def emit_function(w, generic_of, family):
    """Open MPI: the mpif.h / `use mpi` entry point with its aliases, and the mpi_f08 one;
    MPICH: the mpi_f08 one."""
    base = w.proto.name.lower()
    try:
        before, after, guards = conversions(w, family)
        shape, fell_back = w, False
    except Unsupported:
        shape, before, after, guards, fell_back = generic_of(w), [], [], [], True
    if family == "mpich":
        return emit(shape, base + "_f08_", base + "_f08_", before, after, guards) + [""], fell_back
    out = emit(shape, base + "_", "p" + base + "_", before, after, guards)
    for alias in (base, base + "__", base.upper()):
        out.append(f"extern __typeof({base}_) {alias} __attribute__((alias(\"{base}_\"), visibility(\"default\")));")
    out += emit(shape, base + "_f08_", "p" + base + "_f08_", before, after, guards)
    return out + [""], fell_back


def render(table, mpi_h, wrappers, generic_of, family):
    """The text of mpi_fortran.c of family (one of FAMILIES) for the planned wrappers
    (gen_wrappers.Wrapper list, sorted) of the table (its path and prologue, emitted as in
    mpi_wrappers.c) and the family's mpi.h.

    generic_of(w) returns w with the generic role's code, for functions whose arguments cannot be
    converted. Returns (text, number of table-role entry points, names that fell back to generic)."""
    body, fell, sem = [], [], 0
    skipped, via_c = [], []
    if family not in FAMILIES:
        raise ValueError(f"no Fortran entry points for MPI family {family}")
    for w in wrappers:
        no_f08 = family == "mpich" and w.proto.name in MPICH_NO_F08
        if family == "mpich" and not no_f08 and has_fortran(w.proto) and not mpich_f08_calls_pmpi(w.proto):
            via_c.append(w.proto.name)  # its mpi_x_f08ts_ calls the C MPI_X: the C wrapper records it
            continue
        if w.nowrap or not has_fortran(w.proto) or no_f08:
            if not w.nowrap and w.proto.name.startswith("MPI_") and not w.proto.name.startswith("MPI_T_") \
                    and not w.proto.name.endswith("_c"):
                skipped.append(w.proto.name)
            continue
        lines, fell_back = emit_function(w, generic_of, family)
        body += lines
        if fell_back:
            fell.append(w.proto.name)
        elif w.semantic and (w.pre or w.post):
            sem += 1
    if family == "openmpi":
        what = [" * Open MPI's Fortran entry points (mpif.h and `use mpi`: mpi_x_, mpi_x, mpi_x__, MPI_X;",
                " * `use mpi_f08`: mpi_x_f08_), each forwarding to Open MPI's pmpi_x_ / pmpi_x_f08_"]
    else:
        what = [" * MPICH's `use mpi_f08` entry points that call PMPI_* (mpi_x_f08_: no choice buffer; its",
                " * mpi_x_f08ts_, mpif.h and `use mpi` bindings call the C MPI_* wrappers), each forwarding to",
                " * MPICH's own mpi_x_f08_ (dlsym(RTLD_NEXT))"]
    head = [f"/* generated from {table.path} \u2014 do not edit */",
            "/* Generated by scripts/gen_wrappers.py (scripts/gen_fortran.py) from the prototypes in",
            f" * {os.path.basename(mpi_h)}:"] + what + [
            f" * with the table role's code around it: {sem} with a table role's code, the others generic.",
            " * Hand-written in src/mpi/fortran.c: " + ", ".join(sorted(HAND_WRITTEN)) + ". */", ""]
    head += textwrap.dedent("\n".join(table.prologue)).strip("\n").splitlines()
    head += ["", "/* The conversions of Fortran arguments into C values. */", "#include \"mpi/fortran.h\"", ""]
    tail = ["/* With the generic enter/leave shape because their role reads arguments not converted from Fortran:"]
    tail += [f" *   {n}" for n in fell] or [" *   none"]
    tail += [" * No Fortran entry point (no Fortran binding of the C shape: returns a value, variadic):"]
    tail += [f" *   {n}" for n in skipped] or [" *   none"]
    if family == "mpich":
        tail += [" * Recorded by the C wrappers (MPICH's mpi_x_f08ts_ binding calls the C MPI_X):"]
        tail += [f" *   {n}" for n in via_c] or [" *   none"]
    return "\n".join(head + body + tail + [" */", ""]), sem, fell
