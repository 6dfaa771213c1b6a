#!/usr/bin/env python3
"""fortran_same.py REF.json OTHER.json [NAME] — the Fortran trio's comparison (t_fortran_trio.sh).

Both files are `synctrace dump --json` outputs of programs making the same MPI calls (ftrio.c and
one of ftrio_*.f90). Exits 0 when the two have exactly the same application MPI events per rank:
enter/leave per region, messages (type, region, peer, tag, bytes) and collective ends (type,
region, root), counted as tracecheck.py counts them; else prints the differences. On success it
prints one line: how many events of how many kinds were compared.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tracecheck  # noqa: E402


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    name = argv[3] if len(argv) == 4 else argv[2]
    ref = tracecheck.histogram(tracecheck.load(argv[1]))
    got = tracecheck.histogram(tracecheck.load(argv[2]))
    if not ref:
        print("%s: the reference has no MPI events" % argv[1])
        return 1
    diff = sorted((k for k in set(ref) | set(got) if ref.get(k, 0) != got.get(k, 0)), key=repr)
    for k in diff[:25]:
        print("%s: %r: C %d, Fortran %d" % (name, k, ref.get(k, 0), got.get(k, 0)))
    if diff:
        print("%s: %d of %d kinds of events differ from the C program's" % (name, len(diff), len(set(ref) | set(got))))
        return 1
    regions = sorted({k[2] for k in ref if k[1] == "enter"})
    print("%s: %d events of %d kinds the same as the C program's (%d regions: %s)"
          % (name, sum(ref.values()), len(ref), len(regions), " ".join(regions)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
