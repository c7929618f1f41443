(function () {
"use strict";
const M = JSON.parse(document.getElementById("model").textContent);
const S = M.summary;
const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    if (k === "text") e.textContent = attrs[k];
    else if (k === "cls") e.className = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  for (const c of kids) if (c !== null && c !== undefined) e.append(c);
  return e;
}
function sv(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
// A diagram as drawing only: the writer escapes every label, and this is the second
// wall: no element that runs, loads or embeds, no event handler, no link.
function inert(fragment) {
  for (const e of Array.from(fragment.querySelectorAll("*"))) {
    if (/^(script|foreignobject|iframe|object|embed|img|image|use|a|animate|set|handler|link|meta)$/i.test(e.localName)) {
      e.remove();
      continue;
    }
    for (const a of Array.from(e.attributes)) {
      if (/^on/i.test(a.name) || /href$/i.test(a.name) || /^(src|action|formaction)$/i.test(a.name)) e.removeAttribute(a.name);
    }
  }
  return fragment;
}
function dur(ns) {
  if (ns === null || ns === undefined) return "\u2014";
  if (ns < 1e3) return ns + " ns";
  if (ns < 1e6) return (ns / 1e3).toFixed(ns < 1e4 ? 2 : 1) + " \u00b5s";
  if (ns < 1e9) return (ns / 1e6).toFixed(ns < 1e7 ? 2 : 1) + " ms";
  return (ns / 1e9).toFixed(2) + " s";
}
const ms = ns => (ns / 1e6).toFixed(3);
const rtName = i => (M.runtimes[i] ? M.runtimes[i].name : "?");
// A request's or task's runtime: its card's, or its own name when it is on the card of the others.
const rowRt = x => x.runtimeName || rtName(x.runtime);
const count = (n, word, plural) => n.toLocaleString("en") + " " + (n === 1 ? word : plural || word + "s");

// Event labels by how many cycles ran them: the seven commonest get a colour each.
const byLabel = new Map();
for (const c of M.cycles) byLabel.set(c.label, (byLabel.get(c.label) || 0) + 1);
const commonest = [...byLabel.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 7).map(e => e[0]);
const colourOf = label => { const i = commonest.indexOf(label); return "var(--c" + (i < 0 ? 7 : i) + ")"; };

// ---- The header: what the trace is, what was cut, and the two answers people look for.
const header = el("header");
header.append(el("h1", { text: "trace-view report: " + S.source }));
const pids = S.processes.filter(p => p.pid !== 0);
header.append(el("div", { cls: "facts", id: "facts", text:
  count(S.events, "event") + " over " + dur(S.span) + " \u00b7 " +
  (pids.length ? count(pids.length, "process", "processes") + " \u00b7 " : "") + count(S.runtimes || M.runtimes.length, "runtime") + " \u00b7 " +
  count(S.requests, "awaited request") + " \u00b7 " + count(S.tasks, "task instance") + " \u00b7 " +
  count(S.cycles, "cycle") + " \u00b7 " + (S.lost ? S.lost.toLocaleString("en") + " events lost" : "no events lost") }));
if (M.aggregated.length) {
  const list = el("ul", { id: "aggregated" });
  for (const a of M.aggregated) list.append(el("li", { text: a }));
  header.append(el("div", { cls: "notice" }, el("b", { text: "Aggregated to fit a browser:" }), list));
}
const answers = el("div", { cls: "answers" });
const slowest = M.requests.findIndex(r => !r.waiting);
if (slowest >= 0) {
  const r = M.requests[slowest];
  const show = el("button", { cls: "link", id: "show-slowest", text: "#" + r.dispatch + " " + r.label });
  show.addEventListener("click", () => pick(slowest, true));
  answers.append(el("div", { cls: "answer" }, el("div", { cls: "what", text: "Slowest request" }),
    el("div", { cls: "it" }, show, " took " + dur(r.total)),
    el("div", { cls: "facts", text: "runtime " + rowRt(r) + (r.dominant ? " \u00b7 largest part: " + r.dominant : "") })));
}
let holder = -1;
M.runtimes.forEach((g, i) => { if (g.cycles && (holder < 0 || g.longestHold > M.runtimes[holder].longestHold)) holder = i; });
if (holder >= 0) {
  const g = M.runtimes[holder];
  const go = el("button", { cls: "link", id: "show-holder", text: g.holder || "?" });
  go.addEventListener("click", () => document.getElementById("gate-" + holder).scrollIntoView());
  answers.append(el("div", { cls: "answer" }, el("div", { cls: "what", text: "Held the gate longest" }),
    el("div", { cls: "it" }, go, " for " + dur(g.longestHold)),
    el("div", { cls: "facts", text: "runtime " + g.name + " \u00b7 wait p99 " + dur(g.waitP99) + " \u00b7 deepest queue " + g.maxDepth })));
}
const waiting = M.requests.filter(r => r.waiting).length;
if (waiting) answers.append(el("div", { cls: "answer" }, el("div", { cls: "what", text: "Still waiting at the end" }),
  el("div", { cls: "it", text: count(waiting, "request") })));
header.append(answers);
document.body.append(header);

const nav = el("nav");
for (const [id, name] of [["timeline-section", "Timeline"], ["requests", "Requests"], ["gate", "Gate"]]
  .concat(M.baseline ? [["baseline", "Compared"]] : [])
  .concat([["tasks", "Tasks"], ["warnings", "Warnings (" + M.warnings.length + ")"], ["summary", "Summary"]]))
  nav.append(el("a", { href: "#" + id, text: name }));
document.body.append(nav);
const main = el("main");
document.body.append(main);

// ---- The timeline: per runtime its gate, its tasks' lanes and its requests' lanes.
const LANES = 4, LANE = 14, GATE = 20, AXIS = 26;
const tracks = [];   // {name, y, h}
const items = [];    // {e, a, b, min}: an element spanning a..b ns, at least `min` px wide
const taskLane = new Map();
const reqLane = new Map();
const span = Math.max(1, S.span);
function pack(list, start, end) {
  const ends = [], lane = new Array(list.length);
  const order = list.map((_, i) => i).sort((i, j) => start(list[i]) - start(list[j]));
  for (const i of order) {
    let l = ends.findIndex(e => e <= start(list[i]));
    if (l < 0 && ends.length < LANES) { ends.push(0); l = ends.length - 1; }
    if (l < 0) l = ends.indexOf(Math.min(...ends));
    ends[l] = Math.max(ends[l], end(list[i]));
    lane[i] = l;
  }
  return [lane, Math.max(1, ends.length)];
}
const svg = sv("svg", { id: "timeline", tabindex: "0", role: "img", "aria-label": "Timeline: gate cycles, tasks and requests" });
const axis = sv("g", { class: "axis" });
const layers = { dens: sv("g"), cyc: sv("g"), inst: sv("g"), span: sv("g"), path: sv("g") };
svg.append(axis, layers.dens, layers.cyc, layers.inst, layers.span, layers.path);
let y = AXIS;
const gateY = [];
M.runtimes.forEach((g, r) => {
  gateY[r] = y;
  tracks.push({ name: g.name + " \u00b7 gate", y: y, h: GATE });
  y += GATE;
  const tasks = M.tasks.map((t, i) => i).filter(i => M.tasks[i].runtime === r);
  const tEnd = i => { const t = M.tasks[i]; return t.ran === null || t.ran === undefined ? span : t.start + t.ran; };
  const [tl, tn] = pack(tasks, i => M.tasks[i].start, tEnd);
  tasks.forEach((i, k) => { taskLane.set(r + ":" + M.tasks[i].task, y + tl[k] * LANE); });
  tracks.push({ name: g.name + " \u00b7 tasks", y: y, h: tn * LANE });
  for (let k = 0; k < tasks.length; k++) {
    const t = M.tasks[tasks[k]];
    const cls = "inst" + (t.outcome === "running" ? " running" : t.outcome.startsWith("cancelled") ? " cancelled" : "");
    const e = sv("rect", { class: cls, y: y + tl[k] * LANE + 2, height: LANE - 4, "data-task": tasks[k] });
    layers.inst.append(e);
    items.push({ e: e, a: t.start, b: tEnd(tasks[k]), min: 1, tip: () => taskTip(t) });
  }
  y += tn * LANE;
  const reqs = M.requests.map((q, i) => i).filter(i => M.requests[i].runtime === r);
  const [rl, rn] = pack(reqs, i => M.requests[i].start, i => M.requests[i].start + M.requests[i].total);
  tracks.push({ name: g.name + " \u00b7 requests", y: y, h: rn * LANE });
  for (let k = 0; k < reqs.length; k++) {
    const q = M.requests[reqs[k]];
    reqLane.set(reqs[k], y + rl[k] * LANE);
    const e = sv("rect", { class: "span" + (q.waiting ? " waiting" : ""), y: y + rl[k] * LANE + 2, height: LANE - 4,
                           "data-request": reqs[k] });
    layers.span.append(e);
    items.push({ e: e, a: q.start, b: q.start + q.total, min: 2, tip: () => requestTip(q) });
  }
  y += rn * LANE;
});
for (const d of M.density) {
  d.counts.forEach((n, i) => {
    if (!n) return;
    const share = Math.min(1, d.busy[i] / d.width);
    const e = sv("rect", { class: "dens", y: gateY[d.runtime] + 2, height: GATE - 4,
                           "fill-opacity": (0.1 + 0.8 * share).toFixed(2) });
    layers.dens.append(e);
    const a = d.start + i * d.width;
    items.push({ e: e, a: a, b: a + d.width, min: 0, tip: () => count(n, "cycle") + " from " + ms(a) + " ms: the gate held " +
      Math.round(share * 100) + "% of " + dur(d.width) });
  });
}
for (const c of M.cycles) {
  const e = sv("rect", { class: "cyc" + (c.async ? " async" : ""), y: gateY[c.runtime] + 2, height: GATE - 4, fill: colourOf(c.label) });
  layers.cyc.append(e);
  items.push({ e: e, a: c.enter, b: c.enter + c.held, min: 1, outlined: true, tip: () => "cycle " + c.cycle + ": " + c.label + "\nheld the gate " +
    dur(c.held) + " from " + ms(c.enter) + " ms" + (c.async ? "\nran async actions or spawned tasks" : "") });
}
const itemOf = new WeakMap(items.map(it => [it.e, it]));
const height = y + 4;
svg.setAttribute("height", height);
const names = el("div", { id: "track-names" }, el("div", { style: "height:" + AXIS + "px", text: "ms from the first event" }));
for (const t of tracks) names.append(el("div", { style: "height:" + t.h + "px;line-height:" + t.h + "px", title: t.name, text: t.name }));
const tip = el("div", { id: "tip" });
const box = el("div", { id: "timeline-box" }, names, svg, tip);
const legend = el("div", { cls: "legend" });
for (const l of commonest) legend.append(el("span", {}, el("i", { style: "background:" + colourOf(l) }), l));
legend.append(el("span", {}, el("i", { style: "background:var(--c7)" }), "other events"));
legend.append(el("span", { text: "dashed outline: async actions or spawned tasks" }));
main.append(el("section", { id: "timeline-section" }, el("h2", { text: "Timeline" }),
  el("div", { cls: "hint", text: "Wheel or + / \u2212 zooms, drag or \u2190 / \u2192 pans, 0 shows it all; click a request (a span on a requests track) for its diagram." }),
  legend, box));

let t0 = 0, t1 = span, width = 800;
function layout() {
  width = Math.max(200, svg.clientWidth || box.clientWidth - 180);
  const k = width / Math.max(1, t1 - t0);
  for (const it of items) {
    const x = (it.a - t0) * k, w = Math.max(it.min, (it.b - it.a) * k);
    if (x > width || x + w < 0) { it.e.setAttribute("display", "none"); continue; }
    it.e.removeAttribute("display");
    it.e.setAttribute("x", Math.max(-1, x).toFixed(1));
    it.e.setAttribute("width", (Math.min(width + 1, x + w) - Math.max(-1, x)).toFixed(1));
    // An outline on a mark a few pixels wide would hide its colour.
    if (it.outlined) it.e.classList.toggle("thin", w < 4);
  }
  axis.replaceChildren();
  const raw = (t1 - t0) / 8, p = Math.pow(10, Math.floor(Math.log10(Math.max(1, raw))));
  const step = [1, 2, 5, 10].map(m => m * p).find(s => s >= raw);
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const x = (t - t0) * k;
    axis.append(sv("line", { x1: x, x2: x, y1: AXIS - 6, y2: height }));
    axis.append(sv("text", { x: x + 3, y: AXIS - 10 }, (t / 1e6).toFixed(step < 1e4 ? 3 : step < 1e5 ? 2 : step < 1e6 ? 1 : 0) + " ms"));
  }
  drawPath();
}
let pending = false;
const relayout = () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; layout(); }); } };
function zoom(factor, at) {
  const t = t0 + (t1 - t0) * at;
  let a = t - (t - t0) / factor, b = t + (t1 - t) / factor;
  if (b - a < 100) return;
  if (b - a > span) { a = 0; b = span; }
  if (a < 0) { b -= a; a = 0; }
  if (b > span) { a -= b - span; b = span; }
  t0 = Math.max(0, a); t1 = b; relayout();
}
function pan(fraction) {
  const d = (t1 - t0) * fraction;
  const a = Math.min(Math.max(0, t0 + d), span - (t1 - t0));
  t1 = a + (t1 - t0); t0 = a; relayout();
}
svg.addEventListener("wheel", ev => {
  ev.preventDefault();
  const rect = svg.getBoundingClientRect();
  zoom(ev.deltaY < 0 ? 1.25 : 0.8, (ev.clientX - rect.left) / rect.width);
}, { passive: false });
let drag = null;
svg.addEventListener("mousedown", ev => { drag = { x: ev.clientX, t0: t0, moved: false }; svg.focus(); });
window.addEventListener("mouseup", () => { setTimeout(() => { drag = null; }, 0); });
svg.addEventListener("mousemove", ev => {
  if (drag && ev.buttons) {
    const dx = ev.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (drag.moved) { const w = t1 - t0; t0 = drag.t0; t1 = t0 + w; pan(-dx / width); }
    return;
  }
  const i = itemOf.get(ev.target);
  if (!i) { tip.style.display = "none"; return; }
  tip.textContent = i.tip();
  const b = box.getBoundingClientRect();
  tip.style.left = Math.min(ev.clientX - b.left + 12, b.width - 320) + "px";
  tip.style.top = (ev.clientY - b.top + box.scrollTop + 14) + "px";
  tip.style.display = "block";
});
svg.addEventListener("mouseleave", () => { tip.style.display = "none"; });
svg.addEventListener("click", ev => {
  if (drag && drag.moved) return;
  const i = ev.target.getAttribute && ev.target.getAttribute("data-request");
  if (i !== null && i !== undefined) pick(Number(i), false);
});
svg.addEventListener("keydown", ev => {
  const keys = { "+": () => zoom(1.5, 0.5), "=": () => zoom(1.5, 0.5), "-": () => zoom(1 / 1.5, 0.5),
                 "ArrowLeft": () => pan(-0.1), "ArrowRight": () => pan(0.1), "0": () => { t0 = 0; t1 = span; relayout(); } };
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
});
window.addEventListener("resize", relayout);

function requestTip(q) {
  return "#" + q.dispatch + " " + q.label + " (" + q.style + ", runtime " + rowRt(q) + ")\n" +
    (q.waiting ? "still waiting after " : q.outcome + " after ") + dur(q.total) + " from " + ms(q.start) + " ms" +
    (q.dominant ? "\nlargest part: " + q.dominant : "");
}
function taskTip(t) {
  return "task " + t.task + (t.name ? " " + t.name : "") + " (" + t.policy + ", runtime " + rowRt(t) + ")\n" +
    "spawned by " + t.spawnedBy + " at " + ms(t.start) + " ms\n" + (t.ran === null || t.ran === undefined ? "running" :
    t.outcome + " after " + dur(t.ran)) + (t.replacedBy ? "\nreplaced by task " + t.replacedBy : "");
}

// ---- The picked request: its path on the timeline, its breakdown and its diagram.
let picked = -1;
function drawPath() {
  layers.path.replaceChildren();
  const q = M.requests[picked];
  if (!q || !q.path || q.path.length < 2) return;
  const k = width / Math.max(1, t1 - t0);
  const own = reqLane.get(picked) + LANE / 2;
  const pts = q.path.map(p => {
    const lane = p.gate ? gateY[q.runtime] + GATE / 2 : p.task ? taskLane.get(q.runtime + ":" + p.task) : undefined;
    return [((p.time - t0) * k).toFixed(1), (lane === undefined ? own : lane + (p.gate ? 0 : LANE / 2)).toFixed(1)];
  });
  layers.path.append(sv("polyline", { class: "path", points: pts.map(p => p.join(",")).join(" ") }));
  for (const p of pts) layers.path.append(sv("circle", { class: "pathdot", cx: p[0], cy: p[1], r: 3 }));
}
const detail = el("section", { id: "detail", hidden: "" });
main.append(detail);
function pick(i, scroll) {
  const q = M.requests[i];
  if (!q) return;
  for (const e of document.querySelectorAll(".picked")) e.classList.remove("picked");
  picked = i;
  const rect = layers.span.querySelector('[data-request="' + i + '"]');
  if (rect) rect.classList.add("picked");
  const row = document.querySelector('#requests tr[data-i="' + i + '"]');
  if (row) row.classList.add("picked");
  if (q.start + q.total < t0 || q.start > t1) {
    const pad = Math.max(q.total * 0.2, 1000), w = Math.min(span, q.total + 2 * pad);
    t0 = Math.max(0, Math.min(q.start - pad, span - w)); t1 = t0 + w;
  }
  layout();
  detail.replaceChildren();
  detail.removeAttribute("hidden");
  detail.setAttribute("data-request", q.runtime + "." + q.dispatch);
  detail.append(el("h2", { text: "Request #" + q.dispatch + " " + q.label }));
  detail.append(el("div", { cls: "facts", text: q.style + " on runtime " + rowRt(q) + " \u00b7 " +
    (q.waiting ? "still waiting at the trace's end after " : q.outcome + " after ") + dur(q.total) +
    " \u00b7 dispatched at " + ms(q.start) + " ms" }));
  if (q.parts && q.parts.length) {
    const total = q.parts.reduce((s, p) => s + p.nanos, 0) || 1;
    const kinds = [...new Set(q.parts.map(p => p.kind))];
    const bar = el("div", { cls: "bar", role: "img", "aria-label": "latency parts" });
    const body = el("tbody");
    for (const p of q.parts) {
      const c = "var(--c" + (kinds.indexOf(p.kind) % 7) + ")";
      bar.append(el("div", { style: "width:" + (100 * p.nanos / total).toFixed(2) + "%;background:" + c, title: p.kind + " " + dur(p.nanos) }));
      body.append(el("tr", {}, el("td", {}, el("i", { style: "display:inline-block;width:10px;height:10px;margin-right:6px;background:" + c }), p.kind),
        el("td", { cls: "n", text: ms(p.start) }), el("td", { cls: "n", text: ms(p.nanos) }),
        el("td", { cls: "n", text: (100 * p.nanos / total).toFixed(1) + "%" })));
    }
    detail.append(el("h3", { text: "Latency breakdown" }), bar,
      el("table", { cls: "parts" }, el("thead", {}, el("tr", {}, el("th", { text: "part" }), el("th", { cls: "n", text: "start (ms)" }),
        el("th", { cls: "n", text: "time (ms)" }), el("th", { cls: "n", text: "share" }))), body));
  }
  const template = document.getElementById("diagram-" + i);
  if (template) {
    const host = el("div", { cls: "diagram" });
    // The diagram's own style stays inside it.
    host.attachShadow({ mode: "open" }).append(inert(template.content.cloneNode(true)));
    detail.append(el("h3", { text: "Sequence diagram" }), host);
  } else {
    detail.append(el("p", { cls: "hint", text: "No diagram is embedded for this request: trace-view export --format svg --request " +
      q.dispatch + " --output request.svg TRACE draws it." }));
  }
  history.replaceState(null, "", "#request=" + q.runtime + "." + q.dispatch);
  if (scroll) detail.scrollIntoView();
}
function fromFragment() {
  const m = /request=(?:(\d+)\.)?(\d+)/.exec(location.hash);
  if (!m) return;
  const r = m[1] === undefined ? null : Number(m[1]), d = Number(m[2]);
  const i = M.requests.findIndex(q => q.dispatch === d && (r === null || q.runtime === r));
  if (i >= 0) pick(i, true);
}
window.addEventListener("hashchange", fromFragment);

// ---- Tables: sortable by any column (click its header; again reverses), filtered by text.
function table(id, columns, rows, onClick) {
  const head = el("tr");
  const body = el("tbody");
  const filter = el("input", { type: "search", placeholder: "filter (any column)", "aria-label": "filter " + id });
  const shown = el("span", { cls: "hint" });
  const order = rows.map((_, i) => i);
  let sortBy = -1, descending = false;
  columns.forEach((c, k) => {
    const th = el("th", { cls: c.num ? "n" : "", text: c.name, title: c.title || "" });
    th.addEventListener("click", () => {
      descending = sortBy === k ? !descending : !!c.num;
      sortBy = k;
      for (const h of head.children) h.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      order.sort((i, j) => {
        const a = c.get(rows[i]), b = c.get(rows[j]);
        const x = a === b ? i - j : (a === null || a === undefined) ? 1 : (b === null || b === undefined) ? -1 : a < b ? -1 : 1;
        return descending && a !== b ? -x : x;
      });
      fill();
    });
    head.append(th);
  });
  const text = rows.map(r => columns.map(c => String(c.show ? c.show(r) : c.get(r))).join(" ").toLowerCase());
  function fill() {
    const needle = filter.value.toLowerCase();
    const f = document.createDocumentFragment();
    let n = 0;
    for (const i of order) {
      if (needle && !text[i].includes(needle)) continue;
      n++;
      const tr = el("tr", { "data-i": i });
      for (const c of columns) {
        const v = c.show ? c.show(rows[i]) : c.get(rows[i]);
        tr.append(el("td", { cls: c.num ? "n" : "", text: v === null || v === undefined ? "\u2014" : String(v) }));
      }
      if (onClick) tr.addEventListener("click", () => onClick(i));
      f.append(tr);
    }
    body.replaceChildren(f);
    shown.textContent = n === rows.length ? count(n, "row") : n + " of " + count(rows.length, "row");
    if (id === "requests" && picked >= 0) { const tr = body.querySelector('tr[data-i="' + picked + '"]'); if (tr) tr.classList.add("picked"); }
  }
  filter.addEventListener("input", fill);
  fill();
  return [el("div", {}, filter, " ", shown), el("div", { cls: "scroll" }, el("table", { id: id + "-table" }, el("thead", {}, head), body))];
}

main.append(el("section", { id: "requests" }, el("h2", { text: "Requests" }),
  el("div", { cls: "hint", text: "Awaited requests, those still waiting first, then slowest first; click one for its detail." }),
  ...table("requests", [
    { name: "runtime", get: r => rowRt(r) },
    { name: "dispatch", num: true, get: r => r.dispatch },
    { name: "event", get: r => r.label },
    { name: "style", get: r => r.style },
    { name: "outcome", get: r => r.outcome },
    { name: "start (ms)", num: true, get: r => r.start, show: r => ms(r.start) },
    { name: "latency (ms)", num: true, get: r => r.total, show: r => ms(r.total) },
    { name: "largest part", get: r => r.dominant },
  ], M.requests, i => pick(i, true))));

// ---- The gate of each runtime.
function histogram(title, unit, ranges) {
  const W = 460, H = 150, L = 44, B = 34;
  const chart = sv("svg", { class: "chart", width: W, height: H, role: "img", "aria-label": title });
  chart.append(sv("text", { x: L, y: 12 }, title));
  if (!ranges.length) { chart.append(sv("text", { x: L, y: 40 }, "none")); return chart; }
  const max = Math.max(...ranges.map(r => r.count));
  const bw = (W - L - 8) / ranges.length;
  chart.append(sv("line", { class: "grid", x1: L, x2: W - 4, y1: H - B, y2: H - B }));
  chart.append(sv("text", { x: 2, y: 24 }, String(max)));
  chart.append(sv("text", { x: 2, y: H - B }, "0"));
  ranges.forEach((r, i) => {
    const h = (H - B - 20) * r.count / max;
    const bar = sv("rect", { class: "b", x: L + i * bw + 1, width: Math.max(1, bw - 2), y: H - B - h, height: Math.max(1, h) });
    bar.append(sv("title", {}, count(r.count, unit) + " of " + dur(r.lower) + " to " + dur(r.upper)));
    chart.append(bar);
    if (i % Math.ceil(ranges.length / 6) === 0) chart.append(sv("text", { x: L + i * bw, y: H - B + 14 }, dur(r.lower)));
  });
  chart.append(sv("text", { x: L, y: H - 4 }, "time (ns ranges, powers of two) \u00b7 bars: " + unit + "s"));
  return chart;
}
function depthChart(g) {
  const W = 460, H = 120, L = 44, B = 30;
  const chart = sv("svg", { class: "chart", width: W, height: H, role: "img", "aria-label": "queue depth over time" });
  chart.append(sv("text", { x: L, y: 12 }, "Queue depth over time (deepest per " + dur(g.depthWidth) + ")"));
  if (!g.depth.length) return chart;
  const max = Math.max(1, ...g.depth), n = g.depth.length;
  const x = i => L + (W - L - 8) * i / Math.max(1, n - 1), yv = v => H - B - (H - B - 20) * v / max;
  chart.append(sv("line", { class: "grid", x1: L, x2: W - 4, y1: H - B, y2: H - B }));
  chart.append(sv("polyline", { points: g.depth.map((v, i) => x(i).toFixed(1) + "," + yv(v).toFixed(1)).join(" ") }));
  chart.append(sv("text", { x: 2, y: 24 }, String(max)));
  chart.append(sv("text", { x: 2, y: H - B }, "0"));
  chart.append(sv("text", { x: L, y: H - B + 14 }, ms(g.depthStart) + " ms"));
  chart.append(sv("text", { x: W - 90, y: H - B + 14 }, ms(g.depthStart + g.depthWidth * n) + " ms"));
  chart.append(sv("text", { x: L, y: H - 2 }, "time from the first event (ms) \u00b7 line: admissions queued"));
  return chart;
}
function small(head, rows) {
  const t = el("table", {}, el("thead", {}, el("tr", {}, ...head.map(h => el("th", { cls: h[1] ? "n" : "", text: h[0] })))));
  const b = el("tbody");
  for (const r of rows) b.append(el("tr", {}, ...r.map((v, k) => el("td", { cls: head[k][1] ? "n" : "", text: String(v) }))));
  t.append(b);
  return t;
}
const gates = el("div", { cls: "gates" });
M.runtimes.forEach((g, r) => {
  const card = el("div", { cls: "gate", id: "gate-" + r });
  card.append(el("h3", { text: "Runtime " + g.name + (g.host ? " on " + g.host : "") }));
  card.append(el("div", { cls: "facts", text: count(g.cycles, "cycle") + " \u00b7 deepest queue " + g.maxDepth + " \u00b7 wait p99 " +
    dur(g.waitP99) + " \u00b7 longest hold " + dur(g.longestHold) + (g.holder ? " (" + g.holder + ")" : "") +
    (g.holdingNow ? " \u00b7 held at the end by " + g.holdingNow : "") }));
  card.append(histogram("Waits for the gate", "admission", g.waits), histogram("Holds of the gate", "cycle", g.holds), depthChart(g));
  const holders = h => [h.label, h.cycles, ms(h.total), ms(h.longest)];
  const head = [["", false], ["cycles", true], ["total (ms)", true], ["longest (ms)", true]];
  card.append(el("h3", { text: "Hold by event" }), small([["event", false]].concat(head.slice(1)), g.byEvent.map(holders)));
  card.append(el("h3", { text: "Hold by action" }), small([["action", false]].concat(head.slice(1)), g.byAction.map(holders)));
  card.append(el("h3", { text: "Longest waits" }), small([["dispatch", true], ["event", false], ["waited (ms)", true], ["held by", false]],
    g.longestWaits.map(w => [w.dispatch, w.label, ms(w.waited), w.heldBy.join(", ") || "\u2014"])));
  if (g.warnings.length) {
    const list = el("ul", { cls: "warnlist" });
    for (const w of g.warnings) list.append(el("li", { text: w }));
    card.append(el("h3", { text: "Warnings" }), list);
  }
  gates.append(card);
});
main.append(el("section", { id: "gate" }, el("h2", { text: "Gate contention" }), gates));

// ---- The comparison with a baseline run (report --baseline): diff's verdicts, and each request
// key's two latency distributions drawn on one axis.
function compareChart(r) {
  const W = 460, H = 150, L = 44, B = 34, n = r.baseCounts.length;
  const title = "Latency of " + r.label + ": base (outline) and this run (filled)";
  const chart = sv("svg", { class: "chart compare", width: W, height: H, role: "img", "aria-label": title });
  chart.append(sv("text", { x: L, y: 12 }, title));
  if (!n) return chart;
  const max = Math.max(1, ...r.baseCounts, ...r.newCounts);
  const bw = (W - L - 8) / n;
  chart.append(sv("line", { class: "grid", x1: L, x2: W - 4, y1: H - B, y2: H - B }));
  chart.append(sv("text", { x: 2, y: 24 }, String(max)));
  chart.append(sv("text", { x: 2, y: H - B }, "0"));
  const bar = (cls, counts, i, who) => {
    const h = (H - B - 20) * counts[i] / max;
    const x = L + i * bw + (cls === "b" ? bw / 2 : 1);
    const rect = sv("rect", { class: cls, x: x, width: Math.max(1, bw / 2 - 1), y: H - B - h, height: counts[i] ? Math.max(1, h) : 0 });
    rect.append(sv("title", {}, who + ": " + count(counts[i], "request") + " of " + dur(r.edges[i]) + " to " + dur(r.edges[i + 1])));
    chart.append(rect);
  };
  for (let i = 0; i < n; i++) {
    bar("base", r.baseCounts, i, "base");
    bar("b", r.newCounts, i, "this run");
    if (i % Math.ceil(n / 6) === 0) chart.append(sv("text", { x: L + i * bw, y: H - B + 14 }, dur(r.edges[i])));
  }
  chart.append(sv("text", { x: L, y: H - 4 }, "latency (4 bins a power of two) \u00b7 bars: requests"));
  return chart;
}
if (M.baseline) {
  const C = M.baseline;
  const verdict = r => r.verdict + (r.p !== null && r.p !== undefined ? " (p " + r.p.toPrecision(2) + ", A " + r.superiority.toFixed(2) + ")" : "") +
    (r.tail !== r.verdict && (r.tail === "slower" || r.tail === "faster") ? "; p99 " + r.tail : "");
  const pair = (b, n) => dur(b) + " \u2192 " + dur(n);
  const cards = el("div", { cls: "gates" });
  for (const r of C.requests) {
    const card = el("div", { cls: "gate compared", "data-verdict": r.verdict });
    card.append(el("h3", {}, r.label + " (" + r.runtime + "): ", el("span", { cls: "verdict " + r.verdict.replace(/ /g, "-"), text: verdict(r) })));
    card.append(el("div", { cls: "facts", text: "count " + r.base.count + " \u2192 " + r.new.count + " \u00b7 p50 " + pair(r.base.p50, r.new.p50) +
      " \u00b7 p99 " + pair(r.base.p99, r.new.p99) + " \u00b7 max " + pair(r.base.max, r.new.max) }));
    if (r.pairs) card.append(el("div", { cls: "facts", text: "paired by trace context: " + count(r.pairs, "pair") + ", " + r.slower +
      " slower, " + r.faster + " faster, median change " + (r.medianChange < 0 ? "-" : "+") + dur(Math.abs(r.medianChange)) + ": " + r.pairedVerdict }));
    if (r.parts.length) card.append(el("div", { cls: "facts", text: "parts, p50 a request: " +
      r.parts.map(p => p.kind + " " + pair(p.base, p.new)).join(" \u00b7 ") }));
    card.append(compareChart(r));
    cards.append(card);
  }
  const section = el("section", { id: "baseline" }, el("h2", { text: "Compared with " + C.source }),
    el("div", { cls: "hint", text: "As `trace-view diff " + C.source + " " + S.source + "` says it: requests matched by runtime " +
      "name and event label; slower or faster by a Mann-Whitney U test, the tail by the p99s' intervals. Base: " +
      count(C.events, "event") + "." + (C.onlyBase !== null && C.onlyBase !== undefined ? " By trace context, " + C.onlyBase +
      " requests only in the base and " + C.onlyNew + " only in this run." : "") }),
    C.requests.length ? cards : el("p", { text: "No awaited request in either run." }));
  if (C.gates.length) section.append(el("h3", { text: "Gates" }), small([["runtime", false], ["waits", false], ["holds", false],
    ["wait p99", false], ["hold p99", false]], C.gates.map(g => [g.runtime, g.waits, g.holds, pair(g.waitP99[0], g.waitP99[1]),
    pair(g.holdP99[0], g.holdP99[1])])));
  const listed = (head, list) => {
    if (!list.length) return;
    const ul = el("ul", { cls: "warnlist" });
    for (const w of list) ul.append(el("li", { text: w }));
    section.append(el("h3", { text: head }), ul);
  };
  listed("Warnings that appeared", C.appeared);
  listed("Warnings that went away", C.gone);
  main.append(section);
}

main.append(el("section", { id: "tasks" }, el("h2", { text: "Tasks" }),
  el("div", { cls: "hint", text: "Every task instance in spawn order (or the longest-running, as the top says)." }),
  ...table("tasks", [
    { name: "runtime", get: t => rowRt(t) },
    { name: "task", num: true, get: t => t.task },
    { name: "name", get: t => t.name },
    { name: "policy", get: t => t.policy },
    { name: "spawned by", get: t => t.spawnedBy },
    { name: "start (ms)", num: true, get: t => t.start, show: t => ms(t.start) },
    { name: "ran (ms)", num: true, get: t => t.ran, show: t => (t.ran === null || t.ran === undefined ? null : ms(t.ran)) },
    { name: "fate", get: t => t.outcome },
    { name: "replaced by", num: true, get: t => t.replacedBy || null },
    { name: "joined by", get: t => t.joinedBy.join(", ") || null },
  ], M.tasks, null)));

const warnings = el("ul", { cls: "warnlist" });
for (const w of M.warnings) warnings.append(el("li", {}, el("span", { cls: "check", text: w.check }),
  " (runtime " + rtName(w.runtime) + "): " + w.message));
main.append(el("section", { id: "warnings" }, el("h2", { text: "Warnings" }),
  M.warnings.length ? warnings : el("p", { text: "None." })));

const runtimesOf = pid => M.runtimes.filter(g => g.pid === pid).map(g => g.id).join(", ");
main.append(el("section", { id: "summary" }, el("h2", { text: "Summary" }),
  small([["", false], ["", false]], [["source", S.source], ["events", S.events.toLocaleString("en")],
    ["lost", S.lost.toLocaleString("en")], ["span", dur(S.span)], ["first event (CLOCK_MONOTONIC ns)", S.start],
    ["runtimes", M.runtimes.length], ["awaited requests", S.requests.toLocaleString("en")],
    ["task instances", S.tasks.toLocaleString("en")], ["cycles", S.cycles.toLocaleString("en")]]),
  el("h3", { text: "Processes" }),
  small([["pid", true], ["host", false], ["runtimes", false]],
    S.processes.map(p => [p.pid || "(in-process)", p.host || "\u2014", runtimesOf(p.pid)]))));

layout();
fromFragment();
document.body.setAttribute("data-ready", "1");
})();
