#!/usr/bin/env bash
# tests/bench/roundtime_compare.sh — synctrace-bench (Round-Time and its barrier scheme) next to
# IMB-MPI1 and the OSU micro-benchmarks: MPI_Allreduce, MPI_Bcast, MPI_Alltoall and MPI_Barrier at a
# small and a large message size, at 2, 4 and 8 ranks, under every MPI family measured
# (tests/bench/family.sh: BENCH_MPI or every built one). A bench script, not a test: IMB and OSU are
# not part of the project (docs/bench.md says how to get and build them); without them it says what
# it skips and exits 0.
#
# Where the other benchmarks are (per family FAM = MPICH or OPENMPI; the per-family variable wins):
#   IMB_MPI1_<FAM>   the IMB-MPI1 binary built with that family's compiler
#   IMB_MPI1         the same for every family; "%f" in it is replaced by the family (mpich, openmpi),
#                    e.g. IMB_MPI1=/tmp/rtc/imb-%f/IMB-MPI1
#   OSU_DIR_<FAM>, OSU_DIR   a directory with osu_allreduce, osu_bcast, osu_alltoall, osu_barrier (or
#                    an OSU build tree: its c/mpi/collective/blocking/ is looked into); "%f" as above.
#                    A benchmark that is missing there is skipped alone.
# A binary linked against the other family's library is refused (ldd), with a message: it would hang
# or fail under this family's launcher.
#
# Each repetition runs, for every rank count and family, synctrace-bench, then IMB-MPI1, then OSU:
# the tools are interleaved so that the machine's load changes hit all of them alike. Every tool's
# figure is per call, in µs:
#   Round-Time      synctrace-bench --scheme roundtime: median over the valid rounds of one call's time
#                   from a synchronized start to the last rank's end
#   barrier scheme  synctrace-bench --scheme barrier: median over batches of the mean per call of
#                   back-to-back calls, maximum over ranks
#   IMB t_max       IMB-MPI1's t_max[usec]: each rank's mean time per call, maximum over ranks; the
#                   calls are timed one by one with an untimed MPI_Barrier after each (IMB's default
#                   -sync 1), not back to back
#   OSU max         OSU's "Max Latency(us)" with -f: the same (a barrier after each timed call)
#   IMB -sync off   IMB-MPI1's t_max[usec] with -sync off: the calls back to back, no barrier between
#                   them (IMB's method before 2017, and the barrier scheme's)
#   IMB t_avg       IMB-MPI1's t_avg[usec] (the mean over ranks instead of the maximum), for reference
# A cell is the median over the repetitions and [min-max]; "(k/n)" when only k of n runs gave a figure.
# Ranks are bound to cores while there are enough (-bind-to core / --bind-to core), as the rtbench
# tests do; with more ranks than cores nothing is bound, back-to-back tools get ITER_OVER iterations
# instead of ITER, and synctrace-bench runs with --tolerance 1000000 (the paper's literal rule: two
# ranks sharing a core never start together, so the default tolerance leaves no valid round).
#
# Environment: O (build root), BENCH_MPI, RTC_REPS (default BENCH_REPS or 5), RTC_NP (default
# "2 4 8"), RTC_SMALL (8) and RTC_LARGE (65536) bytes, RTC_SLICE (synctrace-bench seconds per
# operation, size and scheme; 0.3), RTC_ITER (1000) and RTC_ITER_OVER (100): IMB's -iter and OSU's -i
# (warm-up: a tenth), RTC_ITER_LARGE (OSU's -i above 8 KiB, its own default; 100), RTC_IMB_TIME (IMB's -time, seconds per sample; 2), RTC_TIMEOUT (seconds per
# run; 300), RTC_DATA (a file to keep every figure in: family, ranks, tool, operation, bytes,
# repetition, µs).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
O=$(cd "${O:-$ROOT}" && pwd)
source tests/bench/family.sh

REPS=${RTC_REPS:-${BENCH_REPS:-5}}
NPS=${RTC_NP:-2 4 8}
SMALL=${RTC_SMALL:-8}
LARGE=${RTC_LARGE:-65536}
SLICE=${RTC_SLICE:-0.3}
ITER=${RTC_ITER:-1000}
ITER_LARGE=${RTC_ITER_LARGE:-100}
ITER_OVER=${RTC_ITER_OVER:-100}
IMB_TIME=${RTC_IMB_TIME:-2}
TIMEOUT=${RTC_TIMEOUT:-300}
CORES=$(nproc)
OPS="allreduce bcast alltoall barrier"
export MPIR_CVAR_CH4_NUM_VCIS=${MPIR_CVAR_CH4_NUM_VCIS:-1}

say() { echo "roundtime_compare: $*" >&2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rtcompare.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
DATA=$TMP/data.tsv
: >"$DATA"
status=0

# ---- which binaries, per family ---------------------------------------------------------
# linked_to BIN FAM: BIN's MPI library is FAM's (Debian: libmpich.so.12 / Open MPI's libmpi.so.40)
linked_to() {
    local libs
    libs=$(ldd "$1" 2>/dev/null) || return 1
    case $2 in
    mpich) grep -q 'libmpich\.so' <<<"$libs" ;;
    openmpi) grep -q 'libmpi\.so' <<<"$libs" && ! grep -q 'libmpich\.so' <<<"$libs" ;;
    esac
}
# pick VAR_FAM VAR FAM: the per-family variable's value, else VAR's with %f replaced
pick() {
    local v=${!1:-}
    [ -n "$v" ] || { v=${!2:-}; v=${v//%f/$3}; }
    echo "$v"
}
declare -A IMB OSU SKIP # IMB[fam]=binary, OSU[fam,op]=binary, SKIP[fam,tool]=why
FAMILIES=$(bench_families | tr '\n' ' ')
USED=
for fam in $FAMILIES; do
    fam_use "$fam" || { say "$fam: skipped (family not usable, see above)"; continue; }
    [ -x "$O/bin/synctrace-bench-$fam" ] || { say "$fam: skipped (no $O/bin/synctrace-bench-$fam: run make)"; continue; }
    USED+="$fam "
    up=${fam^^}
    b=$(pick "IMB_MPI1_$up" IMB_MPI1 "$fam")
    if [ -z "$b" ]; then
        SKIP[$fam,imb]="IMB_MPI1_$up and IMB_MPI1 not set"
    elif [ ! -x "$b" ]; then
        SKIP[$fam,imb]="$b is not an executable"
    elif ! linked_to "$b" "$fam"; then
        SKIP[$fam,imb]="$b is not linked against $fam's MPI library (ldd)"
    else
        IMB[$fam]=$b
    fi
    d=$(pick "OSU_DIR_$up" OSU_DIR "$fam")
    [ -z "$d" ] || [ -x "$d/osu_allreduce" ] || [ ! -d "$d/c/mpi/collective/blocking" ] || d=$d/c/mpi/collective/blocking
    for op in $OPS; do
        if [ -z "$d" ]; then
            SKIP[$fam,osu]="OSU_DIR_$up and OSU_DIR not set"
        elif [ ! -x "$d/osu_$op" ]; then
            SKIP[$fam,osu,$op]="no $d/osu_$op"
        elif ! linked_to "$d/osu_$op" "$fam"; then
            SKIP[$fam,osu,$op]="$d/osu_$op is not linked against $fam's MPI library (ldd)"
        else
            OSU[$fam,$op]=$d/osu_$op
        fi
    done
done
have_other=0
for fam in $USED; do
    fam_use "$fam"
    [ -z "${SKIP[$fam,imb]:-}" ] && have_other=1 || say "$(fam_label): IMB-MPI1 skipped: ${SKIP[$fam,imb]}"
    [ -z "${SKIP[$fam,osu]:-}" ] || say "$(fam_label): OSU skipped: ${SKIP[$fam,osu]}"
    for op in $OPS; do
        [ -n "${OSU[$fam,$op]:-}" ] && have_other=1
        [ -z "${SKIP[$fam,osu,$op]:-}" ] || say "$(fam_label): osu_$op skipped: ${SKIP[$fam,osu,$op]}"
    done
done
if [ "$have_other" = 0 ]; then
    say "nothing to compare with: no IMB-MPI1 and no OSU benchmark for ${USED% } (set IMB_MPI1 / OSU_DIR, see the script's header and docs/bench.md); comparison skipped"
    exit 0
fi

# ---- one run of each tool -------------------------------------------------------------------
# launch NP PROG ARGS...: sets CMD, the family's launcher with the binding the rank count allows
launch() {
    local np=$1
    shift
    CMD=("${FAM_LAUNCH[@]}")
    if [ "$np" -le "$CORES" ]; then
        case $FAM in mpich) CMD+=(-bind-to core) ;; openmpi) CMD+=(--bind-to core) ;; esac
    else
        case $FAM in openmpi) CMD+=(--bind-to none) ;; esac
    fi
    CMD+=(-n "$np" "$@")
}
# record NP TOOL REP: the "op bytes us" lines on stdin appended to the data
record() { awk -v f="$FAM" -v np="$1" -v t="$2" -v r="$3" 'NF == 3 {print f "\t" np "\t" t "\t" $1 "\t" $2 "\t" r "\t" $3}' >>"$DATA"; }
# run NAME: runs CMD in $TMP with the timeout; stdout in $TMP/out.txt; a failure is named
run() {
    if ! (cd "$TMP" && timeout "$TIMEOUT" "${CMD[@]}" >"$TMP/out.txt" 2>"$TMP/err.txt"); then
        say "$(fam_label) $1 failed (${CMD[*]}): $(tail -n 3 "$TMP/err.txt" | tr '\n' ' ')"
        status=1
        return 1
    fi
}

run_st() { # NP REP
    local extra=()
    [ "$1" -le "$CORES" ] || extra=(--tolerance 1000000)
    launch "$1" "$O/bin/synctrace-bench-$FAM" -o "${OPS// /,}" -s "$SMALL,$LARGE" --slice "$SLICE" --scheme both \
        --json "$TMP/st.json" "${extra[@]}"
    run "synctrace-bench ($1 ranks)" || return 0
    python3 - "$TMP/st.json" <<'EOF' >"$TMP/st.txt"
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    b = r["bytes"] if r["operation"] != "barrier" else 0
    rt = r["scheme"] == "roundtime"
    if r["median_ns"] is not None:
        print("%s %s %s %.4f" % ("rt" if rt else "bar", r["operation"], b, r["median_ns"] / 1000))
    if rt and r["valid"] + r["invalid"] > 0:
        print("rtvalid %s %s %.1f" % (r["operation"], b, 100.0 * r["valid"] / (r["valid"] + r["invalid"])))
off = d["clock_offset_max_ns"]
print("offsync - 0 %.4f" % (off["after_sync"] / 1000))
print("offend - 0 %.4f" % (off["at_end"] / 1000))
EOF
    local t
    for t in rt bar rtvalid offsync offend; do awk -v t=$t '$1 == t {print $2, $3, $4}' "$TMP/st.txt" | record "$1" $t "$2"; done
}

run_imb() { # NP REP: IMB's default (-sync on: an untimed barrier after each call), then -sync off (back to back)
    local b=${IMB[$FAM]:-} it=$ITER sync
    [ -n "$b" ] || return 0
    [ "$1" -le "$CORES" ] || it=$ITER_OVER
    printf '%s\n%s\n' "$SMALL" "$LARGE" >"$TMP/msglen"
    for sync in on off; do
        launch "$1" "$b" Allreduce Bcast Alltoall Barrier -npmin "$1" -msglen "$TMP/msglen" -iter "$it" -time "$IMB_TIME" \
            -sync "$sync"
        run "IMB-MPI1 -sync $sync ($1 ranks)" || continue
        # sections "# Benchmarking <Op>", a header naming t_max[usec] and t_avg[usec], then rows of numbers
        # (with #bytes first, except for Barrier)
        local col tool
        for col in t_max t_avg; do
            case $sync/$col in on/t_max) tool=imb ;; on/t_avg) tool=imbavg ;; off/t_max) tool=imb0 ;; *) continue ;; esac
            awk -v want="$col" '
                /^# Benchmarking / {op = tolower($3); c = 0; next}
                /t_max\[usec\]/ {for (i = 1; i <= NF; i++) if ($i ~ "^" want) c = i; sized = ($1 == "#bytes"); next}
                c && $1 ~ /^[0-9]/ && NF >= c {print op, (sized ? $1 : 0), $c}' "$TMP/out.txt" |
                record "$1" "$tool" "$2"
        done
    done
}

run_osu() { # NP REP
    local op s sizes it
    for op in $OPS; do
        [ -n "${OSU[$FAM,$op]:-}" ] || continue
        sizes="$SMALL $LARGE"
        [ "$op" != barrier ] || sizes=0
        for s in $sizes; do
            local m=()
            [ "$s" = 0 ] || m=(-m "$s:$s")
            it=$ITER
            [ "$s" -le 8192 ] || it=$ITER_LARGE
            [ "$1" -le "$CORES" ] || it=$ITER_OVER
            launch "$1" "${OSU[$FAM,$op]}" "${m[@]}" -f -i "$it" -x $((it / 10 > 0 ? it / 10 : 1))
            run "osu_$op ($1 ranks, $s B)" || continue
            # the header ("# Size  Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations", no
            # Size for osu_barrier) names the column; its fields are separated by two or more spaces
            awk -v op="$op" -v s="$s" '
                /Max Latency/ {sub(/^# */, ""); n = split($0, h, /  +/); for (i = 1; i <= n; i++) if (h[i] ~ /^Max Latency/) c = i; next}
                c && $1 ~ /^[0-9]/ {print op, s, $c; exit}' "$TMP/out.txt" | record "$1" osu "$2"
        done
    done
}

# ---- the measurements: repetitions outermost, tools interleaved -------------------------------
started=$(date -u +%Y-%m-%dT%H:%MZ)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for rep in $(seq "$REPS"); do
    for np in $NPS; do
        for fam in $USED; do
            fam_use "$fam"
            run_st "$np" "$rep"
            run_imb "$np" "$rep"
            run_osu "$np" "$rep"
        done
    done
    say "repetition $rep of $REPS done ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
done
[ -z "${RTC_DATA:-}" ] || cp "$DATA" "$RTC_DATA" || { say "cannot write RTC_DATA=$RTC_DATA"; status=1; }

# ---- the table ----------------------------------------------------------------------------
echo
echo "Round-Time vs barrier scheme vs IMB-MPI1 vs OSU — $(hostname), $CORES cores, $started to $(date -u +%H:%MZ)"
echo "(µs per call: median over $REPS runs [min–max]; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end)"
echo
python3 - "$DATA" "$REPS" "$NPS" "$SMALL" "$LARGE" "$CORES" "$USED" "$OPS" <<'EOF'
import sys, statistics
data, reps, nps, small, large, cores, fams, ops = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), \
    sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7].split(), sys.argv[8].split()
v = {}
for line in open(data):
    f, np_, t, op, b, r, us = line.split("\t")
    v.setdefault((f, np_, t, op, b), []).append(float(us))
label = {"mpich": "MPICH", "openmpi": "Open MPI"}
tools = [("rt", "Round-Time"), ("bar", "barrier scheme"), ("imb0", "IMB -sync off t_max"), ("imb", "IMB t_max"),
         ("osu", "OSU max"), ("imbavg", "IMB t_avg"), ("rtvalid", "RT valid %")]
def fmt(x):
    return "%.3g" % x if x < 1000 else "%.0f" % x
def cell(xs):
    if not xs:
        return "—"
    s = "%s [%s–%s]" % (fmt(statistics.median(xs)), fmt(min(xs)), fmt(max(xs)))
    return s + (" (%d/%d)" % (len(xs), reps) if len(xs) < reps else "")
print("| MPI | ranks | operation | bytes | " + " | ".join(n for _, n in tools) + " |")
print("|---|---|---|---|" + "---|" * len(tools))
for f in fams:
    for n in nps:
        for op in ops:
            for b in (["0"] if op == "barrier" else [small, large]):
                over = " ¹" if int(n) > cores else ""
                print("| %s | %s%s | %s | %s | %s |" % (label.get(f, f), n, over, op, "—" if b == "0" else b,
                      " | ".join(cell(v.get((f, n, t, op, b), [])) for t, _ in tools)))
if any(int(n) > cores for n in nps):
    print("\n¹ more ranks than cores: unbound, fewer iterations for IMB and OSU; synctrace-bench with --tolerance 1000000")
print()
for f in fams:
    for n in nps:
        a, e = v.get((f, n, "offsync", "-", "0"), []), v.get((f, n, "offend", "-", "0"), [])
        if a or e:
            print("%s, %s ranks: synctrace-bench's largest clock offset between ranks, µs: after the sync %s, at the end %s" %
                  (label.get(f, f), n, cell(a), cell(e)))
EOF
echo
echo "(— : not run or no figure. Round-Time: per call from a synchronized start to the last rank's end;"
echo " barrier scheme and IMB -sync off: mean of back-to-back calls; IMB (its default -sync on) and OSU: mean of"
echo " calls timed one by one, an untimed barrier after each. RT valid %: Round-Time's valid rounds of all rounds. Reductions:"
echo " synctrace-bench MPI_DOUBLE, IMB MPI_FLOAT, OSU MPI_CHAR, all MPI_SUM.)"
for fam in $USED; do
    fam_use "$fam"
    echo "($(fam_label): IMB ${IMB[$fam]:-skipped: ${SKIP[$fam,imb]:-}}; OSU $(for op in $OPS; do printf '%s ' "${OSU[$fam,$op]:-osu_$op skipped}"; done))"
done
[ -z "${OMPI_MCA_btl_vader_single_copy_mechanism:-}" ] || [[ " $USED" != *" openmpi "* ]] ||
    echo "(Open MPI: OMPI_MCA_btl_vader_single_copy_mechanism=$OMPI_MCA_btl_vader_single_copy_mechanism for every tool, tests/bench/family.sh)"
exit $status
