/*
 * report.js — the HTML report's behaviour: three coupled trees (metric | call path | location)
 * like Cube's browser, a canvas timeline with the critical path, the worst wait states, their causes
 * and the time-base panel.
 *
 * The data (element #st-data, written by src/cli/report_html.c), times in ns since the
 * archive's offset:
 *   meta      {archive, ranks, locations, events, end, detail: "full"|"aggregated", max_events}
 *   regions   [[name, kind]]  kind: mpi-p2p mpi-coll mpi omp-par omp-sync omp user other; the last is "?"
 *             (regions the archive does not define)
 *   metrics   [[uniq, display name, parent index or -1, unit "sec"|"occ"|"bytes", description]]
 *   cnodes    [[parent index or -1, region name]]   (0 = root; values are call-tree exclusive)
 *   locs      [[rank, thread, name, node]]          (timeline rows; "location" indices below)
 *   sev       flat [metric, cnode, location, value (seconds or count)]: the nonzero values
 *   worst     [[metric, location, cnode, enter ns, wait ns]]
 *   causes    (with a root-cause analysis) per wait state [metric, cnode, waiting s, propagating s,
 *             flat [location, cnode, short-term s, long-term s]: its delayers, largest first]
 *   cpath     (with a root-cause analysis) the critical path's hops in time order, flat [location, t0 ns, t1 ns]
 *   props     [[key, value]]  archive properties SYNCTRACE::<key>
 *   rankprops [[rank, key, value]]  each rank's SYNCTRACE::<key>
 *   stats     {unpaired, ls_violations, coll_violations, coll_skipped}
 *   full detail:  tl   per location flat [dt, code]: code = region index + 1 (enter) or 0 (leave)
 *                 msgs flat [send loc, send ns - previous send ns, recv loc, recv ns - send ns]
 *                 colls per collective instance flat [loc, ns, ...] of the members' ends
 *   aggregated:   agg {t0, w (ns per bin), bins, kinds, v: per location [bin * kinds + kind]
 *                 permille of a bin}
 * For tests: window.stReport = {ready, readyAt, drawMs, rows, drawn, errors} after the first full timeline
 * draw (readyAt: ms since the navigation started; drawMs: of that, the script's own time); the canvas'
 * data-cpath: the critical path's hops drawn.
 */
"use strict";

window.stReport = { ready: false, errors: [] };
window.addEventListener("error", function (e) {
  window.stReport.errors.push(String(e.message));
  const box = document.getElementById("errors");
  box.hidden = false;
  box.textContent += "script error: " + e.message + "\n";
});

(function () {
  const t0 = performance.now();
  const D = JSON.parse(document.getElementById("st-data").textContent);
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const KIND_COLOUR = {
    "mpi-p2p": "#e0413a", "mpi-coll": "#f08c2a", "mpi": "#c2185b", "omp-par": "#7cb86a", "omp-sync": "#1f9e89",
    "omp": "#9ccc65", "user": "#8fa8d8", "other": "#bbbbbb",
  };
  const KIND_NAME = {
    "mpi-p2p": "MPI point-to-point", "mpi-coll": "MPI collective", "mpi": "MPI other", "omp-par": "OpenMP parallel",
    "omp-sync": "OpenMP sync", "omp": "OpenMP other", "user": "user", "other": "other",
  };
  const secs = (ns) => (ns / 1e9).toFixed(6);

  /* ---- header --------------------------------------------------------------------------- */
  const M = D.meta;
  $("meta").textContent = M.archive + " \u2014 " + M.ranks + " ranks, " + M.locations + " locations, " +
    M.events + " events, " + secs(M.end) + " s; timeline: " +
    (M.detail === "full" ? "every event" : "aggregated (more than " + M.max_events + " events)");

  /* ---- the severity cube -------------------------------------------------------------- */
  const NM = D.metrics.length, NC = D.cnodes.length, NL = D.locs.length;
  const mChildren = D.metrics.map(() => []), mRoots = [];
  D.metrics.forEach((m, i) => (m[2] < 0 ? mRoots : mChildren[m[2]]).push(i));
  const cChildren = D.cnodes.map(() => []), cRoots = [];
  D.cnodes.forEach((c, i) => (c[0] < 0 ? cRoots : cChildren[c[0]]).push(i));
  const byMetric = D.metrics.map(() => []); /* [cnode, loc, value] */
  for (let i = 0; i + 3 < D.sev.length; i += 4) byMetric[D.sev[i]].push([D.sev[i + 1], D.sev[i + 2], D.sev[i + 3]]);
  const mTotal = byMetric.map((list) => list.reduce((s, x) => s + x[2], 0));
  const TIME = D.metrics.findIndex((m) => m[0] === "time");
  const totalTime = mTotal[TIME] || 0;

  const state = {
    metric: TIME, cnode: -1, /* -1: the largest call path of the metric */
    mOpen: new Set(), cOpen: new Set(), sOpen: new Set(),
  };
  /* Metric tree: every nonzero metric open but Time, which starts collapsed: its whole amount, the call
   * tree showing where the time goes (expanded, Time's own value is 0: it is all Execution, Overhead and
   * Idle threads, as in Cube); call tree and system tree open while small. */
  D.metrics.forEach((m, i) => { if (i !== TIME && mChildren[i].some((c) => mTotal[c] > 0)) state.mOpen.add(i); });
  if (NC <= 400) D.cnodes.forEach((c, i) => state.cOpen.add(i)); else cRoots.forEach((i) => state.cOpen.add(i));

  const isSec = (m) => D.metrics[m][3] === "sec";
  /* an exclusive value is a difference of sums: what rounds to 0 at the shown precision shows as 0, not -0 */
  const fmt = (m, v) => isSec(m)
    ? (v = Math.abs(v) < 5e-7 ? 0 : v, v.toFixed(6) + " s " +
       (totalTime > 0 ? (100 * v / totalTime).toFixed(2) : "0.00").padStart(6) + "%")
    : Math.round(v) + " " + D.metrics[m][3];
  const colour = (f) => "hsl(" + Math.round(240 * (1 - Math.max(0, Math.min(1, f)))) + ",80%,52%)";

  /* The selected metric as the metric tree shows it, as (cnode, location, value) entries: inclusive,
   * or exclusive when expanded (its sub-metrics' entries subtracted). Sparse: call paths x locations
   * may be far more than the nonzero values. */
  function metricEntries(visit) {
    const m = state.metric;
    for (const [c, l, v] of byMetric[m]) visit(c, l, v);
    if (state.mOpen.has(m))
      for (const k of mChildren[m]) for (const [c, l, v] of byMetric[k]) visit(c, l, -v);
  }
  const metricValue = (m) => mTotal[m] - (state.mOpen.has(m) ? mChildren[m].reduce((s, k) => s + mTotal[k], 0) : 0);

  /* ---- generic tree ----------------------------------------------------------------- */
  /* spec: roots, children(i), label(i), value(i, open), open (Set), selected, select(i), unit (the metric
   * whose unit the values have; null: each row is a metric), total or base(i) (colour scale), path(i). */
  function renderTree(box, spec) {
    const scroll = box.scrollTop;
    box.textContent = "";
    const add = (i, depth) => {
      const kids = spec.children(i), open = spec.open.has(i) && kids.length > 0;
      const v = spec.value(i, open);
      const row = el("div", "row" + (i === spec.selected ? " selected" : "") + (Math.abs(v) < 1e-12 ? " zero" : ""));
      row.style.paddingLeft = depth * 14 + "px";
      row.dataset.id = i;
      row.dataset.name = spec.label(i);
      row.dataset.value = v;
      if (spec.path) row.dataset.path = spec.path(i);
      const tg = el("span", "toggle", kids.length ? (open ? "\u25be" : "\u25b8") : "");
      tg.addEventListener("click", (e) => {
        e.stopPropagation();
        if (spec.open.has(i)) spec.open.delete(i); else spec.open.add(i);
        update();
      });
      const bx = el("span", "box");
      const base = spec.base ? spec.base(i) : spec.total;
      bx.style.background = colour(base > 0 ? v / base : 0);
      row.append(tg, bx, el("span", "val", fmt(spec.unit === null ? i : spec.unit, v)), el("span", "name", spec.label(i)));
      row.title = spec.title ? spec.title(i) : spec.label(i);
      row.addEventListener("click", () => spec.select(i));
      box.append(row);
      if (open) for (const k of kids) add(k, depth + 1);
    };
    spec.roots.forEach((r) => add(r, 0));
    box.scrollTop = scroll;
  }

  const cPath = (c) => { const p = []; for (; c > 0; c = D.cnodes[c][0]) p.unshift(D.cnodes[c][1]); return p.join("/") || "<root>"; };

  function update() {
    /* metric tree */
    const shownMetrics = (i) => mChildren[i].filter((k) => mTotal[k] > 0);
    renderTree($("metric-tree"), {
      roots: mRoots.filter((i) => mTotal[i] > 0 || i === TIME), children: shownMetrics,
      label: (i) => D.metrics[i][1], value: (i) => metricValue(i), open: state.mOpen, selected: state.metric,
      unit: null /* each row its own metric */, base: (i) => mTotal[rootOf(i)],
      path: (i) => D.metrics[i][0], title: (i) => D.metrics[i][0] + ": " + D.metrics[i][4],
      select: (i) => { state.metric = i; state.cnode = -1; update(); },
    });
    /* call tree: the selected metric per call path */
    const cEx = new Float64Array(NC);
    metricEntries((c, l, v) => { cEx[c] += v; });
    const cIn = Float64Array.from(cEx);
    for (let c = NC - 1; c > 0; c--) if (D.cnodes[c][0] >= 0) cIn[D.cnodes[c][0]] += cIn[c]; /* parents precede children */
    const cTotal = cRoots.reduce((s, r) => s + cIn[r], 0);
    if (state.cnode < 0) { /* a new metric: select the call path it sits at most */
      state.cnode = 0;
      for (let c = 1; c < NC; c++) if (cEx[c] > cEx[state.cnode]) state.cnode = c;
    }
    renderTree($("call-tree"), {
      roots: cRoots, children: (i) => cChildren[i], label: (i) => D.cnodes[i][1],
      value: (i, open) => (open ? cEx[i] : cIn[i]), open: state.cOpen, selected: state.cnode, unit: state.metric,
      total: cTotal, path: cPath, select: (i) => { state.cnode = i; update(); },
    });
    /* system tree: the selected metric and call path per location (inclusive: the subtree) */
    const cOpenSel = state.cOpen.has(state.cnode) && cChildren[state.cnode].length > 0;
    const inSel = new Uint8Array(NC);
    const mark = (c) => { inSel[c] = 1; if (!cOpenSel) for (const k of cChildren[c]) mark(k); };
    mark(state.cnode);
    const lv = new Float64Array(NL);
    metricEntries((c, l, v) => { if (inSel[c]) lv[l] += v; });
    renderSystem(lv);
  }
  function rootOf(m) { while (D.metrics[m][2] >= 0) m = D.metrics[m][2]; return m; }

  /* System tree: node > rank > thread; ids "n:NODE", "r:RANK", "l:LOC". */
  const sysNodes = [], sysRanks = new Map();
  D.locs.forEach((L, i) => {
    let n = sysNodes.find((x) => x.name === L[3]);
    if (!n) sysNodes.push(n = { name: L[3], ranks: [] });
    if (!sysRanks.has(L[0])) { sysRanks.set(L[0], []); n.ranks.push(L[0]); }
    sysRanks.get(L[0]).push(i);
  });
  if (NL <= 64) { sysNodes.forEach((n) => state.sOpen.add("n:" + n.name)); sysRanks.forEach((v, r) => state.sOpen.add("r:" + r)); }
  else sysNodes.forEach((n) => state.sOpen.add("n:" + n.name));
  function renderSystem(lv) {
    const val = (id) => {
      if (id[0] === "l") return lv[+id.slice(2)];
      if (id[0] === "r") return sysRanks.get(+id.slice(2)).reduce((s, l) => s + lv[l], 0);
      return sysNodes.find((n) => "n:" + n.name === id).ranks.reduce((s, r) => s + val("r:" + r), 0);
    };
    const total = lv.reduce((s, v) => s + v, 0);
    renderTree($("system-tree"), {
      roots: sysNodes.map((n) => "n:" + n.name),
      children: (id) => id[0] === "n" ? sysNodes.find((n) => "n:" + n.name === id).ranks.map((r) => "r:" + r)
        : id[0] === "r" ? sysRanks.get(+id.slice(2)).map((l) => "l:" + l) : [],
      label: (id) => id[0] === "n" ? id.slice(2) : id[0] === "r" ? "rank " + id.slice(2)
        : "thread " + D.locs[+id.slice(2)][1] + " (" + D.locs[+id.slice(2)][2] + ")",
      value: (id, open) => (open ? 0 : val(id)), open: state.sOpen, selected: null, unit: state.metric, total: total,
      select: (id) => { if (id[0] === "l") showLocation(+id.slice(2)); },
    });
  }

  /* ---- timeline --------------------------------------------------------------------- */
  const canvas = $("timeline"), ctx = canvas.getContext("2d");
  const LABEL_W = 150, AXIS_H = 22;
  /* rows: locations grouped by node, then rank, thread */
  const rows = [];
  sysNodes.forEach((n) => n.ranks.forEach((r) => sysRanks.get(r).forEach((l) => rows.push(l))));
  const rowOf = new Int32Array(NL);
  rows.forEach((l, i) => (rowOf[l] = i));
  const rowH = Math.max(4, Math.min(20, Math.floor(560 / Math.max(1, rows.length))));
  const regionKind = D.regions.map((r) => r[1]);

  /* Region instances per location and depth: starts, ends (both ascending within a depth), codes. */
  const inst = [];
  let tEnd = M.end > 0 ? M.end : 1;
  if (D.tl) {
    D.tl.forEach((seq) => {
      const depths = [], stack = [];
      let t = 0;
      for (let i = 0; i + 1 < seq.length; i += 2) {
        t += seq[i];
        const code = seq[i + 1];
        if (code > 0) { stack.push(t, code); continue; }
        if (!stack.length) continue;
        const c = stack.pop(), s = stack.pop(), d = stack.length / 2;
        (depths[d] || (depths[d] = { s: [], e: [], c: [] }));
        depths[d].s.push(s); depths[d].e.push(t); depths[d].c.push(c);
      }
      while (stack.length) { /* left open: ends with the location */
        const c = stack.pop(), s = stack.pop(), d = stack.length / 2;
        (depths[d] || (depths[d] = { s: [], e: [], c: [] }));
        depths[d].s.push(s); depths[d].e.push(t); depths[d].c.push(c);
      }
      /* leaves come in end order; within a depth that is start order too */
      inst.push(depths.map((x) => x ? { s: Float64Array.from(x.s), e: Float64Array.from(x.e), c: Uint32Array.from(x.c) } : null));
    });
  }
  const msgs = { sl: [], st: [], rl: [], rt: [] };
  if (D.msgs) {
    let st = 0;
    for (let i = 0; i + 3 < D.msgs.length; i += 4) {
      st += D.msgs[i + 1];
      msgs.sl.push(D.msgs[i]); msgs.st.push(st); msgs.rl.push(D.msgs[i + 2]); msgs.rt.push(st + D.msgs[i + 3]);
    }
  }
  const colls = (D.colls || []).map((f) => {
    const pts = [];
    for (let i = 0; i + 1 < f.length; i += 2) pts.push([rowOf[f[i]], f[i + 1]]);
    pts.sort((a, b) => a[0] - b[0]);
    return { pts, lo: Math.min(...pts.map((p) => p[1])), hi: Math.max(...pts.map((p) => p[1])) };
  });
  const view = { a: 0, b: tEnd, mark: null };
  const CP_COLOUR = "#00d8ff";
  const cpath = [];
  for (let i = 0; i + 2 < (D.cpath || []).length; i += 3) cpath.push({ loc: D.cpath[i], t0: D.cpath[i + 1], t1: D.cpath[i + 2] });

  function layout() {
    const w = canvas.parentElement.clientWidth || 1000;
    const h = AXIS_H + rows.length * rowH + 4;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    canvas.style.height = h + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { w, h };
  }
  let size = layout();
  const xOf = (t) => LABEL_W + (t - view.a) * (size.w - LABEL_W) / (view.b - view.a);
  const tOf = (x) => view.a + (x - LABEL_W) * (view.b - view.a) / (size.w - LABEL_W);
  const yOf = (row) => AXIS_H + row * rowH;

  function lowerBound(arr, v) { let lo = 0, hi = arr.length; while (lo < hi) { const m = (lo + hi) >> 1; if (arr[m] < v) lo = m + 1; else hi = m; } return lo; }

  /* One depth of one row; instances narrower than a pixel merge into one pixel column. */
  function drawDepth(x, row, d) {
    const y = yOf(row) + Math.min(d, 3), h = rowH - 1 - Math.min(d, 3) * 2;
    if (h < 1) return 0;
    let i = lowerBound(x.e, view.a), lastPx = -1, fill = "", n = 0;
    const right = size.w;
    for (; i < x.s.length && x.s[i] <= view.b; i++) {
      let x0 = xOf(x.s[i]), x1 = xOf(x.e[i]);
      if (x0 < LABEL_W) x0 = LABEL_W;
      if (x1 > right) x1 = right;
      if (x1 - x0 < 1) { const px = Math.floor(x0); if (px === lastPx) continue; lastPx = px; x0 = px; x1 = px + 1; }
      else lastPx = Math.floor(x1 - 1);
      const f = KIND_COLOUR[regionKind[x.c[i] - 1]] || KIND_COLOUR.other;
      if (f !== fill) { ctx.fillStyle = fill = f; }
      ctx.fillRect(x0, y, x1 - x0, h);
      n++;
    }
    return n;
  }

  function drawAggregated(row, l) {
    const A = D.agg, K = A.kinds.length, v = A.v[l], y = yOf(row), h = rowH - 1;
    const b0 = Math.max(0, Math.floor((view.a - A.t0) / A.w)), b1 = Math.min(A.bins - 1, Math.floor((view.b - A.t0) / A.w));
    let n = 0;
    for (let b = b0; b <= b1; b++) {
      const x0 = Math.max(LABEL_W, xOf(A.t0 + b * A.w)), x1 = Math.min(size.w, xOf(A.t0 + (b + 1) * A.w));
      let yy = y + h;
      for (let k = 0; k < K; k++) {
        const f = v[b * K + k] / 1000;
        if (f <= 0) continue;
        const hh = f * h;
        ctx.fillStyle = KIND_COLOUR[A.kinds[k]];
        ctx.fillRect(x0, yy - hh, Math.max(1, x1 - x0), hh);
        yy -= hh; n++;
      }
    }
    return n;
  }

  function drawAxis() {
    ctx.fillStyle = "#333"; ctx.font = "11px sans-serif"; ctx.textBaseline = "middle";
    const span = view.b - view.a, target = span / 8;
    const p = Math.pow(10, Math.floor(Math.log10(target))), step = [1, 2, 5, 10].map((k) => k * p).find((s) => s >= target);
    ctx.strokeStyle = "#ddd"; ctx.beginPath();
    for (let t = Math.ceil(view.a / step) * step; t <= view.b; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      ctx.moveTo(x, AXIS_H - 4); ctx.lineTo(x, size.h);
      ctx.fillText((t / 1e9).toFixed(Math.max(0, -Math.floor(Math.log10(step / 1e9)))) + " s", x + 2, AXIS_H / 2);
    }
    ctx.stroke();
  }

  function drawLabels() {
    ctx.fillStyle = "#f4f4f4"; ctx.fillRect(0, 0, LABEL_W, size.h);
    ctx.fillStyle = "#222"; ctx.font = Math.min(11, rowH) + "px sans-serif"; ctx.textBaseline = "middle";
    let prevNode = null;
    rows.forEach((l, r) => {
      const L = D.locs[l], y = yOf(r);
      if (L[3] !== prevNode) {
        prevNode = L[3];
        ctx.strokeStyle = "#888"; ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(size.w, y + 0.5); ctx.stroke();
      }
      if (rowH >= 8) ctx.fillText(L[3] + " r" + L[0] + " t" + L[1], 4, y + rowH / 2);
    });
  }

  function drawRelations() {
    const mid = rowH / 2;
    ctx.strokeStyle = "rgba(120,40,160,0.75)"; ctx.lineWidth = 1; ctx.beginPath();
    for (const c of colls) {
      if (c.hi < view.a || c.lo > view.b) continue;
      c.pts.forEach((p, k) => { const x = xOf(p[1]), y = yOf(p[0]) + mid; if (k) ctx.lineTo(x, y); else ctx.moveTo(x, y); });
    }
    ctx.stroke();
    ctx.strokeStyle = "rgba(0,0,0,0.8)"; ctx.beginPath();
    let n = 0;
    for (let i = 0; i < msgs.st.length && n < 50000; i++) {
      const a = Math.min(msgs.st[i], msgs.rt[i]), b = Math.max(msgs.st[i], msgs.rt[i]);
      if (b < view.a || a > view.b) continue;
      ctx.moveTo(xOf(msgs.st[i]), yOf(rowOf[msgs.sl[i]]) + mid); ctx.lineTo(xOf(msgs.rt[i]), yOf(rowOf[msgs.rl[i]]) + mid);
      n++;
    }
    ctx.stroke();
    return n;
  }

  /* The critical path: a bright line along each hop's row, joined where it moves to another location. */
  function drawPath() {
    if (!$("show-cpath").checked || !cpath.length) return 0;
    const mid = rowH / 2;
    let n = 0;
    ctx.strokeStyle = CP_COLOUR; ctx.lineWidth = Math.max(2, Math.min(4, Math.floor(rowH / 4))); ctx.beginPath();
    cpath.forEach((h, i) => {
      const y = yOf(rowOf[h.loc]) + mid, prev = cpath[i - 1];
      if (prev && prev.loc !== h.loc && Math.max(prev.t1, h.t0) >= view.a && Math.min(prev.t1, h.t0) <= view.b) {
        ctx.moveTo(xOf(prev.t1), yOf(rowOf[prev.loc]) + mid); ctx.lineTo(xOf(h.t0), y);
      }
      if (h.t1 < view.a || h.t0 > view.b) return;
      ctx.moveTo(xOf(h.t0), y); ctx.lineTo(Math.max(xOf(h.t1), xOf(h.t0) + 1), y);
      n++;
    });
    ctx.stroke(); ctx.lineWidth = 1;
    return n;
  }

  function draw() {
    size = layout();
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, size.w, size.h);
    drawAxis();
    let drawn = 0, rowsDrawn = 0;
    ctx.save(); ctx.beginPath(); ctx.rect(LABEL_W, 0, size.w - LABEL_W, size.h); ctx.clip();
    rows.forEach((l, r) => {
      if (D.agg) drawn += drawAggregated(r, l);
      else (inst[l] || []).forEach((x, d) => { if (x) drawn += drawDepth(x, r, d); });
      rowsDrawn++;
    });
    const nmsg = D.agg ? 0 : drawRelations();
    const nhops = drawPath();
    if (view.mark) {
      const m = view.mark, x0 = xOf(m.t), x1 = Math.max(x0 + 3, xOf(m.t + m.v)), y = yOf(rowOf[m.loc]);
      ctx.strokeStyle = "#000"; ctx.lineWidth = 2; ctx.strokeRect(x0 - 1, y - 1, x1 - x0 + 2, rowH + 1);
      ctx.strokeStyle = "#ff0"; ctx.lineWidth = 1; ctx.strokeRect(x0 - 2, y - 2, x1 - x0 + 4, rowH + 3);
    }
    ctx.restore();
    drawLabels();
    canvas.dataset.rows = rowsDrawn;
    canvas.dataset.drawn = drawn;
    canvas.dataset.messages = nmsg;
    canvas.dataset.cpath = nhops;
    const digits = Math.min(9, Math.max(6, 3 - Math.floor(Math.log10((view.b - view.a) / 1e9))));
    $("view-range").textContent = (view.a / 1e9).toFixed(digits) + " s \u2013 " + (view.b / 1e9).toFixed(digits) + " s";
    return { drawn, rowsDrawn };
  }

  function setView(a, b) {
    const min = 100; /* ns */
    if (b - a < min) { const c = (a + b) / 2; a = c - min / 2; b = c + min / 2; }
    const span = Math.max(1, tEnd) * 1.02;
    if (b - a > span) { a = -0.01 * tEnd; b = a + span; }
    view.a = a; view.b = b;
    draw();
  }
  const zoom = (f, at) => { const c = at === undefined ? (view.a + view.b) / 2 : at; setView(c - (c - view.a) * f, c + (view.b - c) * f); };
  const pan = (f) => { const d = (view.b - view.a) * f; setView(view.a + d, view.b + d); };
  $("zoom-in").onclick = () => zoom(0.5);
  $("zoom-out").onclick = () => zoom(2);
  $("pan-left").onclick = () => pan(-0.25);
  $("pan-right").onclick = () => pan(0.25);
  $("zoom-reset").onclick = () => { view.mark = null; setView(0, tEnd); };
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const r = canvas.getBoundingClientRect();
    zoom(e.deltaY < 0 ? 0.8 : 1.25, tOf(e.clientX - r.left));
  }, { passive: false });
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, a: view.a, b: view.b }; canvas.style.cursor = "grabbing"; });
  window.addEventListener("mouseup", () => { drag = null; canvas.style.cursor = "grab"; });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dt = (e.clientX - drag.x) * (drag.b - drag.a) / (size.w - LABEL_W);
    setView(drag.a - dt, drag.b - dt);
  });
  canvas.addEventListener("mousemove", (e) => {
    const r = canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    const row = Math.floor((y - AXIS_H) / rowH);
    if (row < 0 || row >= rows.length || x < LABEL_W) { $("hover").textContent = "\u00a0"; return; }
    const l = rows[row], t = tOf(x), L = D.locs[l];
    let text = "rank " + L[0] + " thread " + L[1] + " at " + secs(t) + " s";
    (inst[l] || []).forEach((d) => {
      if (!d) return;
      const i = lowerBound(d.e, t);
      if (i < d.s.length && d.s[i] <= t) text += " \u203a " + D.regions[d.c[i] - 1][0] + " (" + secs(d.e[i] - d.s[i]) + " s)";
    });
    if (cpath.some((h) => h.loc === l && h.t0 <= t && t < h.t1)) text += " \u2014 on the critical path";
    $("hover").textContent = text;
  });
  window.addEventListener("resize", draw);

  const legend = $("legend");
  Object.keys(KIND_COLOUR).forEach((k) => {
    const s = el("span"), i = el("i");
    i.style.background = KIND_COLOUR[k];
    s.append(i, KIND_NAME[k]);
    legend.append(s);
  });
  if (!D.agg) legend.append(el("span", null, "\u2014 black: messages, purple: collective instances"));
  if (cpath.length) {
    const s = el("span"), i = el("i");
    i.style.background = CP_COLOUR;
    s.append(i, "critical path");
    legend.append(s);
  } else {
    $("cpath-toggle").hidden = true;
  }
  $("show-cpath").addEventListener("change", draw);

  function showLocation(l) {
    const y = yOf(rowOf[l]);
    ctx.fillStyle = "rgba(255,255,0,0.35)"; ctx.fillRect(LABEL_W, y, size.w - LABEL_W, rowH);
    canvas.scrollIntoView({ block: "nearest" });
  }

  /* ---- worst wait states ------------------------------------------------------------ */
  const tbody = $("worst").querySelector("tbody");
  const worst = D.worst.slice().sort((a, b) => b[4] - a[4]).slice(0, 40);
  worst.forEach((w) => {
    const [m, l, c, t, v] = w, L = D.locs[l];
    const tr = el("tr");
    tr.dataset.metric = D.metrics[m][0];
    tr.append(el("td", null, D.metrics[m][1] + " (" + D.metrics[m][0] + ")"), el("td", "num", secs(v)),
      el("td", "num", L[0]), el("td", "num", L[1]), el("td", "num", secs(t)), el("td", null, cPath(c)));
    tr.addEventListener("click", () => {
      for (const r of tbody.children) r.classList.toggle("selected", r === tr);
      view.mark = { loc: l, t: t, v: v };
      const pad = Math.max(v * 0.5, 1000);
      setView(t - pad, t + v + pad);
      canvas.scrollIntoView({ block: "nearest" });
    });
    tbody.append(tr);
  });
  if (!worst.length) tbody.append(el("tr")).append(el("td", null, "no wait states"));

  /* ---- causes: the wait states and the delays that caused them ---------------------------- */
  /* a wait-state metric -> the delay cost its waits are charged to (short-term + long-term) */
  const DELAY_OF = {
    mpi_latesender: "delay_latesender_aggregate", mpi_latereceiver: "delay_latereceiver_aggregate",
    mpi_barrier_wait: "delay_barrier_aggregate", mpi_wait_nxn: "delay_n2n_aggregate",
    mpi_latebroadcast: "delay_12n_aggregate", mpi_earlyreduce: "delay_n21_aggregate",
    omp_ebarrier_wait: "delay_ompbarrier_aggregate", omp_ibarrier_wait: "delay_ompbarrier_aggregate",
    omp_idle_threads: "delay_ompidle_aggregate",
  };
  function causesView() {
    const body = $("wstates").querySelector("tbody"), dbody = $("delayers").querySelector("tbody");
    if (!D.causes) {
      $("causes-box").replaceWith(el("p", null, "The root-cause analysis did not run (SYNCTRACE_ROOTCAUSE=off)."));
      return;
    }
    const states = D.causes.filter((w) => w[2] > 0).sort((a, b) => b[2] - a[2] || a[0] - b[0] || a[1] - b[1]).slice(0, 200);
    const pct = (a, b) => (b > 0 ? (100 * a / b).toFixed(1) : "0.0") + "%";
    const select = (w, tr) => {
      for (const r of body.children) r.classList.toggle("selected", r === tr);
      dbody.textContent = "";
      const [m, c, wait, , ds] = w;
      $("delayers-title").textContent = D.metrics[m][1] + " at " + cPath(c) + ": " + secs(wait * 1e9) + " s waiting; " +
        (ds.length ? "the delays that caused it" : "no delay found (the waiting began with no excess time of its delayer)");
      for (let i = 0; i + 3 < ds.length && i < 4 * 200; i += 4) {
        const [l, dc, st, lt] = ds.slice(i, i + 4), L = D.locs[l], dtr = el("tr");
        dtr.dataset.rank = L[0]; dtr.dataset.thread = L[1]; dtr.dataset.path = cPath(dc);
        dtr.append(el("td", "num", secs((st + lt) * 1e9)), el("td", "num", secs(st * 1e9)), el("td", "num", secs(lt * 1e9)),
          el("td", "num", pct(st + lt, wait)), el("td", "num", L[0]), el("td", "num", L[1]), el("td", null, cPath(dc)));
        dtr.addEventListener("click", () => { /* the delay cost in the trees, at the delay's call path */
          for (const r of dbody.children) r.classList.toggle("selected", r === dtr);
          const dm = D.metrics.findIndex((x) => x[0] === DELAY_OF[D.metrics[m][0]]);
          if (dm < 0) return;
          for (let p = D.metrics[dm][2]; p >= 0; p = D.metrics[p][2]) state.mOpen.add(p);
          for (let p = D.cnodes[dc][0]; p >= 0; p = D.cnodes[p][0]) state.cOpen.add(p);
          state.metric = dm; state.cnode = dc;
          update();
        });
        dbody.append(dtr);
      }
    };
    states.forEach((w) => {
      const [m, c, wait, prop, ds] = w, tr = el("tr");
      let charged = 0; /* what the delays below were charged of it, short- and long-term */
      for (let i = 0; i + 3 < ds.length; i += 4) charged += ds[i + 2] + ds[i + 3];
      tr.dataset.metric = D.metrics[m][0]; tr.dataset.path = cPath(c); tr.dataset.charged = charged;
      tr.append(el("td", null, D.metrics[m][1] + " (" + D.metrics[m][0] + ")"), el("td", null, cPath(c)),
        el("td", "num", secs(wait * 1e9)), el("td", "num", secs(prop * 1e9) + " (" + pct(prop, wait) + ")"),
        el("td", "num", secs(charged * 1e9) + " (" + pct(charged, wait) + ")"), el("td", "num", ds.length / 4));
      tr.addEventListener("click", () => select(w, tr));
      body.append(tr);
    });
    if (!states.length) body.append(el("tr")).append(el("td", null, "no wait states with causes"));
  }

  /* ---- time base ---------------------------------------------------------------------- */
  function timeBase() {
    const box = $("timebase"), P = new Map(D.props);
    const get = (k) => (P.has(k) ? P.get(k) : "\u2014");
    const table = (head, body) => {
      const t = el("table"), h = el("tr");
      head.forEach((x) => h.append(el("th", null, x)));
      t.append(h);
      body.forEach((r) => { const tr = el("tr"); r.forEach((x) => tr.append(el("td", null, x))); t.append(tr); });
      return t;
    };
    box.append(el("h3", null, "Clock synchronization"));
    box.append(table(["scheme", "clock", "nodes", "initial sync [ms]", "resyncs", "min RTT intra / inter [ns]",
      "interpolation error (leave-one-out) [ns]", "extrapolation error [ns]", "largest re-map [ns]"],
    [[get("SYNC_SCHEME"), get("SYNC_CLOCK"), get("SYNC_NODES"), get("SYNC_INIT_MS"), get("SYNC_RESYNCS"),
      get("SYNC_RTT_MIN_INTRA_NS") + " / " + get("SYNC_RTT_MIN_INTER_NS"), get("SYNC_INTERPOLATION_LOO_NS"),
      get("SYNC_EXTRAPOLATION_ERR_NS"), get("SYNC_REMAP_MAX_NS")]]));
    /* per rank: the sync epochs and error estimates each rank stored */
    const ranks = new Map();
    D.rankprops.forEach(([r, k, v]) => { if (!ranks.has(r)) ranks.set(r, new Map()); ranks.get(r).set(k, v); });
    const rk = (m, k) => (m.has(k) ? m.get(k) : "\u2014");
    const body = [];
    ranks.forEach((m, r) => {
      const epochs = [...m.keys()].filter((k) => /^SYNC_EPOCH_\d+$/.test(k))
        .sort((a, b) => +a.slice(11) - +b.slice(11)).map((k) => k.slice(11) + ": " + m.get(k));
      body.push([String(r), rk(m, "SYNC_EPOCHS"), rk(m, "SYNC_INTERPOLATION_LOO_NS"), rk(m, "SYNC_EXTRAPOLATION_ERR_NS"),
        rk(m, "SYNC_REMAP_MAX_NS"), epochs.join("\n") || "\u2014"]);
    });
    box.append(el("h3", null, "Sync epochs per rank"));
    const te = table(["rank", "epochs", "interpolation error [ns]", "extrapolation error [ns]", "largest re-map [ns]",
      "epochs (as stored)"], body);
    te.id = "epochs";
    te.querySelectorAll("td:last-child").forEach((td) => (td.style.whiteSpace = "pre"));
    box.append(te);
    box.append(el("h3", null, "Controlled logical clock"));
    box.append(table(["state", "events moved", "largest shift [ns]", "reversed p2p", "reversed collective",
      "reversed OpenMP"], [[get("CLC_STATE"), get("CLC_MOVED"), get("CLC_SHIFT_MAX_NS"), get("CLC_REVERSED_P2P"),
      get("CLC_REVERSED_COLL"), get("CLC_REVERSED_OMP")]]));
    box.append(el("h3", null, "Clock check"));
    const checks = D.props.filter(([k]) => /^SYNC_CHECK_\d+$/.test(k));
    box.append(checks.length ? table(["check", "result"], checks)
      : el("p", null, "did not run (SYNCTRACE_CLOCKCHECK)"));
    box.append(el("h3", null, "Consistency seen by the analysis"));
    const S = D.stats;
    box.append(table(["receives before their send", "collective ends before the reference begin",
      "unpaired enter/leave", "collectives not analysed"],
    [[S.ls_violations, S.coll_violations, S.unpaired, S.coll_skipped].map(String)]));
    const all = el("details");
    all.append(el("summary", null, "all archive properties (SYNCTRACE::*)"), table(["key", "value"], D.props));
    box.append(all);
  }

  update();
  causesView();
  timeBase();
  const first = draw();
  window.stReport.drawMs = performance.now() - t0;
  window.stReport.readyAt = performance.now(); /* ms since the navigation started */
  window.stReport.rows = first.rowsDrawn;
  window.stReport.drawn = first.drawn;
  window.stReport.ready = true;
})();
