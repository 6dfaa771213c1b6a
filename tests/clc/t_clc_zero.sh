#!/usr/bin/env bash
# t_clc_zero.sh — the payload rule (docs/clc.md, Decisions 4) end to end, with clc_zero.c:
# count-0 collectives of every class and 0-element Scatterv/Gatherv members, some rank
# always arriving 3 ms late.
#  - one node, clocks synchronized as usual (every rank reads the same clock): no relation
#    can be reversed, so `check --raw` finds 0, CLC moves nothing and counts nothing
#    reversed; the count-0 operations are events (instances) but relate nothing, exactly
#    17 of the 23 operations per round. A rule that makes count-0 collectives relations
#    sees the early ranks leave before the late one entered.
#    SYNCTRACE_CLC_MU=1: the minimal latency must not move events of real relations here
#    (0 would mean "measured"), only the rule is under test. Every collective end carries
#    its stored instance number (synctrace:coll_seq).
#  - skewed clocks (no sync), recorded with SYNCTRACE_CLC=off: `synctrace check` and the
#    offline `synctrace clc` (one derivation) report the same relations and reversed ones
#    per kind, check reports 0 after the offline correction, and `check --raw` of the
#    corrected archive counts what check counted before; with CLC in the run, `check
#    --raw` counts what the run's statistics call reversed.
. "$ST_ROOT/tests/lib.sh"
. "$ST_ROOT/tests/clc/common.sh"
need_tools
BIN=$(build_mpi_c clc_zero "$CLC_DIR/clc_zero.c")
ROUNDS=2

run_plain "$ST_NP" "$BIN" $ROUNDS || fail "clc_zero without the shim failed"
ST_ENV="SYNCTRACE_CLC_MU=1" run_traced "$ST_TMP/node" "$ST_NP" "$BIN" $ROUNDS ||
    fail "clc_zero under the shim failed: $(tail -n 5 "$ST_TMP/err.txt")"
cmp -s "$ST_TMP/plain.txt" "$ST_TMP/out.txt" || fail "output differs with the shim: $(cat "$ST_TMP/out.txt")"
violations --raw -v "$ST_TMP/node"
assert_eq "violations before CLC on one node: $(grep -A8 '^first' "$ST_TMP/check.txt" | tr '\n' '|')" 0 "$V_TOTAL"
grep -q "^collectives: $((23 * ROUNDS)) instances, 0 incomplete, $((17 * ROUNDS)) without a relation$" "$ST_TMP/check.txt" ||
    fail "collective instances: $(grep '^collectives' "$ST_TMP/check.txt")"
assert_eq "CLC_REVERSED_COLL" 0 "$(prop "$ST_TMP/node" CLC_REVERSED_COLL)"
assert_eq "CLC_MOVED" 0 "$(prop "$ST_TMP/node" CLC_MOVED)"
violations "$ST_TMP/node"
assert_eq "violations after CLC on one node" 0 "$V_TOTAL"
note "one node: $(grep '^collectives' "$ST_TMP/check.txt"), $(grep '^relations' "$ST_TMP/check.txt"), nothing reversed or moved"
# The instance numbers are stored (synctrace:coll_seq), not rebuilt: on every collective end.
dump_json "$ST_TMP/node" "$ST_TMP/node.json"
ncoll=$(grep -cE '"type":"(coll_end|icoll_complete)"' "$ST_TMP/node.json")
assert_eq "collective ends with a stored instance number" "$ncoll" "$(grep -E '"type":"(coll_end|icoll_complete)"' "$ST_TMP/node.json" | grep -c '"instance":')"
assert_ge "collective ends" $((23 * ROUNDS * ST_NP)) "$ncoll"

# clc_summary FILE KIND: "RELATIONS REVERSED" from a `synctrace clc` summary line.
clc_summary() { awk -v k="$2" '$1 == k {print $2, $4}' "$1"; }

CLC_ENV="SYNCTRACE_CLC=off" run_skewed "$ST_TMP/raw" "$ST_NP" "$BIN" $ROUNDS
violations "$ST_TMP/raw"
before="$V_P2P $V_COLL $V_OMP"
relations=$(sed -n 's/^relations: //p' "$ST_TMP/check.txt")
assert_ge "collective violations on skewed clocks" 1 "$V_COLL"
st clc "$ST_TMP/raw" "$ST_TMP/fixed" >"$ST_TMP/clc.txt" 2>&1 || fail "synctrace clc: $(cat "$ST_TMP/clc.txt")"
read -r rel_p rev_p <<<"$(clc_summary "$ST_TMP/clc.txt" p2p)"
read -r rel_c rev_c <<<"$(clc_summary "$ST_TMP/clc.txt" collective)"
read -r rel_o rev_o <<<"$(clc_summary "$ST_TMP/clc.txt" omp)"
assert_eq "reversed (p2p collective omp): check vs synctrace clc" "$before" "$rev_p $rev_c $rev_o"
assert_eq "relations: check vs synctrace clc" "$relations" "$((rel_p + rel_c + rel_o))"
violations "$ST_TMP/fixed"
assert_eq "violations after the offline correction" 0 "$V_TOTAL"
violations --raw "$ST_TMP/fixed"
assert_eq "check --raw of the corrected archive (p2p collective omp)" "$before" "$V_P2P $V_COLL $V_OMP"
note "skewed, offline: $relations relations, reversed p2p/collective/omp $before in check and clc"

run_skewed "$ST_TMP/on" "$ST_NP" "$BIN" $ROUNDS
violations --raw "$ST_TMP/on"
assert_eq "check --raw vs CLC_REVERSED_COLL" "$(prop "$ST_TMP/on" CLC_REVERSED_COLL)" "$V_COLL"
assert_eq "check --raw vs CLC_REVERSED_P2P" "$(prop "$ST_TMP/on" CLC_REVERSED_P2P)" "$V_P2P"
violations "$ST_TMP/on"
assert_eq "violations after CLC in the run" 0 "$V_TOTAL"
