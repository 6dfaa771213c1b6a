#!/usr/bin/env bash
# An archive whose event file was cut short at the end of one of its 1 MiB chunks, the second or
# a later one (a signal while the archive was being written, a full disk): OTF2 reads such a
# file's last chunk again and again, and the reader used to take events until the memory ran
# out (`synctrace recover` was killed by the kernel at 24 GB). Every command that reads it must stop with one line naming
# the location and that its file is cut short or damaged, in bounded memory and time; `recover`
# then says the archive was cut short. A cut inside a chunk is named too: an OTF2 error, or the location
# holding fewer events than its definition announces.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c burst "$MPI_DIR/burst.c")
run_traced "$ST_TMP/a" 2 "$bin" 600 64 || fail "the traced run failed: $(tail -n 3 "$ST_TMP/err.txt")"
evt=$(ls -S "$ST_TMP/a/traces/"*.evt | head -n 1)
size=$(stat -c %s "$evt")
[ "$size" -gt $(((3 << 20) + 4096)) ] || fail "the largest event file has $size bytes, fewer than four chunks"
note "$(basename "$evt"): $size bytes"
# read_cut OFFSET REASON-REGEX CMD...: the archive with that event file cut at OFFSET
read_cut() {
    local off=$1 want=$2 c=$ST_TMP/cut rc=0
    shift 2
    rm -rf "$c"; cp -r "$ST_TMP/a" "$c"
    truncate -s "$off" "$c/traces/$(basename "$evt")"
    # 4 GB of address space: the unbounded reading took them all
    (ulimit -v 4000000; timeout -k 10 60 "$ST_BIN/synctrace" "$@" "$c") >"$ST_TMP/cut-out.txt" 2>"$ST_TMP/cut-err.txt" || rc=$?
    [ "$rc" -ne 124 ] || fail "$* on the file cut at $off: hangs"
    grep -Eq "$want" "$ST_TMP/cut-err.txt" || fail "$* on the file cut at $off (exit $rc): $(head -c 400 "$ST_TMP/cut-err.txt")"
    echo "$rc"
}
for mib in 2 3; do # (cut after the first chunk, OTF2 itself finds no chunk header)
    off=$((mib << 20))
    for cmd in info check; do
        rc=$(read_cut "$off" "^synctrace: cannot read archive .*: bad events of location [0-9]+ \(rank [0-9]+ thread [0-9]+\): more events than its file of $off bytes can hold \(the file is cut short or damaged\)$" $cmd)
        assert_eq "$cmd on the file cut after chunk $mib: exit code" 1 "$rc"
        assert_eq "$cmd on the file cut after chunk $mib: stderr lines" 1 "$(wc -l <"$ST_TMP/cut-err.txt")"
    done
done
# (inside a chunk OTF2 reads what the cut left: a record cut through is an OTF2 error; a cut at a record's
# end, with the rest of the read buffer ending the chunk, a clean stop short of the announced count)
rc=$(read_cut $(((2 << 20) + 1000)) "^synctrace: cannot read archive .*: (bad events of location [0-9]+|location [0-9]+ \(rank [0-9]+ thread [0-9]+\) holds [0-9]+ events, its definition announces [0-9]+ \(truncated event file\?\))" info)
assert_eq "info on the file cut inside a chunk: exit code" 1 "$rc"
# recover next to (empty) dumps: the archive is found cut short, not read without end
mkdir -p "$ST_TMP/a/partial"
rc=$(read_cut $((2 << 20)) "the archive in .* was cut short by the signal that left .*more events than its file" recover)
assert_eq "recover over the cut archive without dumps: exit code" 1 "$rc"
note "cut at 2 and 3 MiB: info and check name the location; recover finds the archive cut short"
