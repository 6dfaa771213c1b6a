#!/usr/bin/env bash
# t_export_chrome.sh — `synctrace export DIR --chrome FILE` on the demo (2 ranks x 2 threads):
# valid trace-event JSON whose processes, threads, complete events (per location, by region name,
# properly nested) and message flows (sender, receiver, tag, never backwards) match `synctrace
# dump` of the same archive (chromecheck.py); no counters before `synctrace analyze`, wait counters
# after it whose Late Sender peak is within the analysis' total; usage errors exit 2.
source "$ST_ROOT/tests/lib.sh"

command -v clang >/dev/null || skip "clang not installed"
O=$(dirname "$(dirname "$ST_LIB")")
DIR=$ST_TMP/trace
O=$O bash "$ST_ROOT/scripts/demo.sh" "$DIR" >demo.txt 2>&1 || fail "demo failed: $(tail -n 20 demo.txt)"
# The reader decodes the writer's location ids (rank + thread << 32): 2 ranks of 2 threads.
st info "$DIR" >info.txt 2>&1 || fail "info: $(head -c 300 info.txt)"
grep -qE '^ranks: +2$' info.txt || fail "info: $(grep ranks: info.txt)"
grep -qE '^locations: +4 \(threads per rank: 2\.\.2\)' info.txt || fail "info: $(grep locations: info.txt)"
st dump "$DIR" --json >dump.jsonl 2>dump.err || fail "dump: $(head -c 300 dump.err)"

st export "$DIR" --chrome plain.json >out.txt 2>err.txt || fail "export: $(head -c 300 err.txt)"
assert_eq "printed path" "plain.json" "$(cat out.txt)"
python3 "$ST_ROOT/tests/viewers/chromecheck.py" plain.json dump.jsonl >check.txt 2>&1 || fail "$(head -n 5 check.txt)"
note "$(cat check.txt)"

st analyze "$DIR" >analyze.txt 2>&1 || fail "analyze: $(head -c 300 analyze.txt)"
st export "$DIR" --chrome waits.json >/dev/null 2>err.txt || fail "export after analyze: $(head -c 300 err.txt)"
python3 "$ST_ROOT/tests/viewers/chromecheck.py" waits.json dump.jsonl "$DIR/analysis.json" >check.txt 2>&1 \
    || fail "with the analysis: $(head -n 5 check.txt)"
note "$(cat check.txt)"

RC=0; st export "$DIR" >/dev/null 2>err.txt || RC=$?
assert_eq "export without --chrome" 2 "$RC"
RC=0; st export "$DIR" --chrome /nonexistent/dir/x.json >/dev/null 2>err.txt || RC=$?
assert_eq "export to an unwritable file" 1 "$RC"
echo ok
