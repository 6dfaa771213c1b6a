#!/usr/bin/env bash
# t_gen.sh — scripts/gen_wrappers.py on the real table and on broken ones, for both MPI families.
#
# The real table with MPICH's and Open MPI's mpi.h: two runs give byte-identical output that starts
# with the "do not edit" banner, each family's C compiles with the library's flags and that
# family's compiler (the build's object of the same C serves), the shared region table is exactly the union of the families' wrapped and
# manual functions (sorted), a family's output does not depend on which other families are given,
# mpi_have.h lists exactly what that mpi.h declares, optional sigs Open MPI lacks (the _c
# variants) have no Open MPI wrapper but a region, every function the table gives a role gets the
# right region role and runtime call, manual functions get a region but no wrapper, excluded ones
# neither. The wait-state analysis, compiled against the generated mpi_calls.def, classifies every
# function as its former hand lists did, and a function added to a table with an existing role
# gets its role's classification. Broken tables (one defect each, applied to a small table that itself passes) must fail
# with exit 1 and a one-line "error:" naming the defect, and leave existing output untouched.
source "$ST_ROOT/tests/lib.sh"
cd "$ST_ROOT"

mpi_h() { echo "$("$1" -show | tr ' ' '\n' | sed -n 's/^-I//p' | head -n1)/mpi.h"; }
MPICH_H=$(mpi_h mpicc.mpich 2>/dev/null)
OMPI_H=$(mpi_h mpicc.openmpi 2>/dev/null)
[ -f "$MPICH_H" ] || skip "MPICH's mpi.h not found (mpicc.mpich -show)"
[ -f "$OMPI_H" ] || skip "Open MPI's mpi.h not found (mpicc.openmpi -show)"
BOTH=(--mpi-h "mpich=$MPICH_H" --mpi-h "openmpi=$OMPI_H")
gen() { python3 scripts/gen_wrappers.py "${BOTH[@]}" "$@"; }

# ---- the real table ---------------------------------------------------------------------------
OUTS="mpi_regions.def mpi_calls.def mpi_unfilterable.def mpich/mpi_wrappers.c mpich/mpi_have.h openmpi/mpi_wrappers.c openmpi/mpi_have.h openmpi/mpi_fortran.c mpich/mpi_fortran.c"
gen --table wrappers/mpi_functions.tbl --out "$ST_TMP/a" >"$ST_TMP/a.log" || fail "generator failed: $(cat "$ST_TMP/a.log")"
gen --table wrappers/mpi_functions.tbl --out "$ST_TMP/b" >/dev/null || fail "second run failed"
for f in $OUTS; do
    cmp -s "$ST_TMP/a/$f" "$ST_TMP/b/$f" || fail "$f differs between two runs"
    assert_eq "first line of $f" "/* generated from wrappers/mpi_functions.tbl — do not edit */" "$(head -n1 "$ST_TMP/a/$f")"
done
assert_eq "files written" "$(echo $OUTS | tr ' ' '\n' | sort)" "$(cd "$ST_TMP/a" && find . -type f | sed 's|^\./||' | sort)"
note "$(cat "$ST_TMP/a.log")"

# names FILE: the MPI functions FILE defines wrappers for (ST_EXPORT) or regions of (ST_REGION)
names() { sed -n -e 's/^ST_EXPORT [^(]*[ *]\(MPIX\?_[A-Za-z0-9_]*\)(.*/\1/p' -e 's/^ST_REGION(\([^,]*\),.*/\1/p' "$1"; }
MANUAL="MPI_Abort MPI_Finalize MPI_Init MPI_Init_thread"
for fam in mpich openmpi; do
    # The build compiled this very C with the library's flags (-Werror) and the family's compiler:
    # its object is used when the build's C is the same and the object is newer (about 20 s saved
    # a family), else the C is compiled here as the library is.
    obj=$ST_O/build/lib-$fam/gen/mpi_wrappers.o
    if cmp -s "$ST_TMP/a/$fam/mpi_wrappers.c" "$ST_O/build/gen/$fam/mpi_wrappers.c" &&
        [ "$obj" -nt "$ST_O/build/gen/$fam/mpi_wrappers.c" ]; then
        note "$fam: the build's own object of the same C ($obj)"
    else
        obj=$ST_TMP/w-$fam.o
        "mpicc.$fam" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -fPIC -fvisibility=hidden -I"$ST_TMP/a" -I"$ST_TMP/a/$fam" \
            -Isrc -Iinclude -c "$ST_TMP/a/$fam/mpi_wrappers.c" -o "$obj" 2>"$ST_TMP/cc.log" \
            || fail "$fam: generated C does not compile: $(head -c 1500 "$ST_TMP/cc.log")"
    fi
    exported=$(readelf -s --wide "$obj" | awk '$5=="GLOBAL" && $6=="DEFAULT" && $7!="UND" {print $8}' | grep -c '^MPIX\?_')
    defined=$(grep -c '^ST_EXPORT ' "$ST_TMP/a/$fam/mpi_wrappers.c")
    assert_eq "$fam: exported MPI symbols = wrappers defined" "$defined" "$exported"
    { names "$ST_TMP/a/$fam/mpi_wrappers.c"; echo $MANUAL | tr ' ' '\n'; } | LC_ALL=C sort >"$ST_TMP/regions-$fam.txt"
    # mpi_have.h: one ST_HAVE_ per MPI function the family's mpi.h declares, wrapped or not
    have=$(grep -c '^#define ST_HAVE_MPIX\?_[A-Za-z0-9_]* 1$' "$ST_TMP/a/$fam/mpi_have.h")
    excluded=$(grep -c '^ \*   MPIX\?_[A-Za-z0-9_]*: ' "$ST_TMP/a/$fam/mpi_wrappers.c")
    assert_eq "$fam: ST_HAVE_ lines = wrappers + manual + excluded" "$((defined + 4 + excluded))" "$have"
    note "$fam: $defined wrappers, $excluded excluded, $have ST_HAVE_"
    # the family's output does not depend on the other families given
    python3 scripts/gen_wrappers.py --mpi-h "$fam=$([ $fam = mpich ] && echo "$MPICH_H" || echo "$OMPI_H")" \
        --table wrappers/mpi_functions.tbl --out "$ST_TMP/only-$fam" >/dev/null || fail "$fam alone: generator failed"
    for f in mpi_wrappers.c mpi_have.h; do
        cmp -s "$ST_TMP/a/$fam/$f" "$ST_TMP/only-$fam/$fam/$f" || fail "$fam/$f differs when $fam is the only family"
    done
    assert_eq "$fam alone: regions = its wrappers + manual" "$(cat "$ST_TMP/regions-$fam.txt")" \
        "$(names "$ST_TMP/only-$fam/mpi_regions.def")"
done
# the shared tables: the union of both families, sorted by name
assert_eq "regions = union of the families' wrappers + manual" \
    "$(LC_ALL=C sort -u "$ST_TMP/regions-mpich.txt" "$ST_TMP/regions-openmpi.txt")" "$(names "$ST_TMP/a/mpi_regions.def")"
sorted=$(grep '^ST_REGION(' "$ST_TMP/a/mpi_regions.def" | LC_ALL=C sort | md5sum)
assert_eq "regions sorted by name" "$sorted" "$(grep '^ST_REGION(' "$ST_TMP/a/mpi_regions.def" | md5sum)"
# Open MPI 4.1 lacks the optional MPI-4 functions: no wrapper there, yet a region (MPICH has them)
for f in MPI_Send_c MPI_Alltoallw_c MPIX_Comm_shrink MPI_Comm_create_from_group MPI_Comm_idup_with_info; do
    grep -qx "$f" "$ST_TMP/regions-mpich.txt" || fail "mpich: no wrapper for $f"
    ! grep -qx "$f" "$ST_TMP/regions-openmpi.txt" || fail "openmpi has a wrapper for $f (its mpi.h lacks it)"
    grep -q "^ST_REGION($f, " "$ST_TMP/a/mpi_regions.def" || fail "$f: no region in the union"
    grep -qx "#define ST_HAVE_$f 1" "$ST_TMP/a/mpich/mpi_have.h" || fail "mpich/mpi_have.h lacks $f"
    ! grep -q "^#define ST_HAVE_$f " "$ST_TMP/a/openmpi/mpi_have.h" || fail "openmpi/mpi_have.h says it has $f"
done
grep -qx '#define ST_HAVE_MPI_Send 1' "$ST_TMP/a/openmpi/mpi_have.h" || fail "openmpi/mpi_have.h lacks MPI_Send"
# deprecated functions are forwarded on purpose (the pragma keeps -Werror quiet, with its reason)
grep -q '^ST_EXPORT int MPI_Attr_get(' "$ST_TMP/a/openmpi/mpi_wrappers.c" || fail "openmpi: MPI_Attr_get not wrapped"
grep -qx '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"' "$ST_TMP/a/openmpi/mpi_wrappers.c" \
    || fail "openmpi: no pragma for the deprecated functions"
# parameter names may differ from mpi.h's: the table's are the definition's (its code uses them)
grep -q '^ST_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests\[\], MPI_Status array_of_statuses\[\])' \
    "$ST_TMP/a/openmpi/mpi_wrappers.c" || fail "openmpi: MPI_Waitall not defined with the table's parameters"

# wrapper NAME [FAMILY]: the body of NAME's generated wrapper (default: MPICH's), and of its general
# form st_gen_NAME where the role has an inline usual case
wrapper() {
    awk -v f="$1" '(index($0, " " f "(") && /^ST_EXPORT/) || (index($0, " st_gen_" f "(") && /^static/) {p=1}
                   p {print} p && /^}/ {p=0}' "$ST_TMP/a/${2:-mpich}/mpi_wrappers.c"
}
# expect NAME REGION CALL: region role and a call the wrapper must make (- for none)
expect() {
    grep -qx "ST_REGION($1, \"$1\", $2, MPI)" "$ST_TMP/a/mpi_regions.def" || fail "$1: no region with role $2"
    local body; body=$(wrapper "$1")
    [ -n "$body" ] || fail "$1: no wrapper generated"
    grep -q "return PMPI_${1#MPI_}(" <<<"$body" || fail "$1: guard does not call PMPI"
    [ "$3" = - ] || grep -qF "$3" <<<"$body" || fail "$1: wrapper lacks '$3'"
}
while read -r name region call; do
    [ -n "$name" ] && expect "$name" "$region" "$call"
done <<'EOF'
MPI_Send POINT2POINT st_mpi_send(th, comm, dest, tag, count, datatype);
MPI_Bsend_c POINT2POINT st_mpi_send(th, comm, dest, tag, count, datatype);
MPI_Issend POINT2POINT st_mpi_req_add(rc, *request, &st_ri);
MPI_Rsend_init POINT2POINT st_mpi_persistent(rc, *request, 1,
MPI_Recv_init_c POINT2POINT st_mpi_persistent(rc, *request, 0,
MPI_Recv POINT2POINT ST_STATUS_FIX(status, st_status);
MPI_Irecv POINT2POINT st_mpi_irecv(th, &st_ri, comm, source, tag);
MPI_Startall POINT2POINT st_mpi_start(th, count, array_of_requests);
MPI_Sendrecv_replace POINT2POINT st_mpi_send(th, comm, dest, sendtag, count, datatype);
MPI_Mrecv POINT2POINT st_mpi_message_take(*message);
MPI_Imrecv_c POINT2POINT st_mpi_imrecv(th, &st_ri, &st_mi);
MPI_Improbe POINT2POINT st_mpi_mprobe(rc, comm, *message);
MPI_Iprobe POINT2POINT -
MPI_Cancel POINT2POINT -
MPI_Wait POINT2POINT st_mpi_complete(th, 0, status);
MPI_Testany POINT2POINT st_mpi_snapshot(th, count, array_of_requests);
MPI_Waitall POINT2POINT array_of_statuses = st_mpi_statuses(th, count, array_of_statuses);
MPI_Testsome POINT2POINT st_mpi_complete_some(th, rc, *outcount, array_of_indices, array_of_statuses);
MPI_Request_free POINT2POINT st_mpi_req_free(*request);
MPI_Barrier BARRIER OTF2_COLLECTIVE_OP_BARRIER, comm, -1, st_sent, st_recvd
MPI_Bcast_c COLL_ONE2ALL OTF2_COLLECTIVE_OP_BCAST, comm, root,
MPI_Scatterv COLL_ONE2ALL OTF2_COLLECTIVE_OP_SCATTERV
MPI_Gather COLL_ALL2ONE OTF2_COLLECTIVE_OP_GATHER
MPI_Reduce_c COLL_ALL2ONE OTF2_COLLECTIVE_OP_REDUCE
MPI_Alltoallw_c COLL_ALL2ALL OTF2_COLLECTIVE_OP_ALLTOALLW
MPI_Reduce_scatter_block COLL_ALL2ALL OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK
MPI_Exscan COLL_OTHER OTF2_COLLECTIVE_OP_EXSCAN
MPI_Neighbor_alltoallv COLL_OTHER OTF2_COLLECTIVE_OP_ALLTOALLV
MPI_Ineighbor_allgather_c COLL_OTHER st_mpi_icoll(th, &st_ri, OTF2_COLLECTIVE_OP_ALLGATHER
MPI_Iallreduce COLL_ALL2ALL st_mpi_icoll(th, &st_ri, OTF2_COLLECTIVE_OP_ALLREDUCE
MPI_Ibarrier BARRIER st_mpi_icoll(th, &st_ri, OTF2_COLLECTIVE_OP_BARRIER
MPI_Comm_split_type COLL_OTHER OTF2_COLLECTIVE_OP_CREATE_HANDLE, comm,
MPI_Dist_graph_create_adjacent COLL_OTHER st_mpi_comm_new(rc, comm_old, *comm_dist_graph);
MPI_Intercomm_create COLL_OTHER st_mpi_comm_new(rc, local_comm, *newintercomm);
MPI_Comm_create_group COLL_OTHER st_mpi_comm_new(rc, comm, *newcomm);
MPI_Comm_idup COLL_OTHER st_mpi_comm_idup(rc, comm, newcomm, *request);
MPI_Comm_disconnect COLL_OTHER OTF2_COLLECTIVE_OP_DESTROY_HANDLE, st_old
MPI_Win_fence FUNCTION st_mpi_win_fence(th, rc, assert, win);
MPI_Win_allocate_shared_c FUNCTION st_mpi_win_create(th, rc, comm, *win);
MPI_Win_free FUNCTION st_mpi_win_free_begin(th, *win);
MPI_Put FUNCTION st_mpi_rma_op(th, ST_RMA_PUT, target_rank, (ST_B(origin_count, origin_datatype)), 0, win, NULL);
MPI_Get_accumulate_c FUNCTION st_mpi_rma_op(th, ST_RMA_GET_ACCUMULATE, target_rank,
MPI_Rget FUNCTION st_mpi_req_add(rc, *request, &st_ri);
MPI_Win_lock FUNCTION st_mpi_win_lock(th, lock_type, rank, win);
MPI_Win_unlock_all FUNCTION st_mpi_win_unlock(th, rc, ST_RMA_ALL, win);
MPI_Win_test FUNCTION st_mpi_win_pscw(th, rc, ST_PSCW_WAIT, MPI_GROUP_NULL, win, (*flag));
MPI_Win_flush FUNCTION -
MPI_File_write_all FUNCTION -
MPI_Type_commit FUNCTION -
EOF
# the same role code in Open MPI's wrappers
for f in "MPI_Send st_mpi_send(th, comm, dest, tag, count, datatype);" "MPI_Waitall st_mpi_statuses(th, count, array_of_statuses);" \
         "MPI_Comm_idup st_mpi_comm_idup(rc, comm, newcomm, *request);" "MPI_Ineighbor_allgather OTF2_COLLECTIVE_OP_ALLGATHER" \
         "MPI_Raccumulate st_mpi_rma_op(th, ST_RMA_ACCUMULATE, target_rank," "MPI_Win_post st_mpi_win_post_start(th, rc, ST_PSCW_POST, group, assert, win);"; do
    wrapper "${f%% *}" openmpi | grep -qF "${f#* }" || fail "openmpi: ${f%% *} lacks '${f#* }'"
done
# Comm_create_group is not a collective over its parent: no CREATE_HANDLE there.
wrapper MPI_Comm_create_group | grep -q coll_ && fail "MPI_Comm_create_group records a collective on its parent"
for f in MPI_Init MPI_Init_thread MPI_Finalize MPI_Abort; do
    grep -q "^ST_REGION($f, \"$f\", FUNCTION, MPI)" "$ST_TMP/a/mpi_regions.def" || fail "$f: no region"
    [ -z "$(wrapper "$f")$(wrapper "$f" openmpi)" ] || fail "$f is manual but got a generated wrapper"
done
for f in MPI_Wtime MPI_Wtick MPI_Pcontrol MPI_File_c2f MPI_Status_f2c; do
    ! grep -q "($f," "$ST_TMP/a/mpi_regions.def" || fail "$f is excluded but has a region"
done

# ---- what a filter may not exclude (mpi_unfilterable.def) ------------------------------------------
# unfilterable NAME: the reason mpi_unfilterable.def gives for NAME, empty when filterable
unfilterable() { sed -n "s/^ST_UNFILTERABLE($1, \"\(.*\)\")\$/\1/p" "$ST_TMP/a/mpi_unfilterable.def"; }
for f in MPI_Type_size MPI_Comm_rank MPI_Comm_size MPI_Win_flush_all MPI_Win_flush_local MPI_Win_sync MPI_Get_count \
         MPI_Iprobe MPI_Type_commit MPI_Group_incl MPI_File_read; do
    [ -z "$(unfilterable $f)" ] || fail "$f must be filterable, mpi_unfilterable.def says: $(unfilterable $f)"
done
while read -r name why; do
    assert_eq "$name: why a filter may not exclude it" "$why" "$(unfilterable "$name" | cut -d: -f1)"
done <<'EOF'
MPI_Send point-to-point communication
MPI_Irecv point-to-point communication
MPI_Waitall completion of requests
MPI_Test completion of requests
MPI_Start starts persistent requests
MPI_Request_free releases a request the tool tracks
MPI_Probe blocking probe or cancel
MPI_Barrier collective communication
MPI_Put one-sided communication
MPI_Get_accumulate one-sided communication
MPI_Iallreduce nonblocking collective
MPI_Comm_split communicator creation
MPI_Comm_free communicator release
MPI_Init start and end of MPI
MPI_Finalize start and end of MPI
MPI_Abort start and end of MPI
MPI_Win_fence RMA synchronization
MPI_Win_lock_all RMA synchronization
MPI_Win_unlock RMA synchronization
MPI_Win_start RMA synchronization
MPI_Win_test RMA synchronization
MPI_Win_allocate_shared window creation
MPI_Win_free window release
MPI_Isendrecv_replace point-to-point communication (not yet recorded as messages)
MPI_Allreduce_init persistent collective creation
MPI_File_open collective file operation
MPI_File_write_at_all_begin collective file operation
EOF
# one line per unfilterable region, in the regions' order; a function a filter may exclude has only
# the generic shape in both families (its filtered path skips no role code), except the flushes and
# MPI_Win_sync (roles with 'filterable WHAT'), whose role code comes after their filtered path
python3 - "$ST_TMP/a" <<'EOF' || fail "mpi_unfilterable.def disagrees with the regions or the wrappers"
import re, sys
d = sys.argv[1]
regions = re.findall(r"^ST_REGION\((\w+),", open(f"{d}/mpi_regions.def").read(), re.M)
keep = re.findall(r'^ST_UNFILTERABLE\((\w+), "([^"]+)"\)$', open(f"{d}/mpi_unfilterable.def").read(), re.M)
names = {n for n, _ in keep}
skippable = {"MPI_Win_flush", "MPI_Win_flush_all", "MPI_Win_flush_local", "MPI_Win_flush_local_all", "MPI_Win_sync"}
bad = [] if [n for n, _ in keep] == [r for r in regions if r in names] else ["not one line per region in the regions' order"]
shape = re.compile(r"st_thread_t \*th = st_mpi_begin\(\);|if \(!th\)|[{}]|(return )?P?MPIX?_\w+\(.*\);|"
                   r"[\w *]+ rc = P?MPIX?_\w+\(.*\);|st_mpi_(enter|leave|end)\(.*\);|return rc;|"
                   r"if \(ST_UNLIKELY\(st_mpi_filtered\(.*|uint64_t st_t0 = .*;|st_mpi_filter_\w+\(.*\);")
for fam in ("mpich", "openmpi"):
    text = open(f"{d}/{fam}/mpi_wrappers.c").read()
    for m in re.finditer(r"^ST_EXPORT [^(]*?(MPIX?_\w+)\(.*?\n\{\n(.*?)\n\}$", text, re.M | re.S):
        body = [l.strip() for l in m.group(2).splitlines()]
        extra = [l for l in body if not shape.fullmatch(l)]
        if not extra or m.group(1) in names:
            continue
        # roles that say 'filterable WHAT' (flushes, Win_sync): role code only after the filtered path
        if m.group(1) in skippable:
            first = body.index(extra[0])
            if not any(l.startswith("if (ST_UNLIKELY(st_mpi_filtered(") for l in body[:first]):
                bad.append(f"{fam}: {m.group(1)} runs role code before its filtered path: {extra[0]}")
            continue
        bad.append(f"{fam}: {m.group(1)} is filterable but its wrapper runs role code: {extra[0]}")
if not all(n not in names for n in skippable):
    bad.append(f"the flushes and MPI_Win_sync are not all filterable: {sorted(n for n in skippable if n in names)}")
for b in bad[:10]:
    print("  " + b, file=sys.stderr)
print(f"  {len(names)} of {len(regions)} MPI regions unfilterable", file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# ---- what the wait-state analysis makes of each function (mpi_calls.def, call_kinds.c) ------------
# calls GENDIR OUT: every MPI region with its call kind and category, as the analysis' own code
# (src/analysis/call_kinds.c) reads them from GENDIR's mpi_calls.def
calls() {
    gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$1" -Isrc -Iinclude -o "$ST_TMP/call_kinds_prog" \
        tests/wrappers/call_kinds_prog.c src/analysis/call_kinds.c src/model/region.c 2>"$ST_TMP/cc.log" \
        || fail "cannot build call_kinds_prog against $1: $(head -c 1500 "$ST_TMP/cc.log")"
    "$ST_TMP/call_kinds_prog" >"$2" || fail "call_kinds_prog failed"
}
calls "$ST_TMP/a" "$ST_TMP/calls.txt"
assert_eq "mpi_calls.def: one line per region, same order" \
    "$(grep '^ST_REGION(' "$ST_TMP/a/mpi_regions.def" | sed 's/^ST_REGION(\([^,]*\),.*/\1/' | md5sum)" \
    "$(grep '^ST_MPI_CALL(' "$ST_TMP/a/mpi_calls.def" | sed 's/^ST_MPI_CALL(\([^,]*\),.*/\1/' | md5sum)"
# The reference: the analysis' hand lists before the table carried them (src/analysis/p2p.c and
# tree.c named these functions and prefixes), and Scalasca's one-sided masks since; every function
# must be classified as they say.
python3 - "$ST_TMP/calls.txt" <<'EOF' || fail "the analysis classifies functions differently from its former hand lists"
import sys
kinds = {"send_blocking": ["MPI_Send", "MPI_Ssend", "MPI_Send_c", "MPI_Ssend_c"],
         "wait_one": ["MPI_Wait", "MPI_Waitany"], "wait_many": ["MPI_Waitall", "MPI_Waitsome"],
         "test": ["MPI_Test", "MPI_Testany", "MPI_Testall", "MPI_Testsome"]}
prefixes = [("init_exit", ["MPI_Init", "MPI_Finalize"]),
            ("mgmt_comm", ["MPI_Comm_", "MPI_Cart", "MPI_Graph", "MPI_Dist_graph_", "MPI_Dims_create",
                           "MPI_Intercomm_", "MPI_Topo_test", "MPI_Open_port", "MPI_Close_port",
                           "MPI_Lookup_name", "MPI_Publish_name", "MPI_Unpublish_name"]),
            ("mgmt_win", ["MPI_Win_allocate", "MPI_Win_attach", "MPI_Win_create", "MPI_Win_delete_attr",
                          "MPI_Win_detach", "MPI_Win_free", "MPI_Win_get_", "MPI_Win_set_", "MPI_Win_shared_query"]),
            ("io_coll", ["MPI_File_read_all", "MPI_File_write_all", "MPI_File_read_at_all", "MPI_File_write_at_all",
                         "MPI_File_read_ordered", "MPI_File_write_ordered", "MPI_File_iread_all",
                         "MPI_File_iwrite_all", "MPI_File_iread_at_all", "MPI_File_iwrite_at_all"]),
            ("io_indiv", ["MPI_File_read", "MPI_File_write", "MPI_File_iread", "MPI_File_iwrite"]),
            ("mgmt_file", ["MPI_File_"]),
            ("rma_active", ["MPI_Win_complete", "MPI_Win_fence", "MPI_Win_post", "MPI_Win_start", "MPI_Win_test",
                            "MPI_Win_wait"]),
            ("rma_passive", ["MPI_Win_flush", "MPI_Win_lock", "MPI_Win_unlock", "MPI_Win_sync"])]
# whole names (MPI_Get is no prefix: MPI_Get_count is not one-sided)
exact = {"rma_comm": ["MPI_Put", "MPI_Rput", "MPI_Get", "MPI_Rget", "MPI_Accumulate", "MPI_Raccumulate",
                      "MPI_Get_accumulate", "MPI_Rget_accumulate", "MPI_Fetch_and_op", "MPI_Compare_and_swap"]}
bad, seen = [], set()
for line in open(sys.argv[1]):
    name, kind, cat = line.split()
    seen.add(name)
    want_kind = next((k for k, names in kinds.items() if name in names), "none")
    want_cat = next((c for c, names in exact.items() if name in names), None) or \
        next((c for c, ps in prefixes if any(name.startswith(p) for p in ps)), "none")
    if (kind, cat) != (want_kind, want_cat):
        bad.append(f"{name}: {kind} {cat}, the hand lists said {want_kind} {want_cat}")
missing = [n for names in kinds.values() for n in names if n not in seen]
for b in bad + [f"{n}: no region" for n in missing]:
    print("  " + b, file=sys.stderr)
if bad or missing:
    sys.exit(1)
print(f"  {len(seen)} MPI regions classified as the hand lists did", file=sys.stderr)
EOF

# ---- broken tables ------------------------------------------------------------------------------
cat >"$ST_TMP/good.tbl" <<'EOF'
# a small table that passes: one role, one entry, the mandatory generic role and exclusions
role generic FUNCTION
role send POINT2POINT
    unfilterable point-to-point communication
    keys  comm peer tag count type
    call  send_blocking
    pre   st_mpi_send(th, $comm, $peer, $tag, $count, $type);
    fast  st_thread_t *th = st_mpi_send_fast(st_region, $comm, $peer, $tag, $count, $type);
    fastpost st_mpi_fast_leave(th, st_region);
exclude MPI_Pcontrol variadic
MPI_Send send comm=comm peer=dest tag=tag count=count type=datatype
    sig int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
EOF
gen --table "$ST_TMP/good.tbl" --out "$ST_TMP/good" >/dev/null 2>"$ST_TMP/good.err" || fail "the small good table fails: $(cat "$ST_TMP/good.err")"
for fam in mpich openmpi; do
    grep -q "st_mpi_send(th, comm, dest, tag, count, datatype);" "$ST_TMP/good/$fam/mpi_wrappers.c" || fail "small table: $fam's MPI_Send lacks its role code"
    # the inline usual case: the exported MPI_Send runs the fast lines and tail-calls the general
    # form (static, with the role's code) for any other call
    exported=$(awk '/^ST_EXPORT int MPI_Send\(/ {p=1} p {print} p && /^}/ {exit}' "$ST_TMP/good/$fam/mpi_wrappers.c")
    general=$(awk '/^static __attribute__\(\(noinline\)\) int st_gen_MPI_Send\(/ {p=1} p {print} p && /^}/ {exit}' "$ST_TMP/good/$fam/mpi_wrappers.c")
    grep -qF "st_thread_t *th = st_mpi_send_fast(st_region, comm, dest, tag, count, datatype);" <<<"$exported" &&
        grep -qF "return st_gen_MPI_Send(buf, count, datatype, dest, tag, comm);" <<<"$exported" &&
        grep -qF "st_mpi_fast_leave(th, st_region);" <<<"$exported" && ! grep -q "st_mpi_send(th" <<<"$exported" ||
        fail "small table: $fam's exported MPI_Send is not the inline usual case: $exported"
    grep -qF "st_mpi_send(th, comm, dest, tag, count, datatype);" <<<"$general" && grep -q "st_mpi_begin()" <<<"$general" ||
        fail "small table: $fam has no general MPI_Send: $general"
done
cp -r "$ST_TMP/good" "$ST_TMP/keep"

# A function added with an existing role is its table entry and nothing else: the analysis
# classifies it from the table. In the small table MPI_Ssend and MPI_Bsend are generic; added with
# role send, MPI_Ssend is a blocking send and MPI_Bsend (call=none) is not; MPI_Send stays one.
{ cat "$ST_TMP/good.tbl"; cat <<'EOF'; } >"$ST_TMP/added.tbl"
MPI_Ssend send like=MPI_Send
    sig int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
MPI_Bsend send like=MPI_Send call=none
    sig int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
EOF
gen --table "$ST_TMP/added.tbl" --out "$ST_TMP/added" >/dev/null 2>"$ST_TMP/added.err" || fail "the table with MPI_Ssend added fails: $(cat "$ST_TMP/added.err")"
calls "$ST_TMP/good" "$ST_TMP/calls-good.txt"
calls "$ST_TMP/added" "$ST_TMP/calls-added.txt"
assert_eq "small table: MPI_Ssend" "MPI_Ssend none none" "$(grep '^MPI_Ssend ' "$ST_TMP/calls-good.txt")"
assert_eq "MPI_Ssend added with role send" "MPI_Ssend send_blocking none" "$(grep '^MPI_Ssend ' "$ST_TMP/calls-added.txt")"
assert_eq "MPI_Bsend added with role send, call=none" "MPI_Bsend none none" "$(grep '^MPI_Bsend ' "$ST_TMP/calls-added.txt")"
assert_eq "MPI_Send" "MPI_Send send_blocking none" "$(grep '^MPI_Send ' "$ST_TMP/calls-added.txt")"

# bad NAME 'expected message part' SED-SCRIPT: the mutated table must fail with that message.
bad() {
    local name=$1 want=$2 script=$3 t="$ST_TMP/bad-$1.tbl"
    sed -e "$script" "$ST_TMP/good.tbl" >"$t"
    cmp -s "$t" "$ST_TMP/good.tbl" && fail "$name: the mutation changed nothing"
    local rc=0
    gen --table "$t" --out "$ST_TMP/good" >/dev/null 2>"$ST_TMP/bad.err" || rc=$?
    assert_eq "$name: exit code" 1 "$rc"
    grep -q Traceback "$ST_TMP/bad.err" && fail "$name: the generator crashed: $(cat "$ST_TMP/bad.err")"
    head -n1 "$ST_TMP/bad.err" | grep -q '^gen_wrappers.py: error: ' || fail "$name: no error line: $(cat "$ST_TMP/bad.err")"
    grep -qF -- "$want" "$ST_TMP/bad.err" || fail "$name: message lacks '$want': $(cat "$ST_TMP/bad.err")"
    diff -r "$ST_TMP/keep" "$ST_TMP/good" >/dev/null || fail "$name: a failed run changed the existing output"
    note "$name: $(head -n1 "$ST_TMP/bad.err")"
}
# more: variants of the small table that must pass, each with what it shows
variant() { # NAME SED-SCRIPT: the mutated small table, generated into $ST_TMP/var-NAME
    sed -e "$2" "$ST_TMP/good.tbl" >"$ST_TMP/var-$1.tbl"
    gen --table "$ST_TMP/var-$1.tbl" --out "$ST_TMP/var-$1" >/dev/null 2>"$ST_TMP/var.err" || fail "$1: fails: $(cat "$ST_TMP/var.err")"
}
# an optional large-count sig: MPICH gets its wrapper, Open MPI (which lacks it) none, the region is there
variant optional-c '$a optional MPI_*_c large-count\nMPI_Send_c send like=MPI_Send\n    sig int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)'
grep -q '^ST_EXPORT int MPI_Send_c(' "$ST_TMP/var-optional-c/mpich/mpi_wrappers.c" || fail "optional-c: no MPICH wrapper"
! grep -q 'MPI_Send_c(' "$ST_TMP/var-optional-c/openmpi/mpi_wrappers.c" || fail "optional-c: an Open MPI wrapper of MPI_Send_c"
grep -qx 'ST_REGION(MPI_Send_c, "MPI_Send_c", POINT2POINT, MPI)' "$ST_TMP/var-optional-c/mpi_regions.def" || fail "optional-c: no region"
grep -qx 'ST_MPI_CALL(MPI_Send_c, SEND_BLOCKING, NONE)' "$ST_TMP/var-optional-c/mpi_calls.def" || fail "optional-c: not a blocking send"
# parameter names are not compared; the table's are used in the definition
variant param-names 's/const void \*buf, int count/const void *data, int count/'
grep -q '^ST_EXPORT int MPI_Send(const void \*data, int count,' "$ST_TMP/var-param-names/openmpi/mpi_wrappers.c" || fail "param-names: the table's name is not used"
# a protect line keeps a generic function from filters, with its reason; the rest stays filterable
variant protect '$a protect MPI_Ssend kept for the test\nprotect MPI_Nothing_* a pattern may match nothing'
grep -qx 'ST_UNFILTERABLE(MPI_Ssend, "kept for the test")' "$ST_TMP/var-protect/mpi_unfilterable.def" || fail "protect: MPI_Ssend not kept"
grep -qx 'ST_UNFILTERABLE(MPI_Send, "point-to-point communication")' "$ST_TMP/var-protect/mpi_unfilterable.def" || fail "protect: MPI_Send not kept by its role"
assert_eq "protect: unfilterable regions" 2 "$(grep -c '^ST_UNFILTERABLE(' "$ST_TMP/var-protect/mpi_unfilterable.def")"
# a name-only exclude declared by one family only (MPICH's MPIX_Comm_shrink) is accepted
variant exclude-one-family '$a exclude MPIX_Comm_shrink why'
! grep -q 'MPIX_Comm_shrink' "$ST_TMP/var-exclude-one-family/mpi_regions.def" || fail "exclude-one-family: still a region"

bad fast-filterable   "an inline usual case ('fast', 'fastpre', 'fastpost') needs"  's/unfilterable point-to-point communication/filterable its message events/'
bad fast-no-fast      "an inline usual case ('fast', 'fastpre', 'fastpost') needs"  '/^    fast  /d'
bad fast-nowrap       "role 'manual' is nowrap: it has no code"       '$a role manual FUNCTION nowrap\n    fast  st_thread_t *th = NULL;'
bad unknown-role      "unknown role 'sendx'"                        's/^MPI_Send send /MPI_Send sendx /'
bad arg-not-in-sig    "'dst' in peer is not an argument of MPI_Send" 's/peer=dest/peer=dst/'
bad sig-differs       "signature differs from mpich's mpi.h"         's/int count, MPI_Datatype/long count, MPI_Datatype/'
bad unknown-key       "unknown key 'colour'"                         's/peer=dest/peer=dest colour=red/'
bad missing-key       "role 'send' needs tag="                       's/ tag=tag//'
bad placeholder       'placeholder $pear'                            's/\$peer/$pear/'
bad unknown-region    "unknown region role 'P2P'"                    's/^role send POINT2POINT/role send P2P/'
bad not-declared      "MPI_Isend_init is not declared in mpich's mpi.h"    '$a MPI_Isend_init generic\n    sig int MPI_Isend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)'
bad variadic          "MPI_Pcontrol is variadic"                     '/^exclude MPI_Pcontrol/d'
bad listed-excluded   "both in the table and excluded"               '$a exclude MPI_Send no reason'
bad exclude-unknown   "exclude MPI_Nothing: no given mpi.h (mpich, openmpi) declares such a function"  '$a exclude MPI_Nothing why'
bad unknown-directive "unknown directive 'frobnicate'"               '$a frobnicate now'
bad duplicate         "MPI_Send appears twice"                       '$a MPI_Send send comm=comm peer=dest tag=tag count=count type=datatype\n    sig int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)'
bad no-sig            "MPI_Send has no 'sig' line"                   '/^    sig /d'
bad bad-line          "expected 'sig PROTOTYPE' or 'key = expression'" '$a \    whatever this is'
bad no-generic        "must define 'role generic"                    '/^role generic/d'
bad unknown-call      "unknown call kind 'blocking'"                 's/^    call  send_blocking/    call  blocking/'
bad unknown-call-key  "unknown call kind 'wait'"                     's/type=datatype$/type=datatype call=wait/'
bad generic-call      "without keys or call"                         's/^role generic FUNCTION/&\n    call  test/'
bad unknown-category  "unknown category 'io_misc'"                   '$a category MPI_File_* io_misc'
bad category-unknown  "category MPI_Nothing: no given mpi.h (mpich, openmpi) declares such" '$a category MPI_Nothing init_exit'
bad not-optional      "MPI_Send_c is not declared in openmpi's mpi.h" '$a MPI_Send_c send like=MPI_Send\n    sig int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)'
bad optional-other    "MPI_Sendd is not declared in mpich's mpi.h"   '$a optional MPI_*_c why\nMPI_Sendd send like=MPI_Send\n    sig int MPI_Sendd(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)'
bad optional-no-sig   "optional MPI_Nothing: no sig of the table"    '$a optional MPI_Nothing why'
bad optional-no-why   "optional needs a name pattern and a reason"   '$a optional MPI_*_c'
bad role-keeps-code   "role 'send' has code a filtered call would skip: it needs 'unfilterable WHY'" '/^    unfilterable /d'
bad generic-unfilter  "the generic role is filterable"             's/^role generic FUNCTION/&\n    unfilterable why not/'
bad unfilter-twice    "'unfilterable' needs a reason and appears once" 's/^    unfilterable .*/&\n&/'
bad generic-skippable "the generic role is filterable"             's/^role generic FUNCTION/&\n    filterable nothing/'
bad both-ways         "role 'send' says both 'unfilterable' and 'filterable'" 's/^    unfilterable .*/&\n    filterable its messages/'
bad skippable-nocode  "role 'send': 'filterable' is for a generated wrapper with code" 's/^    unfilterable .*/    filterable its messages/; /^    pre /d; /^    post /d'
bad protect-unknown   "protect MPI_Nothing: no given mpi.h (mpich, openmpi) declares such a function" '$a protect MPI_Nothing why'
bad protect-no-why    "protect needs a name pattern and a reason"   '$a protect MPI_Ssend'
bad reason-quote      "a reason may not contain"                    '$a protect MPI_Ssend a "quoted" reason'
bad sig-type-names    "signature differs from mpich's mpi.h (parameter names aside)" 's/^    sig int MPI_Send(const void \*buf/    sig int MPI_Send(void *buf/'
rc=0; python3 scripts/gen_wrappers.py --mpi-h "$MPICH_H" --table "$ST_TMP/good.tbl" --out "$ST_TMP/x" 2>"$ST_TMP/bad.err" >/dev/null || rc=$?
assert_eq "--mpi-h without FAMILY=: exit code" 1 "$rc"
grep -q "^gen_wrappers.py: error: --mpi-h .*: expected FAMILY=PATH" "$ST_TMP/bad.err" || fail "--mpi-h without FAMILY=: $(cat "$ST_TMP/bad.err")"
rc=0; gen --table "$ST_TMP/nonexistent.tbl" --out "$ST_TMP/x" 2>"$ST_TMP/bad.err" >/dev/null || rc=$?
assert_eq "missing table: exit code" 1 "$rc"
grep -q "cannot read table" "$ST_TMP/bad.err" || fail "missing table: $(cat "$ST_TMP/bad.err")"
echo "ok: $(cat "$ST_TMP/a.log")"
