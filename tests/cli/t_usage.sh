#!/usr/bin/env bash
# synctrace usage: --help for every command, one-line usage errors (exit 2), env table.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

# usage_error ARGS...: exit 2, exactly one line on stderr, nothing on stdout
usage_error() {
    run_st "$@"
    assert_eq "exit code of synctrace $*" 2 "$RC"
    assert_eq "stderr lines of synctrace $*" 1 "$(wc -l <"$ERR")"
    grep -q '^synctrace: ' "$ERR" || fail "synctrace $*: message does not start with 'synctrace: '"
    [ ! -s "$OUT" ] || fail "synctrace $*: printed on stdout"
}

run_st --help
assert_eq "--help exit" 0 "$RC"
cp "$OUT" "$ST_TMP/overview.txt"
for c in info dump check env; do
    grep -q "^  $c" "$ST_TMP/overview.txt" || fail "--help does not list $c"
    run_st $c --help
    assert_eq "$c --help exit" 0 "$RC"
    grep -q "^usage: synctrace $c" "$OUT" || fail "$c --help: no usage line"
done

usage_error
usage_error nosuchcommand
usage_error info
usage_error dump
usage_error check
usage_error info a b
usage_error dump a --xml
usage_error check a --rwa
usage_error env --json
grep -q "unknown option '--xml'" <(run_st dump a --xml; cat "$ERR") || fail "dump --xml: message does not name the option"

run_st env
assert_eq "env exit" 0 "$RC"
grep -q '^SYNCTRACE_BUFFER ' "$OUT" || fail "env: no SYNCTRACE_BUFFER"
run_st env --markdown
has "| variable | default | accepted | meaning |"
grep -q '^| `SYNCTRACE_CLC` |' "$OUT" || fail "env --markdown: no SYNCTRACE_CLC row"
