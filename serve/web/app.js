// app.js — the page of `noisegraph serve`: renders the served script through
// /api/render (a coarse image first, then full size), keeps parameters, the
// command line, the graph and errors in step with /api/state, and re-renders
// on every /api/events generation and every parameter, view or window change.
// What is shown (parameters, view, output, node, window) lives in the URL's
// query, so a look can be bookmarked and shared.
// Plain browser JavaScript, no libraries: the page must work offline.
"use strict";

const COARSE = 4;          // the first render is 1/COARSE of the size, scaled up
const $ = (id) => document.getElementById(id);

const ui = {
  state: null,             // the last /api/state (without the page's sets)
  sets: {},                // NAME -> value text, the parameters the user changed
  view: "grey",
  node: null,              // a node id being previewed, or null for the output
  output: 0,               // which of the script's outputs is shown (an index of state.outputs)
  terrain: {},             // hillshade: sea, hs, ramp the page set (absent: serve's own)
  fromUrl: null,           // what the URL asked for, applied once the first state is in
  win: null,               // {ox, oy, ps}: the world window asked for
  shown: null,             // {ox, oy, ps}: the window of the image on screen
  stream: "p" + Math.random().toString(36).slice(2, 10),
  seq: 0,                  // render sequence number: a newer one makes older stale
  abort: null,
  stale: 0,                // renders cancelled because a newer one started
  probes: 0,               // volume view probes asked for
  imageUrl: null,
  timers: {},
  fold: new Set(),         // nodes drawn with the branch feeding them folded in
};

// ---- small helpers ----------------------------------------------------------

function debounce(name, ms, fn) {
  clearTimeout(ui.timers[name]);
  ui.timers[name] = setTimeout(fn, ms);
}

// A number as short text: six significant digits.
function fmt(v) {
  if (typeof v !== "number") return String(v);
  if (Number.isInteger(v)) return String(v);
  return String(parseFloat(v.toPrecision(6)));
}

// A world coordinate to 1/100 of a pixel of size ps: far from the origin
// six significant digits would move the picture by whole pixels.
function fmtAt(v, ps) {
  const decimals = Math.max(0, Math.min(15, Math.ceil(-Math.log10(ps / 100))));
  const t = v.toFixed(decimals);
  const short = decimals ? t.replace(/\.?0+$/, "") : t;
  return short === "-0" ? "0" : short;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k) e.append(k);
  return e;
}

function setsQuery() {
  return Object.entries(ui.sets)
    .map(([k, v]) => "&set." + encodeURIComponent(k) + "=" + encodeURIComponent(v)).join("");
}

// What a failed response says (the server answers errors in plain text).
async function reason(resp) {
  const t = (await resp.text()).trim();
  return t || resp.status + " " + resp.statusText;
}

// ---- the URL: what is shown, for bookmarks -----------------------------------

// What the query asks for: set.NAME=V parameters, view, output (a name),
// node (an id), the window ox, oy, ps, and the graph's folded nodes.
function readUrl() {
  const q = new URLSearchParams(location.search), asked = { sets: {} };
  for (const [k, v] of q) {
    if (k.startsWith("set.")) asked.sets[k.slice(4)] = v;
    else if (k === "view" || k === "output") asked[k] = v;
    else if (k === "sea" || k === "hs" || k === "ramp") asked.terrain = { ...asked.terrain, [k]: v };
    else if (k === "node" && /^\d+$/.test(v)) asked.node = +v;
    else if (k === "fold") asked.fold = v.split(",").filter((x) => /^\d+$/.test(x)).map(Number);
    else if ((k === "ox" || k === "oy" || k === "ps") && v !== "" && isFinite(+v)) asked[k] = +v;
  }
  return asked;
}

// The page's state as the URL's query (replaces the entry: no history per drag).
function writeUrl() {
  if (!ui.state || !ui.win) return;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(ui.sets)) q.set("set." + k, v);
  if (ui.view !== "grey") q.set("view", ui.view);
  if (ui.output) q.set("output", ui.state.outputs[ui.output].name);
  if (ui.node !== null) q.set("node", ui.node);
  for (const [k, v] of Object.entries(ui.terrain)) q.set(k, v);
  if (ui.fold.size) q.set("fold", [...ui.fold].sort((a, b) => a - b).join(","));
  const w = ui.win, st = ui.state;
  if (w.ox !== st.origin[0] || w.oy !== st.origin[1] || w.ps !== st.pixel_size) {
    q.set("ox", fmtAt(w.ox, w.ps));
    q.set("oy", fmtAt(w.oy, w.ps));
    q.set("ps", fmt(w.ps));
  }
  const s = q.toString();
  history.replaceState(null, "", s ? "?" + s : location.pathname);
}

// The first state in: what the URL asked for, where the script has it.
function applyUrl(st) {
  const a = ui.fromUrl;
  ui.fromUrl = null;
  if (!a) return;
  const names = new Set(st.params.map((p) => p.name));
  for (const [k, v] of Object.entries(a.sets)) if (names.has(k)) ui.sets[k] = v;
  if (a.ps > 0) ui.win = { ox: a.ox || 0, oy: a.oy || 0, ps: a.ps };
  const k = st.outputs.findIndex((o) => o.name === a.output);
  if (k > 0) ui.output = k;
  if (a.node !== undefined && st.nodes.some((n) => n.id === a.node)) previewNode(a.node, false);
  for (const id of a.fold || []) if (st.nodes.some((n) => n.id === id)) ui.fold.add(id);
  if (a.terrain) { ui.terrain = a.terrain; showTerrain(); }
  if (a.view && document.querySelector(`#views button[data-view="${CSS.escape(a.view)}"]`)) setView(a.view, false);
  showWindow();
}

// ---- status line --------------------------------------------------------------

const status = { gen: "", ms: "", note: "", bad: "" };

function showStatus(part, text) {
  status[part] = text;
  const s = $("status");
  s.textContent = "";
  s.append(el("span", { id: "gen", text: status.gen }));
  for (const p of ["ms", "note"]) if (status[p]) s.append(" · ", el("span", { id: "st-" + p, text: status[p] }));
  if (ui.stale) s.append(" · ", el("span", { id: "st-stale", text: ui.stale + " stale cancelled" }));
  if (status.bad) s.append(" · ", el("span", { id: "st-bad", class: "bad", text: status.bad }));
}

// ---- state: parameters, error, command ------------------------------------------

async function refresh() {
  let resp;
  try {
    resp = await fetch("api/state");
  } catch (e) {
    showStatus("bad", "server unreachable");
    return;
  }
  if (!resp.ok) { showStatus("bad", await reason(resp)); return; }
  const st = await resp.json();
  const first = !ui.state;
  const newGen = first || st.generation !== ui.state.generation;
  ui.state = st;
  $("script").textContent = st.script;
  document.title = st.script + " — noisegraph";
  showStatus("gen", "gen " + st.generation);
  if (first) { resetWindow(false); applyUrl(st); }
  // parameters the script no longer declares are dropped, not sent; while
  // a run fails the last good graph (and its parameters) stays in use
  if (!st.error || first) {
    const names = new Set(st.params.map((p) => p.name));
    for (const k of Object.keys(ui.sets)) if (!names.has(k)) delete ui.sets[k];
    buildParams(st.params);
  }
  buildOutputs(st.outputs);
  showError(st.error);
  if (ui.node !== null && !st.nodes.some((n) => n.id === ui.node)) previewNode(null, false);
  if (newGen) { loadGraph(); probeVolume(); }
  updateCommand();
  render(0);
}

function showError(e) {
  $("error").hidden = !e;
  if (!e) return;
  // the server gives the location apart from the message: shown once
  $("error-where").textContent = e.file + (e.line ? ":" + e.line : "") + ":";
  $("error-message").textContent = e.message;
  $("error-source").textContent = e.line ? e.line + " | " + (e.source || "") : "";
}

// The command line for the current values, from the server (it knows the
// script's own arguments), with the page's window appended.
function updateCommand() {
  debounce("command", 120, async () => {
    const resp = await fetch("api/state?" + setsQuery().slice(1));
    const bad = document.querySelectorAll(".param .row.bad");
    bad.forEach((r) => r.classList.remove("bad"));
    if (!resp.ok) {
      const why = await reason(resp);
      showStatus("bad", why);
      for (const k of Object.keys(ui.sets)) {
        const r = document.querySelector(`.param[data-name="${CSS.escape(k)}"] .row`);
        if (r && why.includes(k)) r.classList.add("bad");
      }
      return;
    }
    const st = await resp.json();
    let cmd = st.command.replace(/ --origin \S+| --pixel-size \S+/g, "");
    const w = ui.win;
    if (w.ox !== 0 || w.oy !== 0) cmd += " --origin " + fmtAt(w.ox, w.ps) + "," + fmtAt(w.oy, w.ps);
    if (w.ps !== 1) cmd += " --pixel-size " + fmt(w.ps);
    $("command").textContent = cmd;
  });
}

// ---- parameters ----------------------------------------------------------------

// The slider's range: the declared one, or a span around the value when the
// script leaves an end open (the number field still takes any value).
function sliderRange(p) {
  const v = typeof p.default === "number" ? p.default : 0;
  const span = Math.max(Math.abs(v), 1);
  const lo = p.min != null ? p.min : (p.max != null ? Math.min(v, p.max) - 2 * span : v - 2 * span);
  const hi = p.max != null ? p.max : Math.max(lo + 2 * Math.abs(v - lo), lo + span, v + span);
  return [lo, hi];
}

function numberControl(p) {
  const [lo, hi] = sliderRange(p);
  const isInt = p.kind === "int";
  const step = isInt ? "1" : "any";
  const slider = el("input", { type: "range", min: lo, max: hi, step, value: p.value, "aria-label": p.name });
  const field = el("input", { type: "number", step, value: p.value, "aria-label": p.name + " value" });
  if (p.min != null) field.min = p.min;
  if (p.max != null) field.max = p.max;
  slider.addEventListener("input", () => {
    const v = isInt ? Math.round(+slider.value) : +slider.value;
    field.value = fmt(v);
    changeParam(p.name, fmt(v));
  });
  field.addEventListener("input", () => {
    if (field.value === "" || !isFinite(+field.value)) return;
    const v = +field.value;
    if (v < +slider.min) slider.min = v;
    if (v > +slider.max) slider.max = v;
    slider.value = v;
    changeParam(p.name, field.value);
  });
  const row = el("div", { class: "row" }, slider, field);
  row.setValue = (v) => { slider.value = v; field.value = fmt(v); };
  return row;
}

function boolControl(p) {
  const box = el("input", { type: "checkbox", "aria-label": p.name });
  box.checked = !!p.value;
  box.addEventListener("change", () => changeParam(p.name, box.checked ? "true" : "false"));
  const row = el("div", { class: "row" }, el("label", {}, box, " " + (p.doc ? "" : p.name)));
  row.setValue = (v) => { box.checked = v === true || v === "true"; };
  return row;
}

function enumControl(p) {
  const sel = el("select", { "aria-label": p.name });
  for (const c of p.choices || [p.value]) sel.append(el("option", { value: c, text: c }));
  sel.value = p.value;
  sel.addEventListener("change", () => changeParam(p.name, sel.value));
  const row = el("div", { class: "row" }, sel);
  row.setValue = (v) => { sel.value = v; };
  return row;
}

function vecParts(v) {
  return Array.isArray(v) ? v : String(v).split(",").map(Number);
}

function vecControl(p) {
  const fields = vecParts(p.value).map((x, i) =>
    el("input", { type: "number", step: "any", value: x, "aria-label": p.name + "xyz"[i] }));
  for (const f of fields)
    f.addEventListener("input", () => {
      if (fields.every((g) => g.value !== "" && isFinite(+g.value)))
        changeParam(p.name, fields.map((g) => g.value).join(","));
    });
  const row = el("div", { class: "row vec" }, ...fields);
  row.setValue = (v) => vecParts(v).forEach((x, i) => { if (fields[i]) fields[i].value = x; });
  return row;
}

function textControl(p) {
  const f = el("input", { type: "text", value: p.value, "aria-label": p.name });
  f.addEventListener("change", () => changeParam(p.name, f.value));
  const row = el("div", { class: "row" }, f);
  row.setValue = (v) => { f.value = v; };
  return row;
}

const controls = { number: numberControl, int: numberControl, bool: boolControl, enum: enumControl,
                   vec: vecControl };

function rangeText(p) {
  if (p.kind !== "number" && p.kind !== "int") return "";
  if (p.min == null && p.max == null) return "";
  return (p.min != null ? fmt(p.min) : "−∞") + " … " + (p.max != null ? fmt(p.max) : "∞");
}

// Rebuilds the controls when the script's parameters change (names or
// kinds); otherwise keeps them, so a slider being dragged is not replaced.
function buildParams(params) {
  const box = $("params");
  const shape = JSON.stringify(params.map((p) => [p.name, p.kind, p.min, p.max, p.choices]));
  if (box.dataset.shape !== shape) {
    box.dataset.shape = shape;
    box.textContent = "";
    for (const p of params) {
      const row = (controls[p.kind] || textControl)(p);
      const name = el("span", { class: "name", text: p.name, title: p.doc || "" });
      const div = el("div", { class: "param", "data-name": p.name, "data-kind": p.kind, title: p.doc || "" },
        el("div", { class: "head" }, name, el("span", { class: "range", text: rangeText(p) })),
        row, p.doc ? el("div", { class: "doc", text: p.doc }) : null);
      div.row = row;
      if (p.name in ui.sets) row.setValue(ui.sets[p.name]); // new controls show the page's value (a URL's)
      box.append(div);
    }
  }
  for (const p of params) {
    const div = box.querySelector(`.param[data-name="${CSS.escape(p.name)}"]`);
    if (div && !(p.name in ui.sets)) div.row.setValue(p.value);
    if (div) div.querySelector(".name").classList.toggle("changed", p.name in ui.sets);
  }
}

function changeParam(name, value) {
  ui.sets[name] = value;
  const div = $("params").querySelector(`.param[data-name="${CSS.escape(name)}"]`);
  if (div) div.querySelector(".name").classList.add("changed");
  showStatus("bad", "");
  updateCommand();
  debounce("graph", 300, loadGraph);
  render(30);
}

function resetParams() {
  ui.sets = {};
  if (ui.state) buildParams(ui.state.params);
  updateCommand();
  loadGraph();
  render(0);
}

// ---- the graph -----------------------------------------------------------------

// The nodes folded, as the drawing's fold= argument: those the graph still has.
function foldQuery() {
  const have = new Set(ui.state ? ui.state.nodes.map((n) => n.id) : []);
  const before = ui.fold.size;
  for (const id of ui.fold) if (!have.has(id)) ui.fold.delete(id);
  if (ui.fold.size !== before) writeUrl();
  $("graph-unfold").hidden = ui.fold.size === 0;
  return ui.fold.size ? "&fold=" + [...ui.fold].sort((a, b) => a - b).join(",") : "";
}

// Right-click on a node folds the branch feeding it into it (or unfolds it):
// an 80-node graph read a part at a time.
function toggleFold(id) {
  if (ui.fold.has(id)) ui.fold.delete(id);
  else ui.fold.add(id);
  writeUrl();
  loadGraph();
}

// The graph with the page's values (its labels show options they set).
async function loadGraph() {
  const resp = await fetch("api/graph.svg?" + (setsQuery() + foldQuery()).slice(1));
  const box = $("graph");
  if (!resp.ok) { box.textContent = await reason(resp); return; }
  const doc = new DOMParser().parseFromString(await resp.text(), "image/svg+xml");
  const svg = doc.documentElement;
  if (svg.nodeName !== "svg") { box.textContent = "the graph could not be drawn"; return; }
  // scale with the panel: graphviz sizes it in points
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  box.textContent = "";
  box.append(document.importNode(svg, true));
  for (const g of box.querySelectorAll('g[id^="node-"]')) {
    const id = parseInt(g.id.slice(5), 10);
    if (!Number.isInteger(id)) continue;
    g.addEventListener("click", () => previewNode(ui.node === id ? null : id, true));
    g.addEventListener("contextmenu", (e) => { e.preventDefault(); toggleFold(id); });
  }
  // an output's box: the first output is what the page shows by default
  for (const g of box.querySelectorAll('g[id^="output-"]')) {
    const k = parseInt(g.id.slice(7), 10), out = ui.state.outputs[k];
    if (!out) continue;
    g.classList.add("node");
    g.addEventListener("click", () => pickOutput(k));
  }
  // the size graphviz gives it, for the 1:1 zoom (points are CSS pixels here)
  const vb = svg.viewBox && svg.viewBox.baseVal;
  const s = box.querySelector("svg");
  if (vb && vb.width) { s.setAttribute("data-w", vb.width); s.setAttribute("data-h", vb.height); }
  zoomGraph();
  markSelected();
  findNodes();
}

// 1:1 draws the graph at its own size in a scrolled box: an 80-node graph
// stays readable where fitting it to the strip makes it a smudge.
function zoomGraph() {
  const s = $("graph").querySelector("svg"), actual = $("graph").classList.contains("actual");
  if (!s) return;
  s.style.width = actual && s.dataset.w ? s.dataset.w + "px" : "";
  s.style.height = actual && s.dataset.h ? s.dataset.h + "px" : "";
}

// Nodes whose label, type or id holds the search text: marked, the first
// scrolled into view (at 1:1 size).
function findNodes() {
  const q = $("graph-search").value.trim().toLowerCase();
  let first = null, count = 0;
  for (const g of $("graph").querySelectorAll('g[id^="node-"]')) {
    const id = parseInt(g.id.slice(5), 10), n = ui.state && ui.state.nodes.find((x) => x.id === id);
    const hit = q !== "" && n && (n.label.toLowerCase().includes(q) || n.type.toLowerCase().includes(q) ||
                                   String(id) === q.replace(/^#/, ""));
    g.classList.toggle("found", !!hit);
    if (hit) { count++; if (!first) first = g; }
  }
  $("graph-search").title = q ? count + " node" + (count === 1 ? "" : "s") + " found" : "";
  if (first) {
    if (!$("graph").classList.contains("actual")) { $("graph").classList.add("actual"); $("graph-zoom").textContent = "fit"; zoomGraph(); }
    first.scrollIntoView({ block: "center", inline: "center" });
  }
}

// Highlights what the picture shows: the previewed node, or the output.
function markSelected() {
  const shown = ui.node === null ? "output-" + ui.output : "node-" + ui.node;
  for (const g of $("graph").querySelectorAll('g[id^="node-"], g[id^="output-"]'))
    g.classList.toggle("selected", g.id === shown);
}

function nodeName(id) {
  const n = ui.state && ui.state.nodes.find((x) => x.id === id);
  return "#" + id + (n ? " " + n.label : "");
}

function previewNode(id, rerender) {
  ui.node = id;
  $("preview-bar").hidden = id === null;
  $("preview-name").textContent = id === null ? "" : nodeName(id);
  markSelected();
  probeVolume();
  if (rerender) render(0);
}

// ---- outputs: which one is shown -----------------------------------------------------

// A picker when the script returns several named outputs.
function buildOutputs(outputs) {
  const sel = $("output");
  if (ui.output >= outputs.length) ui.output = 0;
  $("output-pick").hidden = outputs.length < 2;
  const shape = outputs.map((o) => o.name).join("\n");
  if (sel.dataset.shape !== shape) {
    sel.dataset.shape = shape;
    sel.textContent = "";
    outputs.forEach((o, k) => sel.append(el("option", { value: k, text: o.name })));
  }
  sel.value = ui.output;
}

function pickOutput(k) {
  ui.output = k;
  $("output").value = k;
  if (ui.node !== null) previewNode(null, false);
  markSelected();
  probeVolume();
  render(0);
}

function channelsOf(id) {
  const n = ui.state.nodes.find((x) => x.id === id);
  return n ? n.channels : 1;
}

// The node the picture is of (null: the first output, the server's
// default). A ramp or hillshade colours one channel: for an RGB output it
// pictures the script's height, its output named "height" or else its
// first 1-channel output, and says so.
function shownNode() {
  const outs = ui.state.outputs;
  let id = ui.node !== null ? ui.node : ui.output ? outs[ui.output].id : null;
  ui.heightFor = null;
  if ((ui.view === "ramp" || ui.view === "hillshade") && ui.node === null &&
      channelsOf(id === null ? outs[0].id : id) !== 1) {
    const ones = outs.filter((o) => channelsOf(o.id) === 1);
    const h = ones.find((o) => o.name === "height") || ones[0];
    if (h) { ui.heightFor = h.name; id = h.id; }
  }
  return id;
}

// ---- views ------------------------------------------------------------------------

// The terrain controls show the page's values (or the defaults).
function showTerrain() {
  $("sea").value = ui.terrain.sea || "0.3";
  $("hs").value = ui.terrain.hs || "";
  $("tramp").value = ui.terrain.ramp || "terrain";
}

function setTerrain(k, v) {
  if (v === "" || v === undefined) delete ui.terrain[k];
  else ui.terrain[k] = v;
  render(50);
}

function setView(v, rerender = true) {
  ui.view = v;
  $("terrain").hidden = v !== "hillshade";
  for (const b of document.querySelectorAll("#views button")) b.classList.toggle("on", b.dataset.view === v);
  $("viewport").classList.toggle("fixed", v === "volume");
  if (rerender) render(0);
}

// The volume view exists only for a 3D-capable 1-channel node (the output
// or the one previewed); the server says why not.
async function probeVolume() {
  const b = document.querySelector('#views button[data-view="volume"]');
  const id = ui.node !== null ? ui.node : ui.output ? ui.state.outputs[ui.output].id : null;
  const node = id === null ? "" : "&node=" + id;
  const seq = ++ui.probes; // an older probe's answer may come last: it is ignored
  const resp = await fetch("api/render?w=16&h=16&view=volume" + node + setsQuery() + "&stream=" + ui.stream + "-probe");
  const why = resp.ok ? "" : await reason(resp);
  if (seq !== ui.probes) return;
  if (resp.ok) {
    b.disabled = false;
    b.title = "the volume preview (a ray-march through the density)";
    return;
  }
  b.disabled = true;
  b.title = "volume preview not available: " + why;
  if (ui.view === "volume") setView("grey");
}

// ---- the world window: pan and zoom -----------------------------------------------

function resetWindow(rerender) {
  const st = ui.state;
  ui.win = { ox: st.origin[0], oy: st.origin[1], ps: st.pixel_size };
  showWindow();
  if (rerender) { updateCommand(); render(0); }
}

function showWindow() {
  const w = ui.win;
  $("where").textContent = "origin " + fmtAt(w.ox, w.ps) + ", " + fmtAt(w.oy, w.ps) + " · pixel " + fmt(w.ps);
  placeImage();
}

// The served size, scaled down to fit the server's bound on w and h
// (max_side of /api/state: the server's NG_SERVE_MAX_SIDE, said once).
function renderSize() {
  const [w, h] = ui.state.size, side = ui.state.max_side;
  const k = Math.min(1, side / w, side / h);
  return [Math.max(1, Math.round(w * k)), Math.max(1, Math.round(h * k))];
}

// Where the full-size image's pixels sit in the viewport (object-fit: contain).
function contentBox() {
  const vp = $("viewport").getBoundingClientRect();
  const [w, h] = renderSize();
  const k = Math.min(vp.width / w, vp.height / h);
  return { k, left: (vp.width - w * k) / 2, top: (vp.height - h * k) / 2, vp };
}

// Moves the image on screen to where the asked-for window puts it, so a drag
// or a wheel turn answers at once while the new render is on its way.
function placeImage() {
  const img = $("render");
  if (!ui.shown || !ui.state) { img.style.transform = ""; return; }
  const { k, left, top } = contentBox();
  const s = ui.shown.ps / ui.win.ps;
  const tx = left + (ui.shown.ox - ui.win.ox) / ui.win.ps * k - left * s;
  const ty = top + (ui.shown.oy - ui.win.oy) / ui.win.ps * k - top * s;
  img.style.transform = `translate(${tx}px, ${ty}px) scale(${s})`;
}

function windowChanged() {
  showWindow();
  updateCommand();
  render(100);
}

// The volume view looks at a box from a camera: the window does not move it.
function panZooms() {
  return ui.win && ui.view !== "volume";
}

function setupPanZoom() {
  const vp = $("viewport");
  let drag = null;
  vp.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || !panZooms()) return;
    drag = { x: e.clientX, y: e.clientY };
    vp.setPointerCapture(e.pointerId);
    vp.classList.add("dragging");
  });
  vp.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const { k } = contentBox();
    ui.win.ox -= (e.clientX - drag.x) / k * ui.win.ps;
    ui.win.oy -= (e.clientY - drag.y) / k * ui.win.ps;
    drag = { x: e.clientX, y: e.clientY };
    windowChanged();
  });
  const end = () => { if (drag) { drag = null; vp.classList.remove("dragging"); render(0); } };
  vp.addEventListener("pointerup", end);
  vp.addEventListener("pointercancel", end);
  vp.addEventListener("wheel", (e) => {
    if (!panZooms()) return;
    e.preventDefault();
    const { k, left, top, vp: r } = contentBox();
    const ix = (e.clientX - r.left - left) / k, iy = (e.clientY - r.top - top) / k;
    const wx = ui.win.ox + ix * ui.win.ps, wy = ui.win.oy + iy * ui.win.ps;
    const f = Math.exp(Math.max(-1, Math.min(1, e.deltaY * (e.deltaMode ? 0.05 : 0.0015))));
    ui.win.ps *= f;
    ui.win.ox = wx - ix * ui.win.ps;
    ui.win.oy = wy - iy * ui.win.ps;
    windowChanged();
  }, { passive: false });
  window.addEventListener("resize", placeImage);
}

// ---- rendering -----------------------------------------------------------------------

function renderUrl(w, h, ps, seq) {
  const v = ui.win;
  let u = `api/render?w=${w}&h=${h}&ox=${fmtAt(v.ox, v.ps)}&oy=${fmtAt(v.oy, v.ps)}&ps=${fmt(ps)}&view=${ui.view}`;
  const id = shownNode();
  if (id !== null) u += "&node=" + id;
  if (ui.view === "hillshade") for (const [k, val] of Object.entries(ui.terrain)) u += "&" + k + "=" + encodeURIComponent(val);
  return u + setsQuery() + "&stream=" + ui.stream + "&seq=" + seq;
}

function render(delay) {
  writeUrl();
  debounce("render", delay, renderNow);
}

// One render sequence: the coarse image, then the full one. A newer sequence
// aborts this one's request; the server cancels the stale render on the
// stream when the newer request arrives.
async function renderNow() {
  if (!ui.state || !ui.win) return;
  const seq = ++ui.seq;
  if (ui.abort) ui.abort.abort();
  const ctl = new AbortController();
  ui.abort = ctl;
  const [w, h] = renderSize();
  const win = { ...ui.win };
  const cw = Math.max(1, Math.ceil(w / COARSE)), ch = Math.max(1, Math.ceil(h / COARSE));
  showStatus("note", "rendering…");
  const coarse = await fetchImage(renderUrl(cw, ch, win.ps * w / cw, seq), seq, ctl);
  if (!coarse) return;
  showImage(coarse, win, true);
  const full = await fetchImage(renderUrl(w, h, win.ps, seq), seq, ctl);
  if (!full) return;
  showImage(full, win, false);
  showStatus("ms", `${w}×${h} ${full.ms} ms (coarse ${coarse.ms} ms)` +
             (ui.heightFor ? ` · ${ui.view} of output '${ui.heightFor}' (the shown one is RGB)` : ""));
  showStatus("note", "");
}

// The image at url, or null when the render failed or a newer one started
// (the status line says which).
async function fetchImage(url, seq, ctl) {
  try {
    const resp = await fetch(url, { signal: ctl.signal });
    if (seq !== ui.seq) return null;
    // 409 on the newest sequence: the server stopping, or it took this
    // client for gone; ask once more before saying so
    if (resp.status === 409 && !ctl.asked_again) { ctl.asked_again = true; return fetchImage(url, seq, ctl); }
    if (resp.status === 409) { ui.stale++; showStatus("note", "cancelled"); return null; }
    // 503: a time limit (of the script's run or of the render) or a busy server: its reason below
    if (!resp.ok) { showStatus("note", ""); showStatus("bad", await reason(resp)); return null; }
    const blob = await resp.blob();
    if (seq !== ui.seq) return null;
    return { blob, url, ms: resp.headers.get("X-Noisegraph-Render-Ms") || "?",
             gen: resp.headers.get("X-Noisegraph-Generation") };
  } catch (e) {
    if (e.name === "AbortError") { ui.stale++; showStatus("note", ""); return null; }
    showStatus("bad", "server unreachable");
    return null;
  }
}

function showImage(r, win, coarse) {
  const img = $("render");
  const old = ui.imageUrl;
  ui.imageUrl = URL.createObjectURL(r.blob);
  img.onload = () => { if (old) URL.revokeObjectURL(old); };
  img.src = ui.imageUrl;
  img.classList.toggle("coarse", coarse);
  // what this image is, for a reader of the page (and its test)
  img.dataset.url = r.url;
  img.dataset.generation = r.gen || "";
  img.dataset.coarse = coarse ? "1" : "0";
  $("empty").hidden = true;
  ui.shown = win;
  placeImage();
  if (!coarse) showStatus("bad", "");
}

// ---- wiring --------------------------------------------------------------------------

function copyCommand() {
  const text = $("command").textContent;
  const done = () => { $("copy").textContent = "copied"; setTimeout(() => { $("copy").textContent = "copy"; }, 1200); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => selectCommand());
  } else {
    selectCommand();
    if (document.execCommand("copy")) done();
  }
}

function selectCommand() {
  const r = document.createRange();
  r.selectNodeContents($("command"));
  const s = window.getSelection();
  s.removeAllRanges();
  s.addRange(r);
}

function listen() {
  const es = new EventSource("api/events");
  es.addEventListener("generation", () => refresh());
  es.onopen = () => { if (status.bad === "live updates lost, reconnecting") showStatus("bad", ""); };
  es.onerror = () => showStatus("bad", "live updates lost, reconnecting");
}

function start() {
  ui.fromUrl = readUrl();
  $("graph-search").addEventListener("input", findNodes);
  $("sea").addEventListener("input", () => setTerrain("sea", $("sea").value));
  $("hs").addEventListener("input", () => { if ($("hs").value === "" || +$("hs").value >= 0) setTerrain("hs", $("hs").value); });
  $("tramp").addEventListener("change", () => setTerrain("ramp", $("tramp").value === "terrain" ? "" : $("tramp").value));
  $("graph-zoom").addEventListener("click", () => {
    const on = $("graph").classList.toggle("actual");
    $("graph-zoom").textContent = on ? "fit" : "1:1";
    zoomGraph();
  });
  $("graph-unfold").addEventListener("click", () => { ui.fold.clear(); writeUrl(); loadGraph(); });
  $("graph-fold").addEventListener("click", () => {
    const folded = $("graph-strip").classList.toggle("folded");
    $("graph-fold").textContent = folded ? "show" : "hide";
  });
  $("output").addEventListener("change", () => pickOutput(+$("output").value));
  for (const b of document.querySelectorAll("#views button")) b.addEventListener("click", () => setView(b.dataset.view));
  $("reset").addEventListener("click", () => resetWindow(true));
  $("back").addEventListener("click", () => previewNode(null, true));
  $("defaults").addEventListener("click", resetParams);
  $("copy").addEventListener("click", copyCommand);
  setupPanZoom();
  listen();
  refresh();
}

start();
