#!/usr/bin/env bash
# t_vite.sh — Debian's ViTE draws a synctrace archive: the demo (2 ranks x 2 threads) opens under
# Xvfb, ViTE draws the four locations' states and the messages between the ranks (white arrows in
# the timeline of the screenshot; none before location ids followed Score-P's numbering).
# ViTE 1.2 resolves a message partner only through a COMM_LOCATIONS group named by the Comm
# itself, which OTF2 forbids (a Comm's group is COMM_GROUP or COMM_SELF); it then warns "cannot
# find rank R in communicator C" and takes location id R, the world rank's master thread in our
# numbering. So those warnings must only name world ranks on MPI_COMM_WORLD (comm 0), where that
# fallback is exact; no other warning or error is allowed. ThreadFork/ThreadJoin records stay
# (Score-P writes them); ViTE reports them as not implemented and draws the threads anyway.
# Screenshot: $ST_TMP/vite.png (copied to docs/img/vite-demo.png by hand for the README).
source "$ST_ROOT/tests/lib.sh"

for t in vite xvfb-run import convert clang; do
    command -v "$t" >/dev/null 2>&1 \
        || skip "$t not installed (scripts/install-deps.sh --for check installs vite, xvfb, xauth, imagemagick)"
done
O=$ST_O
DIR=$ST_TMP/trace
O=$O bash "$ST_ROOT/scripts/demo.sh" "$DIR" >demo.txt 2>&1 || fail "demo failed: $(tail -n 20 demo.txt)"

# ViTE reads the archive (it prints "Loading of the trace : 100%" when done), draws it, then the
# screen is taken; at most 40 s on a loaded machine.
timeout -k 10 90 xvfb-run -a -s "-screen 0 1280x800x24" bash -c \
    'vite "$1/traces.otf2" >vite.txt 2>&1 & v=$!
     for i in $(seq 80); do grep -q "Loading of the trace : 100%" vite.txt && break; sleep 0.5; done
     sleep 3; import -window root vite.png; kill $v' _ "$DIR" \
    || fail "ViTE under Xvfb failed: $(tail -n 5 vite.txt 2>/dev/null)"
[ -s vite.png ] || fail "no screenshot"
grep -q "Opening the file: .*traces.otf2" vite.txt || fail "ViTE did not open the archive: $(head -n 5 vite.txt)"

# Every warning or error is one of the known ViTE limitations above.
bad=$(grep -iE "warning|error|unknown|cannot|fatal" vite.txt \
      | grep -vE "^Warning: cannot find rank [01] in communicator 0$" \
      | grep -vE "^Warning OTF2 parser: [0-9.e+-]+ +callback_Thread(Fork|Join) not implemented$" || true)
[ -z "$bad" ] || fail "ViTE warns: $(head -n 5 <<<"$bad")"

# The timeline area (right of the container names, below the ruler) holds the arrows: white pixels.
# count COLOUR: pixels of exactly that colour in the timeline area
count() { convert vite.png -crop 810x450+218+128 +repage -fill red +opaque "$1" -fill white -opaque "$1" \
              -fill black -opaque red -format "%[fx:round(mean*w*h)]" info:; }
white=$(count white)
note "white (message) pixels in the timeline: $white"
assert_ge "message pixels drawn by ViTE" 2000 "$white"
# States: the four locations' rows are not empty (black state boxes, grey background).
black=$(count black)
note "black (state) pixels in the timeline: $black"
assert_ge "state pixels drawn by ViTE" 20000 "$black"
echo ok
