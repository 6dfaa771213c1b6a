# tests/rtbench/common.sh — sourced by the synctrace-bench tests.
source "$ST_ROOT/tests/lib.sh"
BENCH=$ST_BIN/synctrace-bench
[ -x "$BENCH" ] || fail "$BENCH not built"

# bench NP ARGS...: runs synctrace-bench on NP ranks in $ST_TMP; stdout -> out.txt, stderr -> err.txt.
# Ranks are bound to cores while there are enough: two unbound ranks can end up on one core, and then
# the one that waits politely for the start time wakes up after the other has begun (docs/bench.md).
bench() {
    local np=$1; shift
    local bind=()
    [ "$np" -le "$(nproc)" ] && bind=(--bind-to core)
    (cd "$ST_TMP" && mpi_run -t "${ST_TIMEOUT:-120}" "${bind[@]}" -n "$np" "$BENCH" "$@" >out.txt 2>err.txt)
}

# jq_py EXPR: evaluates a Python expression over the JSON file $ST_TMP/out.json (bound to d).
jq_py() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$ST_TMP/out.json"
}
