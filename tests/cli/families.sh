# tests/cli/families.sh — the MPI families for the tests of bin/synctrace's MPI plugins (sourced after
# tests/lib.sh): their launchers, named explicitly (never Debian's plain mpiexec/mpirun).
#
#   FAMILIES                  mpich openmpi
#   plugin FAM                $ST_BIN/../lib/FAM/synctrace-analyze-mpi.so
#   launch FAM N CMD...       CMD under FAM's launcher with N processes (Open MPI: as root and with more
#                             processes than cores allowed, settings the tests make, never the tool)
#   families_built            the families whose plugin is built; fails for a family whose library is
#                             built (lib/FAM/libsynctrace.so) but not its plugin; skips when none is

FAMILIES="mpich openmpi"

plugin() { echo "$ST_BIN/../lib/$1/synctrace-analyze-mpi.so"; }

launch() { (mpi_family "$1" && mpi_run -t 120 -n "$2" "${@:3}"); }

families_built() {
    local fam built=""
    for fam in $FAMILIES; do
        if [ -f "$(plugin "$fam")" ]; then
            built="$built $fam"
        elif [ -f "$ST_BIN/../lib/$fam/libsynctrace.so" ]; then
            fail "lib/$fam/libsynctrace.so is built but not its plugin $(plugin "$fam")"
        else
            note "$fam: not built (no lib/$fam/), not tested"
        fi
    done
    [ -n "$built" ] || skip "no MPI family's plugin is built"
    echo $built
}
