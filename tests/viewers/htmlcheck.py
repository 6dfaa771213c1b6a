#!/usr/bin/python3
"""htmlcheck.py — loads a `synctrace report --html` page in headless Chromium (selenium) and checks it.

usage: htmlcheck.py PAGE [--screenshot PNG] [--metrics a,b,..] [--click METRIC] [--calls A,B,..]
                         [--function] [--inclusive-calls A,..] [--rows N] [--epochs N] [--aggregated]
                         [--cause METRIC:RANK,..] [--cpath] [--no-causes] [--timeout S]
       htmlcheck.py --batch FILE OUTDIR
         FILE: one check a line, "NAME PAGE [options]" (words quoted as by the shell): all of them in
         one browser (its start is about 2.5 s of a check's 5), each from a blank page; OUTDIR/NAME.txt
         gets what the check printed and its FAIL lines, OUTDIR/NAME.rc its exit status (0 or 1)

Always: the page finishes its first timeline draw (window.stReport.ready) within --timeout
seconds, with no JavaScript error (window errors and the browser console's SEVERE entries),
and the timeline has drawn something. Then, as asked:
  --metrics   each of these metrics (unique names) has a row with a nonzero value in the metric pane
  --click     clicks that metric's row: it becomes selected; the call tree then shows its values:
  --calls     each of these regions has a call-tree row with a nonzero value, and the largest
              row (the call path the metric sits at most) is one of them
  --inclusive-calls  then collapses the clicked metric (expanded it shows its exclusive value, the
              part in none of its sub-metrics; collapsed, inclusive): these regions, absent from
              the exclusive view, get nonzero rows, and the call tree's total grows
  --function  the call path of that largest row runs through an application function (a region
              that is neither MPI_*/omp*/<root>): for archives with application call paths
  --rows      the timeline drew N rows (one per location), each with coloured pixels (the critical
              path switched off: its line alone does not count)
  --cause     in the Causes view, clicking the largest wait state of METRIC lists as many delays as
              the page's data holds for it, the largest on rank RANK; clicking that delay selects
              METRIC's delay cost in the metric tree and the delay's call path in the call tree
  --cpath     the whole run shown, the timeline draws every critical-path hop of the data: at the
              middle of each hop wider than 6 pixels, on its location's row (rows by node, rank,
              thread), the path's colour; switched off, none of those pixels has it
  --no-causes the page says the root-cause analysis did not run and draws no critical path
  --epochs    the time-base panel lists the sync epochs of N ranks (a count and each epoch as
              the archive stores it), and the CLC table has a state
  --aggregated / default: the page says its timeline is aggregated / holds every event
Also clicks zoom and pan buttons (each changes the range shown) and the first worst wait state
(the timeline moves to it). Prints one line of
measurements: ready_ms (navigation start to the first full draw), script_ms, rows, drawn.
Exit 0 if every check passes, 1 with the failed checks on stderr, 77 if selenium or chromium
is missing.
"""
import argparse
import contextlib
import os
import shlex
import shutil
import sys
import time


def browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        print("SKIP: python3-selenium not installed", file=sys.stderr)
        sys.exit(77)
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chrome or not driver:
        print("SKIP: chromium / chromium-driver not installed", file=sys.stderr)
        sys.exit(77)
    opt = webdriver.ChromeOptions()
    opt.binary_location = chrome
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1100", "--hide-scrollbars"):
        opt.add_argument(a)
    opt.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=opt)


def parser():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--screenshot")
    ap.add_argument("--metrics", default="")
    ap.add_argument("--click")
    ap.add_argument("--calls", default="")
    ap.add_argument("--function", action="store_true")
    ap.add_argument("--inclusive-calls", default="")
    ap.add_argument("--rows", type=int)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--aggregated", action="store_true")
    ap.add_argument("--cause", default="")
    ap.add_argument("--cpath", action="store_true")
    ap.add_argument("--no-causes", action="store_true")
    ap.add_argument("--timeout", type=float, default=30)
    return ap


def batch(path, outdir):
    with open(path) as f:
        checks = [w for w in (shlex.split(line) for line in f) if w]
    runs = [(w[0], parser().parse_args(w[1:])) for w in checks]  # a usage error stops all, before the browser
    d = browser()
    try:
        for name, a in runs:
            errors = []
            with open(os.path.join(outdir, name + ".txt"), "w") as out:
                with contextlib.redirect_stdout(out):
                    d.get("about:blank")
                    d.get_log("browser")  # the previous page's messages are not this one's
                    check(d, a, errors)
                for e in errors:
                    print("FAIL: " + e, file=out)
            with open(os.path.join(outdir, name + ".rc"), "w") as rc:
                rc.write("1\n" if errors else "0\n")
    finally:
        d.quit()


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--batch":
        batch(sys.argv[2], sys.argv[3])
        sys.exit(0)
    a = parser().parse_args()
    errors = []
    d = browser()
    try:
        check(d, a, errors)
    finally:
        d.quit()
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    sys.exit(1 if errors else 0)


def rows(d, tree):
    return d.execute_script("""
        return [...document.querySelectorAll('#' + arguments[0] + ' .row')].map(r => ({
            id: r.dataset.id, name: r.dataset.name, value: +r.dataset.value, path: r.dataset.path || '',
            selected: r.classList.contains('selected')}));""", tree)


def inclusive(d, a, calls, errors):
    from selenium.webdriver.common.by import By
    want = a.inclusive_calls.split(",")
    for c in want:
        if c in {r["name"] for r in calls}:
            errors.append("call tree for expanded %s: %s has an exclusive value" % (a.click, c))
    d.find_element(By.CSS_SELECTOR, '#metric-tree .row[data-path="%s"] .toggle' % a.click).click()
    incl = [r for r in rows(d, "call-tree") if r["value"] > 0]
    for c in want:
        if c not in {r["name"] for r in incl}:
            errors.append("call tree for collapsed %s: no nonzero row for %s" % (a.click, c))
    ex, inc = sum(r["value"] for r in calls), sum(r["value"] for r in incl)
    print("call tree total for %s: exclusive %.6f s, inclusive %.6f s" % (a.click, ex, inc))
    if not inc > ex:
        errors.append("collapsing %s did not grow the call tree's total (%.6f -> %.6f)" % (a.click, ex, inc))


def set_cpath(d, on):
    """Switches the critical path on or off; whether it was on."""
    return d.execute_script("""
        const b = document.getElementById('show-cpath');
        if (!b) return false;
        const was = b.checked;
        if (was !== arguments[0]) b.click();
        return was;""", on)


def cause(d, spec, errors):
    from selenium.webdriver.common.by import By
    metric, rank = spec.split(":")
    states = d.find_elements(By.CSS_SELECTOR, '#wstates tbody tr[data-metric="%s"]' % metric)
    if not states:
        errors.append("Causes view: no wait state of %s" % metric)
        return
    path = states[0].get_attribute("data-path")
    charged = float(states[0].get_attribute("data-charged"))
    states[0].click()
    # the wait state's data: its delays' count, their sum (short- and long-term) and its waiting
    n_data, want_sum, wait = d.execute_script("""
        const D = JSON.parse(document.getElementById('st-data').textContent);
        const cpath = (c) => { const p = []; for (; c > 0; c = D.cnodes[c][0]) p.unshift(D.cnodes[c][1]); return p.join('/') || '<root>'; };
        const w = D.causes.filter((x) => D.metrics[x[0]][0] === arguments[0] && cpath(x[1]) === arguments[1]);
        if (w.length !== 1) return [-1, -1, 0];
        let s = 0;
        for (let i = 0; i + 3 < w[0][4].length; i += 4) s += w[0][4][i + 2] + w[0][4][i + 3];
        return [w[0][4].length / 4, s, w[0][2]];""", metric, path)
    if abs(charged - want_sum) > 1e-12 * (1 + abs(want_sum)) or charged > wait * (1 + 1e-9):
        errors.append("Causes view: %s at %s charged %g s, its delays sum to %g s of %g s waiting"
                      % (metric, path, charged, want_sum, wait))
    dl = d.find_elements(By.CSS_SELECTOR, "#delayers tbody tr")
    got = [(r.get_attribute("data-rank"), r.get_attribute("data-thread"), r.get_attribute("data-path")) for r in dl]
    print("causes of %s at %s: %s" % (metric, path, "; ".join("rank %s thread %s %s" % g for g in got[:5])))
    if len(dl) != min(n_data, 200):
        errors.append("Causes view: %s at %s lists %d delays, the data %d" % (metric, path, len(dl), n_data))
    if not dl:
        return
    if got[0][0] != rank:
        errors.append("Causes view: the largest delay of %s at %s on rank %s, expected rank %s" % (metric, path,
                                                                                                  got[0][0], rank))
    dl[0].click()
    sel = [r for r in rows(d, "metric-tree") if r["selected"]]
    if not sel or not sel[0]["path"].startswith("delay_") or not sel[0]["path"].endswith("_aggregate"):
        errors.append("clicking a delay of %s selected %s in the metric tree" % (metric, [r["path"] for r in sel]))
    csel = [r for r in rows(d, "call-tree") if r["selected"]]
    if not csel or csel[0]["path"] != got[0][2]:
        errors.append("clicking a delay at %s selected %s in the call tree" % (got[0][2], [r["path"] for r in csel]))


def critical_path(d, errors):
    from selenium.webdriver.common.by import By
    d.find_element(By.ID, "zoom-reset").click()
    set_cpath(d, True)
    D = d.execute_script("return JSON.parse(document.getElementById('st-data').textContent)")
    hops = [D["cpath"][i:i + 3] for i in range(0, len(D.get("cpath", [])), 3)]
    if not hops:
        errors.append("no critical path in the page's data")
        return
    drawn = int(d.find_element(By.ID, "timeline").get_attribute("data-cpath") or -1)
    if drawn != len(hops):
        errors.append("timeline: %d critical-path hops drawn, the data has %d" % (drawn, len(hops)))
    # rows as the page orders them: by node (first appearance), rank, then the locations in order
    nodes = []
    for i, L in enumerate(D["locs"]):
        n = next((x for x in nodes if x[0] == L[3]), None)
        if not n:
            nodes.append(n := (L[3], {}))
        n[1].setdefault(L[0], []).append(i)
    order = [l for _, ranks in nodes for r in ranks.values() for l in r]
    row = {l: k for k, l in enumerate(order)}
    end = D["meta"]["end"] or 1
    pts = []
    for loc, t0, t1 in hops:
        pts.append((loc, (t0 + t1) / 2, t1 - t0))
    sample = """
        const c = document.getElementById('timeline'), g = c.getContext('2d'), k = c.width / c.clientWidth;
        const rowH = (c.clientHeight - 26) / arguments[1], w = c.clientWidth;
        return arguments[0].map(([r, t, len]) => {
            if (len * (w - 150) / arguments[2] <= 6) return null;
            const x = Math.round((150 + t * (w - 150) / arguments[2]) * k), y = Math.round((22 + r * rowH + rowH / 2) * k);
            return Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
        });"""
    args = [[row[loc], t, n] for loc, t, n in pts]
    is_path = lambda px: px is not None and abs(px[0] - 0) < 40 and abs(px[1] - 216) < 40 and abs(px[2] - 255) < 40
    on = d.execute_script(sample, args, len(order), end)
    wide = [i for i, px in enumerate(on) if px is not None]
    bad = [i for i in wide if not is_path(on[i])]
    print("critical path: %d hops, %d drawn, %d wide enough to sample, %d in the path's colour" % (
        len(hops), drawn, len(wide), len(wide) - len(bad)))
    if not wide:
        errors.append("critical path: no hop wider than 6 pixels to sample")
    if bad:
        errors.append("critical path: hops %s not drawn on their rows (pixels %s)" % (bad[:5], [on[i] for i in bad[:5]]))
    set_cpath(d, False)
    off = d.execute_script(sample, args, len(order), end)
    if any(is_path(off[i]) for i in wide):
        errors.append("critical path switched off: still drawn")
    if int(d.find_element(By.ID, "timeline").get_attribute("data-cpath") or -1) != 0:
        errors.append("critical path switched off: hops still counted")
    set_cpath(d, True)


def check(d, a, errors):
    from selenium.webdriver.common.by import By
    d.get("file://" + os.path.abspath(a.page))
    end = time.time() + a.timeout
    rep = None
    while time.time() < end:
        rep = d.execute_script("return window.stReport || null")
        if rep and (rep.get("ready") or rep.get("errors")):
            break
        time.sleep(0.05)
    logs = [x for x in d.get_log("browser") if x.get("level") == "SEVERE"]
    for x in logs:
        errors.append("console error: " + x.get("message", "")[:300])
    if not rep:
        errors.append("the page's script did not run (no window.stReport)")
        return
    for e in rep.get("errors", []):
        errors.append("script error: " + e)
    if not rep.get("ready"):
        errors.append("no timeline drawn within %.0f s" % a.timeout)
        return
    print("ready_ms %.0f script_ms %.0f rows %d drawn %d" % (rep["readyAt"], rep["drawMs"], rep["rows"], rep["drawn"]))
    if rep["drawn"] <= 0:
        errors.append("the timeline drew nothing")
    meta = d.find_element(By.ID, "meta").text
    want = "aggregated" if a.aggregated else "every event"
    if want not in meta:
        errors.append("header does not say '%s': %s" % (want, meta))

    mrows = rows(d, "metric-tree")
    top = {r["path"]: r for r in mrows}
    if "time" in top and "execution" not in top:  # Time starts collapsed (its whole amount): expand it
        d.find_element(By.CSS_SELECTOR, '#metric-tree .row[data-path="time"] .toggle').click()
        mrows = rows(d, "metric-tree")
    shown = {r["path"]: r for r in mrows}
    if "time" in top:
        shown["time"] = top["time"]  # checked collapsed: expanded, its own value is 0
    for m in filter(None, a.metrics.split(",")):
        if m not in shown or shown[m]["value"] <= 0:
            errors.append("metric pane: no nonzero row for %s (rows: %s)" % (m, ", ".join(shown)))
    if a.click:
        if a.click not in shown:
            errors.append("metric pane: no row %s to click" % a.click)
            return
        d.find_element(By.CSS_SELECTOR, '#metric-tree .row[data-path="%s"]' % a.click).click()
        if not [r for r in rows(d, "metric-tree") if r["path"] == a.click and r["selected"]]:
            errors.append("clicking %s did not select it" % a.click)
        calls = [r for r in rows(d, "call-tree") if r["value"] > 0]
        if not calls:
            errors.append("call tree: no nonzero row after selecting %s" % a.click)
            return
        top = max(calls, key=lambda r: r["value"])
        print("call tree for %s: top %s %.6f s; %s" % (a.click, top["path"], top["value"],
              ", ".join("%s=%.6f" % (r["path"], r["value"]) for r in calls)))
        names = {r["name"] for r in calls}
        want = [c for c in a.calls.split(",") if c]
        for c in want:
            if c not in names:
                errors.append("call tree for %s: no nonzero row for %s" % (a.click, c))
        if want and top["name"] not in want:
            errors.append("call tree for %s: largest row %s is none of %s" % (a.click, top["path"], want))
        if a.function:
            funcs = [p for p in top["path"].split("/")[:-1]
                     if p and p != "<root>" and not p.startswith("MPI_") and not p.startswith("omp")]
            if not funcs:
                errors.append("call tree for %s: no application function above %s" % (a.click, top["path"]))
        if a.inclusive_calls:
            inclusive(d, a, calls, errors)
    if a.rows is not None:
        path_on = set_cpath(d, False)
        got = int(d.find_element(By.ID, "timeline").get_attribute("data-rows") or -1)
        if got != a.rows:
            errors.append("timeline: %d rows drawn, expected %d" % (got, a.rows))
        empty = d.execute_script("""
            const c = document.getElementById('timeline'), g = c.getContext('2d'), k = c.width / c.clientWidth;
            const rowH = (c.clientHeight - 26) / arguments[0], out = [];
            for (let r = 0; r < arguments[0]; r++) {
                const y = Math.round((22 + r * rowH + rowH / 2) * k), x0 = Math.round(152 * k);
                const px = g.getImageData(x0, y, c.width - x0, 1).data;
                let n = 0;
                for (let i = 0; i < px.length; i += 4) if (!(px[i] > 240 && px[i + 1] > 240 && px[i + 2] > 240)) n++;
                if (n === 0) out.push(r);
            }
            return out;""", a.rows)
        if empty:
            errors.append("timeline rows without any drawing: %s" % empty)
        if path_on:
            set_cpath(d, True)
    for spec in filter(None, a.cause.split(",")):
        cause(d, spec, errors)
    if a.cpath:
        critical_path(d, errors)
    if a.no_causes:
        text = d.find_element(By.ID, "causes-section").text
        if "did not run" not in text:
            errors.append("Causes view without root causes: %r" % text[:200])
        if d.find_element(By.ID, "cpath-toggle").is_displayed():
            errors.append("a critical-path switch without a critical path")
    if a.epochs is not None:
        ranks = d.execute_script("""
            return [...document.querySelectorAll('#epochs tr')].slice(1).map(r =>
                [...r.children].map(td => td.textContent));""")
        if len(ranks) != a.epochs:
            errors.append("time base: epochs of %d ranks, expected %d" % (len(ranks), a.epochs))
        for r in ranks:
            n = int(r[1]) if r[1].isdigit() else -1
            if n < 1 or len(r[5].split("\n")) != n:
                errors.append("time base: rank %s: %s epochs, listed: %r" % (r[0], r[1], r[5]))
        text = d.find_element(By.ID, "timebase").text
        if "Controlled logical clock" not in text or "state" not in text:
            errors.append("time base without the CLC table")
    for button in ("zoom-in", "pan-left", "zoom-out", "pan-right"):
        before = d.find_element(By.ID, "view-range").text
        d.find_element(By.ID, button).click()
        if d.find_element(By.ID, "view-range").text == before:
            errors.append("the %s button did not change the timeline's range (%s)" % (button, before))
    d.find_element(By.ID, "zoom-in").click()
    rep2 = d.execute_script("return window.stReport")
    if rep2.get("errors"):
        errors.append("script error after zoom and pan: %s" % rep2["errors"])
    worst = d.find_elements(By.CSS_SELECTOR, "#worst tbody tr[data-metric]")
    if worst:
        before = d.find_element(By.ID, "view-range").text
        worst[0].click()
        after = d.find_element(By.ID, "view-range").text
        if before == after:
            errors.append("clicking the worst wait state did not move the timeline (%s)" % after)
        if a.screenshot:
            d.find_element(By.ID, "zoom-reset").click()
    if a.screenshot:
        d.execute_script("window.scrollTo(0, 0)")
        d.save_screenshot(a.screenshot)


main()
