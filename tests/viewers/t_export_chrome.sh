#!/usr/bin/env bash
# t_export_chrome.sh — `synctrace export DIR --chrome FILE` on the demo (2 ranks x 2 threads):
# valid trace-event JSON whose processes, threads, complete events (per location, by region name,
# properly nested) and message flows (sender, receiver, tag, never backwards) match `synctrace
# dump` of the same archive (chromecheck.py); no counters before `synctrace analyze`, wait counters
# after it whose Late Sender peak is within the analysis' total; usage errors exit 2. Then an
# mkarchive archive (older location numbering): Irecvs pair with sends in post order, not in
# completion order, as the logical messages of `synctrace check` do. Output files (export, analyze -o)
# replace a link planted in their place instead of writing through it.
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

command -v clang >/dev/null || skip "clang not installed"
O=$ST_O
DIR=$ST_TMP/trace
O=$O bash "$ST_ROOT/scripts/demo.sh" "$DIR" >demo.txt 2>&1 || fail "demo failed: $(tail -n 20 demo.txt)"
# The reader decodes the writer's location ids (rank + thread << 32): 2 ranks of 2 threads.
st info "$DIR" >info.txt 2>&1 || fail "info: $(head -c 300 info.txt)"
grep -qE '^ranks: +2$' info.txt || fail "info: $(grep ranks: info.txt)"
grep -qE '^locations: +4 \(threads per rank: 2\.\.2\)' info.txt || fail "info: $(grep locations: info.txt)"
st dump "$DIR" --json >dump.jsonl 2>dump.err || fail "dump: $(head -c 300 dump.err)"
[ -s "$DIR/analysis.json" ] || fail "the demo run wrote no analysis.json (SYNCTRACE_ANALYZE)"
rm -f "$DIR/analysis.json" "$DIR/analysis.cubex" # first without an analysis: no counters

st export "$DIR" --chrome plain.json >out.txt 2>err.txt || fail "export: $(head -c 300 err.txt)"
assert_eq "printed path" "plain.json" "$(cat out.txt)"
python3 "$ST_ROOT/tests/viewers/chromecheck.py" plain.json dump.jsonl >check.txt 2>&1 || fail "$(head -n 5 check.txt)"
note "$(cat check.txt)"

st analyze "$DIR" >analyze.txt 2>&1 || fail "analyze: $(head -c 300 analyze.txt)"
st export "$DIR" --chrome waits.json >/dev/null 2>err.txt || fail "export after analyze: $(head -c 300 err.txt)"
# A full device: one line naming the file and the cause, exit 1 (also for analyze's own output file).
rc=0; st export "$DIR" --chrome /dev/full >/dev/null 2>full.err || rc=$?
assert_eq "export to /dev/full: exit code" 1 "$rc"
grep -qx "synctrace: export: cannot write /dev/full: No space left on device" full.err ||
    fail "export to /dev/full: $(cat full.err)"
rc=0; st analyze "$DIR" -o /dev/full >/dev/null 2>full.err || rc=$?
assert_eq "analyze -o /dev/full: exit code" 1 "$rc"
grep -qx "synctrace: analyze: cannot write /dev/full: No space left on device" full.err ||
    fail "analyze -o /dev/full: $(cat full.err)"
# a planted link is replaced, never written through (export and analyze -o)
echo victim >victim.txt
for cmd in export analyze; do
    rm -f planted.json && ln -s "$PWD/victim.txt" planted.json
    if [ $cmd = export ]; then st export "$DIR" --chrome planted.json >/dev/null 2>err.txt || fail "export over a link: $(cat err.txt)"
    else st analyze "$DIR" -o planted.json >/dev/null 2>err.txt || fail "analyze -o over a link: $(cat err.txt)"; fi
    [ "$(cat victim.txt)" = victim ] || fail "$cmd wrote through a planted link"
    [ -f planted.json ] && [ ! -L planted.json ] || fail "$cmd: planted.json is not its output"
done
python3 "$ST_ROOT/tests/viewers/chromecheck.py" waits.json dump.jsonl "$DIR/analysis.json" >check.txt 2>&1 \
    || fail "with the analysis: $(head -n 5 check.txt)"
grep -q '"name":"wait: Late Sender"' waits.json || fail "with the analysis: no Late Sender counter (the demo has Late Senders)"
note "$(cat check.txt)"

RC=0; st export "$DIR" >/dev/null 2>err.txt || RC=$?
assert_eq "export without --chrome" 2 "$RC"
RC=0; st export "$DIR" --chrome /nonexistent/dir/x.json >/dev/null 2>err.txt || RC=$?
assert_eq "export to an unwritable file" 1 "$RC"

# Posted 11 then 12; 12 completes first (150), so the send at 100 goes to the receive at 250.
mk postorder <<'S'
ranks 2
0.0 100 isend 1 0 5 4 1
0.0 101 isend_complete 1
0.0 200 isend 1 0 5 4 2
0.0 201 isend_complete 2
1.0 50 irecv_request 11
1.0 60 irecv_request 12
1.0 150 irecv 0 0 5 4 12
1.0 250 irecv 0 0 5 4 11
S
st export "$ST_TMP/postorder" --chrome post.json >/dev/null 2>err.txt || fail "export postorder: $(head -c 300 err.txt)"
pairs=$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
s = {e["id"]: e for e in ev if e["ph"] == "s"}; f = {e["id"]: e for e in ev if e["ph"] == "f"}
ns = lambda e: round(e["ts"] * 1000)
print(" ".join("%d>%d" % (ns(s[i]), ns(f[i])) for i in sorted(s, key=lambda i: s[i]["ts"])))
' post.json)
assert_eq "postorder flows (send ns > receive ns)" "100>250 200>150" "$pairs"
echo ok
