#!/usr/bin/env bash
# t_run_openmpi.sh — `synctrace-run mpirun.openmpi ...` end to end with the real Open MPI library:
# a C ring (N ranks x R rounds of MPI_Send/MPI_Recv, one MPI_Allreduce, one MPI_Barrier) and the
# same through Debian's python3-mpi4py (an interpreter: the launcher decides the family). Checks
# the family chosen (-v), stdout and exit code as untraced, exact message and collective counts
# with their peers, tags and sizes, and every message matched (`synctrace check`). The tests set
# Open MPI's root and oversubscription settings; synctrace-run never does.
source "$ST_ROOT/tests/lib.sh"

LIBO=$ST_BIN/../lib/openmpi/libsynctrace.so
[ -f "$LIBO" ] || fail "$LIBO not built (make builds a library per MPI family installed)"
for c in mpicc.openmpi mpirun.openmpi; do command -v "$c" >/dev/null || fail "$c not found"; done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
LAUNCH=(mpirun.openmpi --oversubscribe)
cd "$ST_TMP"
NP=3 ROUNDS=5

cat >ring.c <<'EOF'
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t token = 0, in = 0, sum = 0;
    for (int r = 0; r < rounds; r++) {
        if (rank == 0) {
            token = r;
            MPI_Send(&token, 1, MPI_INT64_T, (rank + 1) % size, 7, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT64_T, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT64_T, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token = in + rank;
            MPI_Send(&token, 1, MPI_INT64_T, (rank + 1) % size, 7, MPI_COMM_WORLD);
        }
    }
    MPI_Allreduce(&in, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring done: last token %lld, sum %lld\n", (long long)in, (long long)sum);
    MPI_Finalize();
    return 0;
}
EOF
mpicc.openmpi -std=c11 -O1 -Wall -Wextra -Werror -o ring ring.c || fail "cannot build ring.c with mpicc.openmpi"

# count DUMP JQ-LIKE-PATTERN: lines of `synctrace dump --json` output that hold every given fragment
count() {
    local f=$1 line n=0
    shift
    while IFS= read -r line; do
        local p ok=1
        for p in "$@"; do [[ $line == *"$p"* ]] || { ok=0; break; }; done
        n=$((n + ok))
    done <"$f"
    echo "$n"
}

# ---- C ring ------------------------------------------------------------------------------------
timeout -k 10 120 "${LAUNCH[@]}" -n $NP ./ring $ROUNDS >plain.txt 2>plain-err.txt || fail "untraced ring failed: $(tail -n 3 plain-err.txt)"
rc=0
timeout -k 10 120 "$ST_BIN/synctrace-run" -v -o arch "${LAUNCH[@]}" -n $NP ./ring $ROUNDS >out.txt 2>err.txt || rc=$?
assert_eq "exit code" 0 "$rc"
grep -qxF "synctrace-run: MPI family openmpi (Open MPI): ./ring needs libmpi.so.40" err.txt \
    || fail "-v does not say the Open MPI family: $(head -n 5 err.txt)"
cmp -s plain.txt out.txt || fail "stdout differs from the untraced run: $(diff plain.txt out.txt | head -n 4)"
[ -f arch/traces.otf2 ] || fail "no archive: $(tail -n 5 err.txt)"
grep -q "recover" err.txt && fail "a complete run was recovered: $(grep recover err.txt)"
st dump arch --json >dump.json || fail "synctrace dump failed"
msgs=$((NP * ROUNDS))
assert_eq "sends" "$msgs" "$(count dump.json '"type":"send"')"
assert_eq "sends: tag 7, 8 bytes" "$msgs" "$(count dump.json '"type":"send"' '"tag":7,' '"bytes":8')"
assert_eq "receives" "$msgs" "$(count dump.json '"type":"recv"')"
assert_eq "receives: tag 7, 8 bytes" "$msgs" "$(count dump.json '"type":"recv"' '"tag":7,' '"bytes":8')"
for r in $(seq 0 $((NP - 1))); do
    assert_eq "rank $r sends to its right" "$ROUNDS" \
        "$(count dump.json '"type":"send"' "\"rank\":$r," "\"peer\":$(((r + 1) % NP)),")"
    assert_eq "rank $r receives from its left" "$ROUNDS" \
        "$(count dump.json '"type":"recv"' "\"rank\":$r," "\"peer\":$(((r + NP - 1) % NP)),")"
done
assert_eq "MPI_Send regions" "$msgs" "$(count dump.json '"type":"enter"' '"region":"MPI_Send"')"
assert_eq "MPI_Recv regions" "$msgs" "$(count dump.json '"type":"enter"' '"region":"MPI_Recv"')"
assert_eq "MPI_Allreduce regions" "$NP" "$(count dump.json '"type":"enter"' '"region":"MPI_Allreduce"')"
assert_eq "MPI_Barrier regions" "$NP" "$(count dump.json '"type":"enter"' '"region":"MPI_Barrier"')"
assert_eq "collective ends" "$((2 * NP))" "$(count dump.json '"type":"coll_end"')"
# OTF2's convention for an all-to-all pattern: 8 bytes to and from each of the NP ranks
assert_eq "allreduce: 8 bytes x NP each way" "$NP" "$(count dump.json '"op":"allreduce"' "\"sent\":$((8 * NP))," "\"recv\":$((8 * NP)),")"
st check arch >check.txt 2>&1 || fail "synctrace check: $(tail -n 3 check.txt)"

# ---- mpi4py: python3 loads libmpi late; the launcher decides ----------------------------------
py=/usr/bin/python3
"$py" -c 'import mpi4py' 2>/dev/null || fail "python3-mpi4py not installed (scripts/install-deps.sh --for check)"
cat >ring.py <<'EOF'
from array import array
from mpi4py import MPI
c = MPI.COMM_WORLD
rank, size = c.Get_rank(), c.Get_size()
buf = bytearray(16)
for r in range(4):
    if rank == 0:
        c.Send([bytearray(16), MPI.BYTE], dest=1, tag=3)
        c.Recv([buf, MPI.BYTE], source=size - 1, tag=3)
    else:
        c.Recv([buf, MPI.BYTE], source=rank - 1, tag=3)
        c.Send([buf, MPI.BYTE], dest=(rank + 1) % size, tag=3)
total = array("l", [0])
c.Allreduce([array("l", [rank]), MPI.LONG], [total, MPI.LONG], op=MPI.SUM)
if rank == 0:
    print("py ring done, total", total[0])
EOF
rc=0
timeout -k 10 120 "$ST_BIN/synctrace-run" -v -o pyarch "${LAUNCH[@]}" -n $NP "$py" ring.py >pyout.txt 2>pyerr.txt || rc=$?
assert_eq "mpi4py exit code" 0 "$rc"
grep -q "synctrace-run: MPI family openmpi (Open MPI): no program on the command line loads an MPI library" pyerr.txt \
    || fail "-v does not say the launcher decided: $(head -n 5 pyerr.txt)"
assert_eq "mpi4py stdout" "py ring done, total $((NP * (NP - 1) / 2))" "$(cat pyout.txt)"
[ -f pyarch/traces.otf2 ] || fail "mpi4py: no archive: $(tail -n 5 pyerr.txt)"
st dump pyarch --json >pydump.json || fail "synctrace dump (mpi4py) failed"
assert_eq "mpi4py sends: tag 3, 16 bytes" "$((4 * NP))" "$(count pydump.json '"type":"send"' '"tag":3,' '"bytes":16')"
assert_eq "mpi4py sends" "$((4 * NP))" "$(count pydump.json '"type":"send"')"
assert_eq "mpi4py receives" "$((4 * NP))" "$(count pydump.json '"type":"recv"' '"tag":3,' '"bytes":16')"
assert_eq "mpi4py MPI_Allreduce regions" "$NP" "$(count pydump.json '"type":"enter"' '"region":"MPI_Allreduce"')"
st check pyarch >pycheck.txt 2>&1 || fail "synctrace check (mpi4py): $(tail -n 3 pycheck.txt)"
echo ok
