#!/usr/bin/env bash
# `synctrace recover` re-maps the events of the dumps through the sync points they saved, as
# MPI_Finalize would (mkdump.c: rank 1's clock 50 ms behind and drifting; events stamped with
# the local clock before MPI_Init, the init map and the resync map): the recovered times must be
# the interpolated ones, exactly, and the archive must pass `synctrace check` and be marked
# incomplete. Then the same dumps next to the leftovers of an archive whose writing a signal cut
# short (traces.def and traces/ without traces.otf2): recover removes them and succeeds. And next
# to an archive cut short after its anchor file (an event file truncated, or a local definitions
# file empty: a signal while a rank still wrote): `synctrace info` refuses it, recover says so,
# replaces it and succeeds.
source "$ST_ROOT/tests/lib.sh"
[ -x "$ST_BIN/synctrace" ] || fail "$ST_BIN/synctrace not built"
MKDUMP=$ST_BUILD/mkdump
gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -I"$ST_ROOT/src/record" -I"$ST_O/build/gen" -o "$MKDUMP" \
    "$ST_ROOT/tests/cli/mkdump.c" "$ST_ROOT/src/model/rankdata.c" "$ST_ROOT/src/model/rankdata_dump.c" "$ST_ROOT/src/util/log.c" || fail "cannot build mkdump"
times_of() { # DIR RANK: the event times of RANK, absolute (archive start = rank 0's first event at 0.4 s)
    st dump --json "$1" | python3 -c 'import sys, json
r = int(sys.argv[1])
print(" ".join(str(e["t"] + 400000000) for e in map(json.loads, sys.stdin) if e["rank"] == r))' "$2"
}
for case in clean cut_short anchor_cut def_cut; do
    D=$ST_TMP/$case
    "$MKDUMP" "$D" || fail "mkdump failed"
    if [ $case = cut_short ]; then
        mkdir -p "$D/traces" && echo x >"$D/traces/0.evt" && echo x >"$D/traces.def"
    fi
    if [ $case = anchor_cut ] || [ $case = def_cut ]; then # an event file cut in half, a local definitions file empty
        st recover "$D" >/dev/null 2>&1 || fail "$case: the first recover failed"
        f=$(ls "$D"/traces/*.$([ $case = anchor_cut ] && echo evt || echo def) | tail -n 1)
        truncate -s $([ $case = anchor_cut ] && echo $(( $(stat -c %s "$f") / 2 )) || echo 0) "$f"
        st info "$D" >/dev/null 2>&1 && fail "$case: the archive still reads with $f cut"
    fi
    st recover "$D" >"$ST_TMP/recover.txt" 2>&1 || fail "$case: synctrace recover failed: $(head -c 400 "$ST_TMP/recover.txt")"
    [ $case = clean ] || [ $case = cut_short ] || grep -q "was cut short by the signal" "$ST_TMP/recover.txt" ||
        fail "$case: recover does not say it replaces the archive: $(head -c 400 "$ST_TMP/recover.txt")"
    assert_eq "$case: rank 1's recovered times" "549950000 1550050000 2550100000 2550101000" "$(times_of "$D" 1)"
    assert_eq "$case: rank 0's recovered times" "400000000 2600000000" "$(times_of "$D" 0)"
    grep -q "2 re-mapped" "$ST_TMP/recover.txt" || fail "$case: recover does not say it re-mapped both ranks: $(head -n 2 "$ST_TMP/recover.txt")"
    st check "$D" >"$ST_TMP/check.txt" 2>&1 || fail "$case: synctrace check fails on the recovered archive: $(head -c 300 "$ST_TMP/check.txt")"
    st info "$D" | grep -qiE '^incomplete:[[:space:]]*yes' || fail "$case: the recovered archive is not marked incomplete"
    otf2-print "$D/traces.otf2" >/dev/null 2>&1 || fail "$case: otf2-print rejects the recovered archive"
    note "$case: $(head -n 1 "$ST_TMP/recover.txt")"
done
