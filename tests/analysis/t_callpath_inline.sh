#!/usr/bin/env bash
# Source-level call paths of optimized code (SYNCTRACE_CALLPATH=1, MPICH, 2 ranks):
#  - inlinepaths.c at -O2: an MPI call in a function inlined into another (main/outer/inlined_fn/
#    MPI_Allreduce), in two functions inlined into main (main/twice_inlined/inlined_fn/MPI_Allreduce),
#    in a tail-called function (main/tail_caller/tail_callee/MPI_Barrier: tail_caller's frame is
#    gone, main's direct call to it names it), as a tail call (main/tail_mpi/MPI_Bcast) and in a
#    function main tail-calls (main/finish/MPI_Finalize: main's frame is gone, libc called it). Every
#    MPI ENTER of every rank is checked in `synctrace dump`, in `synctrace analyze`'s call tree,
#    and, after a run ending in MPI_Abort, in the archive `synctrace recover` makes (the same
#    paths: one symbolization for both routes). Once more started by its bare name, found on PATH:
#    glibc names the main program by argv[0] then (dladdr), a name no file has relative to the
#    processes' directory, so the shim symbolizes /proc/self/exe (before, every frame of such a
#    run was unnamed, "inlinepaths+0x...").
#  - unitpaths.f90 at -O2 (mpi_f90): the MPI call in a subroutine contained in the program unit is
#    at main/MAIN__/step, the program unit's calls at main/MAIN__.
# Needs llvm-symbolizer: binutils' addr2line names the innermost of inlined frames after the
# function holding the code (src/util/addr2line.h).
source "$ST_ROOT/tests/lib.sh"
command -v llvm-symbolizer >/dev/null || skip "llvm-symbolizer not installed (package llvm)"
[ -x "$ST_BIN/synctrace" ] || fail "no $ST_BIN/synctrace: build first"
src="$ST_ROOT/tests/analysis/inlinepaths.c"
BIN="$ST_BUILD/inlinepaths"
if [ ! -x "$BIN" ] || [ "$src" -nt "$BIN" ]; then
    mpi_cc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -o "$BIN" "$src" || fail "cannot build $src"
fi
# the binary holds what the test is about: the inlined functions have no calls, tail_caller jumps
objdump -d --no-show-raw-insn "$BIN" >"$ST_TMP/asm.txt" || fail "objdump failed"
grep -Eq 'call +[0-9a-f]+ <(inlined_fn|twice_inlined)' "$ST_TMP/asm.txt" && fail "inlined_fn or twice_inlined was not inlined"
awk '/<tail_caller>:$/,/^$/' "$ST_TMP/asm.txt" | grep -Eq 'jmp +[0-9a-f]+ <tail_callee>' \
    || fail "tail_caller does not jump to tail_callee: $(awk '/<tail_caller>:$/,/^$/' "$ST_TMP/asm.txt")"
awk '/<tail_mpi>:$/,/^$/' "$ST_TMP/asm.txt" | grep -Eq 'jmp +[0-9a-f]+ <MPI_Bcast@plt>' \
    || fail "tail_mpi does not jump to MPI_Bcast: $(awk '/<tail_mpi>:$/,/^$/' "$ST_TMP/asm.txt")"
# main's own tail call; another compiler may call finish instead (the paths are the same then, but
# main's lost frame is not tested)
awk '/<main>:$/,/^$/' "$ST_TMP/asm.txt" | grep -Eq 'jmp +[0-9a-f]+ <finish>' \
    || echo "note: main calls finish, no jump: main's own tail call is not tested with this compiler" >&2

ST_ENV="SYNCTRACE_CALLPATH=1" run_traced "$ST_TMP/p" 2 "$BIN" || fail "inlinepaths failed: $(tail -n 5 "$ST_TMP/err.txt")"
grep -qx done "$ST_TMP/out.txt" || fail "inlinepaths printed: $(head -c 200 "$ST_TMP/out.txt")"
st dump "$ST_TMP/p" >"$ST_TMP/dump.txt" || fail "synctrace dump failed"
st analyze "$ST_TMP/p" >/dev/null || fail "synctrace analyze failed"
rc=0
ST_ENV="SYNCTRACE_CALLPATH=1" run_traced "$ST_TMP/a" 2 "$BIN" abort || rc=$?
[ "$rc" -ne 0 ] || fail "the aborted run exited 0"
st recover "$ST_TMP/a" >"$ST_TMP/recover.txt" 2>&1 || fail "synctrace recover failed: $(head -c 300 "$ST_TMP/recover.txt")"
st dump "$ST_TMP/a" >"$ST_TMP/adump.txt" || fail "synctrace dump of the recovered archive failed"

[ ! -e inlinepaths ] || fail "an inlinepaths in the test's directory would hide the PATH case"
PATH="$ST_BUILD:$PATH" ST_ENV="SYNCTRACE_CALLPATH=1" run_traced "$ST_TMP/b" 2 inlinepaths ||
    fail "inlinepaths found on PATH failed: $(tail -n 5 "$ST_TMP/err.txt")"
st dump "$ST_TMP/b" >"$ST_TMP/bdump.txt" || fail "synctrace dump of the PATH run failed"

FBIN="$ST_BUILD/unitpaths"
fsrc="$ST_ROOT/tests/analysis/unitpaths.f90"
if [ ! -x "$FBIN" ] || [ "$fsrc" -nt "$FBIN" ]; then
    mpi_f90 -O2 -g -o "$FBIN" "$fsrc" || fail "cannot build $fsrc"
fi
ST_ENV="SYNCTRACE_CALLPATH=1" run_traced "$ST_TMP/f" 2 "$FBIN" || fail "unitpaths failed: $(tail -n 5 "$ST_TMP/err.txt")"
grep -q "sum  3.0" "$ST_TMP/out.txt" || fail "unitpaths printed: $(head -c 200 "$ST_TMP/out.txt")"
st dump "$ST_TMP/f" >"$ST_TMP/fdump.txt" || fail "synctrace dump of the Fortran run failed"

PYTHONPATH="$ST_ROOT/tests/analysis" python3 - "$ST_TMP" <<'PY' || fail "call paths not the source's (see above)"
import json, re, sys
from anacheck import cnode_paths
tmp = sys.argv[1]
def enters(dump):
    """rank -> [(region, path)] of thread 0's ENTERs, in order"""
    got = {}
    for line in open(dump):
        m = re.match(r'\s*\d+\s+(\d+)\s+0\s+enter\s+region=(\S+)(.*)$', line)
        if m:
            p = re.search(r'callpath=(?:"([^"]*)"|(\S+))', m.group(3))
            got.setdefault(int(m.group(1)), []).append((m.group(2), (p.group(1) or p.group(2)) if p else None))
    return got
bad = 0
def expect(what, got, want):
    global bad
    for rank in (0, 1):
        g = got.get(rank, [])
        if g != want:
            print(f"{what}, rank {rank}:\n  got  {g}\n  want {want}"); bad += 1
base = [("MPI_Init", "main"), ("MPI_Comm_rank", "main"), ("MPI_Allreduce", "main/outer/inlined_fn"),
        ("MPI_Allreduce", "main/twice_inlined/inlined_fn"), ("MPI_Barrier", "main/tail_caller/tail_callee"),
        ("MPI_Bcast", "main/tail_mpi")]
expect("inlinepaths", enters(f"{tmp}/dump.txt"), base + [("MPI_Finalize", "main/finish")])
expect("inlinepaths found on PATH", enters(f"{tmp}/bdump.txt"), base + [("MPI_Finalize", "main/finish")])
# after the calls: the barrier and MPI_Abort in finish, which a rank may not reach before the other's abort ends it
rec = enters(f"{tmp}/adump.txt")
expect("inlinepaths recovered", {r: g[:len(base)] for r, g in rec.items()}, base)
for r, g in rec.items():
    if any(p != "main/finish" for _, p in g[len(base):]) or [x for x, _ in g[len(base):]] not in (["MPI_Barrier"], ["MPI_Barrier", "MPI_Abort"]):
        print(f"inlinepaths recovered, rank {r}: after the calls {g[len(base):]}"); bad += 1
doc = json.load(open(f"{tmp}/p/analysis.json"))
path = cnode_paths(doc)
mpi = sorted({path(c["id"]) for c in doc["cnodes"] if c["region"].startswith("MPI_")})
want = sorted({f"{p}/{r}" for r, p in base + [("MPI_Finalize", "main/finish")]})
if mpi != want:
    print(f"analysis.json: the MPI calls' paths\n  got  {mpi}\n  want {want}"); bad += 1
expect("unitpaths (Fortran)", enters(f"{tmp}/fdump.txt"),
       [("MPI_Init", "main/MAIN__"), ("MPI_Comm_rank", "main/MAIN__"), ("MPI_Allreduce", "main/MAIN__/step"),
        ("MPI_Finalize", "main/MAIN__")])
sys.exit(1 if bad else 0)
PY
exit 0
