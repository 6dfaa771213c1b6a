#!/usr/bin/env bash
# `mpiexec -n N synctrace analyze` when the MPI part it needs cannot run: bin/synctrace copied into a
# tree of its own (PREFIX/bin, PREFIX/lib/<family>/) with the plugin of the launcher's family missing
# (none built, or only the other family's), a file that is no shared object, a shared object without
# the entry, one that needs a function the executable lacks (a stale plugin), and a PMIx-style
# launcher that names no family. Each: exit 1 as for other errors, exactly one line from synctrace
# (the job's first process) naming what to build or use, no crash, nothing on stdout, no report.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"
source "$ST_ROOT/tests/cli/families.sh"

mk a <<'S'
ranks 2
0.0 100 enter MPI_Send
0.0 300 send 1 0 7 8
0.0 310 leave MPI_Send
1.0 100 enter MPI_Recv
1.0 320 recv 0 0 7 8
1.0 330 leave MPI_Recv
S
st analyze "$ST_TMP/a" -o "$ST_TMP/serial.json" >/dev/null || fail "serial analyze failed"

T=$ST_TMP/tree
mkdir -p "$T/bin"
cp "$ST_BIN/synctrace" "$T/bin/synctrace"
launchers=""
command -v mpiexec.mpich >/dev/null && launchers="$launchers mpich"
command -v mpirun.openmpi >/dev/null && launchers="$launchers openmpi"
[ -n "$launchers" ] || skip "neither mpiexec.mpich nor mpirun.openmpi is installed"
declare -A shown=([mpich]=MPICH [openmpi]="Open MPI") compiler=([mpich]=mpicc.mpich [openmpi]=mpicc.openmpi)
declare -A launcher=([mpich]=mpiexec.mpich [openmpi]=mpirun.openmpi) other=([mpich]=openmpi [openmpi]=mpich)

# refused WHAT FAM LINE: under FAM's launcher (2 processes), exit 1 and LINE (a fixed string) as the one
# line of synctrace on stderr; no crash, nothing on stdout, no report
refused() {
    local what=$1 fam=$2 line=$3 rc=0
    rm -f "$ST_TMP/no.json"
    launch "$fam" 2 "$T/bin/synctrace" analyze "$ST_TMP/a" -o "$ST_TMP/no.json" >"$OUT" 2>"$ERR" || rc=$?
    refusal "$what under ${launcher[$fam]}" "$rc" "$line"
}

# refusal WHAT RC LINE: the checks of refused on a finished run
refusal() {
    local what=$1 rc=$2 line=$3
    assert_eq "$what: exit status" 1 "$rc"
    assert_eq "$what: lines of synctrace on stderr" 1 "$(grep -c '^synctrace' "$ERR")"
    grep -qxF -- "$line" "$ERR" || fail "$what: expected the line '$line', got: $(grep '^synctrace' "$ERR")"
    ! grep -Eiq 'segmentation|on signal|by signal|core dumped|backtrace|sigabrt' "$ERR" || fail "$what: a crash: $(head -c 600 "$ERR")"
    [ ! -s "$OUT" ] || fail "$what: printed on stdout: $(head -c 300 "$OUT")"
    [ ! -e "$ST_TMP/no.json" ] || fail "$what: wrote a report"
}

part() { echo "the ${shown[$1]} part of the parallel analysis"; }

# no plugin at all
for fam in $launchers; do
    refused "no plugin" "$fam" "synctrace: analyze: started by ${shown[$fam]}'s launcher, but $(part "$fam") ($T/lib/$fam/synctrace-analyze-mpi.so) is not built: run \`make\` where ${compiler[$fam]} is installed, or run \`synctrace analyze\` without a launcher"
done
note "no plugin: one line, exit 1, under$launchers"

# only the other family's plugin (a real one when built): the line names the other launcher
for fam in $launchers; do
    o=${other[$fam]}
    [ -f "$(plugin "$o")" ] || { note "$o's plugin not built: the line naming ${launcher[$o]} is not tested under ${launcher[$fam]}"; continue; }
    rm -rf "$T/lib" && mkdir -p "$T/lib/$o" && cp "$(plugin "$o")" "$T/lib/$o/"
    refused "only $o's plugin" "$fam" "synctrace: analyze: started by ${shown[$fam]}'s launcher, but $(part "$fam") ($T/lib/$fam/synctrace-analyze-mpi.so) is not built: run \`make\` where ${compiler[$fam]} is installed, or launch with ${launcher[$o]}"
    note "only $o's plugin under ${launcher[$fam]}: one line naming ${launcher[$o]}"
done

# a plugin that does not load or has no entry: the loader's reason, in one line
int="$ST_TMP/noentry.c"
echo 'int st_not_the_entry(void) { return 0; }' >"$int"
gcc -shared -fPIC -o "$ST_TMP/noentry.so" "$int" || fail "cannot build noentry.so"
printf '%s\n' 'int st_no_such_function(void);' 'int st_cli_analyze_mpi(const char *d, const char *o) { (void)d, (void)o; return st_no_such_function(); }' >"$ST_TMP/stale.c"
gcc -shared -fPIC -o "$ST_TMP/stale.so" "$ST_TMP/stale.c" || fail "cannot build stale.so"
for fam in $launchers; do
    p=$T/lib/$fam/synctrace-analyze-mpi.so
    rm -rf "$T/lib" && mkdir -p "$T/lib/$fam"
    echo "not a shared object" >"$p"
    refused "a text file as plugin" "$fam" "synctrace: analyze: cannot load $(part "$fam"): $p: file too short"
    cp "$ST_TMP/noentry.so" "$p"
    refused "a plugin without the entry" "$fam" "synctrace: analyze: $p is no synctrace plugin (no st_cli_analyze_mpi): rebuild synctrace"
    cp "$ST_TMP/stale.so" "$p"
    refused "a stale plugin" "$fam" "synctrace: analyze: cannot load $(part "$fam"): $p: undefined symbol: st_no_such_function"
done
note "unloadable plugins: one line each, exit 1"

# a launcher that names no family (PMIx only): the first family built, else one line
rm -rf "$T/lib"
rc=0; PMIX_SIZE=2 timeout -k 10 60 "$T/bin/synctrace" analyze "$ST_TMP/a" -o "$ST_TMP/no.json" >"$OUT" 2>"$ERR" || rc=$?
refusal "no plugin under a PMIx launcher" "$rc" "synctrace: analyze: started by an MPI launcher, but no MPI part of the parallel analysis (lib/<mpich|openmpi>/synctrace-analyze-mpi.so) is built beside synctrace: run \`make\` where mpicc.mpich or mpicc.openmpi is installed, or run \`synctrace analyze\` without a launcher"
if [ -f "$(plugin mpich)" ]; then
    mkdir -p "$T/lib/mpich" && cp "$(plugin mpich)" "$T/lib/mpich/"
    PMIX_SIZE=2 timeout -k 10 60 "$T/bin/synctrace" analyze "$ST_TMP/a" -o "$ST_TMP/pmix.json" >"$OUT" 2>"$ERR" ||
        fail "PMIx launcher with MPICH's plugin: $(tail -n 3 "$ERR")"
    cmp -s "$ST_TMP/pmix.json" "$ST_TMP/serial.json" || fail "PMIx launcher with MPICH's plugin: not the serial report"
    grep -q "in parallel over 1 processes$" "$OUT" || fail "PMIx launcher: MPICH's plugin did not run: $(tail -n 1 "$OUT")"
    note "a PMIx launcher: MPICH's plugin as a singleton"
fi
