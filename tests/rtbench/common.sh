# tests/rtbench/common.sh — sourced by the synctrace-bench tests.
source "$ST_ROOT/tests/lib.sh"
BENCH=$ST_BIN/synctrace-bench
[ -x "$BENCH" ] || fail "$BENCH not built"

# bench NP ARGS...: runs synctrace-bench on NP ranks in $ST_TMP; stdout -> out.txt, stderr -> err.txt.
bench() {
    local np=$1; shift
    (cd "$ST_TMP" && timeout "${ST_TIMEOUT:-120}" mpiexec -n "$np" "$BENCH" "$@" >out.txt 2>err.txt)
}

# jq_py EXPR: evaluates a Python expression over the JSON file $ST_TMP/out.json (bound to d).
jq_py() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$ST_TMP/out.json"
}
