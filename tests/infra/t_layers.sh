#!/usr/bin/env bash
# t_layers.sh — the import rule of tests/infra/layers.txt holds (docs/architecture.md, "Modules and
# layers"): every #include "..." of src/ and include/ (and of the generated C files in build/gen,
# when built) is resolved the way the compiler does (the including file's folder, then -I build/gen,
# -I include; for generated code also -I src) and mapped to its module (src/<module>/, include, gen);
# an include of a module on a higher layer, of another module on the same layer, or of a module
# that layers.txt forbids fails, printed as file:line and the rule it breaks. An include that
# resolves to no file fails too. And the Makefile puts no module's folder on the include path: its
# only -I are build/gen, include, the MPI headers, and -Isrc for the generated code alone. And the
# table of layers in docs/architecture.md is the one of layers.txt.
source "$ST_ROOT/tests/lib.sh"
cd "$ST_ROOT"

TABLE=tests/infra/layers.txt
GEN=${ST_BUILD:+$ST_BUILD/../gen}
[ -n "$GEN" ] && [ -d "$GEN" ] || GEN=build/gen
python3 - "$TABLE" "$GEN" >"$ST_TMP/layers.out" 2>&1 <<'PY' || { head -n -1 "$ST_TMP/layers.out" >&2; fail "$(tail -n 1 "$ST_TMP/layers.out")"; }
import glob, os, re, sys

table, gen = sys.argv[1], os.path.relpath(sys.argv[2])
layer, forbid, owner = {}, set(), {}
for n, line in enumerate(open(table), 1):
    w = line.split()
    if not w or w[0].startswith("#"):
        continue
    if w[0] == "layer" and len(w) > 2:
        layer.update((m, int(w[1])) for m in w[2:])
    elif w[0] == "forbid" and len(w) == 3:
        forbid.add((w[1], w[2]))
    elif w[0] == "owner" and len(w) == 3:
        owner[w[1]] = w[2]
    else:
        sys.exit(f"{table}:{n}: a line that is no 'layer N MODULE...', 'forbid A B' or 'owner FILE MODULE'")
for d in sorted(glob.glob("src/*/")):
    if d.split("/")[1] not in layer:
        sys.exit(f"{d} is on no layer of {table}: add it there (and to docs/architecture.md)")

# the names the Makefile generates into $(GEN), so that the test needs no build
makefile = open("Makefile").read().split("\n")
generated = set(re.findall(r"\$\$?\(GEN\)/(?:\$\$?\(\w+\)/)?([\w.-]+)", "\n".join(makefile)))

def module_of(path):
    if path.startswith(gen + "/") or path.startswith("build/gen/"):
        return "gen"
    if path.startswith("include/"):
        return "include"
    parts = path.split("/")
    return parts[1] if parts[0] == "src" and len(parts) > 2 else None

def resolve(src, name, search):
    for d in [os.path.dirname(src)] + search:
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return os.path.relpath(p)
    return "build/gen/" + name if name in generated else None

bad = []
def check(src, mod, search):
    for n, line in enumerate(open(src, errors="replace"), 1):
        m = re.match(r'\s*#\s*include\s*"([^"]*)"', line)
        if not m:
            continue
        name, at = m.group(1), f"{src}:{n}"
        path = resolve(src, name, search)
        if path is None:
            bad.append(f'{at}: #include "{name}" resolves to no file (searched the file\'s folder and {" ".join(search)})')
            continue
        to = module_of(path)
        if to is None:
            bad.append(f'{at}: #include "{name}" is {path}, a file of no module')
        elif to == mod:
            pass
        elif (mod, to) in forbid:
            bad.append(f"{at}: {mod} imports {to} ({path}): {table} forbids {mod} to import {to}")
        elif layer[to] > layer[mod]:
            bad.append(f"{at}: {mod} (layer {layer[mod]}) imports {to} (layer {layer[to]}, {path}): an import up a layer")
        elif layer[to] == layer[mod]:
            bad.append(f"{at}: {mod} imports {to} ({path}), both on layer {layer[mod]}: modules of one layer do not import each other")

files = sorted(f for d in ("src", "include") for f in glob.glob(d + "/**/*", recursive=True)
               if f.endswith((".c", ".h", ".def")))
for f in files:
    check(f, module_of(f), [gen, "include"] + sorted(glob.glob(gen + "/*/")))
for f in sorted(glob.glob(gen + "/*.c") + glob.glob(gen + "/*/*.c")):
    if os.path.basename(f) not in owner:
        bad.append(f"{f}: a generated file with no owner line in {table}")
    else:
        check(f, owner[os.path.basename(f)], [gen, os.path.dirname(f), "include", "src"])
        files.append(f)

# the Makefile's include path: -I of build/gen, include, the MPI headers; -Isrc only in the recipe
# of generated code (whose includes name files from the source root)
target = ""
for n, line in enumerate(makefile, 1):
    if line and not line.startswith("\t") and re.match(r"[^=#]*[^:=]:([^=]|$)", line):
        target = line.split(":")[0]
    for opt in re.findall(r"-I\S*", re.sub(r"\$\(shell .*", "", line)):
        if opt in ("-I$(GEN)", "-Iinclude", "-I$(MPI_INC)") or re.match(r"-I\$\$?\((GEN\)/|MPI_INC_)", opt):
            continue  # build/gen, build/gen/<MPI family>, include, an MPI family's headers
        if opt == "-Isrc":
            if not (line.startswith("\t") and "gen/" in target):
                bad.append(f"Makefile:{n}: -Isrc outside the recipe of generated code (target '{target}'): includes are relative paths")
            continue
        bad.append(f"Makefile:{n}: {opt}: a folder on the include path other than build/gen, include and the MPI headers "
                   "(a module's folder is included by a relative path)")

# docs/architecture.md shows the layers as a table ("| N | `a`, `b` |"): the same as the table here
doc = "docs/architecture.md"
shown = {}
for n, line in enumerate(open(doc), 1):
    m = re.match(r"\|\s*(\d+)\s*\|\s*(`[\w-]+`(?:\s*,\s*`[\w-]+`)*)\s*\|\s*$", line)
    if m:
        shown.update((mod, int(m.group(1))) for mod in re.findall(r"`([\w-]+)`", m.group(2)))
if shown != layer:
    bad.append(f"{doc}: its table of layers {sorted(shown.items(), key=lambda x: (x[1], x[0]))} is not "
               f"{table}'s {sorted(layer.items(), key=lambda x: (x[1], x[0]))}")

for b in bad:
    print(b)
if bad:
    sys.exit(f"{len(bad)} problem(s) with the layers of {table} (listed above)")
print(f"{len(files)} files, every include within the layers")
PY
note "$(tail -n 1 "$ST_TMP/layers.out")"
