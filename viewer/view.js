/* SPDX-License-Identifier: GPL-2.0-or-later */
/* view.js: the four views of `cats view` (C.A.T.S. paper §4 and the
 * communication projection), in plain JavaScript without libraries.
 *
 * The page carries its data in <script id="cats-data">: the trace as
 * `cats dump --json` writes it (docs/JSON.md), the dependencies between
 * contexts from the value communication graph, and the communication
 * projection (docs/COMM-JSON.md). Everything is derived here once (the
 * model), then each tab draws from it when first shown.
 *
 * Large traces stay responsive because the timeline draws on canvases
 * and only what is in view: access records become at most one line per
 * pixel column, repeated allocations show their instances only when they
 * are far enough apart, tiny scopes collapse to one mark per pixel, trees
 * build their rows when expanded, and the heat maps are images with one
 * pixel per matrix cell.
 *
 * Names from the trace are untrusted: they only ever reach the page as
 * textContent, attribute values or canvas text, never as markup.
 *
 * window.catsView exposes what was drawn (stats()) and a few actions for
 * the tests (tests/test_view.py). */
(function () {
  'use strict';

  /* ---------------------------------------------------------------------
   * Helpers
   * ------------------------------------------------------------------- */

  function el(tag, props) {
    const e = document.createElement(tag);
    if (props) {
      for (const k of Object.keys(props)) {
        const v = props[k];
        if (v === undefined || v === null) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = v;
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v);
      }
    }
    for (let i = 2; i < arguments.length; i++) {
      const c = arguments[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return e;
  }

  const SVGNS = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
    return e;
  }

  function fmtInt(n) {
    return Math.round(Number(n)).toLocaleString('en-US');
  }

  function fmtBytes(n) {
    n = Number(n);
    if (!isFinite(n)) return '?';
    if (Math.abs(n) < 1024) return fmtInt(n) + ' B';
    const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    let u = -1;
    do { n /= 1024; u++; } while (Math.abs(n) >= 1024 && u < units.length - 1);
    return n.toFixed(n < 10 ? 2 : 1) + ' ' + units[u];
  }

  function basename(p) {
    const i = p.lastIndexOf('/');
    return i >= 0 ? p.slice(i + 1) : p;
  }

  function median(sorted) {
    const n = sorted.length;
    if (!n) return 0;
    return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /* The tooltip: lines of [label, value] or plain strings. */
  const tip = document.getElementById('tip');
  function showTip(ev, title, lines) {
    tip.textContent = '';
    tip.appendChild(el('b', { text: title }));
    for (const l of lines) {
      tip.appendChild(document.createTextNode('\n'));
      tip.appendChild(document.createTextNode(Array.isArray(l) ? l[0] + ': ' + l[1] : l));
    }
    tip.style.display = 'block';
    const w = tip.offsetWidth, h = tip.offsetHeight;
    let x = ev.clientX + 14, y = ev.clientY + 14;
    if (x + w > window.innerWidth - 4) x = Math.max(4, ev.clientX - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, ev.clientY - h - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }
  function hideTip() { tip.style.display = 'none'; }

  /* A canvas sized in CSS pixels, drawn at the device's resolution. */
  function fitCanvas(cv, w, h) {
    const dpr = window.devicePixelRatio || 1;
    cv.style.width = w + 'px';
    cv.style.height = h + 'px';
    cv.width = Math.max(1, Math.round(w * dpr));
    cv.height = Math.max(1, Math.round(h * dpr));
    const g = cv.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    return g;
  }

  /* Kelly's colours of maximum contrast without white and black (the
   * paper's rotating palette for allocations). */
  const KELLY = ['#F3C300', '#875692', '#F38400', '#A1CAF1', '#BE0032', '#C2B280',
    '#848482', '#008856', '#E68FAC', '#0067A5', '#F99379', '#604E97', '#F6A600',
    '#B3446C', '#DCD300', '#882D17', '#8DB600', '#654522', '#E25822', '#2B3D26'];

  const PATTERNS = ['constant', 'stride-1', 'stride-k', 'irregular'];
  const PATTERN_LABEL = ['constant', 'stride-1', 'stride-k', 'indirect'];
  const PATTERN_COLOR = ['#9e9e9e', '#3a9a5b', '#e08a1e', '#c0392b'];
  const PAT_INDEX = { 'constant': 0, 'stride-1': 1, 'stride-k': 2, 'irregular': 3 };

  /* ---------------------------------------------------------------------
   * Data and model
   * ------------------------------------------------------------------- */

  let DATA;
  try {
    DATA = JSON.parse(document.getElementById('cats-data').textContent);
  } catch (e) {
    document.querySelector('main').textContent = 'cats view: the embedded data is not valid JSON (' + e.message + ')';
    return;
  }
  const TR = DATA.trace;
  const modelStart = performance.now();
  const M = buildModel(TR);
  const modelMs = performance.now() - modelStart;

  function buildModel(t) {
    const ctxs = t.contexts, allocs = t.allocs, events = t.events;
    const nC = ctxs.length, nA = allocs.length;
    const m = { ctxs, allocs, events, locs: t.locs, meta: t.meta || {} };

    m.children = Array.from({ length: nC }, () => []);
    m.roots = [];
    for (let i = 0; i < nC; i++) {
      const p = ctxs[i].parent;
      (p === null ? m.roots : m.children[p]).push(i);
    }
    const byFirst = (a, b) => ctxs[a].first_time - ctxs[b].first_time || a - b;
    for (const ch of m.children) ch.sort(byFirst);
    m.roots.sort(byFirst);
    m.ctxByFirst = Array.from({ length: nC }, (_, i) => i).sort(byFirst);

    // The end of the run: the tool's final clock, or the latest time seen.
    let tEnd = Number(m.meta.time_end) || 0;
    for (const c of ctxs) tEnd = Math.max(tEnd, c.last_time);
    for (const a of allocs) tEnd = Math.max(tEnd, a.last_alloc, a.last_free);
    for (const e of events) tEnd = Math.max(tEnd, e.last_time);
    m.tEnd = tEnd + 1;

    // The program's own containers (cats view marks them; all without).
    m.ours = new Uint8Array(nA).fill(DATA.program ? 0 : 1);
    if (DATA.program) for (const i of DATA.program.containers) m.ours[i] = 1;

    // Per allocation: its access records and their time span.
    m.allocEvents = Array.from({ length: nA }, () => []);
    m.allocAcc = new Float64Array(nA * 4);
    const firstAcc = new Float64Array(nA).fill(Infinity);
    const lastAcc = new Float64Array(nA).fill(-Infinity);
    const firstRead = new Float64Array(nA).fill(Infinity);
    const firstWrite = new Float64Array(nA).fill(Infinity);
    // Per context: own accesses and records by pattern.
    const ownAcc = new Float64Array(nC * 4), ownRec = new Float64Array(nC * 4);
    m.ctxEvents = Array.from({ length: nC }, () => []);
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const p = PAT_INDEX[e.class];
      m.allocEvents[e.alloc].push(i);
      m.allocAcc[e.alloc * 4 + p] += e.count;
      m.ctxEvents[e.ctx].push(i);
      ownAcc[e.ctx * 4 + p] += e.count;
      ownRec[e.ctx * 4 + p] += 1;
      firstAcc[e.alloc] = Math.min(firstAcc[e.alloc], e.first_time);
      lastAcc[e.alloc] = Math.max(lastAcc[e.alloc], e.last_time);
      if (e.kind === 'write') firstWrite[e.alloc] = Math.min(firstWrite[e.alloc], e.first_time);
      else firstRead[e.alloc] = Math.min(firstRead[e.alloc], e.first_time);
    }
    for (const list of m.allocEvents) list.sort((x, y) => events[x].first_time - events[y].first_time);
    m.firstAcc = firstAcc;
    m.lastAcc = lastAcc;
    // An input is read before it is written (its values came from outside
    // the traced code); an output lives to the end and was written.
    m.isInput = (i) => firstRead[i] < firstWrite[i];
    m.isOutput = (i) => allocEnd(allocs[i], m.tEnd) >= m.tEnd - 1 && firstWrite[i] < Infinity;

    // Subtree sums: parents have smaller ids, so one pass from the end.
    m.incAcc = Float64Array.from(ownAcc);
    m.incRec = Float64Array.from(ownRec);
    m.loops = new Float64Array(nC);
    m.nest = new Float64Array(nC);          // deepest loop nest in the subtree
    const childNest = new Float64Array(nC);
    m.allocBytes = new Float64Array(nC);    // size x max_live of allocations made there
    m.allocCount = new Float64Array(nC);    // instances
    for (const a of allocs) {
      if (a.alloc_ctx === null) continue;
      m.allocBytes[a.alloc_ctx] += a.size * a.max_live;
      m.allocCount[a.alloc_ctx] += a.count;
    }
    for (let i = nC - 1; i >= 0; i--) {
      const isLoop = ctxs[i].kind === 'loop' ? 1 : 0;
      m.loops[i] += isLoop;
      m.nest[i] = isLoop + childNest[i];
      const p = ctxs[i].parent;
      if (p === null) continue;
      for (let k = 0; k < 4; k++) {
        m.incAcc[p * 4 + k] += m.incAcc[i * 4 + k];
        m.incRec[p * 4 + k] += m.incRec[i * 4 + k];
      }
      m.loops[p] += m.loops[i];
      childNest[p] = Math.max(childNest[p], m.nest[i]);
      m.allocBytes[p] += m.allocBytes[i];
      m.allocCount[p] += m.allocCount[i];
    }

    // Entry and exit order of a depth-first walk: a is an ancestor of c
    // (or c) when tin[a] <= tin[c] and tout[c] <= tout[a].
    m.tin = new Int32Array(nC);
    m.tout = new Int32Array(nC);
    let clock = 0;
    for (const r of m.roots) {
      const stack = [r], pos = [0];
      m.tin[r] = clock++;
      while (stack.length) {
        const c = stack[stack.length - 1], i = pos[pos.length - 1];
        if (i < m.children[c].length) {
          pos[pos.length - 1]++;
          const ch = m.children[c][i];
          m.tin[ch] = clock++;
          stack.push(ch);
          pos.push(0);
        } else {
          m.tout[c] = clock++;
          stack.pop();
          pos.pop();
        }
      }
    }

    m.main = null;
    for (let i = 0; i < nC; i++) {
      if (ctxs[i].kind === 'function' && ctxs[i].name === 'main') { m.main = i; break; }
    }
    // The program's own scopes (cats view marks them, as it does its
    // containers; thread roots always show; all without that mark).
    m.ownScope = new Uint8Array(nC).fill(DATA.program ? 0 : 1);
    if (DATA.program) for (const i of DATA.program.scopes) m.ownScope[i] = 1;
    for (let i = 0; i < nC; i++) if (ctxs[i].kind === 'thread') m.ownScope[i] = 1;
    return m;
  }

  /* When an allocation record's last instance ends: its last release, or
   * the end of the run if one was never released. */
  function allocEnd(a, tEnd) {
    if (a.never_freed || (!a.first_free && !a.last_free)) return tEnd;
    return Math.max(a.last_free, a.first_alloc + 1);
  }

  /* The median reuse distance of an allocation, as text, when the data
   * has reuse distances: a histogram "reuse" {cold, buckets} (bucket 0
   * distance 0, bucket b in [2^(b-1), 2^b) cache lines, the last one
   * open), or a plain number median_reuse_distance. Null otherwise. */
  function reuseMedian(a) {
    if (typeof a.median_reuse_distance === 'number') return fmtInt(a.median_reuse_distance);
    const r = a.reuse;
    if (!r || !Array.isArray(r.buckets)) return null;
    const total = r.buckets.reduce((x, y) => x + y, 0);
    if (!total) return r.cold ? 'none (only first accesses)' : null;
    let acc = 0, b = 0;
    for (; b < r.buckets.length; b++) { acc += r.buckets[b]; if (2 * acc >= total) break; }
    const unit = TR.reuse && TR.reuse.line_size ? ' lines of ' + TR.reuse.line_size + ' B' : ' lines';
    if (b === 0) return '0' + unit;
    if (b >= r.buckets.length - 1) return '\u2265 ' + fmtInt(Math.pow(2, b - 1)) + unit;
    return fmtInt(Math.pow(2, b - 1)) + '\u2013' + fmtInt(Math.pow(2, b) - 1) + unit;
  }

  /* What a user acts on: the share of accesses whose reuse distance
   * fits common cache sizes (an LRU cache of that many lines hits them;
   * first accesses miss), as 'L1 32 KiB 87% · L2 1 MiB 95% · 32 MiB 99%'.
   * Bucket 0 holds distance 0, bucket b the distances 2^(b-1) .. 2^b - 1. */
  const CACHES = [['L1 32 KiB', 32 << 10], ['L2 1 MiB', 1 << 20], ['32 MiB', 32 << 20]];
  function reuseShares(r) {
    if (!r || !Array.isArray(r.buckets)) return null;
    const line = TR.reuse && TR.reuse.line_size ? TR.reuse.line_size : 64;
    const total = r.buckets.reduce((x, y) => x + y, 0) + (r.cold || 0);
    if (!total) return null;
    return CACHES.map(([name, bytes]) => {
      const lines = bytes / line;
      let hit = 0;
      r.buckets.forEach((v, b) => { if (b === 0 || Math.pow(2, b) - 1 < lines) hit += v; });
      return name + ' ' + (100 * hit / total).toFixed(0) + '%';
    }).join(' \u00b7 ');
  }

  /* The same over the program's containers (all without that mark), or
   * null. */
  function programReuse() {
    let sum = null, cold = 0;
    TR.allocs.forEach((a, i) => {
      if (!M.ours[i] || !a.reuse || !Array.isArray(a.reuse.buckets)) return;
      if (!sum) sum = a.reuse.buckets.map(() => 0);
      a.reuse.buckets.forEach((v, k) => { sum[k] += v; });
      cold += a.reuse.cold || 0;
    });
    return sum ? reuseShares({ cold, buckets: sum }) : null;
  }

  function locShort(loc) {
    if (loc === null || loc === undefined) return '';
    const l = M.locs[loc];
    if (l.file) return basename(l.file) + ':' + l.line;
    return l.function && l.function !== '???' ? l.function : l.addr;
  }

  function ctxLabel(id) {
    const c = M.ctxs[id];
    const where = locShort(c.loc);
    switch (c.kind) {
      case 'loop': return 'loop ' + where;
      case 'conditional': return 'if ' + where;
      case 'region': return 'region ' + c.name;
      case 'signal': return 'signal ' + c.name;
      default: return c.name;
    }
  }

  /* "main › loop x.c:12 › f": from main when the context is under it. */
  function ctxPath(id) {
    if (id === null || id === undefined) return '(none)';
    const parts = [];
    for (let c = id; c !== null; c = M.ctxs[c].parent) {
      parts.push(ctxLabel(c));
      if (c === M.main) break;
    }
    return parts.reverse().join(' \u203a ');
  }

  function isAncestor(anc, id) {
    return M.tin[anc] <= M.tin[id] && M.tout[id] <= M.tout[anc];
  }

  const KIND_ICON = { loop: '\u27f3', conditional: '\u25c7', function: '\u0192', region: '\u25a3',
    thread: '\u2261', signal: '\u26a1' };

  /* ---------------------------------------------------------------------
   * Header and tabs
   * ------------------------------------------------------------------- */

  (function header() {
    const meta = M.meta;
    const bits = [];
    if (meta.command) bits.push(meta.command);
    if (meta.exit) bits.push(meta.exit);
    bits.push(fmtInt(M.tEnd - 1) + ' events');
    if (meta.peak_footprint) bits.push('peak ' + fmtBytes(meta.peak_footprint));
    bits.push(fmtInt(TR.allocs.length) + ' containers, ' + fmtInt(TR.events.length) + ' access records, ' +
      fmtInt(TR.contexts.length) + ' scopes');
    document.getElementById('run-info').textContent = bits.join(' \u00b7 ');
    if (meta.command) document.title = 'cats view: ' + meta.command;
    // A large program's records are cut to those with the most accesses.
    const R = DATA.records;
    if (R && R.shown < R.total) {
      const pct = R.accesses_total ? 100 * R.accesses_shown / R.accesses_total : 100;
      document.body.insertBefore(el('div', { class: 'note', id: 'records-note',
        text: 'Showing the ' + fmtInt(R.shown) + ' access records with the most accesses, of ' +
          fmtInt(R.total) + ' (' + pct.toFixed(1) + '% of all accesses); cats view --max-records=0 shows them all.' }),
        document.getElementById('tabs'));
    }
  })();

  const views = {};          // tab name -> { show(), stats() }
  let activeTab = null;
  function showTab(name) {
    if (!views[name]) return;
    for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.tab === name);
    for (const s of document.querySelectorAll('.tab')) s.classList.toggle('active', s.id === 'tab-' + name);
    activeTab = name;
    hideTip();
    views[name].show();
  }
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));

  /* ---------------------------------------------------------------------
   * View 1: memory timeline (paper §4.1)
   *
   * Allocation records stack over logical time in the order they were
   * made; when one ends, those above drop down. A record with several
   * instances is one block as high as its largest number live at once,
   * spanning its first allocation to its last release; its instances,
   * spread evenly over that span, are drawn when zoomed in enough. The
   * usage lifetime (first to last access) is saturated, the rest pale.
   * Below, sharing the time axis, every scope of the context tree is a
   * bar from its first entry to its last exit.
   * ------------------------------------------------------------------- */

  views.timeline = (function () {
    const L = 74, R = 12, TOP = 18, BOT = 24, MEMH = 380;
    let ROW = 14;                      // icicle row height: smaller for deep trees
    const cvMem = document.getElementById('tl-mem');
    const cvFlow = document.getElementById('tl-flow');
    const sel = {
      scale: document.getElementById('tl-scale'),
      heap: document.getElementById('tl-heap'),
      globals: document.getElementById('tl-globals'),
      frames: document.getElementById('tl-frames'),
      system: document.getElementById('tl-system'),
      hidefn: document.getElementById('tl-hidefn'),
    };
    const HEAP = new Set(['malloc', 'calloc', 'realloc', 'memalign', 'new', 'new[]', 'mmap', 'client']);
    const GLOBAL = new Set(['global', 'stack-var']);
    let v0 = 0, v1 = M.tEnd;           // the time range in view
    let width = 800;
    let blocks = [], maxUnits = 1, scaleUsed = 'linear';
    let rows = [], nrows = 1, rowOf = null;
    let shown = false, pending = false;
    let st = {};

    function scaleFn(kind) {
      if (kind === 'sqrt') return Math.sqrt;
      if (kind === 'log') return (b) => Math.log2(1 + b);
      return (b) => b;
    }

    /* The blocks in allocation order (the stacking order) with their
     * heights, usage spans and colours, and the peak of their stacked
     * height over the run (the top of the plot). */
    let byEnd = [];
    let colGeom = null;                // the columns of the last frame drawn
    function layout() {
      const want = (a, i) => ((HEAP.has(a.kind) && sel.heap.checked) ||
        (GLOBAL.has(a.kind) && sel.globals.checked) ||
        (a.kind === 'stack-frame' && sel.frames.checked)) &&
        (sel.system.checked || M.ours[i]);
      const list = [];
      let minB = Infinity, maxB = 0;
      for (let i = 0; i < M.allocs.length; i++) {
        const a = M.allocs[i];
        if (!want(a, i)) continue;
        const bytes = a.size * Math.max(1, a.max_live);
        if (bytes > 0) { minB = Math.min(minB, bytes); maxB = Math.max(maxB, bytes); }
        list.push({ id: i, a, bytes, t0: a.first_alloc, t1: Math.max(allocEnd(a, M.tEnd), a.first_alloc + 1) });
      }
      scaleUsed = sel.scale.value;
      if (scaleUsed === 'auto') {
        // The program's own containers in bytes, as they are; with the
        // system's (libc's tables dwarf them) a compressed scale.
        const ratio = maxB / (minB === Infinity ? 1 : minB);
        scaleUsed = !sel.system.checked ? 'linear' : ratio > 1e4 ? 'log' : ratio > 100 ? 'sqrt' : 'linear';
      }
      const f = scaleFn(scaleUsed);
      list.sort((x, y) => x.t0 - y.t0 || x.id - y.id);
      list.forEach((b, k) => {
        b.h = Math.max(f(b.bytes), 0);
        const rgb = hexRgb(KELLY[k % KELLY.length]);
        b.color = KELLY[k % KELLY.length];
        b.px = packColors(rgb);
        // usage: first to last access, from the start for an input and to
        // the end for an output
        b.u0 = M.firstAcc[b.id];
        b.u1 = M.lastAcc[b.id];
        if (b.u0 !== Infinity) {
          if (M.isInput(b.id)) b.u0 = b.t0;
          if (M.isOutput(b.id)) b.u1 = b.t1;
        }
      });
      byEnd = list.map((_, k) => k).sort((x, y) => list[x].t1 - list[y].t1 || x - y);
      // the true peak: releases before allocations at the same time
      const ev = [];
      for (const b of list) { ev.push([b.t0, 1, b.h]); ev.push([b.t1, 0, b.h]); }
      ev.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      let top = 0, peak = 0;
      for (const [, isAlloc, h] of ev) { top += isAlloc ? h : -h; peak = Math.max(peak, top); }
      blocks = list;
      maxUnits = peak > 0 ? peak : 1;
      legend();
    }

    function hexRgb(hex) { return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)); }

    /* A block's pixel colours (RGBA packed for a little-endian
     * Uint32Array): saturated, pale (allocated but not in use), their
     * striped variants for conditional allocations, and the access line. */
    function packColors(rgb) {
      const pack = (c) => (255 << 24 | c[2] << 16 | c[1] << 8 | c[0]) >>> 0;
      const mix = (c, w, k) => c.map((x) => Math.round(x * (1 - k) + w * k));
      const pale = mix(rgb, 255, 0.7);
      return { sat: pack(rgb), pale: pack(pale), satStripe: pack(mix(rgb, 255, 0.55)),
        paleStripe: pack(mix(pale, 255, 0.6)), line: pack(mix(rgb, 0, 0.65)) };
    }

    /* Rows of the icicle: one band per thread, a row per depth; with
     * function scopes hidden a scope's row counts only the others. */
    function layoutRows() {
      const hide = sel.hidefn.checked;
      const n = M.ctxs.length;
      rowOf = new Int32Array(n).fill(-1);
      let band = 0;
      const depthIn = new Int32Array(n);
      for (const r of M.roots) {
        let maxRow = 0;
        const stack = [r];
        depthIn[r] = 0;
        while (stack.length) {
          const c = stack.pop();
          const kind = M.ctxs[c].kind;
          const visible = !(hide && kind === 'function') && (sel.system.checked || M.ownScope[c]);
          if (visible) {
            rowOf[c] = band + depthIn[c];
            maxRow = Math.max(maxRow, depthIn[c]);
          }
          for (const ch of M.children[c]) {
            depthIn[ch] = depthIn[c] + (visible ? 1 : 0);
            stack.push(ch);
          }
        }
        band += maxRow + 1;
      }
      nrows = Math.max(1, band);
      ROW = nrows <= 60 ? 14 : Math.max(2, Math.min(14, Math.floor(840 / nrows)));
      if (nrows * ROW > 16000) nrows = Math.floor(16000 / ROW);   // deeper rows are not drawn
      rows = Array.from({ length: nrows }, () => []);
      for (const c of M.ctxByFirst) if (rowOf[c] >= 0 && rowOf[c] < nrows) rows[rowOf[c]].push(c);
    }

    function legend() {
      const lg = document.getElementById('tl-legend');
      lg.textContent = '';
      const item = (style, text) => {
        const i = el('i');
        Object.assign(i.style, style);
        return el('span', null, i, text);
      };
      lg.appendChild(el('span', { text: 'heights: ' + scaleUsed + (scaleUsed === 'linear' ? ' (bytes)' :
        scaleUsed === 'log' ? ' (log\u2082 bytes)' : ' (\u221a bytes)') }));
      lg.appendChild(item({ background: '#0067A5' }, 'used (first to last access)'));
      lg.appendChild(item({ background: '#0067A5', opacity: 0.3 }, 'allocated, not in use'));
      lg.appendChild(item({ background: 'repeating-linear-gradient(45deg,#999 0 3px,#fff 3px 5px)' }, 'conditional'));
      lg.appendChild(item({ borderLeft: '2px solid #000', width: '2px' }, 'write'));
      lg.appendChild(item({ borderLeft: '2px dashed #000', width: '2px' }, 'read'));
      lg.appendChild(item({ background: '#c0392b' }, 'loop'));
      lg.appendChild(item({ background: '#1f6fb4' }, 'conditional scope'));
      lg.appendChild(item({ background: '#c8c8c8' }, 'function'));
      lg.appendChild(item({ borderLeft: '2px dashed #e67e22', width: '2px' }, 'peak footprint'));
      const all = programReuse();
      if (all) lg.appendChild(el('span', { text: 'accesses of the program\u2019s containers that a cache of this size would hit: ' + all }));
    }

    const plotW = () => width - L - R;
    const xOf = (t) => L + (t - v0) * plotW() / (v1 - v0);
    const tOf = (x) => v0 + (x - L) * (v1 - v0) / plotW();
    const yOf = (u) => TOP + (MEMH - TOP - BOT) * (1 - u / maxUnits);


    function timeTicks(g, y0, y1, labels) {
      const span = v1 - v0;
      const raw = span / Math.max(2, plotW() / 110);
      const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
      const step = [1, 2, 5, 10].map((k) => k * p).find((s) => s >= raw) || 10 * p;
      g.strokeStyle = '#eee';
      g.fillStyle = '#666';
      g.font = '11px system-ui, sans-serif';
      g.textAlign = 'center';
      g.beginPath();
      for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
        const x = Math.round(xOf(t)) + 0.5;
        g.moveTo(x, y0); g.lineTo(x, y1);
        if (labels) g.fillText(fmtInt(t), x, y1 + 14);
      }
      g.stroke();
    }

    /* Whether an instance of a repeated block lives in [ta, tb): instance
     * k is allocated at first_alloc + k*step and released as the releases
     * spread over first_free..last_free. */
    function instanceAlive(b, ta, tb) {
      const a = b.a;
      const step = (a.last_alloc - a.first_alloc) / (a.count - 1);
      const lifeStep = a.last_free ? (a.last_free - a.first_free) / (a.count - 1) : step;
      const life = Math.max(1, (a.first_free || b.t1) - a.first_alloc);
      let k = Math.min(a.count - 1, Math.floor((tb - a.first_alloc) / Math.max(step, 1e-9)));
      for (let n = 0; k >= 0 && n < Math.max(1, a.max_live) + 2; k--, n++) {
        const i0 = a.first_alloc + k * step;
        const i1 = a.last_free ? a.first_free + k * lifeStep : i0 + life;
        if (i0 < tb && Math.max(i1, i0 + 1) > ta) return true;
      }
      return false;
    }

    /* The accesses of each block in view as runs of pixel columns
     * [c0, c1] with bits (1 write, 2 read): one mark per column. A record
     * whose accesses are at least a column apart marks each access (up to
     * a budget per block), a denser one the columns it spans. */
    let endsBuf = new Float64Array(1024);
    function accessRuns(b, PW, tPer, frame) {
      const evs = M.allocEvents[b.id];
      if (!evs.length) return null;
      let budget = Math.min(8 * PW, frame.points);
      const col = (t) => Math.max(0, Math.min(PW - 1, Math.floor((t - v0) / tPer)));
      // ends of the marks as numbers column*4 + code (0 a write starts,
      // 1 one ends, 2 a read starts, 3 one ends; an end is the column
      // after the mark), sorted, then swept into runs
      let ends = endsBuf, ne = 0;
      const add = (bit, c0, c1) => {
        if (ne + 2 > ends.length) { const bigger = new Float64Array(ends.length * 2); bigger.set(ends); ends = endsBuf = bigger; }
        const code = bit === 1 ? 0 : 2;
        ends[ne++] = c0 * 4 + code;
        ends[ne++] = (c1 + 1) * 4 + code + 1;
      };
      for (const ei of evs) {
        const e = M.events[ei];
        if (e.first_time > v1) break;
        if (e.last_time < v0) continue;
        const bit = e.kind === 'write' ? 1 : 2;
        if (e.count <= 1 || e.last_time === e.first_time) { add(bit, col(e.first_time), col(e.first_time)); continue; }
        const dt = (e.last_time - e.first_time) / (e.count - 1);
        const kmin = Math.max(0, Math.ceil((v0 - e.first_time) / dt));
        const kmax = Math.min(e.count - 1, Math.floor((v1 - e.first_time) / dt));
        if (dt >= tPer && kmax - kmin < budget) {
          budget -= kmax - kmin + 1;
          frame.points -= kmax - kmin + 1;
          for (let k = kmin; k <= kmax; k++) { const c = col(e.first_time + k * dt); add(bit, c, c); }
        } else {
          add(bit, col(e.first_time), col(e.last_time));
        }
      }
      if (!ne) return null;
      const sorted = ends.subarray(0, ne).sort();
      const runs = [];
      let w = 0, r = 0, cur = 0, start = 0;
      for (let i = 0; i < ne;) {
        const c = Math.floor(sorted[i] / 4);
        for (; i < ne && Math.floor(sorted[i] / 4) === c; i++) {
          const code = sorted[i] - c * 4;
          if (code === 0) w++; else if (code === 1) w--; else if (code === 2) r++; else r--;
        }
        const bits = (w > 0 ? 1 : 0) | (r > 0 ? 2 : 0);
        if (bits !== cur) {
          if (cur) runs.push(start, c - 1, cur);
          cur = bits;
          start = c;
        }
      }
      return runs.length ? Int32Array.from(runs) : null;
    }

    /* The memory plot, painted one device-pixel column at a time: a
     * column shows the blocks that live at any time within it, stacked in
     * allocation order, so the work per frame is bounded by the columns
     * times the blocks alive at once, whatever the trace's length, and
     * blocks thinner than a pixel merge into their neighbours. */
    function drawMem() {
      const g = fitCanvas(cvMem, width, MEMH);
      const dpr = window.devicePixelRatio || 1;
      g.clearRect(0, 0, width, MEMH);
      const yBase = MEMH - BOT;
      timeTicks(g, TOP, yBase, true);
      g.fillStyle = '#666';
      g.textAlign = 'right';
      g.font = '11px system-ui, sans-serif';
      if (scaleUsed === 'linear') {
        for (let k = 0; k <= 4; k++) {
          const u = maxUnits * k / 4;
          g.fillText(fmtBytes(u), L - 6, yOf(u) + 4);
        }
      } else {
        g.fillText(scaleUsed === 'log' ? 'log\u2082 B' : '\u221a B', L - 6, TOP + 8);
      }
      const X0 = Math.round(L * dpr), X1 = Math.round((width - R) * dpr);
      const Y0 = Math.round(TOP * dpr), Y1 = Math.round(yBase * dpr);
      const DPW = Math.max(1, X1 - X0), PH = Math.max(1, Y1 - Y0);
      // Level of detail: a column costs up to the blocks alive in it, so
      // with very many alive at once columns get wider than a pixel.
      let liveSum = 0;
      for (const b of blocks) {
        if (b.t1 > v0 && b.t0 < v1) liveSum += (Math.min(b.t1, v1) - Math.max(b.t0, v0)) / (v1 - v0);
      }
      const cw = Math.max(1, Math.min(8, Math.ceil(liveSum * DPW / 1.5e6)));
      const PW = Math.ceil(DPW / cw);
      colGeom = { PW, cw, dpr };
      const tPer = (v1 - v0) / PW;
      const rowUnits = maxUnits / PH;
      const img = g.createImageData(PW, PH);
      const px = new Uint32Array(img.data.buffer);
      const n = blocks.length;
      let nBlocks = 0, nStriped = 0, nInst = 0, nLines = 0, nWrite = 0, nRead = 0;
      const plotPx = plotW();
      // accesses drawn one by one, at most this many per frame; past it
      // records mark the columns they span (zoomed out they are dense)
      const frame = { points: 40 * PW };
      for (const b of blocks) {
        b.runs = null;
        b.inst = false;
        if (b.t1 <= v0 || b.t0 >= v1) continue;
        nBlocks++;
        if (b.a.conditional) nStriped++;
        b.runs = accessRuns(b, PW, tPer, frame);
        if (b.runs) {
          for (let i = 0; i < b.runs.length; i += 3) {
            const len = b.runs[i + 1] - b.runs[i] + 1;
            nLines += len;
            if (b.runs[i + 2] & 1) nWrite += len; else nRead += len;
          }
        }
        const a = b.a;
        if (a.count > 1) {
          const step = (a.last_alloc - a.first_alloc) / (a.count - 1);
          if (step * plotPx / (v1 - v0) >= 4) {
            b.inst = true;
            const life = Math.max(1, (a.first_free || b.t1) - a.first_alloc);
            const kmin = Math.max(0, Math.ceil((v0 - a.first_alloc - life) / step));
            const kmax = Math.min(a.count - 1, Math.floor((v1 - a.first_alloc) / step));
            for (let k = kmin; k <= kmax; k++) if (instanceAlive(b, a.first_alloc + k * step, a.first_alloc + k * step + 1)) nInst++;
          }
        }
      }
      // A column is the previous one copied, with these painted again:
      // the blocks above the lowest one that started or ended there (the
      // stacking above it changed), and the blocks whose look changes
      // there (usage starts or ends, an access run or an instance starts
      // or ends). So a column costs the rows plus what changed in it, and
      // at most the blocks alive in it.
      const col = (t) => Math.floor((t - v0) / tPer);
      const changes = new Map();
      const striped = [];
      const mark = (c, k) => {
        if (c <= 0 || c >= PW) return;
        let l = changes.get(c);
        if (!l) changes.set(c, l = []);
        l.push(k);
      };
      for (let k = 0; k < n; k++) {
        const b = blocks[k];
        if (b.t1 <= v0 || b.t0 >= v1) continue;
        if (b.a.conditional) striped.push(k);
        if (b.u0 !== Infinity) { mark(col(b.u0), k); mark(col(b.u1) + 1, k); }
        if (b.runs) for (let i = 0; i < b.runs.length; i += 3) { mark(b.runs[i], k); mark(b.runs[i + 1] + 1, k); }
        if (b.inst) {
          const a = b.a;
          const step = (a.last_alloc - a.first_alloc) / (a.count - 1);
          const lifeStep = a.last_free ? (a.last_free - a.first_free) / (a.count - 1) : step;
          const life = Math.max(1, (a.first_free || b.t1) - a.first_alloc);
          const kmin = Math.max(0, Math.ceil((v0 - a.first_alloc - life) / step) - 1);
          const kmax = Math.min(a.count - 1, Math.floor((v1 - a.first_alloc) / step));
          for (let i = kmin; i <= kmax; i++) {
            const i0 = a.first_alloc + i * step;
            const i1 = a.last_free ? a.first_free + i * lifeStep : i0 + life;
            mark(col(i0), k);
            mark(col(Math.max(i1, i0 + 1)) + 1, k);
          }
        }
      }
      const runBits = (b, c) => {
        const runs = b.runs;
        if (!runs) return 0;
        let lo = 0, hi = runs.length / 3 - 1;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          if (runs[mid * 3 + 1] < c) lo = mid + 1;
          else if (runs[mid * 3] > c) hi = mid - 1;
          else return runs[mid * 3 + 2];
        }
        return 0;
      };
      // conditional allocations: diagonal stripes (painted in every
      // column, as copying a column would not continue them)
      const paint = (b, c, ta, tb) => {
        const r0 = b.r0, r1 = b.r1;
        if (r1 <= r0) return;
        const used = b.inst ? instanceAlive(b, ta, tb) : b.u0 < tb && b.u1 >= ta;
        const cols = b.px;
        const base = used ? cols.sat : cols.pale;
        if (b.a.conditional) {
          const stripe = used ? cols.satStripe : cols.paleStripe;
          for (let r = r0; r < r1; r++) px[r * PW + c] = (c + r) % 6 < 2 ? stripe : base;
        } else {
          for (let r = r0; r < r1; r++) px[r * PW + c] = base;
        }
        const bits = runBits(b, c);
        if (bits & 1) for (let r = r0; r < r1; r++) px[r * PW + c] = cols.line;
        else if (bits) for (let r = r0; r < r1; r++) if ((r - r0) % 4 < 2) px[r * PW + c] = cols.line;
      };
      const dead = new Uint8Array(n);
      let live = [], ia = 0, ie = 0;
      for (let c = 0; c < PW; c++) {
        const ta = v0 + c * tPer, tb = ta + tPer;
        let from = Infinity;                  // lowest position whose stacking changed
        if (ie < n && blocks[byEnd[ie]].t1 <= ta) {
          while (ie < n && blocks[byEnd[ie]].t1 <= ta) dead[byEnd[ie++]] = 1;
          const kept = [];
          for (let i = 0; i < live.length; i++) {
            if (dead[live[i]]) from = Math.min(from, kept.length);
            else kept.push(live[i]);
          }
          live = kept;
        }
        if (ia < n && blocks[ia].t0 < tb) {
          from = Math.min(from, live.length);
          while (ia < n && blocks[ia].t0 < tb) live.push(ia++);
        }
        if (c === 0) from = 0;
        if (c > 0) for (let r = 0; r < PH; r++) px[r * PW + c] = px[r * PW + c - 1];
        if (from < Infinity) {
          // clear what lay above the unchanged part, then restack
          const below = from > 0 ? blocks[live[from - 1]] : null;
          const clearTo = below ? below.r0 : PH;
          for (let r = 0; r < clearTo; r++) px[r * PW + c] = 0;
          let u = below ? below.uTop : 0;
          for (let i = from; i < live.length; i++) {
            const b = blocks[live[i]];
            b.r0 = Math.max(0, Math.round(PH - (u + b.h) / rowUnits));
            b.r1 = Math.min(PH, Math.round(PH - u / rowUnits));
            u += b.h;
            b.uTop = u;
            paint(b, c, ta, tb);
          }
        }
        const l = changes.get(c);
        if (l) for (const k of l) if (!dead[k] && k < ia) paint(blocks[k], c, ta, tb);
        for (const k of striped) if (!dead[k] && k < ia) paint(blocks[k], c, ta, tb);
      }
      if (cw === 1) {
        g.putImageData(img, X0, Y0);
      } else {
        const off = document.createElement('canvas');
        off.width = PW;
        off.height = PH;
        off.getContext('2d').putImageData(img, 0, 0);
        g.save();
        g.setTransform(1, 0, 0, 1, 0, 0);
        g.imageSmoothingEnabled = false;
        g.drawImage(off, 0, 0, DPW / cw, PH, X0, Y0, DPW, PH);
        g.restore();
      }
      // the peak footprint
      const pt = Number(M.meta.peak_time), pf = Number(M.meta.peak_footprint);
      let peakShown = false;
      if (M.meta.peak_time !== undefined && pt >= v0 && pt <= v1) {
        const x = Math.round(xOf(pt)) + 0.5;
        g.strokeStyle = '#e67e22';
        g.lineWidth = 1.5;
        g.setLineDash([5, 3]);
        g.beginPath(); g.moveTo(x, TOP - 4); g.lineTo(x, yBase); g.stroke();
        g.setLineDash([]);
        g.fillStyle = '#b35400';
        g.textAlign = x > width - 160 ? 'right' : 'left';
        g.fillText('peak footprint ' + fmtBytes(pf), x + (x > width - 160 ? -4 : 4), TOP - 6);
        peakShown = true;
      }
      const labels = labelBlocks(g);
      // axis titles
      g.fillStyle = '#444';
      g.font = '11px system-ui, sans-serif';
      g.textAlign = 'left';
      g.fillText(scaleUsed === 'linear' ? 'bytes live' : 'height: ' + scaleUsed + ' of bytes', 4, TOP - 9);
      g.textAlign = 'right';
      g.fillText('logical time (accesses) →', width - R, MEMH - 2);
      g.strokeStyle = '#999';
      g.lineWidth = 1;
      g.beginPath(); g.moveTo(L, yBase + 0.5); g.lineTo(width - R, yBase + 0.5); g.stroke();
      Object.assign(st, { labels, blocks: nBlocks, stripedBlocks: nStriped, instances: nInst, accessLines: nLines, writeLines: nWrite,
        readLines: nRead, peakShown, peakTime: pt, peakFootprint: pf, scale: scaleUsed, columnWidth: cw });
    }

    /* Each block at least a text line high somewhere in view gets its
     * name, where its visible span is widest at that height: at the middle
     * of its visible span, at its height in the stacking there. */
    function labelBlocks(g) {
      const names = [];
      const pxPerUnit = (MEMH - TOP - BOT) / maxUnits;
      g.font = '11px system-ui, sans-serif';
      g.textAlign = 'center';
      for (const b of blocks) {
        if (b.t1 <= v0 || b.t0 >= v1 || b.h * pxPerUnit < 13) continue;
        const tm = (Math.max(b.t0, v0) + Math.min(b.t1, v1)) / 2;
        let u = 0;
        for (const c of blocks) {
          if (c === b) break;
          if (c.t0 <= tm && c.t1 > tm) u += c.h;
        }
        const x = xOf(tm), y = yOf(u + b.h / 2) + 4;
        const text = b.a.name || '(unnamed)';
        const w = g.measureText(text).width;
        if (w > xOf(Math.min(b.t1, v1)) - xOf(Math.max(b.t0, v0)) - 4) continue;
        g.fillStyle = 'rgba(255,255,255,0.85)';
        g.fillRect(x - w / 2 - 2, y - 10, w + 4, 13);
        g.fillStyle = '#222';
        g.fillText(text, x, y);
        names.push(text);
      }
      return names;
    }

    const CTX_COLOR = { loop: '#c0392b', conditional: '#1f6fb4', function: '#c8c8c8', thread: '#8a8a8a',
      region: '#2e8b57', signal: '#e67e22' };

    function drawFlow() {
      const H = nrows * ROW + 20;
      const g = fitCanvas(cvFlow, width, H);
      g.clearRect(0, 0, width, H);
      timeTicks(g, 0, H - 20, true);
      g.save();
      g.beginPath(); g.rect(L, 0, plotW(), H); g.clip();
      g.font = '10px system-ui, sans-serif';
      g.textAlign = 'left';
      const counts = { bars: 0, loop: 0, conditional: 0, function: 0, thread: 0, region: 0, signal: 0, marks: 0 };
      const lo = L, hi = width - R;
      for (let r = 0; r < nrows; r++) {
        let lastCol = -1, lastKind = '';
        const y = r * ROW + 1;
        for (const c of rows[r]) {
          const cx = M.ctxs[c];
          if (cx.last_time < v0 || cx.first_time > v1) continue;
          counts.bars++;
          counts[cx.kind] = (counts[cx.kind] || 0) + 1;
          const x0 = Math.max(lo - 1, xOf(cx.first_time));
          const x1 = Math.min(hi + 1, xOf(Math.max(cx.last_time, cx.first_time + 1)));
          g.fillStyle = CTX_COLOR[cx.kind] || '#999';
          if (x1 - x0 < 1) {
            // tiny scopes: one mark per pixel column and kind
            const col = Math.floor(x0);
            if (col === lastCol && cx.kind === lastKind) continue;
            lastCol = col; lastKind = cx.kind;
            g.fillRect(col, y, 1, Math.max(1, ROW - 2));
            counts.marks++;
            continue;
          }
          g.fillRect(x0, y, x1 - x0, Math.max(1, ROW - 2));
          counts.marks++;
          if (x1 - x0 > 36 && ROW >= 12) {
            g.fillStyle = cx.kind === 'function' || cx.kind === 'thread' ? '#222' : '#fff';
            const label = ctxLabel(c);
            const room = x1 - Math.max(x0, lo) - 6;
            let text = label;
            if (g.measureText(text).width > room) {
              let n = Math.max(0, Math.floor(label.length * room / g.measureText(label).width) - 1);
              text = n > 0 ? label.slice(0, n) + '\u2026' : '';
            }
            if (text) g.fillText(text, Math.max(x0, lo) + 3, y + ROW - 5);
          }
        }
      }
      g.restore();
      Object.assign(st, { icicleBars: counts.bars, loopBars: counts.loop, conditionalBars: counts.conditional,
        functionBars: counts.function, icicleMarks: counts.marks, icicleRows: nrows });
    }

    function draw() {
      pending = false;
      if (!shown) return;
      width = Math.max(400, document.getElementById('tl-plot').clientWidth || 800);
      const t0 = performance.now();
      drawMem();
      const t1 = performance.now();
      drawFlow();
      st.view = [v0, v1];
      st.drawMs = [t1 - t0, performance.now() - t1];   // diagnostics only
    }
    function redraw() {
      if (pending) return;
      pending = true;
      requestAnimationFrame(draw);
    }

    function setView(a, b) {
      const minSpan = Math.min(8, M.tEnd);
      let span = Math.max(minSpan, Math.min(b - a, M.tEnd));
      a = Math.max(0, Math.min(a, M.tEnd - span));
      v0 = a; v1 = a + span;
      redraw();
    }

    /* zoom and pan on both canvases */
    for (const cv of [cvMem, cvFlow]) {
      cv.addEventListener('wheel', (ev) => {
        ev.preventDefault();
        const rect = cv.getBoundingClientRect();
        const x = Math.max(L, Math.min(width - R, ev.clientX - rect.left));
        const tm = tOf(x);
        const f = ev.deltaY > 0 ? 1.25 : 0.8;
        const span = (v1 - v0) * f;
        setView(tm - (tm - v0) * f, tm - (tm - v0) * f + span);
      }, { passive: false });
      let drag = null;
      cv.addEventListener('mousedown', (ev) => {
        drag = { x: ev.clientX, a: v0, b: v1 };
        cv.classList.add('dragging');
        hideTip();
      });
      window.addEventListener('mousemove', (ev) => {
        if (!drag) return;
        const dt = (ev.clientX - drag.x) * (drag.b - drag.a) / plotW();
        setView(drag.a - dt, drag.b - dt);
      });
      window.addEventListener('mouseup', () => {
        drag = null;
        cv.classList.remove('dragging');
      });
      cv.addEventListener('mouseleave', hideTip);
      cv.addEventListener('mousemove', (ev) => {
        if (drag) return;
        const rect = cv.getBoundingClientRect();
        const x = ev.clientX - rect.left, y = ev.clientY - rect.top;
        if (x < L || x > width - R) { hideTip(); return; }
        if (cv === cvMem) hoverMem(ev, x, y); else hoverFlow(ev, tOf(x), y);
      });
    }
    cvFlow.addEventListener('dblclick', (ev) => {
      const rect = cvFlow.getBoundingClientRect();
      const c = scopeAt(tOf(ev.clientX - rect.left), ev.clientY - rect.top);
      if (c !== null) {
        const cx = M.ctxs[c];
        const pad = Math.max(2, (cx.last_time - cx.first_time) * 0.02);
        setView(cx.first_time - pad, cx.last_time + pad);
      }
    });

    /* The block under the mouse: the same stacking as the column drawn. */
    function blockAt(x, y) {
      if (!colGeom) return null;
      const { PW, cw, dpr } = colGeom;
      const tPer = (v1 - v0) / PW;
      const c = Math.floor((x - L) * dpr / cw);
      const ta = v0 + c * tPer, tb = ta + tPer;
      const want = maxUnits * (1 - (y - TOP) / (MEMH - TOP - BOT));
      const slack = maxUnits / (MEMH - TOP - BOT);
      let u = 0;
      for (const b of blocks) {
        if (b.t0 >= tb) break;
        if (b.t1 <= ta) continue;
        if (want >= u - slack / 2 && want <= u + b.h + slack / 2 && b.h >= slack / 4) return b;
        u += b.h;
      }
      return null;
    }
    function hoverMem(ev, x, y) {
      const b = blockAt(x, y);
      if (!b) { hideTip(); return; }
      const a = b.a;
      const life = b.t1 - b.t0;
      const lines = [['kind', a.kind + (a.conditional ? ', conditional' : '')],
        ['size', fmtBytes(a.size) + (a.count > 1 ? ' \u00d7 ' + fmtInt(a.count) + ' instances, at most ' +
          fmtInt(a.max_live) + ' live' : '')],
        ['allocated in', ctxPath(a.alloc_ctx)],
        ['lifetime', fmtInt(b.t0) + ' \u2013 ' + fmtInt(b.t1) + (a.never_freed ? ' (never released)' : '')]];
      const u0 = M.firstAcc[b.id], u1 = M.lastAcc[b.id];
      if (u0 !== Infinity) {
        const io = [M.isInput(b.id) ? 'input' : '', M.isOutput(b.id) ? 'output' : ''].filter(Boolean).join(', ');
        lines.push(['usage', fmtInt(u0) + ' \u2013 ' + fmtInt(u1) + (io ? ' (' + io + ')' : '')]);
        lines.push(['usage / allocation lifetime', Math.min(1, (u1 - u0 + 1) / Math.max(1, life)).toFixed(3)]);
      } else {
        lines.push(['usage', 'never accessed']);
      }
      const rd = reuseMedian(a), rs = reuseShares(a.reuse);
      if (rs) lines.push(['hits by cache size', rs]);
      if (rd) lines.push(['median reuse distance', rd]);
      const acc = M.allocAcc;
      lines.push(['accesses', PATTERN_LABEL.map((p, k) => p + ' ' + fmtInt(acc[b.id * 4 + k])).join(', ')]);
      showTip(ev, a.name || '(unnamed)', lines);
    }

    function scopeAt(t, y) {
      const r = Math.floor(y / ROW);
      if (r < 0 || r >= nrows) return null;
      let best = null, bestSpan = Infinity;
      const slack = (v1 - v0) / plotW() * 1.5;   // tiny scopes: a pixel or so
      for (const c of rows[r]) {
        const cx = M.ctxs[c];
        if (cx.first_time - slack > t) break;
        if (cx.last_time + slack < t) continue;
        const span = cx.last_time - cx.first_time;
        if (span < bestSpan) { best = c; bestSpan = span; }
      }
      return best;
    }

    function hoverFlow(ev, t, y) {
      const c = scopeAt(t, y);
      if (c === null) { hideTip(); return; }
      const cx = M.ctxs[c];
      const lines = [['path', ctxPath(c)], ['kind', cx.kind], ['entries', fmtInt(cx.entries)]];
      if (cx.kind === 'loop') lines.push(['iterations', fmtInt(cx.iterations) + ' (at most ' + fmtInt(cx.max_iterations) + ' per entry)']);
      lines.push(['span', fmtInt(cx.first_time) + ' \u2013 ' + fmtInt(cx.last_time)]);
      showTip(ev, ctxLabel(c), lines);
    }

    sel.scale.addEventListener('change', () => { layout(); redraw(); });
    for (const k of ['heap', 'globals', 'frames']) sel[k].addEventListener('change', () => { layout(); redraw(); });
    sel.system.addEventListener('change', () => { layout(); layoutRows(); redraw(); });
    sel.hidefn.addEventListener('change', () => { layoutRows(); redraw(); });
    document.getElementById('tl-reset').addEventListener('click', () => setView(0, M.tEnd));
    const mainBtn = document.getElementById('tl-main');
    if (M.main === null) mainBtn.disabled = true;
    mainBtn.addEventListener('click', () => {
      if (M.main === null) return;
      const c = M.ctxs[M.main];
      setView(c.first_time, c.last_time + 1);
    });
    window.addEventListener('resize', redraw);

    return {
      show() {
        if (!shown) {
          shown = true;
          layout();
          layoutRows();
          // the program's own work first: main, when the trace has it
          if (M.main !== null) setView(M.ctxs[M.main].first_time, M.ctxs[M.main].last_time + 1);
        }
        draw();
      },
      stats() { return Object.assign({}, st); },
      setView(a, b) { setView(a, b); draw(); },
      blocks() {
        return blocks.map((b) => ({ id: b.id, name: b.a.name, kind: b.a.kind, t0: b.t0, t1: b.t1,
          bytes: b.bytes }));
      },
    };
  })();

  /* ---------------------------------------------------------------------
   * View 2: data-access statistics (paper §4.2)
   *
   * The histogram of the four classes over the whole trace, then a tree
   * by container or by control-flow node whose columns sort. Expanding a
   * node shows its own histogram and its children: for a container its
   * access records, for a scope its child scopes and its own records.
   * Rows are made only when their parent opens.
   * ------------------------------------------------------------------- */

  views.access = (function () {
    const measure = document.getElementById('ac-measure');
    const group = document.getElementById('ac-group');
    const filter = document.getElementById('ac-filter');
    const tbody = document.querySelector('#ac-tree tbody');
    const PAGE = 300;
    let sortCol = 'total', sortDesc = true;
    let shown = false;
    let st = {};

    function totals() {
      const acc = [0, 0, 0, 0], rec = [0, 0, 0, 0];
      for (const e of M.events) {
        const p = PAT_INDEX[e.class];
        acc[p] += e.count;
        rec[p] += 1;
      }
      return { acc, rec };
    }
    const TOT = totals();

    function histogram(box, counts, w, h) {
      const s = svg('svg', { width: w, height: h, role: 'img' });
      const max = Math.max(1, ...counts);
      const bw = (w - 20) / 4;
      counts.forEach((c, k) => {
        const bh = c > 0 ? Math.max(1, (h - 34) * c / max) : 0;
        const x = 10 + k * bw;
        const r = svg('rect', { x: x + 6, y: h - 18 - bh, width: bw - 12, height: bh, fill: PATTERN_COLOR[k],
          'data-pattern': PATTERNS[k], 'data-count': c });
        const tt = svg('title');
        tt.textContent = PATTERN_LABEL[k] + ': ' + fmtInt(c);
        r.appendChild(tt);
        s.appendChild(r);
        const lab = svg('text', { x: x + bw / 2, y: h - 4, 'text-anchor': 'middle', 'font-size': 11, fill: '#333' });
        lab.textContent = PATTERN_LABEL[k];
        s.appendChild(lab);
        const val = svg('text', { x: x + bw / 2, y: h - 22 - bh, 'text-anchor': 'middle', 'font-size': 11, fill: '#333' });
        val.textContent = fmtInt(c);
        s.appendChild(val);
      });
      box.appendChild(s);
      return s;
    }

    function useRecords() { return measure.value === 'records'; }

    /* Tree nodes: {key, label, tag, counts[4], kids() -> nodes, records[]} */
    function containerNodes() {
      const rec = useRecords();
      const nodes = [];
      for (let i = 0; i < M.allocs.length; i++) {
        const evs = M.allocEvents[i];
        if (!evs.length) continue;
        const counts = [0, 0, 0, 0];
        for (const ei of evs) counts[PAT_INDEX[M.events[ei].class]] += rec ? 1 : M.events[ei].count;
        const a = M.allocs[i];
        nodes.push({ key: 'a' + i, label: a.name || '(unnamed)', tag: a.kind + ', ' + fmtBytes(a.size),
          counts, records: evs, kids: null, index: indexSummary(evs) });
      }
      return nodes;
    }

    /* The containers that supply the indices of a container's accesses,
     * of any class, when the trace says so (index_container on an event). */
    function indexSummary(evs) {
      const by = new Map();
      for (const ei of evs) {
        const e = M.events[ei];
        if (e.index_container === undefined || e.index_container === null) continue;
        const name = indexName(e.index_container);
        by.set(name, (by.get(name) || 0) + e.count);
      }
      return by.size ? Array.from(by.entries()).map(([n, c]) => n + ' (' + fmtInt(c) + ')').join(', ') : '';
    }
    function indexName(ic) {
      if (typeof ic === 'number' && M.allocs[ic]) return M.allocs[ic].name;
      return String(ic);
    }

    function flowNode(c) {
      const rec = useRecords();
      const src = rec ? M.incRec : M.incAcc;
      const counts = [0, 1, 2, 3].map((k) => src[c * 4 + k]);
      return { key: 'c' + c, label: ctxLabel(c), tag: M.ctxs[c].kind, counts, records: M.ctxEvents[c], ctx: c,
        kids: () => M.children[c].filter((x) => M.incRec[x * 4] + M.incRec[x * 4 + 1] + M.incRec[x * 4 + 2] +
          M.incRec[x * 4 + 3] > 0).map(flowNode) };
    }

    function sortNodes(nodes) {
      const key = (n) => sortCol === 'name' ? n.label : sortCol === 'total' ? n.counts.reduce((x, y) => x + y, 0) : n.counts[sortCol];
      nodes.sort((a, b) => {
        const ka = key(a), kb = key(b);
        const r = typeof ka === 'string' ? ka.localeCompare(kb) : ka - kb;
        return (sortDesc ? -r : r) || (a.key < b.key ? -1 : 1);
      });
      return nodes;
    }

    function mix(counts) {
      const tot = counts.reduce((x, y) => x + y, 0) || 1;
      const m = el('div', { class: 'mix' });
      counts.forEach((c, k) => {
        if (!c) return;
        const s = el('span', { title: PATTERN_LABEL[k] + ' ' + fmtInt(c) });
        s.style.width = (100 * c / tot) + '%';
        s.style.background = PATTERN_COLOR[k];
        m.appendChild(s);
      });
      return m;
    }

    function recordRow(ei, depth) {
      const e = M.events[ei];
      const rec = useRecords();
      const counts = [0, 0, 0, 0];
      counts[PAT_INDEX[e.class]] = rec ? 1 : e.count;
      const where = locShort(e.loc);
      let text = e.kind + ' ' + PATTERN_LABEL[PAT_INDEX[e.class]] + ', ' + e.size + ' B \u00d7 ' + fmtInt(e.count) +
        (e.strides.length ? ', strides [' + e.strides.join(', ') + ']' : '') + ' at ' + where;
      if (group.value === 'container') text += ' in ' + ctxPath(e.ctx);
      else text += ' on ' + (M.allocs[e.alloc].name || '?');
      if (e.index_container !== undefined && e.index_container !== null)
        text += ', index from ' + indexName(e.index_container);
      const tr = el('tr', { class: 'leaf', 'data-depth': depth });
      const name = el('td', { class: 'name' });
      name.style.paddingLeft = (8 + depth * 16 + 14) + 'px';
      name.textContent = text;
      name.title = text;
      tr.appendChild(name);
      for (let k = 0; k < 4; k++) tr.appendChild(el('td', { class: 'num', text: counts[k] ? fmtInt(counts[k]) : '' }));
      tr.appendChild(el('td', { class: 'num', text: fmtInt(counts[PAT_INDEX[e.class]]) }));
      tr.appendChild(el('td'));
      return tr;
    }

    /* Rows of `nodes` after `after` (or at the end); returns the last row. */
    function addRows(nodes, depth, after) {
      let last = after;
      const put = (tr) => {
        if (last) last.after(tr); else tbody.appendChild(tr);
        last = tr;
      };
      const shownNodes = nodes.slice(0, PAGE);
      for (const n of shownNodes) put(nodeRow(n, depth));
      if (nodes.length > PAGE) {
        const rest = nodes.slice(PAGE);
        const tr = el('tr', { class: 'leaf' });
        const td = el('td', { class: 'more', colspan: 7, text: '\u2026 ' + fmtInt(rest.length) + ' more (show)' });
        td.style.paddingLeft = (8 + depth * 16) + 'px';
        td.addEventListener('click', () => { addRows(rest, depth, tr); tr.remove(); });
        tr.appendChild(td);
        put(tr);
      }
      return last;
    }

    function nodeRow(n, depth) {
      const tr = el('tr', { class: 'node', 'data-key': n.key, 'data-depth': depth });
      const name = el('td', { class: 'name' });
      name.style.paddingLeft = (8 + depth * 16) + 'px';
      const tw = el('span', { class: 'twisty', text: '\u25b8' });
      name.appendChild(tw);
      name.appendChild(document.createTextNode(n.label));
      name.appendChild(el('span', { class: 'kind-tag', text: n.tag }));
      if (n.index) name.appendChild(el('span', { class: 'kind-tag', text: 'indices from ' + n.index }));
      name.title = n.label;
      tr.appendChild(name);
      for (let k = 0; k < 4; k++) tr.appendChild(el('td', { class: 'num', text: n.counts[k] ? fmtInt(n.counts[k]) : '' }));
      tr.appendChild(el('td', { class: 'num', text: fmtInt(n.counts.reduce((x, y) => x + y, 0)) }));
      const mixTd = el('td');
      mixTd.appendChild(mix(n.counts));
      tr.appendChild(mixTd);
      let open = false, added = [];
      const toggle = () => {
        open = !open;
        tw.textContent = open ? '\u25be' : '\u25b8';
        if (!open) {
          // remove everything below until a row at this depth or above
          let r = tr.nextElementSibling;
          while (r && (r.classList.contains('detail') || Number(r.dataset.depth) > depth)) {
            const nx = r.nextElementSibling;
            r.remove();
            r = nx;
          }
          added = [];
          st.rows = tbody.rows.length;
          return;
        }
        const det = el('tr', { class: 'detail', 'data-depth': depth + 1 });
        const td = el('td', { colspan: 7 });
        td.style.paddingLeft = (8 + (depth + 1) * 16) + 'px';
        histogram(td, n.counts, 360, 110);
        det.appendChild(td);
        tr.after(det);
        let last = det;
        if (n.kids) last = addRows(sortNodes(n.kids()), depth + 1, last) || last;
        const recs = n.records.slice().sort((x, y) => M.events[y].count - M.events[x].count);
        const shownRecs = recs.slice(0, PAGE);
        for (const ei of shownRecs) {
          const r = recordRow(ei, depth + 1);
          last.after(r);
          last = r;
        }
        if (recs.length > PAGE) {
          const more = el('tr', { class: 'leaf', 'data-depth': depth + 1 });
          more.appendChild(el('td', { class: 'more', colspan: 7, text: '\u2026 ' + fmtInt(recs.length - PAGE) + ' more records' }));
          last.after(more);
        }
        st.rows = tbody.rows.length;
      };
      name.addEventListener('click', toggle);
      tr.toggle = toggle;
      return tr;
    }

    function build() {
      tbody.textContent = '';
      const box = document.getElementById('ac-hist');
      box.textContent = '';
      const counts = useRecords() ? TOT.rec : TOT.acc;
      box.appendChild(el('div', { class: 'hint', text: 'all ' + (useRecords() ? 'access records' : 'accesses') +
        ' of the trace by class (indirect: the trace\u2019s irregular pattern)' }));
      histogram(box, counts, 520, 170);
      const q = filter.value.trim().toLowerCase();
      let nodes;
      if (group.value === 'container') nodes = containerNodes();
      else nodes = M.roots.map(flowNode);
      if (q) nodes = nodes.filter((n) => n.label.toLowerCase().includes(q));
      addRows(sortNodes(nodes), 0, null);
      for (const th of document.querySelectorAll('#ac-tree th[data-col]')) {
        th.classList.toggle('sorted-desc', th.dataset.col === String(sortCol) && sortDesc);
        th.classList.toggle('sorted-asc', th.dataset.col === String(sortCol) && !sortDesc);
      }
      st = { histogram: {}, records: {}, rows: tbody.rows.length, group: group.value };
      PATTERNS.forEach((p, k) => { st.histogram[p] = TOT.acc[k]; st.records[p] = TOT.rec[k]; });
    }

    for (const th of document.querySelectorAll('#ac-tree th[data-col]')) {
      th.addEventListener('click', () => {
        const c = th.dataset.col;
        const col = c === 'name' || c === 'total' ? c : Number(c);
        if (col === sortCol) sortDesc = !sortDesc;
        else { sortCol = col; sortDesc = col !== 'name'; }
        build();
      });
    }
    measure.addEventListener('change', build);
    group.addEventListener('change', build);
    filter.addEventListener('input', build);

    return {
      show() { if (!shown) { shown = true; build(); } },
      stats() { return Object.assign({}, st, { rows: tbody.rows.length }); },
      /* The counts of the top-level row named `label` (tests). */
      row(label) {
        for (const tr of tbody.querySelectorAll('tr.node')) {
          if (tr.firstChild.firstChild.nextSibling.textContent === label) {
            return Array.from(tr.cells).slice(1, 6).map((td) => Number(td.textContent.replace(/,/g, '')) || 0);
          }
        }
        return null;
      },
      expand(label) {
        for (const tr of tbody.querySelectorAll('tr.node')) {
          if (tr.firstChild.firstChild.nextSibling.textContent === label) {
            tr.toggle();
            tr.scrollIntoView({ block: 'start' });
            return true;
          }
        }
        return false;
      },
    };
  })();

  /* ---------------------------------------------------------------------
   * View 3: control-flow data dependencies (paper §4.3)
   *
   * The context tree as nested boxes in the order scopes were first
   * entered: functions, loops, conditionals and regions, each collapsible.
   * Clicking a box shows where the values it reads were stored and where
   * the values it stores are read: the dependencies of the document (the
   * version each load read, trace section 11) whose one end lies in the box's
   * subtree, with the other end rolled up to the outermost collapsed box
   * that holds it. Edges are drawn only for the selection.
   * ------------------------------------------------------------------- */

  views.flow = (function () {
    const graph = document.getElementById('fl-graph');
    const side = document.getElementById('fl-side');
    const deps = DATA.dependencies;
    const expanded = new Uint8Array(M.ctxs.length);
    const boxes = new Map();       // ctx -> the box element, when in the DOM
    let selected = null;
    let edges = [];                // drawn: {from, to, uses, bytes, dir}
    let internal = { uses: 0, bytes: 0 };
    let shown = false;
    let overlay = null;

    function summary(c) {
      const s = [];
      s.push('deepest loop nest: ' + fmtInt(M.nest[c]));
      s.push('loops: ' + fmtInt(M.loops[c]));
      s.push('stride-k accesses: ' + fmtInt(M.incAcc[c * 4 + 2]));
      s.push('indirect accesses: ' + fmtInt(M.incAcc[c * 4 + 3]));
      s.push('footprint: ' + fmtBytes(M.allocBytes[c]) + ' in ' + fmtInt(M.allocCount[c]) + ' allocations');
      return s;
    }

    function initialExpansion() {
      expanded.fill(0);
      for (const r of M.roots) expanded[r] = 1;
      if (M.main === null) return;
      for (let c = M.main; c !== null; c = M.ctxs[c].parent) expanded[c] = 1;
      // main's scopes, two levels of functions deep (loops and ifs inside
      // them always open)
      const walk = (c, fnDepth) => {
        expanded[c] = 1;
        for (const ch of M.children[c]) {
          const fd = fnDepth + (M.ctxs[ch].kind === 'function' ? 1 : 0);
          if (fd <= 2 && M.children[ch].length) walk(ch, fd);
        }
      };
      walk(M.main, 0);
    }

    function box(c) {
      const cx = M.ctxs[c];
      const hasKids = M.children[c].length > 0;
      const b = el('div', { class: 'fnode kind-' + cx.kind, 'data-ctx': c });
      const head = el('div', { class: 'fhead', title: ctxPath(c) + '\n' + summary(c).join('\n') });
      head.appendChild(el('span', { class: 'twisty', text: hasKids ? (expanded[c] ? '\u25be' : '\u25b8') : '' }));
      head.appendChild(el('span', { text: KIND_ICON[cx.kind] || '' }));
      head.appendChild(el('span', { class: 'flabel', text: ctxLabel(c) }));
      const meta = [];
      if (cx.kind === 'loop') meta.push(fmtInt(cx.iterations) + ' iterations');
      if (cx.entries > 1) meta.push(fmtInt(cx.entries) + ' entries');
      if (hasKids && !expanded[c]) meta.push(fmtInt(countSubtree(c)) + ' scopes inside');
      if (meta.length) head.appendChild(el('span', { class: 'fmeta', text: meta.join(', ') }));
      b.appendChild(head);
      boxes.set(c, b);
      if (hasKids && expanded[c]) {
        const body = el('div', { class: 'fbody' });
        for (const ch of M.children[c]) body.appendChild(box(ch));
        b.appendChild(body);
      }
      head.firstChild.addEventListener('click', (ev) => { ev.stopPropagation(); toggle(c); });
      // a double click selects with its first click only, then folds
      head.addEventListener('click', (ev) => { if (ev.detail <= 1) select(selected === c ? null : c); });
      head.addEventListener('dblclick', (ev) => { ev.preventDefault(); toggle(c); });
      return b;
    }

    const subtreeSize = new Map();
    function countSubtree(c) {
      if (subtreeSize.has(c)) return subtreeSize.get(c);
      let n = 0;
      const stack = [...M.children[c]];
      while (stack.length) { const x = stack.pop(); n++; for (const y of M.children[x]) stack.push(y); }
      subtreeSize.set(c, n);
      return n;
    }

    function forget(b) {
      for (const x of b.querySelectorAll('.fnode')) boxes.delete(Number(x.dataset.ctx));
    }

    function rebuild(c) {
      const old = boxes.get(c);
      if (!old) return;
      forget(old);
      const nb = box(c);
      old.replaceWith(nb);
      if (selected !== null && !boxes.has(selected)) selected = visibleOf(selected);
      refreshEdges();
    }

    function toggle(c) {
      if (!M.children[c].length) return;
      expanded[c] ^= 1;
      rep = null;
      rebuild(c);
    }

    function build() {
      graph.textContent = '';
      boxes.clear();
      rep = null;
      const fromMain = document.getElementById('fl-main');
      fromMain.disabled = M.main === null;
      for (const r of fromMain.checked && M.main !== null ? [M.main] : M.roots) graph.appendChild(box(r));
      overlay = svg('svg', { class: 'edges' });
      const defs = svg('defs');
      for (const [id, color] of [['arr-in', '#1f6fb4'], ['arr-out', '#d9730d']]) {
        const mk = svg('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
        mk.appendChild(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: color }));
        defs.appendChild(mk);
      }
      overlay.appendChild(defs);
      graph.appendChild(overlay);
      refreshEdges();
    }

    /* The box that shows context c: c itself, or its outermost collapsed
     * ancestor; for all contexts at once (parents come first), made again
     * when a box opens or closes. */
    let rep = null;
    function visibleOf(c) {
      if (!rep) {
        rep = new Int32Array(M.ctxs.length);
        for (let i = 0; i < M.ctxs.length; i++) {
          const p = M.ctxs[i].parent;
          rep[i] = p === null ? i : rep[p] !== p ? rep[p] : expanded[p] ? i : p;
        }
      }
      return rep[c];
    }

    function computeEdges() {
      edges = [];
      internal = { uses: 0, bytes: 0 };
      if (selected === null || !deps) return;
      const agg = new Map();
      const add = (dir, other, d) => {
        const k = dir + other;
        const e = agg.get(k) || { dir, other, uses: 0, bytes: 0, pairs: 0 };
        e.uses += d.uses; e.bytes += d.bytes; e.pairs++;
        agg.set(k, e);
      };
      let self = null;
      for (const d of deps) {
        if (d.from === selected && d.to === selected) {
          // its own values, stored in earlier iterations or entries
          self = { dir: 'self', from: selected, to: selected, uses: d.uses, bytes: d.bytes };
          continue;
        }
        const fin = isAncestor(selected, d.from), tin = isAncestor(selected, d.to);
        if (fin && tin) { internal.uses += d.uses; internal.bytes += d.bytes; continue; }
        if (fin) add('out', visibleOf(d.to), d);
        else if (tin) add('in', visibleOf(d.from), d);
      }
      for (const e of agg.values()) {
        edges.push(e.dir === 'out'
          ? { dir: 'out', from: selected, to: e.other, uses: e.uses, bytes: e.bytes }
          : { dir: 'in', from: e.other, to: selected, uses: e.uses, bytes: e.bytes });
      }
      if (self) edges.push(self);
      edges.sort((a, b) => b.bytes - a.bytes || a.from - b.from || a.to - b.to);
    }

    function refreshEdges() {
      for (const b of graph.querySelectorAll('.fnode.selected, .fnode.dep-in, .fnode.dep-out')) b.classList.remove('selected', 'dep-in', 'dep-out');
      computeEdges();
      drawEdges();
      renderSide();
    }

    function drawEdges() {
      if (!overlay) return;
      while (overlay.childNodes.length > 1) overlay.removeChild(overlay.lastChild);
      if (selected === null) return;
      const sb = boxes.get(selected);
      if (sb) sb.classList.add('selected');
      const base = graph.getBoundingClientRect();
      overlay.setAttribute('width', graph.scrollWidth);
      overlay.setAttribute('height', graph.scrollHeight);
      const anchor = (c) => {
        const b = boxes.get(c);
        if (!b) return null;
        const h = b.firstChild.getBoundingClientRect();
        return { x: h.right - base.left, y: h.top + h.height / 2 - base.top };
      };
      const maxB = Math.max(1, ...edges.map((e) => e.bytes));
      for (const e of edges) {
        const other = e.dir === 'out' ? e.to : e.from;
        const ob = boxes.get(other);
        if (ob && e.dir !== 'self') ob.classList.add(e.dir === 'out' ? 'dep-out' : 'dep-in');
        const a = anchor(e.from), b = anchor(e.to);
        if (!a || !b) continue;
        const bend = 30 + Math.min(110, Math.abs(b.y - a.y) * 0.25);
        const xr = Math.max(a.x, b.x) + bend;
        // a scope reading its own values: a loop out of its head and back
        const d = e.dir === 'self'
          ? 'M' + a.x + ',' + (a.y - 4) + ' C' + (a.x + 40) + ',' + (a.y - 22) + ' ' + (a.x + 40) + ',' +
            (a.y + 22) + ' ' + (a.x + 2) + ',' + (a.y + 4)
          : 'M' + a.x + ',' + a.y + ' C' + xr + ',' + a.y + ' ' + xr + ',' + b.y + ' ' + (b.x + 2) + ',' + b.y;
        const p = svg('path', {
          d,
          stroke: e.dir === 'out' ? '#d9730d' : e.dir === 'self' ? '#7b3fa0' : '#1f6fb4',   // view.css's --out, --self, --in
          'stroke-width': (1 + 3 * Math.log1p(e.bytes) / Math.log1p(maxB)).toFixed(2),
          'stroke-opacity': 0.85,
          'marker-end': 'url(#' + (e.dir === 'out' ? 'arr-out' : 'arr-in') + ')',
          'data-from': e.from, 'data-to': e.to,
        });
        const t = svg('title');
        t.textContent = ctxLabel(e.from) + ' \u2192 ' + ctxLabel(e.to) + ': ' + fmtInt(e.uses) + ' uses, ' + fmtBytes(e.bytes);
        p.appendChild(t);
        overlay.appendChild(p);
      }
    }

    function renderSide() {
      side.textContent = '';
      if (!deps) {
        side.appendChild(el('div', { class: 'note', text: 'This trace has no dependencies: it was made with ' +
          '--value-flow=no. Trace again without that option to see them.' }));
      }
      if (selected === null) {
        side.appendChild(el('p', { class: 'hint', text: 'Click a scope to see its data dependencies. Hover for a summary.' }));
        return;
      }
      const c = selected;
      side.appendChild(el('h3', { text: ctxLabel(c) }));
      side.appendChild(el('div', { class: 'hint', text: ctxPath(c) }));
      const ul = el('ul');
      for (const s of summary(c)) ul.appendChild(el('li', { text: s }));
      side.appendChild(ul);
      if (!deps) return;
      const table = (title, list, dir) => {
        side.appendChild(el('h3', { text: title }));
        if (!list.length) { side.appendChild(el('div', { class: 'hint', text: 'none' })); return; }
        const t = el('table');
        t.appendChild(el('tr', null, el('th', { text: dir === 'in' ? 'made in' : 'read in' }),
          el('th', { class: 'num', text: 'uses' }), el('th', { class: 'num', text: 'bytes' })));
        for (const e of list) {
          const other = dir === 'in' ? e.from : e.to;
          const a = el('a', { text: ctxLabel(other), title: ctxPath(other) });
          a.addEventListener('click', () => reveal(other));
          t.appendChild(el('tr', null, el('td', null, a), el('td', { class: 'num', text: fmtInt(e.uses) }),
            el('td', { class: 'num', text: fmtBytes(e.bytes) })));
        }
        side.appendChild(t);
      };
      table('reads values made in', edges.filter((e) => e.dir === 'in'), 'in');
      table('its values are read in', edges.filter((e) => e.dir === 'out'), 'out');
      for (const e of edges.filter((x) => x.dir === 'self')) {
        side.appendChild(el('p', { class: 'self-dep', text: 'reads its own values (made in its earlier ' +
          'iterations or entries): ' + fmtInt(e.uses) + ' uses, ' + fmtBytes(e.bytes) }));
      }
      if (internal.uses) side.appendChild(el('p', { class: 'hint', text: 'within: ' + fmtInt(internal.uses) +
        ' uses, ' + fmtBytes(internal.bytes) }));
    }

    function select(c) {
      selected = c;
      refreshEdges();
    }

    /* Open the ancestors of c and select it. */
    function reveal(c) {
      const anc = [];
      for (let p = M.ctxs[c].parent; p !== null; p = M.ctxs[p].parent) if (!expanded[p]) anc.push(p);
      for (const p of anc) expanded[p] = 1;
      const fromMain = document.getElementById('fl-main');
      let rebuild = anc.length > 0;
      if (fromMain.checked && M.main !== null && !isAncestor(M.main, c)) {
        fromMain.checked = false;         // c lies outside main
        rebuild = true;
      }
      if (rebuild) build();
      select(c);
      const b = boxes.get(c);
      if (b && b.scrollIntoView) b.scrollIntoView({ block: 'center' });
    }

    document.getElementById('fl-expand').addEventListener('click', () => { expanded.fill(1); build(); });
    document.getElementById('fl-main').addEventListener('change', () => build());
    document.getElementById('fl-collapse').addEventListener('click', () => { initialExpansion(); build(); });
    window.addEventListener('resize', () => { if (shown) drawEdges(); });

    return {
      show() {
        if (!shown) { shown = true; initialExpansion(); build(); } else drawEdges();
      },
      stats() {
        return { nodes: boxes.size, edges: overlay ? overlay.querySelectorAll('path[data-from]').length : 0,
          selected, dependencies: deps ? deps.length : null };
      },
      select(c) { reveal(c); return this.edges(); },
      edges() { return edges.map((e) => Object.assign({}, e)); },
      expand(c, open) { expanded[c] = open ? 1 : 0; build(); },
      internal() { return Object.assign({}, internal); },
    };
  })();

  /* ---------------------------------------------------------------------
   * View 4: communication of the projected SPMD version
   *
   * Per rank count the N x N matrix of bytes rank i sends rank j per
   * iteration as a heat map. Colours follow paper 001 §IV.C: the scale
   * runs over [0, 2c] with c the mean or the median of the observed
   * (non-zero, off-diagonal) values, clamped above, or, for histogram
   * scaling, a value's colour is the index of its bucket among the
   * distinct values. Zero cells stay white: no communication. The
   * palettes are viridis and cividis (readable with colour-vision
   * deficiencies and in greyscale).
   * ------------------------------------------------------------------- */

  views.comm = (function () {
    const body = document.getElementById('cm-body');
    const scaleSel = document.getElementById('cm-scale');
    const palSel = document.getElementById('cm-palette');
    const proj = DATA.projection;
    const PALETTES = {
      viridis: ['#440154', '#472c7a', '#3b518b', '#2c718e', '#21908d', '#27ad81', '#5cc863', '#aadc32', '#fde725'],
      cividis: ['#00204d', '#00336f', '#39486b', '#575c6d', '#707173', '#8a8779', '#a69d75', '#c4b56c', '#e4cf5b', '#ffea46'],
    };
    const HIST_MAX = 64;           // buckets of histogram scaling
    let shown = false;
    let st = {};

    function rgb(hex) { return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)); }
    function colorAt(t) {
      const stops = PALETTES[palSel.value] || PALETTES.viridis;
      t = Math.max(0, Math.min(1, t));
      const f = t * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(f));
      const a = rgb(stops[i]), b = rgb(stops[i + 1]), u = f - i;
      return a.map((x, k) => Math.round(x + (b[k] - x) * u));
    }

    /* The mapping value -> [0, 1] for one matrix. */
    function scaler(values) {
      const obs = values.filter((v) => v > 0).sort((a, b) => a - b);
      const mode = scaleSel.value;
      if (!obs.length) return { f: () => 0, lo: 0, hi: 0, mode };
      if (mode === 'histogram') {
        const distinct = [...new Set(obs)];
        let edges = distinct;
        if (distinct.length > HIST_MAX) {
          edges = [];
          for (let k = 1; k <= HIST_MAX; k++) edges.push(obs[Math.min(obs.length - 1, Math.ceil(k * obs.length / HIST_MAX) - 1)]);
          edges = [...new Set(edges)];
        }
        const n = edges.length;
        const f = (v) => {
          let lo = 0, hi = n - 1;
          while (lo < hi) { const mid = (lo + hi) >> 1; if (edges[mid] >= v) hi = mid; else lo = mid + 1; }
          return n > 1 ? lo / (n - 1) : 1;
        };
        return { f, lo: edges[0], hi: edges[n - 1], mode, buckets: n };
      }
      const c = mode === 'median' ? median(obs) : obs.reduce((x, y) => x + y, 0) / obs.length;
      return { f: (v) => Math.min(1, v / (2 * c)), lo: 0, hi: 2 * c, mode, center: c };
    }

    function perIter(r, v) { return r.iterations ? v / r.iterations : v; }

    function heatmap(r) {
      const n = r.ranks;
      const card = el('div', { class: 'cm-card', 'data-ranks': n });
      card.appendChild(el('h3', { text: n + ' ranks: ' + fmtBytes(perIter(r, r.p2p_bytes)) + ' point-to-point, ' +
        fmtBytes(perIter(r, r.collective_bytes)) + ' collective' + (r.iterations ? ' per iteration' : '') }));
      const vals = [];
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) vals.push(perIter(r, r.matrix[i][j]));
      const sc = scaler(vals);
      const size = Math.max(200, Math.min(320, n * 24));
      const LM = 46;                 // room for the row labels
      // one pixel per cell, scaled up without smoothing; a larger matrix
      // than the card is shown at its size and the browser averages
      const img = document.createElement('canvas');
      img.width = n; img.height = n;
      const ig = img.getContext('2d');
      const data = ig.createImageData(n, n);
      let cells = 0, nonzero = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const v = perIter(r, r.matrix[i][j]);
          const o = (i * n + j) * 4;
          let c;
          if (i === j) c = [225, 225, 225];
          else if (v > 0) { c = colorAt(sc.f(v)); nonzero++; } else c = [255, 255, 255];
          data.data[o] = c[0]; data.data[o + 1] = c[1]; data.data[o + 2] = c[2]; data.data[o + 3] = 255;
          cells++;
        }
      }
      ig.putImageData(data, 0, 0);
      const cv = el('canvas', { 'data-ranks': n });
      const g = fitCanvas(cv, size + LM + 6, size + 36);
      g.imageSmoothingEnabled = n > size;
      g.drawImage(img, LM, 16, size, size);
      g.strokeStyle = '#999';
      g.strokeRect(LM - 0.5, 15.5, size + 1, size + 1);
      g.fillStyle = '#555';
      g.font = '10px system-ui, sans-serif';
      g.textAlign = 'left';
      g.fillText('sender \u2193', 0, 10);
      g.textAlign = 'center';
      g.fillText('receiver \u2192', LM + size / 2, size + 32);
      if (n <= 32) {
        for (let i = 0; i < n; i++) {
          g.textAlign = 'right';
          g.fillText(String(i), LM - 4, 16 + (i + 0.5) * size / n + 3);
          g.textAlign = 'center';
          g.fillText(String(i), LM + (i + 0.5) * size / n, size + 22);
        }
      }
      cv.addEventListener('mousemove', (ev) => {
        const rect = cv.getBoundingClientRect();
        const j = Math.floor((ev.clientX - rect.left - LM) * n / size), i = Math.floor((ev.clientY - rect.top - 16) * n / size);
        if (i < 0 || j < 0 || i >= n || j >= n) { hideTip(); return; }
        const v = r.matrix[i][j];
        showTip(ev, 'rank ' + i + ' \u2192 rank ' + j, [['bytes', fmtInt(v) + ' in total'],
          ['per iteration', r.iterations ? fmtBytes(v / r.iterations) : 'n/a']]);
      });
      cv.addEventListener('mouseleave', hideTip);
      card.appendChild(cv);
      // the legend
      const lg = el('div', { class: 'cm-legend' });
      const bar = el('canvas');
      const bg = fitCanvas(bar, 120, 10);
      for (let x = 0; x < 120; x++) { const c = colorAt(x / 119); bg.fillStyle = 'rgb(' + c.join(',') + ')'; bg.fillRect(x, 0, 1, 10); }
      lg.appendChild(el('span', { text: sc.mode === 'histogram' ? fmtBytes(sc.lo) : '> 0' }));
      lg.appendChild(bar);
      lg.appendChild(el('span', { text: (sc.mode === 'histogram' ? '' : '\u2265 ') + fmtBytes(sc.hi) +
        (sc.mode === 'histogram' ? ' (' + sc.buckets + ' buckets)' : ' (2 \u00d7 ' + sc.mode + ')') }));
      card.appendChild(lg);
      card.appendChild(el('div', { class: 'cm-legend', text: 'white: nothing sent; grey: the diagonal' }));
      st.matrices.push({ ranks: n, cells, nonzero, scale: sc.mode, center: sc.center === undefined ? null : sc.center,
        buckets: sc.buckets === undefined ? null : sc.buckets });
      return card;
    }

    function volumeChart(results) {
      const W = 520, H = 220, Lm = 70, Rm = 110, Tm = 14, Bm = 30;
      const s = svg('svg', { width: W, height: H, id: 'cm-volume' });
      const xs = results.map((r) => Math.log2(r.ranks));
      const x0 = Math.min(...xs), x1 = Math.max(...xs) === x0 ? x0 + 1 : Math.max(...xs);
      const series = [['point-to-point', '#3b518b', (r) => perIter(r, r.p2p_bytes)],
        ['collective', '#e08a1e', (r) => perIter(r, r.collective_bytes)]];
      const ymax = Math.max(1, ...results.map((r) => Math.max(series[0][2](r), series[1][2](r))));
      const X = (v) => Lm + (v - x0) * (W - Lm - Rm) / (x1 - x0);
      const Y = (v) => H - Bm - v * (H - Tm - Bm) / ymax;
      const axis = svg('path', { d: 'M' + Lm + ',' + Tm + ' V' + (H - Bm) + ' H' + (W - Rm), stroke: '#999', fill: 'none' });
      s.appendChild(axis);
      for (let k = 0; k <= 4; k++) {
        const t = svg('text', { x: Lm - 6, y: Y(ymax * k / 4) + 4, 'text-anchor': 'end', 'font-size': 10, fill: '#555' });
        t.textContent = fmtBytes(ymax * k / 4);
        s.appendChild(t);
      }
      for (const r of results) {
        const t = svg('text', { x: X(Math.log2(r.ranks)), y: H - Bm + 14, 'text-anchor': 'middle', 'font-size': 10, fill: '#555' });
        t.textContent = String(r.ranks);
        s.appendChild(t);
      }
      const xl = svg('text', { x: (Lm + W - Rm) / 2, y: H - 2, 'text-anchor': 'middle', 'font-size': 11, fill: '#333' });
      xl.textContent = 'ranks N' + (results.some((r) => r.iterations) ? ' (bytes per iteration)' : ' (bytes, whole run)');
      s.appendChild(xl);
      let points = 0;
      series.forEach(([name, color, f], k) => {
        const pts = results.map((r) => X(Math.log2(r.ranks)) + ',' + Y(f(r)));
        s.appendChild(svg('polyline', { points: pts.join(' '), fill: 'none', stroke: color, 'stroke-width': 2 }));
        for (const r of results) {
          const c = svg('circle', { cx: X(Math.log2(r.ranks)), cy: Y(f(r)), r: 3.5, fill: color, 'data-series': name, 'data-ranks': r.ranks, 'data-value': f(r) });
          const t = svg('title');
          t.textContent = name + ', ' + r.ranks + ' ranks: ' + fmtBytes(f(r));
          c.appendChild(t);
          s.appendChild(c);
          points++;
        }
        const lx = W - Rm + 10, ly = Tm + 14 + k * 16;
        s.appendChild(svg('rect', { x: lx, y: ly - 8, width: 12, height: 4, fill: color }));
        const lt = svg('text', { x: lx + 16, y: ly - 3, 'font-size': 11, fill: '#333' });
        lt.textContent = name;
        s.appendChild(lt);
      });
      st.chartPoints = points;
      return s;
    }

    function table(headers, rows) {
      const t = el('table', { class: 'plain' });
      t.appendChild(el('tr', null, ...headers.map((h) => el('th', { class: h[1] ? 'num' : '', text: h[0] }))));
      for (const r of rows) t.appendChild(el('tr', null, ...r.map((v, k) => el('td', { class: headers[k][1] ? 'num' : '', text: String(v) }))));
      return t;
    }

    function build() {
      body.textContent = '';
      st = { matrices: [], chartPoints: 0, projection: !!proj, singletonRows: 0 };
      if (!proj) {
        const n = el('div', { class: 'note' });
        n.appendChild(el('p', { text: 'This trace has no communication projection.' }));
        n.appendChild(el('p', { text: 'To get one, trace the program with a list of rank counts:' }));
        n.appendChild(el('pre', { text: 'valgrind --tool=cats --ranks=2,4,8,16 ./app\ncats view cats.out.PID.cats -o report.html' }));
        n.appendChild(el('p', { text: 'or project an existing trace (it needs the value communication graph) while making the page:' }));
        n.appendChild(el('pre', { text: 'cats view FILE --ranks=2,4,8,16 -o report.html' }));
        body.appendChild(n);
        return;
      }
      const results = proj.results || [];
      const it = results.length ? results[0].iterations : 0;
      body.appendChild(el('p', { text: (proj.region ? 'Projected per iteration of ' + proj.region + ' (' + fmtInt(it) +
        ' iterations)' : 'Projected over the whole run') + (proj.program ? ' for ' + proj.program : '') +
        '. Matrix: bytes rank i (row) sends rank j (column).' }));
      const grid = el('div', { class: 'cm-grid' });
      for (const r of results) grid.appendChild(heatmap(r));
      body.appendChild(grid);
      body.appendChild(el('h2', { text: 'Volume against the number of ranks' }));
      if (results.length) body.appendChild(volumeChart(results));
      body.appendChild(el('h2', { text: 'Collectives' }));
      const crow = [];
      for (const r of results) {
        for (const [k, v] of Object.entries(r.collectives || {})) crow.push([r.ranks, k, fmtInt(v.calls), fmtInt(v.bytes)]);
      }
      if (crow.length) body.appendChild(table([['ranks', 1], ['collective', 0], ['calls (total)', 1], ['bytes moved (total)', 1]], crow));
      else body.appendChild(el('p', { class: 'hint', text: 'none' }));
      body.appendChild(el('h2', { text: 'Singletons' }));
      const counts = DATA.singleton_counts;
      if (counts) {
        body.appendChild(el('p', { text: Object.entries(counts).map(([k, v]) => v + ' ' + k).join(', ') +
          ' (threshold ' + proj.singleton_threshold + '): values nearly everything reads or feeds, moved by ' +
          'collectives (replicated ones are computed on every rank).' }));
      }
      if (DATA.singletons) {
        const rows = DATA.singletons.map((s) => [s.kind, s.value, fmtInt(s.degree), fmtInt(s.versions), fmtInt(s.members),
          s.ctx === null ? '' : ctxPath(s.ctx)]);
        body.appendChild(table([['kind', 0], ['value', 0], ['degree', 1], ['versions', 1], ['members', 1], ['made in', 0]], rows));
        st.singletonRows = rows.length;
      } else {
        body.appendChild(el('p', { class: 'hint', text: 'The list of singletons is not stored in the trace; ' +
          'make the page with cats view --project FILE to compute it.' }));
      }
    }

    scaleSel.addEventListener('change', () => { if (shown) build(); });
    palSel.addEventListener('change', () => { if (shown) build(); });

    return {
      show() { if (!shown) { shown = true; build(); } },
      stats() { return JSON.parse(JSON.stringify(st)); },
    };
  })();

  /* ---------------------------------------------------------------------
   * For the tests
   * ------------------------------------------------------------------- */

  window.catsView = {
    data: DATA,
    modelMs,
    show: showTab,
    active: () => activeTab,
    stats() {
      const s = {};
      for (const k of Object.keys(views)) s[k] = views[k].stats();
      return s;
    },
    timeline: views.timeline,
    access: views.access,
    flow: views.flow,
    comm: views.comm,
  };
  showTab('timeline');
})();
