#!/usr/bin/env python3
"""gen_wrappers.py - generates synctrace's PMPI wrappers from wrappers/mpi_functions.tbl.

Inputs: the declarative table (prologue, roles, function entries, exclusions, optional sigs; the
format is documented in wrappers/README.md) and, per MPI family (--mpi-h FAM=PATH, repeatable),
the prototypes that family's mpi.h declares. mpi.h is read through the C preprocessor, so its
#if/#ifdef blocks, its includes (mpi_proto.h, mpio.h) and its macros resolve exactly as the
compiler sees them: a name that is only a macro never shows up as a declaration, and a function
mpi.h does not declare cannot be wrapped.

Outputs (in --out):
  FAM/mpi_wrappers.c  one exported MPI_X wrapper per function FAM's mpi.h declares and synctrace
                      wraps: the table role's code, or the generic enter/leave shape for every
                      declared function the table does not list or exclude
  FAM/mpi_have.h      ST_HAVE_MPI_X for every MPI function FAM's mpi.h declares
  mpi_regions.def     ST_REGION(MPI_X, "MPI_X", ROLE, MPI) for every wrapped or manual function
                      of any family (the union, so region ids are the same in every library)
  mpi_calls.def       ST_MPI_CALL(MPI_X, CALL, CATEGORY) for the same functions in the same order:
                      what the call does for the wait-state analysis (the entry's call=, else its
                      role's 'call' line) and the category of its time by name (the first
                      'category' line whose pattern matches); the analysis includes it
  mpi_unfilterable.def ST_UNFILTERABLE(MPI_X, "why") for every function of mpi_regions.def that a
                      filter (SYNCTRACE_FILTER) may not exclude: its role's 'unfilterable' line,
                      else the first 'protect' line whose pattern matches; src/model/region.c
                      includes it

Everything about a function lives in the table; this script only checks and substitutes. It
stops with one line "gen_wrappers.py: error: FILE:LINE: what is wrong" on anything it does not
understand, writes nothing in that case, and produces byte-identical output for the same
inputs. Python 3 standard library only.
"""
import argparse
import fnmatch
import os
import re
import shlex
import subprocess
import sys
import textwrap

BANNER = "generated from {table} \u2014 do not edit"
TOKEN_RE = re.compile(r"\.\.\.|[A-Za-z_]\w*|\d\w*|\S")
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
WORD_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
MPI_NAME_RE = re.compile(r"^MPIX?_\w+$")
PMPI_NAME_RE = re.compile(r"^P?MPIX?_\w+$")
PLACEHOLDER_RE = re.compile(r"\$([a-z_][a-z0-9_]*)")
# Identifiers an expression may use besides the function's arguments: constants and helper
# macros (MPI_*, ST_*, OTF2_* in capitals, defined by mpi.h, st_mpi.h or the table prologue).
CONST_RE = re.compile(r"^(MPI|ST|OTF2)_[A-Z0-9_]+$")
C_KEYWORDS = {"sizeof"}
# OTF2_REGION_ROLE_* suffixes a function's region may take (checked again by the compiler).
REGION_ROLES = {"FUNCTION", "POINT2POINT", "COLL_ONE2ALL", "COLL_ALL2ONE", "COLL_ALL2ALL",
                "COLL_OTHER", "BARRIER", "FILE_IO", "WRAPPER"}
# What a call does for the wait-state analysis (a role's 'call' line, an entry's call=), and
# the categories of MPI time by name ('category' lines); the analysis gives each word a meaning
# (src/analysis/call_kinds.h), so the compiler checks them again.
CALL_KINDS = {"none", "send_blocking", "wait_one", "wait_many", "test"}
CATEGORIES = {"init_exit", "mgmt_comm", "mgmt_win", "mgmt_file", "io_coll", "io_indiv", "rma_active", "rma_passive",
              "rma_comm"}
# Names the wrapper shape itself declares; arguments must not shadow them.
RESERVED_LOCALS = {"th", "rc"}
QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "struct", "union", "enum",
              "unsigned", "signed"}


class GenError(Exception):
    """A problem with the inputs: the message names where and what."""


def fail(where, msg):
    raise GenError(f"{where}: {msg}" if where else msg)


# ==== C prototypes ==============================================================================

def strip_attributes(text):
    """Removes __attribute__((...)), __asm__(...) and __extension__ (balanced parentheses)."""
    out, i = [], 0
    pat = re.compile(r"\b(__attribute__|__asm__|__asm|asm)\s*\(")
    while True:
        m = pat.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        i = j
    return re.sub(r"\b__extension__\b", " ", "".join(out))


def tokenize(text):
    return TOKEN_RE.findall(strip_attributes(text))


def c_join(tokens):
    """Prints tokens as conventional C: 'const void *buf', 'int MPI_Send(int a, int b[])'."""
    out = ""
    for t in tokens:
        if out:
            prev = out[-1]
            word_prev = prev.isalnum() or prev == "_"
            if (word_prev and (t[0].isalnum() or t[0] == "_" or t in ("*", "..."))) or prev == ",":
                out += " "
        out += t
    return out


def split_top(tokens, sep):
    """Splits a token list at sep tokens outside (), [] and {}."""
    parts, cur, depth = [], [], 0
    for t in tokens:
        if t in "([{" and len(t) == 1:
            depth += 1
        elif t in ")]}" and len(t) == 1:
            depth -= 1
        if t == sep and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    return parts


class Param:
    """One parameter: its tokens, its name, and its type (the tokens without the name; a
    parameter 'T x[]' has type 'T *', as C adjusts it: Open MPI and MPICH differ in that only)."""

    def __init__(self, tokens, name, at):
        self.tokens, self.name = tokens, name
        self.types = tokens[:at] + tokens[at + 1:]
        if tokens[at + 1:] == ["[", "]"]:
            self.types = tokens[:at] + ["*"]


class Proto:
    """One function prototype: return type, name, parameters; compared as token lists."""

    def __init__(self, ret, name, params, variadic):
        self.ret, self.name, self.params, self.variadic = ret, name, params, variadic

    def tokens(self):
        toks = list(self.ret) + [self.name, "("]
        for i, p in enumerate(self.params):
            toks += ([","] if i else []) + p.tokens
        if self.variadic:
            toks += ([","] if self.params else []) + ["..."]
        return toks + [")"] if self.params or self.variadic else toks + ["void", ")"]

    def text(self):
        return c_join(self.tokens())

    def type_key(self):
        """What two declarations of one function must share: everything but parameter names."""
        return (tuple(self.ret), self.name, tuple(tuple(p.types) for p in self.params), self.variadic)

    def arg_names(self):
        return [p.name for p in self.params]

    def ret_text(self):
        return c_join(self.ret)


def param_name(tokens, where):
    """(name, index of the name token) of one parameter ('(*fn)(...)' and 'x[]' forms included)."""
    for i in range(len(tokens) - 3):
        if tokens[i] == "(" and tokens[i + 1] == "*" and IDENT_RE.fullmatch(tokens[i + 2]) \
                and tokens[i + 3] == ")":
            return tokens[i + 2], i + 2
    core = list(tokens)
    while core and core[-1] == "]" and "[" in core:  # drop [] groups: int ranges[][3]
        core = core[:len(core) - 1 - core[::-1].index("[")]
    words = [t for t in core if IDENT_RE.fullmatch(t) and t not in QUALIFIERS]
    if len(words) < 2 or not IDENT_RE.fullmatch(core[-1]):
        fail(where, f"cannot find the name of parameter '{c_join(tokens)}' "
                    "(every parameter must be named)")
    return core[-1], len(core) - 1


def parse_params(tokens, where):
    if tokens in ([], ["void"]):
        return [], False
    params, variadic = [], False
    for part in split_top(tokens, ","):
        if part == ["..."]:
            variadic = True
        elif not part:
            fail(where, "empty parameter in prototype")
        else:
            params.append(Param(part, *param_name(part, where)))
    return params, variadic


def parse_proto(text, where):
    """Parses 'RET NAME(PARAMS)' (attributes dropped); None if text is not that shape."""
    toks = tokenize(text)
    while toks and toks[-1] == ";":
        toks.pop()
    if "(" not in toks or toks[0] in ("typedef", "static"):
        return None
    i = toks.index("(")
    if i < 2 or not IDENT_RE.fullmatch(toks[i - 1]):
        return None
    j = matching_paren(toks, i)
    if j is None or not only_macros(toks[j + 1:]):
        return None
    ret = [t for t in toks[:i - 1] if t != "extern"]
    params, variadic = parse_params(toks[i + 1:j], where)
    return Proto(ret, toks[i - 1], params, variadic)


def matching_paren(toks, i):
    depth = 0
    for j in range(i, len(toks)):
        depth += {"(": 1, ")": -1}.get(toks[j], 0)
        if depth == 0:
            return j
    return None


def only_macros(toks):
    """True for trailing attribute macros: MPICH_API_PUBLIC MPICH_ATTR_POINTER_WITH_TYPE_TAG(1,3)."""
    k = 0
    while k < len(toks):
        if not WORD_RE.match(toks[k]):
            return False
        k += 1
        if k < len(toks) and toks[k] == "(":
            j = matching_paren(toks, k)
            if j is None:
                return False
            k = j + 1
    return True


# ==== mpi.h =====================================================================================

def preprocess(mpi_h, cpp):
    """mpi.h after the C preprocessor (its directory on the include path)."""
    if not os.path.isfile(mpi_h):
        fail("", f"--mpi-h {mpi_h}: no such file (pass an MPI implementation's mpi.h)")
    cmd = shlex.split(cpp) + ["-I", os.path.dirname(os.path.abspath(mpi_h)), "-"]
    src = f'#include "{os.path.abspath(mpi_h)}"\n'
    try:
        res = subprocess.run(cmd, input=src, capture_output=True, text=True, check=False)
    except OSError as e:
        fail("", f"cannot run the C preprocessor '{cpp}': {e} (set --cpp)")
    if res.returncode != 0:
        fail(mpi_h, f"the preprocessor '{cpp}' failed: {res.stderr.strip()[:400]}")
    return res.stdout


def statements(text):
    """Top-level C statements: split at ';' outside braces, and after function bodies."""
    text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
    out, start, depth = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and text[start:i].split("{")[0].rstrip().endswith(")"):
                out.append(text[start:i + 1])  # a function definition has no ';'
                start = i + 1
        elif ch == ";" and depth == 0:
            out.append(text[start:i])
            start = i + 1
    return out


def mpi_declarations(text, mpi_h):
    """name -> Proto for every MPI_/MPIX_ function mpi.h declares; PMPI_/PMPIX_ names -> None."""
    protos = {}
    for st in statements(text):
        m = re.search(r"\b(P?MPIX?_\w+)\s*\(", st)
        if not m or re.match(r"\s*typedef\b", st):
            continue
        if m.group(1).startswith("P"):  # only its existence matters (ROMIO leaves them unnamed)
            if re.match(r"^[\w\s\*]*\bP\w+\s*\(", strip_attributes(st).strip()):
                protos.setdefault(m.group(1), None)
            continue
        p = parse_proto(st, f"{mpi_h} ({m.group(1)})")
        if p is None or not PMPI_NAME_RE.match(p.name):
            continue
        old = protos.get(p.name)
        if old and old.tokens() != p.tokens():
            fail(mpi_h, f"{p.name} is declared twice, differently: '{old.text()}' and '{p.text()}'")
        protos[p.name] = p
    if "MPI_Send" not in protos or "PMPI_Send" not in protos:
        fail(mpi_h, "declares no MPI_Send/PMPI_Send prototype: is this an MPI implementation's mpi.h?")
    return protos


# ==== the table =================================================================================

class Role:
    def __init__(self, name, region, nowrap, line):
        self.name, self.region, self.nowrap, self.line = name, region, nowrap, line
        self.call = "none"  # what its entries' calls do for the analysis, unless call= says
        self.keys = {}    # key -> default C expression or None (required)
        self.words = {}   # key -> allowed words
        self.pre, self.post = [], []
        self.fast, self.fastpre, self.fastpost = [], [], []  # the usual call's inline form (wrappers/README.md)
        self.unfilterable = None  # why a filter may not exclude its entries; None: filterable
        self.filterable = None    # a role with code a filtered call skips: what is lost then


class Entry:
    def __init__(self, name, role, line):
        self.name, self.role, self.line = name, role, line
        self.values = {}  # key -> (value, line)
        self.sigs = []    # (Proto, line)
        self.like = None  # (entry name, line): take that entry's values unless given here


class Table:
    def __init__(self, path):
        self.path = path
        self.prologue = []
        self.roles = {}
        self.entries = []
        self.excludes = []  # (pattern, reason, line)
        self.optionals = []  # (pattern, reason, line): sigs an MPI family's mpi.h may lack
        self.categories = []  # (pattern, category, line), first match wins
        self.protects = []  # (pattern, reason, line): generic functions a filter may not exclude


def logical_lines(path):
    """(line number, indented?, text) without comments and blank lines; prologue kept verbatim."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read().splitlines()
    except OSError as e:
        fail("", f"cannot read table {path}: {e.strerror}")
    in_prologue = False
    for n, line in enumerate(raw, 1):
        indented = line[:1] in (" ", "\t")
        if not indented and line.strip():
            in_prologue = line.split()[0] == "prologue"
        if in_prologue and (indented or not line.strip()):
            yield n, True, line.rstrip()
        elif line.strip() and not line.lstrip().startswith("#"):
            yield n, indented, line.strip()


def parse_table(path):
    t = Table(path)
    block = None
    for n, indented, text in logical_lines(path):
        where = f"{path}:{n}"
        if not indented:
            block = start_block(t, text, n, where)
        elif block is None:
            fail(where, "indented line outside any block")
        elif block == "prologue":
            t.prologue.append(text)
        elif isinstance(block, Role):
            role_line(block, text, where)
        else:
            entry_line(block, text, n, where)
    return t


def start_block(t, text, n, where):
    words = text.split()
    head = words[0]
    if head == "prologue":
        if len(words) != 1 or t.prologue:
            fail(where, "'prologue' takes no arguments and appears once")
        return "prologue"
    if head == "role":
        return start_role(t, words[1:], n, where)
    if head == "optional":
        if len(words) < 3:
            fail(where, "optional needs a name pattern and a reason: 'optional MPI_*_c why'")
        t.optionals.append((words[1], " ".join(words[2:]), n))
        return None
    if head == "category":
        if len(words) != 3:
            fail(where, "category needs a name pattern and a category: 'category MPI_File_* mgmt_file'")
        if words[2] not in CATEGORIES:
            fail(where, f"unknown category '{words[2]}' (accepted: {', '.join(sorted(CATEGORIES))})")
        t.categories.append((words[1], words[2], n))
        return None
    if head == "protect":
        if len(words) < 3:
            fail(where, "protect needs a name pattern and a reason: 'protect MPI_Win_fence why'")
        check_reason(" ".join(words[2:]), where)
        t.protects.append((words[1], " ".join(words[2:]), n))
        return None
    if head == "exclude":
        if len(words) < 3:
            fail(where, "exclude needs a name pattern and a reason: 'exclude MPI_Wtime why'")
        t.excludes.append((words[1], " ".join(words[2:]), n))
        return None
    if MPI_NAME_RE.match(head):
        return start_entry(t, words, n, where)
    fail(where, f"unknown directive '{head}' (expected prologue, role, exclude, optional, category, protect or an MPI_ name)")


def start_role(t, args, n, where):
    if len(args) < 2:
        fail(where, "role needs a name and a region role: 'role send POINT2POINT'")
    name, region, flags = args[0], args[1], args[2:]
    if region != "-" and region not in REGION_ROLES:
        fail(where, f"unknown region role '{region}' (accepted: -, {', '.join(sorted(REGION_ROLES))})")
    if any(f != "nowrap" for f in flags):
        fail(where, f"unknown role flag in '{' '.join(flags)}' (accepted: nowrap)")
    if name in t.roles:
        fail(where, f"role '{name}' defined twice")
    t.roles[name] = Role(name, region, bool(flags), n)
    return t.roles[name]


# A role's lines of C: the general wrapper's, and its inline usual case's (wrappers/README.md).
CODE_LINES = ("pre", "post", "fast", "fastpre", "fastpost")


def role_line(r, text, where):
    kw, _, rest = text.partition(" ")
    rest = rest.strip()
    if kw == "keys":
        for k in rest.split():
            key, eq, default = k.partition("=")
            r.keys[key] = default if eq else None
    elif kw == "word":
        key, *allowed = rest.split()
        if not allowed or not all(WORD_RE.match(w) for w in allowed):
            fail(where, "word needs a key and allowed CAPITAL words: 'word op BARRIER BCAST'")
        r.words[key] = set(allowed)
    elif kw == "call":
        if rest not in CALL_KINDS:
            fail(where, f"unknown call kind '{rest}' (accepted: {', '.join(sorted(CALL_KINDS))})")
        r.call = rest
    elif kw == "unfilterable":
        if not rest or r.unfilterable is not None:
            fail(where, f"role '{r.name}': 'unfilterable' needs a reason and appears once")
        check_reason(rest, where)
        r.unfilterable = rest
    elif kw == "filterable":
        if not rest or r.filterable is not None:
            fail(where, f"role '{r.name}': 'filterable' needs what a filtered call loses and appears once")
        check_reason(rest, where)
        r.filterable = rest
    elif kw in CODE_LINES:
        if r.nowrap:
            fail(where, f"role '{r.name}' is nowrap: it has no code")
        getattr(r, kw).append(rest)
    else:
        fail(where, f"unknown role line '{kw}' (accepted: keys, word, call, unfilterable, filterable, {', '.join(CODE_LINES)})")
    for ph in PLACEHOLDER_RE.findall(rest if kw in CODE_LINES else ""):
        if ph not in r.keys and ph not in r.words:
            fail(where, f"placeholder ${ph} is not a key of role '{r.name}'")


def check_reason(text, where):
    """A reason becomes a C string literal (mpi_unfilterable.def): no quote, no backslash."""
    if '"' in text or "\\" in text:
        fail(where, f"a reason may not contain '\"' or '\\': {text}")


def start_entry(t, words, n, where):
    if len(words) < 2:
        fail(where, f"{words[0]} needs a role: 'MPI_Send send comm=comm ...'")
    e = Entry(words[0], words[1], n)
    for kv in words[2:]:
        key, eq, value = kv.partition("=")
        if not eq or not key or not value:
            fail(where, f"'{kv}' is not key=value")
        set_value(e, key, value, n, where)
    t.entries.append(e)
    return e


def set_value(e, key, value, n, where):
    if key in e.values or (key == "like" and e.like):
        fail(where, f"{e.name}: key '{key}' given twice")
    if key == "like":
        e.like = (value, n)
        return
    e.values[key] = (value, n)


def entry_line(e, text, n, where):
    if text.startswith("sig "):
        p = parse_proto(text[4:], where)
        if p is None:
            fail(where, f"cannot parse signature '{text[4:]}' (expected 'int MPI_X(type name, ...)')")
        e.sigs.append((p, n))
        return
    m = re.match(r"^([a-z_][a-z0-9_]*)\s*=\s*(.+)$", text)
    if not m:
        fail(where, f"expected 'sig PROTOTYPE' or 'key = expression', got '{text}'")
    set_value(e, m.group(1), m.group(2), n, where)


# ==== checking an entry against its role and mpi.h =============================================

class Family:
    """One MPI implementation given with --mpi-h FAM=PATH: its name, mpi.h and declarations."""

    def __init__(self, name, mpi_h, protos):
        self.name, self.mpi_h, self.protos = name, mpi_h, protos
        self.names = sorted(n for n in protos if MPI_NAME_RE.match(n))


def is_optional(t, name):
    return any(fnmatch.fnmatchcase(name, pattern) for pattern, _, _ in t.optionals)


def check_optionals(t):
    """An optional line naming one function (no wildcard) must name a sig of the table."""
    sigs = {p.name for e in t.entries for p, _ in e.sigs}
    for pattern, _, n in t.optionals:
        if not any(c in pattern for c in "*?[") and pattern not in sigs:
            fail(f"{t.path}:{n}", f"optional {pattern}: no sig of the table declares it")


def check_sigs(t, e, fams):
    """{sig name: names of the families whose mpi.h declares it}; fails on a mismatch or a
    non-optional sig that a family lacks. Parameter names may differ (the table's are used)."""
    if not e.sigs:
        fail(f"{t.path}:{e.line}", f"{e.name} has no 'sig' line")
    if e.sigs[0][0].name != e.name:
        fail(f"{t.path}:{e.sigs[0][1]}", f"first sig declares {e.sigs[0][0].name}, entry is {e.name}")
    present = {}
    for p, n in e.sigs:
        where = f"{t.path}:{n}"
        present[p.name] = []
        for fam in fams:
            real = fam.protos.get(p.name)
            if real is None:
                if is_optional(t, p.name):
                    continue
                fail(where, f"{p.name} is not declared in {fam.name}'s mpi.h "
                            "(removed or misspelt? an 'optional' line if the family may lack it)")
            if real.type_key() != p.type_key():
                fail(where, f"signature differs from {fam.name}'s mpi.h (parameter names aside):\n"
                            f"  table: {p.text()}\n  mpi.h: {real.text()}")
            if "P" + p.name not in fam.protos:
                fail(where, f"{fam.name}'s mpi.h declares no P{p.name} to call")
            present[p.name].append(fam.name)
    return present


def check_expression(t, e, key, value, n):
    """Every lower-case identifier in value must be an argument of every signature of e."""
    code = re.sub(r'"(\\.|[^"\\])*"', '""', value)
    for ident in IDENT_RE.findall(code):
        if CONST_RE.match(ident) or ident in C_KEYWORDS:
            continue
        for p, _ in e.sigs:
            if ident not in p.arg_names():
                fail(f"{t.path}:{n}", f"{e.name}: '{ident}' in {key} is not an argument of {p.name} "
                                      f"(arguments: {', '.join(p.arg_names())})")


def inherited_values(t, e):
    """e's values over those of the entry named by like= (which must not use like= itself)."""
    if e.like is None:
        return e.values
    name, n = e.like
    base = next((b for b in t.entries if b.name == name), None)
    if base is None or base.like is not None:
        fail(f"{t.path}:{n}", f"{e.name}: like={name} must name an entry without like=")
    return {**base.values, **e.values}


def entry_values(t, e, role):
    """key -> C text for the role's placeholders, checked; plus the region role and the call kind."""
    region, call = role.region, role.call
    out = {}
    for key, (value, n) in inherited_values(t, e).items():
        where = f"{t.path}:{n}"
        if key == "region":
            if value not in REGION_ROLES:
                fail(where, f"unknown region role '{value}' (accepted: {', '.join(sorted(REGION_ROLES))})")
            region = value
        elif key == "call":
            if value not in CALL_KINDS:
                fail(where, f"unknown call kind '{value}' (accepted: {', '.join(sorted(CALL_KINDS))})")
            call = value
        elif key in role.words:
            if value not in role.words[key]:
                fail(where, f"{e.name}: {key}={value} is not one of {' '.join(sorted(role.words[key]))}")
            out[key] = value
        elif key in role.keys:
            check_expression(t, e, key, value, n)
            out[key] = value
        else:
            known = sorted(list(role.keys) + list(role.words) + ["call", "region"])
            fail(where, f"{e.name}: unknown key '{key}' for role '{role.name}' (accepted: {', '.join(known)})")
    for key, default in role.keys.items():
        if key not in out:
            if default is None:
                fail(f"{t.path}:{e.line}", f"{e.name}: role '{role.name}' needs {key}=")
            out[key] = default
    for key in role.words:
        if key not in out:
            fail(f"{t.path}:{e.line}", f"{e.name}: role '{role.name}' needs {key}=")
    if region == "-":
        fail(f"{t.path}:{e.line}", f"{e.name}: role '{role.name}' needs region=")
    return out, region, call


def check_locals(p, where):
    for a in p.arg_names():
        if a in RESERVED_LOCALS or a.startswith("st_"):
            fail(where, f"{p.name}: argument '{a}' collides with a wrapper local (th, rc, st_*)")


# ==== planning: which function gets which code ===================================================

class Wrapper:
    """One function to emit: its prototype, region role, substituted pre/post code, call kind."""

    def __init__(self, proto, region, pre, post, nowrap, semantic, call, fast=((), (), ())):
        self.proto, self.region, self.pre, self.post = proto, region, pre, post
        self.nowrap, self.semantic, self.call = nowrap, semantic, call
        self.fast, self.fastpre, self.fastpost = (list(f) for f in fast)  # empty: no inline usual case
        self.keep = None  # why a filter may not exclude it (see unfilterable_of); None: filterable


def substitute(lines, values):
    def one(m):
        v = values[m.group(1)]
        return v if re.fullmatch(r"-?\w+", v) else f"({v})"
    return [PLACEHOLDER_RE.sub(one, l) for l in lines]


def plan_entry(t, e, fams):
    """[(Wrapper, names of the families that declare it)] for every sig of entry e."""
    where = f"{t.path}:{e.line}"
    role = t.roles.get(e.role)
    if role is None:
        fail(where, f"{e.name}: unknown role '{e.role}' (roles: {', '.join(sorted(t.roles))})")
    present = check_sigs(t, e, fams)
    values, region, call = entry_values(t, e, role)
    out = []
    for p, n in e.sigs:
        check_locals(p, f"{t.path}:{n}")
        if (role.pre or role.post) and p.ret != ["int"]:
            fail(f"{t.path}:{n}", f"{p.name} returns {p.ret_text()}: role '{role.name}' needs int")
        fast = tuple(substitute(getattr(role, k), values) for k in ("fast", "fastpre", "fastpost"))
        out.append((Wrapper(p, region, substitute(role.pre, values), substitute(role.post, values),
                            role.nowrap, True, call, fast), present[p.name]))
    return out


def no_such(fams):
    return f"no given mpi.h ({', '.join(f.name for f in fams)}) declares such a function"


def excluded_names(t, names, fams):
    """name -> reason for every declared MPI function (of any family) an exclude pattern matches."""
    out = {}
    for pattern, reason, n in t.excludes:
        hits = [x for x in names if fnmatch.fnmatchcase(x, pattern)]
        if not hits and not any(c in pattern for c in "*?["):  # a rule may match nothing; a name must
            fail(f"{t.path}:{n}", f"exclude {pattern}: {no_such(fams)}")
        for x in hits:
            out.setdefault(x, reason)
    return out


def check_categories(t, names, fams):
    """A category line naming one function (no wildcard) must name one some family declares."""
    for pattern, _, n in t.categories:
        if not any(c in pattern for c in "*?[") and pattern not in names:
            fail(f"{t.path}:{n}", f"category {pattern}: {no_such(fams)}")


def category_of(t, name):
    """The category of the first 'category' line whose pattern matches name, or 'none'."""
    return next((c for pattern, c, _ in t.categories if fnmatch.fnmatchcase(name, pattern)), "none")


def check_filterable_roles(t):
    """A filtered call runs none of its role's code: a role with code (or manual, hand-written)
    must say why a filter may not exclude its functions, or, where losing what its code records
    is acceptable, what a filtered call loses ('filterable WHAT'); the generic role is filterable."""
    for r in t.roles.values():
        if r.name == "generic" and (r.unfilterable is not None or r.filterable is not None):
            fail(f"{t.path}:{r.line}", "the generic role is filterable: no 'unfilterable' or 'filterable' line (a 'protect' line names a function to keep)")
        if r.unfilterable is not None and r.filterable is not None:
            fail(f"{t.path}:{r.line}", f"role '{r.name}' says both 'unfilterable' and 'filterable'")
        if r.filterable is not None and (r.nowrap or not (r.pre or r.post)):
            fail(f"{t.path}:{r.line}", f"role '{r.name}': 'filterable' is for a generated wrapper with code")
        if r.unfilterable is None and r.filterable is None and (r.pre or r.post or r.nowrap):
            fail(f"{t.path}:{r.line}", f"role '{r.name}' has code a filtered call would skip"
                                       f"{' (manual)' if r.nowrap else ''}: it needs 'unfilterable WHY' or 'filterable WHAT'")
        if (r.fast or r.fastpre or r.fastpost) and (r.unfilterable is None or not r.fast or not (r.pre or r.post)):
            fail(f"{t.path}:{r.line}", f"role '{r.name}': an inline usual case ('fast', 'fastpre', 'fastpost') "
                                       "needs a 'fast' line, the general code ('pre'/'post') and 'unfilterable' "
                                       "(its wrapper does not ask the filter)")


def check_protects(t, names, fams):
    """A protect line naming one function (no wildcard) must name one some family declares, or one
    an 'optional' line says a family may lack (MPI_Win_create_c with Open MPI alone)."""
    for pattern, _, n in t.protects:
        if not any(c in pattern for c in "*?[") and pattern not in names and not is_optional(t, pattern):
            fail(f"{t.path}:{n}", f"protect {pattern}: {no_such(fams)}")


def unfilterable_of(t, role, name):
    """Why a filter may not exclude function name of role: the role's 'unfilterable' line, else
    the first 'protect' line matching name; None when it is filterable."""
    if role.unfilterable is not None:
        return role.unfilterable
    return next((r for pattern, r, _ in t.protects if fnmatch.fnmatchcase(name, pattern)), None)


def plan(t, fams):
    """(the union: wrappers of every family sorted by name, {family: (its wrappers sorted by name,
    its excluded name -> reason)}); fails on any inconsistency. A table entry's wrapper is the
    same in every family that declares it; a generic one takes that family's prototype."""
    all_names = sorted({n for f in fams for n in f.names})
    excluded = excluded_names(t, all_names, fams)
    check_categories(t, all_names, fams)
    check_protects(t, all_names, fams)
    check_optionals(t)
    check_filterable_roles(t)
    generic = t.roles.get("generic")
    if generic is None or generic.keys or generic.words or generic.region == "-" or generic.call != "none":
        fail(t.path, "the table must define 'role generic REGION' without keys or call")
    table, where_declared = {}, {}
    for e in t.entries:
        for w, present in plan_entry(t, e, fams):
            name = w.proto.name
            if name in table:
                fail(f"{t.path}:{e.line}", f"{name} appears twice in the table")
            if name in excluded:
                fail(f"{t.path}:{e.line}", f"{name} is both in the table and excluded ({excluded[name]})")
            w.keep = unfilterable_of(t, t.roles[e.role], name)
            table[name], where_declared[name] = w, present
    union, per_fam = {}, {}
    for fam in fams:
        mine = {n: w for n, w in table.items() if fam.name in where_declared[n]}
        for name in fam.names:
            if name in table or name in excluded:
                continue
            p = fam.protos[name]
            if "P" + name not in fam.protos:
                fail(t.path, f"{fam.name}'s mpi.h declares {name} but no P{name}: exclude it or explain")
            if p.variadic:
                fail(t.path, f"{name} is variadic ({fam.name}'s mpi.h) and cannot be forwarded: exclude it or give it a role")
            check_locals(p, f"{t.path} (generic {name}, {fam.name})")
            mine[name] = Wrapper(p, generic.region, substitute(generic.pre, {}),
                                 substitute(generic.post, {}), False, False, generic.call)
            mine[name].keep = unfilterable_of(t, generic, name)
        union.update(mine)
        per_fam[fam.name] = ([mine[n] for n in sorted(mine)],
                             {n: r for n, r in excluded.items() if n in fam.protos})
    return [union[n] for n in sorted(union)], per_fam


# ==== output ====================================================================================

def emit_wrapper(w):
    p = w.proto
    args = ", ".join(p.arg_names())
    call = f"PMPI_{p.name[4:]}({args})" if p.name.startswith("MPI_") else f"P{p.name}({args})"
    region = f"ST_REGION_{p.name}"
    void = p.ret == ["void"]
    general = f"st_gen_{p.name}"
    lines = [f"static __attribute__((noinline)) {p.text().replace(p.name + '(', general + '(', 1)}"
             if w.fast else f"ST_EXPORT {p.text()}", "{",
             "    st_thread_t *th = st_mpi_begin();",
             "    if (!th)",
             f"        {'{ ' + call + '; return; }' if void else 'return ' + call + ';'}"]
    if w.keep is None:  # filterable: a filtered call is counted between two clock reads, nothing else
        lines += [f"    if (ST_UNLIKELY(st_mpi_filtered(th, {region}))) {{",
                  "        uint64_t st_t0 = st_mpi_filter_begin();",
                  f"        {call};" if void else f"        {p.ret_text()} rc = {call};",
                  f"        st_mpi_filter_end(th, {region}, st_t0);",
                  "        return;" if void else "        return rc;",
                  "    }"]
    lines += [f"    st_mpi_enter(th, {region});"]
    lines += [f"    {l}" for l in w.pre]
    lines.append(f"    {call};" if void else f"    {p.ret_text()} rc = {call};")
    lines += [f"    {l}" for l in w.post]
    lines += [f"    st_mpi_leave(th, {region});", "    st_mpi_end(th);"]
    lines += [] if void else ["    return rc;"]
    lines += ["}", ""]
    if w.fast:  # the usual call inline; any other goes to the general wrapper above, tail-called
        lines += [f"ST_EXPORT {p.text()}", "{", f"    const st_region_t st_region = {region};"]
        lines += [f"    {l}" for l in w.fast]
        lines += ["    if (ST_UNLIKELY(!th))", f"        return {general}({args});"]
        lines += [f"    {l}" for l in w.fastpre]
        lines.append(f"    {p.ret_text()} rc = {call};")
        lines += [f"    {l}" for l in w.fastpost]
        lines += ["    return rc;", "}", ""]
    return "\n".join(lines)


# Functions the MPI standard deprecated stay wrapped: an application that calls them is traced
# like any other, and its wrapper must call their PMPI_ version, which Open MPI's mpi.h marks
# deprecated (PMPI_Attr_*, PMPI_Keyval_*, ...). Only the generated file says so.
DEPRECATED_PRAGMA = [
    "/* Deprecated MPI functions (MPI_Attr_*, MPI_Keyval_*, ...) are forwarded on purpose: an",
    " * application that still calls them must be traced, so their wrappers call the PMPI_ versions",
    " * that some mpi.h (Open MPI's) marks deprecated; that use is intended, not a warning. */",
    '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"', ""]


def render_c(t, fam, wrappers, excluded):
    sem = sum(1 for w in wrappers if w.semantic and not w.nowrap)
    gen = sum(1 for w in wrappers if not w.semantic)
    manual = [w.proto.name for w in wrappers if w.nowrap]
    head = [f"/* {BANNER.format(table=t.path)} */",
            f"/* Generated by scripts/gen_wrappers.py from the prototypes in {fam.name}'s "
            f"{os.path.basename(fam.mpi_h)}:",
            f" * {sem} wrappers with a table role, {gen} generic enter/leave wrappers.",
            f" * Hand-written in src/mpi (role manual): {', '.join(manual) or 'none'}. */", ""]
    head += DEPRECATED_PRAGMA
    body = textwrap.dedent("\n".join(t.prologue)).strip("\n").splitlines() + [""]
    body += [emit_wrapper(w) for w in wrappers if not w.nowrap]
    tail = ["/* Not wrapped (exclude lines of the table):"]
    tail += [f" *   {n}: {r}" for n, r in sorted(excluded.items())]
    return "\n".join(head + body + tail + [" */", ""])


def render_have(t, fam):
    guard = "ST_MPI_HAVE_H"
    lines = [f"/* {BANNER.format(table=t.path)} */",
             f"/* ST_HAVE_<name> for every MPI_/MPIX_ function {fam.name}'s {os.path.basename(fam.mpi_h)} "
             "declares, so that hand-written",
             " * code can guard calls of functions a family may lack: #ifdef ST_HAVE_<name>. */",
             f"#ifndef {guard}", f"#define {guard}"]
    lines += [f"#define ST_HAVE_{n} 1" for n in fam.names]
    return "\n".join(lines + [f"#endif /* {guard} */", ""])


def render_def(t, wrappers):
    lines = [f"/* {BANNER.format(table=t.path)} */",
             "/* ST_REGION(ID, \"name\", OTF2 region role, paradigm) for every MPI function synctrace",
             " * wraps or hand-writes, sorted by name; see src/model/regions.def. */"]
    lines += [f'ST_REGION({w.proto.name}, "{w.proto.name}", {w.region}, MPI)' for w in wrappers]
    return "\n".join(lines + [""])


def render_calls(t, wrappers):
    lines = [f"/* {BANNER.format(table=t.path)} */",
             "/* ST_MPI_CALL(ID, CALL, CATEGORY) for every function of mpi_regions.def, in its order:",
             " * CALL what the call does for the wait-state analysis (the entry's call=, else its role's",
             " * 'call' line; NONE for generic and manual functions), CATEGORY the category of its time",
             " * by name (the first matching 'category' line, else NONE); see wrappers/README.md. */"]
    lines += [f"ST_MPI_CALL({w.proto.name}, {w.call.upper()}, {category_of(t, w.proto.name).upper()})"
              for w in wrappers]
    return "\n".join(lines + [""])


def render_unfilterable(t, wrappers):
    lines = [f"/* {BANNER.format(table=t.path)} */",
             "/* ST_UNFILTERABLE(ID, \"why\") for every function of mpi_regions.def that a filter",
             " * (SYNCTRACE_FILTER) may not exclude, in its order: its role's 'unfilterable' line, else the",
             " * first matching 'protect' line; every other MPI region is filterable (wrappers/README.md). */"]
    lines += [f'ST_UNFILTERABLE({w.proto.name}, "{w.keep}")' for w in wrappers if w.keep is not None]
    return "\n".join(lines + [""])


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def render_fortran(t, fam, wrappers):
    """The family's Fortran entry points for the same wrappers (scripts/gen_fortran.py)."""
    sys.dont_write_bytecode = True  # no scripts/__pycache__ in the source tree
    import gen_fortran
    g = t.roles["generic"]
    def generic_of(w):
        out = Wrapper(w.proto, w.region, substitute(g.pre, {}), substitute(g.post, {}), False, False, g.call)
        out.keep = w.keep  # the generic shape of a role's function stays as (un)filterable as the function
        return out
    return gen_fortran.render(t, fam.mpi_h, wrappers, generic_of, fam.name)[0]


def parse_families(args):
    """[(family, path)] from the repeated --mpi-h FAM=PATH, sorted by family name."""
    fams = {}
    for a in args:
        name, eq, path = a.partition("=")
        if not eq or not re.fullmatch(r"[a-z][a-z0-9_]*", name) or not path:
            fail("", f"--mpi-h {a}: expected FAMILY=PATH with a lower-case family name (mpich=/usr/include/.../mpi.h)")
        if name in fams:
            fail("", f"--mpi-h {a}: family '{name}' given twice")
        fams[name] = path
    return sorted(fams.items())


def main(argv):
    ap = argparse.ArgumentParser(description="Generate synctrace's PMPI wrappers from the MPI function table.")
    ap.add_argument("--table", required=True, help="wrappers/mpi_functions.tbl")
    ap.add_argument("--mpi-h", required=True, action="append", metavar="FAM=PATH",
                    help="an MPI family's mpi.h, e.g. mpich=/usr/include/x86_64-linux-gnu/mpich/mpi.h (repeatable)")
    ap.add_argument("--out", required=True, help="output directory (mpi_regions.def, mpi_calls.def, FAM/mpi_wrappers.c, FAM/mpi_have.h)")
    ap.add_argument("--cpp", default=os.environ.get("CPP", "cpp"), help="C preprocessor command (default: $CPP or cpp)")
    a = ap.parse_args(argv)
    try:
        table = parse_table(a.table)
        fams = [Family(name, path, mpi_declarations(preprocess(path, a.cpp), path))
                for name, path in parse_families(a.mpi_h)]
        union, per_fam = plan(table, fams)
        files = {"mpi_regions.def": render_def(table, union), "mpi_calls.def": render_calls(table, union),
                 "mpi_unfilterable.def": render_unfilterable(table, union)}
        for fam in fams:
            wrappers, excluded = per_fam[fam.name]
            files[os.path.join(fam.name, "mpi_wrappers.c")] = render_c(table, fam, wrappers, excluded)
            files[os.path.join(fam.name, "mpi_have.h")] = render_have(table, fam)
            if fam.name in ("openmpi", "mpich"):  # Fortran bindings calling PMPI_*: entry points of our own
                files[os.path.join(fam.name, "mpi_fortran.c")] = render_fortran(table, fam, wrappers)
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(a.out, rel)), exist_ok=True)
            write_atomic(os.path.join(a.out, rel), text)
    except GenError as e:
        print(f"gen_wrappers.py: error: {e}", file=sys.stderr)
        return 1
    for fam in fams:
        wrappers, excluded = per_fam[fam.name]
        sem = sum(1 for w in wrappers if w.semantic and not w.nowrap)
        gen = sum(1 for w in wrappers if not w.semantic)
        man = sum(1 for w in wrappers if w.nowrap)
        print(f"gen_wrappers.py: {fam.name}: {sem} table-role + {gen} generic wrappers, {man} manual, "
              f"{len(excluded)} excluded -> {os.path.join(a.out, fam.name)}")
    print(f"gen_wrappers.py: {len(union)} regions (union of {', '.join(f.name for f in fams)}) -> {a.out}")
    nowhere = [p.name for e in table.entries for p, _ in e.sigs if not any(p.name in f.protos for f in fams)]
    if nowhere:
        print(f"gen_wrappers.py: note: {len(nowhere)} optional sigs no given mpi.h declares: {' '.join(sorted(nowhere))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
