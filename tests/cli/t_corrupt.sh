#!/usr/bin/env bash
# Hostile archives, read by a synctrace built with UBSan (every undefined
# behaviour aborts):
#  - a FIFO in place of an event file: every command answers at once with one line naming it;
#  - a request id of all ones (the offline receive-order rebuild): one line, no division by zero;
#  - a time before CLC far from the event's time and a timestamp outside the clock properties: refused
#    (clc once reported "moved max 9223372036854775357 ns");
#  - 40 copies of a real archive (with its analysis.json and .cubex) with 1-4 random bytes changed: info,
#    dump, check, clc, analyze, report (terminal and --html) and export each end with
#    exit 0, 1 or 2 within 20 s, no sanitizer report, no more than 2 lines on stderr.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"
source "$ST_ROOT/tests/mpi/common.sh"

# The CLI with UBSan, out of tree.
ub=$ST_BUILD/ubsan
make -s -j"$(nproc)" -C "$ST_ROOT" O="$ub" CC="gcc -fsanitize=undefined -fno-sanitize-recover=undefined" OPT="-O1 -g" \
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
    RC=0; timeout -k 10 10 "$ST_BIN/synctrace" $cmd "$ST_TMP/fifo" >"$OUT" 2>"$ERR" || RC=$?
    one_line_refusal "$cmd on a FIFO" "not a regular file"
done
RC=0; timeout -k 10 10 "$ST_BIN/synctrace" clc "$ST_TMP/fifo" "$ST_TMP/fifo-out" >"$OUT" 2>"$ERR" || RC=$?
one_line_refusal "clc on a FIFO" "not a regular file"
for args in "analyze $ST_TMP/fifo -o $ST_TMP/fifo.cubex" "export $ST_TMP/fifo --chrome $ST_TMP/fifo.json" \
    "report $ST_TMP/fifo --html -o $ST_TMP/fifo.html"; do
    RC=0; timeout -k 10 10 "$ST_BIN/synctrace" $args >"$OUT" 2>"$ERR" || RC=$?
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

# Random corruption: seeds 1..COPIES (40; ST_CORRUPT_COPIES for more), two workers (one per core)
# taking every other seed, each in its own directories; a worker writes what failed to its file.
copies=${ST_CORRUPT_COPIES:-40}
corrupt_worker() { # WORKER
    local w=$1 i cmd rc z=$ST_TMP/z$1 out=$ST_TMP/out$1 err=$ST_TMP/err$1 n=0
    for ((i = w + 1; i <= copies; i += 2)); do
        rm -rf "$z" "$z-out"; cp -r "$ST_TMP/base" "$z"
        python3 -c '
import os, random, sys
random.seed(int(sys.argv[2]))
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(sys.argv[1]) for f in fs)
path = random.choice(files)
data = bytearray(open(path, "rb").read())
for _ in range(random.randint(1, 4)):
    if data:
        data[random.randrange(len(data))] = random.randrange(256)
open(path, "wb").write(bytes(data))
print(os.path.relpath(path, sys.argv[1]))' "$z" "$i" >"$z.which"
        for cmd in info dump check clc analyze report html export; do
            rc=0
            case $cmd in
            clc) timeout -k 10 20 "$ST_BIN/synctrace" clc "$z" "$z-out" >"$out" 2>"$err" || rc=$? ;;
            analyze) timeout -k 10 20 "$ST_BIN/synctrace" analyze "$z" -o "$z-an.cubex" >"$out" 2>"$err" || rc=$? ;;
            html) timeout -k 10 20 "$ST_BIN/synctrace" report "$z" --html -o "$z.html" >"$out" 2>"$err" || rc=$? ;;
            export) timeout -k 10 20 "$ST_BIN/synctrace" export "$z" --chrome "$z.json" >"$out" 2>"$err" || rc=$? ;;
            *) timeout -k 10 20 "$ST_BIN/synctrace" $cmd "$z" >"$out" 2>"$err" || rc=$? ;;
            esac
            local where="seed $i ($(cat "$z.which")), synctrace $cmd"
            if [ "$rc" -gt 2 ]; then
                echo "$where: exit $rc; $(head -c 300 "$err")"; return
            elif grep -q "runtime error" "$err"; then
                echo "$where: $(grep -m1 'runtime error' "$err")"; return
            elif [ "$(wc -l <"$err")" -gt 2 ]; then
                echo "$where: $(wc -l <"$err") lines on stderr: $(head -c 300 "$err")"; return
            fi
            n=$((n + 1))
        done
    done
    echo "ok $n"
}
corrupt_worker 0 >"$ST_TMP/worker0.txt" &
corrupt_worker 1 >"$ST_TMP/worker1.txt"
wait
n=0
for w in 0 1; do
    read -r first rest <"$ST_TMP/worker$w.txt" || fail "corruption worker $w ended without a word"
    [ "$first" = ok ] || fail "$first $rest"
    n=$((n + rest))
done
note "$n commands on $copies corrupted copies: each ended with exit 0..2, one line at most, no undefined behaviour"
