#!/usr/bin/env bash
# t_references.sh — every repository file that a comment or a doc names exists. The comments of the
# sources, tests, scripts, wrapper table and public header (src/, tests/, scripts/, wrappers/, include/)
# and the docs (docs/*.md, README.md, */README.md) are read, and each name of a file is resolved:
#   - a path from the repository's root (src/..., tests/..., docs/..., scripts/..., wrappers/...,
#     include/..., examples/..., also after $ST_ROOT/ or $ROOT/) must exist there;
#   - a relative path (starting with ../ or ./) must exist beside the file that names it;
#   - a path inside a module (clc/clc.c, model/event.h) must exist under src/, under tests/ or beside
#     the file that names it;
#   - a bare name (clc.c, clc.md) must be the name of some file of the tree.
# An absolute path into a development machine (under /work or /home) always fails. Other names fail
# unless they are listed below: files the build generates, files a test or the tool creates, other
# projects' files, and the example names comments use. Names counted: *.c *.h *.def *.md *.sh *.py
# *.tbl *.in *.cc *.cpp *.f90; placeholders (X.def, PREFIX/include/...) and globs (*_mpi.c) are not names.
# Nor may a comment or a doc cite an issue by its number (the tracker is not part of the repository).
source "$ST_ROOT/tests/lib.sh"

python3 - "$ST_ROOT" <<'PY' || fail "names of files that do not exist, or issue numbers (above)"
import os, re, sys

root = sys.argv[1]

# Files the build generates (build/gen/; omp-tools.h is clang's, copied there).
GENERATED = {
    "build/gen/mpi_wrappers.c", "build/gen/mpi_regions.def", "build/gen/mpi_calls.def", "build/gen/mpi_unfilterable.def", "build/gen/omp-tools.h", "build/gen/report_page.c",
    "mpi_wrappers.c", "mpi_regions.def", "mpi_calls.def", "mpi_unfilterable.def", "report_page.c", "omp-tools.h",
    "mpi_have.h",  # per MPI family: build/gen/FAM/mpi_wrappers.c, build/gen/FAM/mpi_have.h
}
# Open MPI's Fortran entry points (scripts/gen_fortran.py)
GENERATED |= {"build/gen/openmpi/mpi_fortran.c", "build/gen/mpich/mpi_fortran.c", "mpi_fortran.c"}
# Files tests, scripts or the tool create at run time: an OTF2 archive's definitions file.
CREATED = {"traces.def"}
# Other projects' files, named as such: MPI's and OTF2's headers, Scalasca 2.6's sources, and the
# measuring script outside the repository that docs/performance.md and docs/analysis.md describe.
EXTERNAL = {
    "mpi.h", "mpio.h", "mpi_proto.h", "share/scout.spec.in", "src/scout/MpiCommunicationHandler.cpp",
    "MpiCommunicationHandler.cpp", "OmpEventHandler.cpp", "run1m.sh",
}
EXTERNAL |= {"mpif.h"}  # MPI's Fortran include file
EXTERNAL_RE = re.compile(r"^(otf2/)?OTF2_\w+\.h$")
# Names of source files in examples of call paths and call sites ("main (a.c:3)").
EXAMPLES = {"a.c", "b.c", "c.c", "a.cc"}

EXT = r"(?:c|h|def|md|sh|py|tbl|in|cc|cpp|f90)"
NAME = re.compile(r"(?<![\w.$/+*-])([\w.$/{}+-]*[\w}]\." + EXT + r")(?![\w/-])")
TOPS = ("src", "tests", "docs", "scripts", "wrappers", "include", "examples")
SKIPDIRS = {".git", "build", "lib", "bin"}


def tree_files():
    files = set()
    for d, subdirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel == ".":
            subdirs[:] = [s for s in subdirs if s not in SKIPDIRS]
        for n in names:
            files.add(os.path.normpath(os.path.join(rel, n)))
    return files


files = tree_files()
basenames = {os.path.basename(f) for f in files}
dirs = {os.path.dirname(f) for f in files}


def scanned(f):
    if f.startswith(("docs/", "README.md")) and f.endswith(".md"):
        return True
    if f.endswith("/README.md"):
        return True
    return f.split("/")[0] in ("src", "tests", "scripts", "wrappers", "include") and \
        re.search(r"\.(c|h|def|sh|py|tbl|in|md|cc|cpp|f90|css|js)$", f)


C_TOKENS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|`(?:\\.|[^`\\\n])*`', re.S)


def blank(text):
    return re.sub(r"[^\n]", " ", text)


def c_comments(text):
    """The comments of C-like text (/* */ and //), everything else blanked; lines kept."""
    out, at = [], 0
    for m in C_TOKENS.finditer(text):
        out.append(blank(text[at:m.start()]))
        tok = m.group(0)
        out.append(tok if tok.startswith("/") else blank(tok))
        at = m.end()
    out.append(blank(text[at:]))
    return "".join(out)


def hash_comments(text, python):
    """The comments of shell or Python text: from a # outside quotes to the end of the line, and
    Python's docstrings."""
    lines = []
    in_doc = False
    for line in text.split("\n"):
        if python and (in_doc or line.lstrip().startswith(('"""', "'''", 'r"""'))):
            quotes = line.count('"""') + line.count("'''")
            if in_doc or quotes == 1:
                in_doc = not in_doc if quotes else in_doc
            lines.append(line); continue
        keep, q = "", None
        for k, c in enumerate(line):
            if q:
                q = None if c == q else q
            elif c in "\"'":
                q = c
            elif c == "#" and (k == 0 or line[k - 1] in " \t"):
                keep = " " * k + line[k:]
                break
        lines.append(keep)
    return "\n".join(lines)


def comments(f, text):
    if f.endswith(".md"):
        return text
    if re.search(r"\.(c|h|def|cc|cpp|js|css)$", f):
        return c_comments(text)
    return hash_comments(text, f.endswith(".py"))


def exists(p):
    p = os.path.normpath(p)
    return p in files or p in dirs


def resolves(name, where):
    """True when `name`, mentioned in file `where`, is a file of the tree (or an allowed absent one)."""
    here = os.path.dirname(where)
    if name in GENERATED or name in CREATED or name in EXTERNAL or name in EXAMPLES or EXTERNAL_RE.match(name):
        return True
    parts = name.split("/")
    if any(re.fullmatch(r"[A-Z]+", p) for p in parts[:-1]) or re.fullmatch(r"[A-Z]\.\w+", parts[-1]):
        return True  # a placeholder: PREFIX/include/synctrace.h, X.def
    m = re.match(r"^\$\{?(ST_ROOT|ROOT)\}?/(.*)$", name)
    if m:
        return exists(m.group(2)) or m.group(2) in GENERATED
    if "$" in name or "{" in name:
        return True  # a path under a run-time directory ($ST_TMP/x.c, $out/...): not a repository file
    if name.startswith(("../", "./")):
        return exists(os.path.join(here, name))
    if "/" in name:
        first = name.split("/")[0]
        if first == "build":
            return name in GENERATED or name.startswith("build/tests/")
        if first in TOPS:
            return exists(name)
        return (exists(os.path.join(here, name)) or exists(os.path.join("src", name))
                or exists(os.path.join("tests", name)) or os.path.basename(name) in CREATED)
    return name in basenames


bad = []
for f in sorted(files):
    if not scanned(f):
        continue
    try:
        text = open(os.path.join(root, f), encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    for ln, line in enumerate(comments(f, text).split("\n"), 1):
        if re.match(r"\s*#\s*include\s*<", line):
            continue
        for m in re.finditer(r"\b[Ii]ssues? #?\d+", line):
            bad.append(f"{f}:{ln}: cites {m.group(0)}, an issue of the tracker")
        for m in re.finditer(r"(?<![\w.])/(?:work|home)/[\w./-]+", line):
            bad.append(f"{f}:{ln}: names {m.group(0)}, a path of a development machine")
        for m in NAME.finditer(line):
            name = m.group(1)
            if name.startswith("/"):
                continue  # absolute: a system file, or a development machine's (above)
            if not resolves(name, f):
                bad.append(f"{f}:{ln}: names {name}, which is not a file of the repository")
for b in bad:
    print(b, file=sys.stderr)
print(f"  {len(bad)} name(s) of missing files or issues", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
