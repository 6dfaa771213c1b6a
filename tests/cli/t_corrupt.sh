#!/usr/bin/env bash
# Hostile archives, read by a synctrace built with UBSan (every undefined
# behaviour aborts):
#  - a FIFO in place of an event file: every command answers at once with one line naming it;
#  - a request id of all ones (the offline receive-order rebuild): one line, no division by zero;
#  - a time before CLC far from the event's time and a timestamp outside the clock properties: refused
#    (clc once reported "moved max 9223372036854775357 ns");
#  - 100 copies of a real archive (with its analysis.json and .cubex) with 1-4 random bytes changed: info,
#    dump, check, clc, analyze, report (terminal and --html) and export each end with
#    exit 0, 1 or 2 within 20 s, no sanitizer report, no more than 2 lines on stderr.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"
source "$ST_ROOT/tests/mpi/common.sh"

# The CLI with UBSan, out of tree.
ub=$ST_BUILD/ubsan
make -s -C "$ST_ROOT" O="$ub" CC="gcc -fsanitize=undefined -fno-sanitize-recover=undefined" OPT="-O1 -g" \
    "$ub/bin/synctrace" >"$ST_TMP/ubsan-build.txt" 2>&1 || fail "cannot build the UBSan CLI: $(tail -n 5 "$ST_TMP/ubsan-build.txt")"
ST_BIN=$ub/bin
export UBSAN_OPTIONS=print_stacktrace=1

one_line_refusal() { # what pattern
    [ "$RC" -ne 0 ] || fail "$1: accepted"
    [ "$RC" -lt 124 ] || fail "$1: exit $RC (timeout or signal)"
    assert_le "$1: stderr lines" 2 "$(wc -l <"$ERR")"
    grep -q "$2" "$ERR" || fail "$1: stderr does not say '$2': $(head -c 300 "$ERR")"
    ! grep -q "runtime error" "$ERR" || fail "$1: $(grep -m1 'runtime error' "$ERR")"
}

# A real archive, recorded without CLC (so clc has work).
bin=$(build_mpi_c p2p "$MPI_DIR/p2p.c")
ST_ENV="SYNCTRACE_CLC=off" run_traced "$ST_TMP/base" 2 "$bin" 3 || fail "cannot record: $(tail -n 3 "$ST_TMP/err.txt")"
[ -f "$ST_TMP/base/traces.otf2" ] || fail "no base archive"

# FIFO instead of rank 1's event file.
cp -r "$ST_TMP/base" "$ST_TMP/fifo"
evt=$(ls "$ST_TMP/fifo/traces/"*.evt | tail -n 1)
rm -f "$evt"; mkfifo "$evt"
for cmd in info dump check; do
    RC=0; timeout 10 "$ST_BIN/synctrace" $cmd "$ST_TMP/fifo" >"$OUT" 2>"$ERR" || RC=$?
    one_line_refusal "$cmd on a FIFO" "not a regular file"
done
RC=0; timeout 10 "$ST_BIN/synctrace" clc "$ST_TMP/fifo" "$ST_TMP/fifo-out" >"$OUT" 2>"$ERR" || RC=$?
one_line_refusal "clc on a FIFO" "not a regular file"
for args in "analyze $ST_TMP/fifo -o $ST_TMP/fifo.cubex" "export $ST_TMP/fifo --chrome $ST_TMP/fifo.json" \
    "report $ST_TMP/fifo --html -o $ST_TMP/fifo.html"; do
    RC=0; timeout 10 "$ST_BIN/synctrace" $args >"$OUT" 2>"$ERR" || RC=$?
    one_line_refusal "${args%% *} on a FIFO" "not a regular file"
done

# A request id of all ones, and a blocking receive whose post order must be rebuilt around it.
mk allones <<'S'
ranks 2
0.0 100 irecv_request 18446744073709551615
0.0 200 irecv 1 0 5 8 18446744073709551615
0.0 300 recv 1 0 6 8
1.0 50 send 0 0 5 8
1.0 60 send 0 0 6 8
S
run_st clc "$ST_TMP/allones" "$ST_TMP/allones-out"
one_line_refusal "clc with a request id of all ones" "request ids"

# Times outside the clock properties.
mk absurd <<'S'
ranks 2
0.0 100 enter MPI_Send
0.0 110 send 1 0 1 8 orig=9223372036854775000
0.0 120 leave MPI_Send
1.0 90 enter MPI_Recv
1.0 130 recv 0 0 1 8
1.0 140 leave MPI_Recv
S
for cmd in info check; do
    run_st $cmd "$ST_TMP/absurd"
    one_line_refusal "$cmd with an absurd time before CLC" "outside the trace's time range"
done
run_st clc "$ST_TMP/absurd" "$ST_TMP/absurd-out" --redo
one_line_refusal "clc --redo with an absurd time before CLC" "outside the trace's time range"

# Random corruption.
n=0 crashes=0
for i in $(seq 1 100); do
    rm -rf "$ST_TMP/z" "$ST_TMP/z-out"; cp -r "$ST_TMP/base" "$ST_TMP/z"
    python3 -c '
import os, random, sys
random.seed(int(sys.argv[2]))
files = [os.path.join(d, f) for d, _, fs in os.walk(sys.argv[1]) for f in fs]
path = random.choice(files)
data = bytearray(open(path, "rb").read())
for _ in range(random.randint(1, 4)):
    if data:
        data[random.randrange(len(data))] = random.randrange(256)
open(path, "wb").write(bytes(data))
print(os.path.relpath(path, sys.argv[1]))' "$ST_TMP/z" "$i" >"$ST_TMP/which.txt"
    for cmd in info dump check clc analyze report html export; do
        RC=0
        if [ $cmd = clc ]; then
            timeout 20 "$ST_BIN/synctrace" clc "$ST_TMP/z" "$ST_TMP/z-out" >"$OUT" 2>"$ERR" || RC=$?
        elif [ $cmd = analyze ]; then
            timeout 20 "$ST_BIN/synctrace" analyze "$ST_TMP/z" -o "$ST_TMP/z-an.cubex" >"$OUT" 2>"$ERR" || RC=$?
        elif [ $cmd = html ]; then
            timeout 20 "$ST_BIN/synctrace" report "$ST_TMP/z" --html -o "$ST_TMP/z.html" >"$OUT" 2>"$ERR" || RC=$?
        elif [ $cmd = export ]; then
            timeout 20 "$ST_BIN/synctrace" export "$ST_TMP/z" --chrome "$ST_TMP/z.json" >"$OUT" 2>"$ERR" || RC=$?
        else
            timeout 20 "$ST_BIN/synctrace" $cmd "$ST_TMP/z" >"$OUT" 2>"$ERR" || RC=$?
        fi
        where="seed $i ($(cat "$ST_TMP/which.txt")), synctrace $cmd"
        [ "$RC" -le 2 ] || fail "$where: exit $RC; $(head -c 300 "$ERR")"
        ! grep -q "runtime error" "$ERR" || fail "$where: $(grep -m1 'runtime error' "$ERR")"
        assert_le "$where: stderr lines" 2 "$(wc -l <"$ERR")"
        n=$((n + 1))
    done
done
note "$n commands on 100 corrupted copies: each ended with exit 0..2, one line at most, no undefined behaviour"
