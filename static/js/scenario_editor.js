// The scenario editor: the scenario JSON (the same as a scenario file) edited in place,
// the map drawn as one SVG string with one element per hex (data-hex="J10"), and the server
// (campaigns.games.erfworld.scenarios.parse_scenario) as the only judge of what is valid.

const SQRT3 = Math.sqrt(3);
const S = 10; // hex radius in SVG units; zoom changes the SVG's size, never its contents
const LABELS_UP_TO = 1600; // hex labels only on maps small enough to read them
const SIDES = ["N", "NE", "SE", "S", "SW", "NW"];
// Flat-top hex corners (0° = east, clockwise in SVG): side N lies between corners 4 and 5.
const SIDE_CORNERS = { N: [4, 5], NE: [5, 0], SE: [0, 1], S: [1, 2], SW: [2, 3], NW: [3, 4] };

export function columnLetters(index) {
  let letters = "";
  let n = index + 1;
  while (n > 0) {
    const rem = (n - 1) % 26;
    letters = String.fromCharCode(65 + rem) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

export function hexLabel(col, row) {
  return `${columnLetters(col)}${row}`;
}

export function parseLabel(label) {
  const m = /^([A-Z]+)([1-9][0-9]*)$/.exec(label.trim().toUpperCase());
  if (!m) return null;
  let col = 0;
  for (const ch of m[1]) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { col: col - 1, row: Number(m[2]) };
}

// Odd-q: odd columns (B, D, …) sit half a hex lower, as in rules/hexgrid.py.
export function hexCenter(col, row) {
  return { x: S + col * 1.5 * S, y: SQRT3 * S * (row - 0.5 + (col & 1) / 2) };
}

function corner(i) {
  const a = (Math.PI / 180) * 60 * i;
  return [S * Math.cos(a), S * Math.sin(a)];
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const state = {
  sc: null,
  config: null,
  tool: "terrain",
  paint: "road",
  selected: null,
  cursor: { col: 0, row: 1 },
  zoom: 1.6,
  painting: false,
  hexEls: new Map(),
};

function el(id) {
  return document.getElementById(id);
}

function onMap(label) {
  const p = parseLabel(label);
  const { cols, rows } = state.sc.map;
  return p !== null && p.col < cols && p.row >= 1 && p.row <= rows;
}

// --- the map -----------------------------------------------------------------------------

function renderMap() {
  const { cols, rows, terrain } = state.sc.map;
  const width = S * 2 + (cols - 1) * 1.5 * S;
  const height = SQRT3 * S * (rows + 0.5);
  const points = [0, 1, 2, 3, 4, 5].map((i) => corner(i).map((v) => v.toFixed(2)).join(",")).join(" ");
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width.toFixed(1)} ${height.toFixed(1)}"`,
    ` width="${(width * state.zoom).toFixed(0)}" height="${(height * state.zoom).toFixed(0)}"`,
    ` data-width="${width}" data-height="${height}" aria-hidden="true">`,
    `<defs><polygon id="sc-hx" points="${points}"/></defs><g class="sc-hexes">`,
  ];
  const labels = [];
  const withLabels = cols * rows <= LABELS_UP_TO;
  for (let col = 0; col < cols; col++) {
    for (let row = 1; row <= rows; row++) {
      const { x, y } = hexCenter(col, row);
      const label = hexLabel(col, row);
      parts.push(`<use href="#sc-hx" data-hex="${label}" class="t-${terrain[label] || "open"}" x="${x.toFixed(1)}" y="${y.toFixed(1)}"/>`);
      if (withLabels) {
        labels.push(`<text x="${x.toFixed(1)}" y="${(y + S * 0.62).toFixed(1)}">${label}</text>`);
      }
    }
  }
  parts.push(`</g><g class="sc-labels">${labels.join("")}</g><g class="sc-marks" id="sc-marks"></g>`);
  parts.push(`<use href="#sc-hx" id="sc-cursor" class="sc-cursor" x="-100" y="-100"/>`);
  parts.push(`<use href="#sc-hx" id="sc-selected" class="sc-selected-hex" x="-100" y="-100"/></svg>`);
  const box = el("sc-map");
  // A new size starts fitted to the width of the box (readable hexes on small maps).
  if (box.clientWidth) state.zoom = Math.max(0.6, Math.min(4, (box.clientWidth - 4) / width));
  parts[1] = ` width="${(width * state.zoom).toFixed(0)}" height="${(height * state.zoom).toFixed(0)}"`;
  box.innerHTML = parts.join("");
  state.hexEls = new Map();
  for (const node of box.querySelectorAll("[data-hex]")) state.hexEls.set(node.dataset.hex, node);
  renderMarks();
  moveCursor(state.cursor.col, state.cursor.row, false);
  showSelected();
}

function applyZoom() {
  const svg = el("sc-map").querySelector("svg");
  if (!svg) return;
  svg.setAttribute("width", (Number(svg.dataset.width) * state.zoom).toFixed(0));
  svg.setAttribute("height", (Number(svg.dataset.height) * state.zoom).toFixed(0));
}

function centerOf(label) {
  const p = parseLabel(label);
  return p ? hexCenter(p.col, p.row) : null;
}

function badge(label, text, cls, dx, dy) {
  const c = centerOf(label);
  if (!c) return "";
  return `<text class="${cls}" x="${(c.x + dx).toFixed(1)}" y="${(c.y + dy).toFixed(1)}">${esc(text)}</text>`;
}

function renderMarks() {
  const sc = state.sc;
  const out = [];
  for (const f of sc.fortifications) {
    const c = centerOf(f.hex);
    if (!c) continue;
    for (const [side, hits] of Object.entries(f.walls || {})) {
      const [a, b] = SIDE_CORNERS[side] || [];
      if (a === undefined) continue;
      const [x1, y1] = corner(a);
      const [x2, y2] = corner(b);
      out.push(`<line class="sc-wall sc-${f.owner}" x1="${(c.x + x1 * 0.9).toFixed(1)}" y1="${(c.y + y1 * 0.9).toFixed(1)}" x2="${(c.x + x2 * 0.9).toFixed(1)}" y2="${(c.y + y2 * 0.9).toFixed(1)}"><title>${hits}</title></line>`);
    }
    if (f.tower) out.push(badge(f.hex, `T${f.tower}`, `sc-tower sc-${f.owner}`, 0, -S * 0.15));
  }
  const counts = new Map();
  for (const s of sc.opposition.stacks) {
    const n = s.units.reduce((sum, u) => sum + (Number(u.count) || 0), 0);
    counts.set(s.hex, (counts.get(s.hex) || 0) + n);
  }
  for (const [hex, n] of counts) out.push(badge(hex, `●${n}`, "sc-stack", 0, S * 0.35));
  out.push(badge(sc.entry_hex, "E", "sc-entry", -S * 0.5, -S * 0.1));
  out.push(badge(sc.victory_hex, "★", "sc-victory", S * 0.5, -S * 0.1));
  for (const p of sc.pop_hexes) out.push(badge(p, "P", "sc-pop", -S * 0.5, S * 0.4));
  el("sc-marks").innerHTML = out.join("");
}

function moveCursor(col, row, focusText = true) {
  const { cols, rows } = state.sc.map;
  col = Math.max(0, Math.min(cols - 1, col));
  row = Math.max(1, Math.min(rows, row));
  state.cursor = { col, row };
  const { x, y } = hexCenter(col, row);
  const cur = el("sc-cursor");
  if (cur) {
    cur.setAttribute("x", x.toFixed(1));
    cur.setAttribute("y", y.toFixed(1));
  }
  if (focusText) hover(hexLabel(col, row));
}

function hover(label) {
  const t = state.sc.map.terrain[label] || "open";
  const extra = [];
  if (label === state.sc.entry_hex) extra.push("entry hex");
  if (label === state.sc.victory_hex) extra.push("victory hex");
  if (state.sc.pop_hexes.includes(label)) extra.push("pop hex");
  if (state.sc.fortifications.some((f) => f.hex === label)) extra.push("fortified");
  const stacks = state.sc.opposition.stacks.filter((s) => s.hex === label).length;
  if (stacks) extra.push(`${stacks} opposition stack${stacks > 1 ? "s" : ""}`);
  el("sc-hover").textContent = `${label}: ${t}${extra.length ? `, ${extra.join(", ")}` : ""}`;
}

// --- tools -------------------------------------------------------------------------------

function useTool(label) {
  if (!onMap(label)) return;
  const sc = state.sc;
  switch (state.tool) {
    case "terrain": {
      if (state.paint === "open") delete sc.map.terrain[label];
      else sc.map.terrain[label] = state.paint;
      const node = state.hexEls.get(label);
      if (node) node.setAttribute("class", `t-${state.paint}`);
      break;
    }
    case "entry":
      sc.entry_hex = label;
      renderMarks();
      break;
    case "victory":
      sc.victory_hex = label;
      renderMarks();
      break;
    case "pop": {
      const i = sc.pop_hexes.indexOf(label);
      if (i >= 0) sc.pop_hexes.splice(i, 1);
      else sc.pop_hexes.push(label);
      renderMarks();
      break;
    }
    default:
      select(label);
  }
  hover(label);
}

function select(label) {
  state.selected = label;
  showSelected();
  renderHexPanel();
}

function showSelected() {
  const mark = el("sc-selected");
  if (!mark) return;
  const c = state.selected ? centerOf(state.selected) : null;
  mark.setAttribute("x", c ? c.x.toFixed(1) : "-100");
  mark.setAttribute("y", c ? c.y.toFixed(1) : "-100");
}

// --- the selected hex: its fortification and stacks -------------------------------------

function typeOptions(selected) {
  return state.sc.opposition.unit_types
    .map((t) => `<option${t.name === selected ? " selected" : ""}>${esc(t.name)}</option>`)
    .join("");
}

function renderHexPanel() {
  const label = state.selected;
  el("sc-hex-label").textContent = label || "—";
  const body = el("sc-hex-body");
  if (!label) return;
  const sc = state.sc;
  const fi = sc.fortifications.findIndex((f) => f.hex === label);
  const html = [];
  const terrain = sc.map.terrain[label] || "open";
  html.push(`<div class="gm-field"><label for="hx-terrain">Terrain</label><select id="hx-terrain">${state.config.terrains
    .map((t) => `<option${t === terrain ? " selected" : ""}>${t}</option>`).join("")}</select></div>`);
  if (fi < 0) {
    html.push(`<button type="button" data-act="add-fort">Fortify ${label}</button>`);
  } else {
    const f = sc.fortifications[fi];
    html.push(`<fieldset><legend>Fortification</legend>
      <div class="gm-field"><label for="hx-owner">Held by</label><select id="hx-owner" data-fort="owner">
        <option value="opposition"${f.owner === "opposition" ? " selected" : ""}>opposition</option>
        <option value="alliance"${f.owner === "alliance" ? " selected" : ""}>alliance</option></select></div>
      <div class="gm-field"><label for="hx-tower">Tower hits <span class="gm-note">(empty: no tower)</span></label>
        <input id="hx-tower" data-fort="tower" type="number" min="1" value="${f.tower ?? ""}"></div>
      <p class="gm-note">Wall hits per hexside (empty: no wall)</p>
      <div class="sc-walls">${SIDES.map((s) => `<label for="hx-wall-${s}">${s}</label><input id="hx-wall-${s}" data-wall="${s}" type="number" min="1" value="${(f.walls || {})[s] ?? ""}">`).join("")}</div>
      <button type="button" data-act="remove-fort">Remove the fortification</button></fieldset>`);
  }
  const stacks = sc.opposition.stacks.map((s, i) => [s, i]).filter(([s]) => s.hex === label);
  for (const [s, i] of stacks) {
    html.push(`<fieldset><legend>Opposition stack ${i + 1}</legend><ul class="sc-stack-units">`);
    s.units.forEach((u, j) => {
      html.push(`<li><label for="hx-s${i}-u${j}-type">Unit type</label><select id="hx-s${i}-u${j}-type" data-stack="${i}" data-unit="${j}" data-key="type">${typeOptions(u.type)}</select>
        <label for="hx-s${i}-u${j}-count">Count</label><input id="hx-s${i}-u${j}-count" data-stack="${i}" data-unit="${j}" data-key="count" type="number" min="1" value="${u.count}">
        <button type="button" data-act="remove-unit" data-stack="${i}" data-unit="${j}" aria-label="Remove this unit row">✕</button></li>`);
    });
    html.push(`</ul><div class="gm-field"><label for="hx-s${i}-candidates">Other start hexes <span class="gm-note">(e.g. G7, I9: a campaign that shuffles the opposition starts this stack in one of these or ${label})</span></label>
      <input id="hx-s${i}-candidates" data-stack="${i}" data-key="candidates" type="text" value="${esc((s.candidates || []).join(", "))}"></div>
      <button type="button" data-act="add-unit" data-stack="${i}">Add units</button>
      <button type="button" data-act="remove-stack" data-stack="${i}">Remove the stack</button></fieldset>`);
  }
  if (sc.opposition.unit_types.length) {
    html.push(`<button type="button" data-act="add-stack">Place an opposition stack in ${label}</button>`);
  } else {
    html.push(`<p class="gm-note">Add an opposition unit type below to place stacks.</p>`);
  }
  body.innerHTML = html.join("");
}

function onHexPanelChange(event) {
  const t = event.target;
  const sc = state.sc;
  const label = state.selected;
  if (t.id === "hx-terrain") {
    if (t.value === "open") delete sc.map.terrain[label];
    else sc.map.terrain[label] = t.value;
    state.hexEls.get(label)?.setAttribute("class", `t-${t.value}`);
    return;
  }
  const f = sc.fortifications.find((x) => x.hex === label);
  if (t.dataset.fort === "owner" && f) f.owner = t.value;
  if (t.dataset.fort === "tower" && f) {
    if (t.value === "") delete f.tower;
    else f.tower = Number(t.value);
  }
  if (t.dataset.wall && f) {
    f.walls = f.walls || {};
    if (t.value === "") delete f.walls[t.dataset.wall];
    else f.walls[t.dataset.wall] = Number(t.value);
  }
  if (t.dataset.stack !== undefined && t.dataset.key === "candidates") {
    const stack = sc.opposition.stacks[Number(t.dataset.stack)];
    const labels = t.value.split(/[\s,;]+/).filter(Boolean).map((x) => x.toUpperCase());
    if (labels.length) stack.candidates = labels;
    else delete stack.candidates;
  } else if (t.dataset.stack !== undefined && t.dataset.key) {
    const unit = sc.opposition.stacks[Number(t.dataset.stack)].units[Number(t.dataset.unit)];
    unit[t.dataset.key] = t.dataset.key === "count" ? Number(t.value) : t.value;
  }
  renderMarks();
}

function onHexPanelClick(event) {
  const b = event.target.closest("button[data-act]");
  if (!b) return;
  const sc = state.sc;
  const label = state.selected;
  const stacks = sc.opposition.stacks;
  const i = Number(b.dataset.stack);
  switch (b.dataset.act) {
    case "add-fort":
      sc.fortifications.push({ hex: label, owner: "opposition", tower: 20 });
      break;
    case "remove-fort":
      sc.fortifications = sc.fortifications.filter((f) => f.hex !== label);
      break;
    case "add-stack":
      stacks.push({ hex: label, units: [{ type: sc.opposition.unit_types[0].name, count: 1 }] });
      break;
    case "remove-stack":
      stacks.splice(i, 1);
      break;
    case "add-unit":
      stacks[i].units.push({ type: sc.opposition.unit_types[0]?.name || "", count: 1 });
      break;
    case "remove-unit":
      stacks[i].units.splice(Number(b.dataset.unit), 1);
      break;
    default:
      return;
  }
  renderMarks();
  renderHexPanel();
}

// --- unit types --------------------------------------------------------------------------

function renderTypes() {
  const rows = state.sc.opposition.unit_types.map((t, i) => {
    const stat = (k) => `<td><label class="visually-hidden" for="ut-${i}-${k}">${k} of unit type ${i + 1}</label><input id="ut-${i}-${k}" data-type="${i}" data-key="${k}" type="number" min="0" value="${t[k] ?? ""}"></td>`;
    const specials = state.config.specials.map((s) => `<label><input type="checkbox" data-type="${i}" data-special="${s}"${(t.specials || []).includes(s) ? " checked" : ""}> ${s}</label>`).join(" ");
    return `<tr data-row="${i}"><td><label class="visually-hidden" for="ut-${i}-name">Name of unit type ${i + 1}</label><input id="ut-${i}-name" data-type="${i}" data-key="name" type="text" value="${esc(t.name)}"></td>
      ${stat("hits")}${stat("attack")}${stat("defence")}${stat("move")}<td class="sc-specials">${specials}</td>
      <td><button type="button" data-remove-type="${i}">Remove</button></td></tr>`;
  });
  el("sc-types").innerHTML = rows.join("");
}

function onTypeChange(event) {
  const t = event.target;
  const type = state.sc.opposition.unit_types[Number(t.dataset.type)];
  if (!type) return;
  if (t.dataset.special) {
    const set = new Set(type.specials || []);
    if (t.checked) set.add(t.dataset.special);
    else set.delete(t.dataset.special);
    type.specials = state.config.specials.filter((s) => set.has(s));
  } else if (t.dataset.key === "name") {
    // Stacks name their units by type: a rename carries over to them.
    for (const s of state.sc.opposition.stacks) for (const u of s.units) if (u.type === type.name) u.type = t.value;
    type.name = t.value;
    renderHexPanel();
  } else if (t.dataset.key) {
    type[t.dataset.key] = t.value === "" ? "" : Number(t.value);
  }
}

// --- form fields, size, check and save ---------------------------------------------------

function getPath(obj, path) {
  return path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

function setPath(obj, path, value) {
  const keys = path.split(".");
  const last = keys.pop();
  const target = keys.reduce((o, k) => (o[k] = o[k] || {}), obj);
  if (value === undefined) delete target[last];
  else target[last] = value;
}

function fillForm() {
  for (const input of el("sc-form").querySelectorAll("[data-field]")) {
    const v = getPath(state.sc, input.dataset.field);
    if (input.type === "checkbox") input.checked = Boolean(v);
    else input.value = v ?? "";
  }
}

function onFormChange(event) {
  const t = event.target;
  const path = t.dataset.field;
  if (!path || path.startsWith("map.")) return;
  let value;
  if (t.type === "checkbox") value = t.checked;
  else if (t.type === "number") value = t.value === "" ? undefined : Number(t.value);
  else value = t.value;
  setPath(state.sc, path, value);
}

function resize() {
  const cols = Number(el("sc-cols").value);
  const rows = Number(el("sc-rows").value);
  const max = state.config.max_side;
  const error = el("sc-size-error");
  const bad = [[cols, "columns"], [rows, "rows"]].find(([n]) => !Number.isInteger(n) || n < 1 || n > max);
  if (bad) {
    error.textContent = `A map has 1 to ${max} ${bad[1]}, not ${el(bad[1] === "columns" ? "sc-cols" : "sc-rows").value || "nothing"}.`;
    error.hidden = false;
    return;
  }
  error.hidden = true;
  const sc = state.sc;
  sc.map.cols = cols;
  sc.map.rows = rows;
  for (const label of Object.keys(sc.map.terrain)) if (!onMap(label)) delete sc.map.terrain[label];
  sc.fortifications = sc.fortifications.filter((f) => onMap(f.hex));
  sc.opposition.stacks = sc.opposition.stacks.filter((s) => onMap(s.hex));
  sc.pop_hexes = sc.pop_hexes.filter(onMap);
  if (state.selected && !onMap(state.selected)) state.selected = null;
  renderMap();
  renderHexPanel();
}

// The JSON sent: the editor's data without empty optional parts.
function payload() {
  const sc = structuredClone(state.sc);
  sc.fortifications = sc.fortifications.map((f) => {
    const out = { hex: f.hex, owner: f.owner };
    if (f.tower !== undefined && f.tower !== "") out.tower = f.tower;
    if (f.walls && Object.keys(f.walls).length) out.walls = f.walls;
    return out;
  });
  return sc;
}

function csrfToken() {
  return document.querySelector("input[name=csrfmiddlewaretoken]").value;
}

function status(text, ok) {
  const s = el("sc-status");
  s.textContent = text;
  s.className = `sc-status ${ok ? "gm-success" : "gm-error"}`;
}

// Point at what the server blamed: a form field, a unit type's row, or a hex.
function showField(field) {
  for (const node of document.querySelectorAll("[aria-invalid=true]")) node.removeAttribute("aria-invalid");
  if (!field) return;
  const input = document.querySelector(`[data-field="${CSS.escape(field)}"]`);
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.focus();
    return;
  }
  let m = /^opposition\.unit_types\[(\d+)\](?:\.(\w+))?/.exec(field);
  if (m) {
    const target = el(`ut-${m[1]}-${m[2] || "name"}`) || el(`ut-${m[1]}-name`);
    if (target) {
      target.setAttribute("aria-invalid", "true");
      target.focus();
    }
    return;
  }
  m = /^(?:fortifications|opposition\.stacks)\[(\d+)\]/.exec(field);
  if (m) {
    const list = field.startsWith("fortifications") ? state.sc.fortifications : state.sc.opposition.stacks;
    const item = list[Number(m[1])];
    if (item) select(item.hex);
    return;
  }
  m = /^(?:entry_hex|victory_hex|pop_hexes|map\.terrain)/.exec(field);
  if (m) el("sc-map").focus();
}

async function send(url, saving) {
  const sc = payload();
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify(sc),
      credentials: "same-origin",
    });
  } catch {
    status("The server could not be reached; nothing was saved.", false);
    return;
  }
  const body = await response.json().catch(() => ({ detail: `The server answered ${response.status}.` }));
  if (!response.ok) {
    status(body.detail, false);
    showField(body.field);
    return;
  }
  showField(null);
  status(body.detail, true);
  if (saving && body.edit_url && location.pathname !== body.edit_url) {
    history.replaceState(null, "", body.edit_url);
    el("sc-key").readOnly = true;
  }
}

// --- wiring ------------------------------------------------------------------------------

function hexFromEvent(event) {
  const node = event.target.closest ? event.target.closest("[data-hex]") : null;
  return node ? node.dataset.hex : null;
}

function init() {
  state.sc = JSON.parse(el("scenario-data").textContent);
  state.config = JSON.parse(el("editor-config").textContent);
  const sc = state.sc;
  sc.map.terrain = sc.map.terrain || {};
  sc.pop_hexes = sc.pop_hexes || [];
  sc.fortifications = sc.fortifications || [];
  sc.opposition = sc.opposition || {};
  sc.opposition.unit_types = sc.opposition.unit_types || [];
  sc.opposition.stacks = sc.opposition.stacks || [];
  sc.settings = sc.settings || {};
  // The checkbox shows a value, so the data holds one (Broad Way's choice by default).
  if (sc.settings.terrain_known_to_all === undefined) sc.settings.terrain_known_to_all = true;

  el("sc-terrain").innerHTML = state.config.terrains.map((t) => `<option${t === state.paint ? " selected" : ""}>${t}</option>`).join("");
  el("sc-legend").innerHTML = state.config.terrains.map((t) => `<li><svg width="16" height="14" aria-hidden="true"><rect class="t-${t}" width="16" height="14"/></svg> ${t}</li>`).join("")
    + `<li>T40 tower (hits), thick edge: wall; ●n opposition units; E entry; ★ victory; P pop hex</li>`;
  fillForm();
  renderMap();
  renderTypes();

  // The settings form is never sent: its fields are read as they change.
  el("sc-form").addEventListener("submit", (e) => e.preventDefault());
  el("sc-form").addEventListener("change", onFormChange);
  el("sc-form").addEventListener("input", onFormChange);
  el("sc-resize").addEventListener("click", resize);
  el("sc-terrain").addEventListener("change", (e) => { state.paint = e.target.value; });
  for (const radio of document.querySelectorAll("input[name=sc-tool]")) {
    radio.addEventListener("change", (e) => { state.tool = e.target.value; });
  }
  el("sc-zoom-in").addEventListener("click", () => { state.zoom = Math.min(6, state.zoom * 1.25); applyZoom(); });
  el("sc-zoom-out").addEventListener("click", () => { state.zoom = Math.max(0.3, state.zoom / 1.25); applyZoom(); });
  el("sc-goto-apply").addEventListener("click", () => {
    const label = el("sc-goto").value.trim().toUpperCase();
    if (!onMap(label)) {
      status(`There is no hex ${label || "(empty)"} on the ${sc.map.cols} × ${sc.map.rows} map.`, false);
      return;
    }
    const p = parseLabel(label);
    moveCursor(p.col, p.row);
    useTool(label);
  });

  const map = el("sc-map");
  // One listener for every hex (event delegation): 10,000 hexes, 3 listeners.
  map.addEventListener("pointerdown", (e) => {
    const label = hexFromEvent(e);
    if (!label) return;
    e.preventDefault();
    state.painting = state.tool === "terrain";
    const p = parseLabel(label);
    moveCursor(p.col, p.row, false);
    useTool(label);
  });
  map.addEventListener("pointermove", (e) => {
    const label = hexFromEvent(e);
    if (!label) return;
    if (state.painting && e.buttons) useTool(label);
    else hover(label);
  });
  window.addEventListener("pointerup", () => { state.painting = false; });
  map.addEventListener("keydown", (e) => {
    const { col, row } = state.cursor;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      moveCursor(col + moves[e.key][0], row + moves[e.key][1]);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      useTool(hexLabel(col, row));
    }
  });

  const panel = el("sc-hex-body");
  panel.addEventListener("change", onHexPanelChange);
  panel.addEventListener("click", onHexPanelClick);

  const types = el("sc-types");
  types.addEventListener("change", onTypeChange);
  types.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-remove-type]");
    if (!b) return;
    sc.opposition.unit_types.splice(Number(b.dataset.removeType), 1);
    renderTypes();
    renderHexPanel();
  });
  el("sc-add-type").addEventListener("click", () => {
    const n = sc.opposition.unit_types.length + 1;
    sc.opposition.unit_types.push({ name: `Unit type ${n}`, hits: 4, attack: 4, defence: 3, move: 1, specials: [] });
    renderTypes();
    renderHexPanel();
    el(`ut-${n - 1}-name`).focus();
  });

  el("sc-check").addEventListener("click", () => send(state.config.check_url, false));
  el("sc-save").addEventListener("click", () => send(state.config.save_url, true));
}

init();
