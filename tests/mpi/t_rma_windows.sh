#!/usr/bin/env bash
# Windows the tool must not take from the application, and the post -> start notes of two windows of
# one communicator in flight together (many_windows.c, 2 ranks). The tool's notes for MPI_Win_post go
# on one duplicate of a communicator shared by all its windows (src/mpi/rma_notes.h); with a duplicate
# per window MPICH 4.0.2 ran out of context ids at 1,022 windows traced against 2,046 untraced. Traced,
# the program must create as many windows as untraced, less the tool's own few communicators (at most
# 8; Open MPI creates all 2,500 both ways), and the checksum on stdout and the exit code are unchanged.
# The copy callback of an attribute the program put on MPI_COMM_WORLD is called as often beyond the
# windows created as untraced: the tool's communicator for the notes is a split, which copies no
# attribute (a dup called it once more).
# The two windows' notes travel under a tag each: rank 1 starts on B while the note of A's post, sent
# first, is on its way, and `synctrace check` counts all 6 post -> start relations (one tag for both
# windows would hand B's start A's note, which it refuses: fewer).
# families: mpich openmpi
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/mpi/common.sh"
need_tools
bin=$(build_mpi_c many_windows "$MPI_DIR/many_windows.c")

run_both many_windows "$bin" 2 2500
plain=$(sed -nE 's/^created ([0-9]+) windows$/\1/p' "$ST_TMP/plain-err.txt")
traced=$(sed -nE 's/^created ([0-9]+) windows$/\1/p' "$ST_TMP/err.txt")
[ -n "$plain" ] || fail "no 'created N windows' line untraced: $(tail -n 3 "$ST_TMP/plain-err.txt")"
[ -n "$traced" ] || fail "no 'created N windows' line traced: $(tail -n 3 "$ST_TMP/err.txt")"
pc=$(sed -nE 's/^copies ([0-9]+)$/\1/p' "$ST_TMP/plain-err.txt")
tc=$(sed -nE 's/^copies ([0-9]+)$/\1/p' "$ST_TMP/err.txt")
[ -n "$pc" ] && [ -n "$tc" ] || fail "no 'copies N' line: $(tail -n 2 "$ST_TMP/plain-err.txt") / $(tail -n 2 "$ST_TMP/err.txt")"
assert_eq "the attribute's copies beyond the windows created, traced against untraced" $((pc - plain)) $((tc - traced))
assert_ge "windows created traced (untraced: $plain)" $((plain - 8)) "$traced"
note "windows alive at once: $plain untraced, $traced traced"
otf2_ok "$TRACE"
check_messages "$TRACE" "0"
assert_eq "synctrace check: post -> start relations of two windows in flight together" 6 \
    "$(sed -nE 's/^rma: [0-9]+ window collective instances, ([0-9]+) post -> start, .*$/\1/p' "$ST_TMP/check.txt")"
echo "PASS"
