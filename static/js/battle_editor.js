// The battle scenario editor of the "new battle" page (templates/campaigns/battle_new.html).
// The scenario box (#battle-custom) stays the one source of truth: the editor draws what the
// box holds and writes every change back into it, so the form sends the same JSON whether
// the GM drew it or typed it, and the page still works without JavaScript. "Check" asks the
// server (the system's own engine) and puts its refusal next to the control that caused it.
const config = JSON.parse(document.getElementById("battle-editor-config").textContent);
const root = document.getElementById("battle-editor");
const box = document.getElementById("battle-custom");
const systemSelect = document.getElementById("battle-system");
const form = root.closest("form");
const $ = (id) => document.getElementById(id);

const R = 30; // a hex's radius in SVG units, as on the battle page
const H = Math.sqrt(3) * R;
const SVG = "http://www.w3.org/2000/svg";

let doc = null; // the scenario being drawn, or null while the box is empty
let painting = false;
const drafts = {}; // each system's drawing, kept while the GM looks at the other system

const system = () => config[systemSelect.value];
const piecesKey = () => system().pieces; // "forces" (ELF ABAS) or "units" (QUAD)

function letters(index) {
  let out = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  }
  return out;
}

function parseLabel(text) {
  const m = /^\s*([A-Za-z]+)\s*(\d+)\s*$/.exec(text || "");
  if (!m) return null;
  let col = 0;
  for (const ch of m[1].toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { col: col - 1, row: Number(m[2]), label: `${m[1].toUpperCase()}${Number(m[2])}` };
}

function onMap(label) {
  const at = parseLabel(label);
  return at && at.col < doc.map.cols && at.row >= 1 && at.row <= doc.map.rows ? at : null;
}

function blank(key) {
  const rows = key === "quad" ? 6 : 7;
  const cols = key === "quad" ? 8 : 9;
  const middle = Math.ceil(rows / 2);
  const side = (name, entry) => key === "quad"
    ? { name, leader_level: 0, units: [] }
    : { name, entry, supplies: [], forces: [] };
  return { map: { cols, rows, terrain: {} },
           sides: [side("Red", `A${middle}`), side("Blue", `${letters(cols - 1)}${middle}`)] };
}

function slug(text) {
  return (text || "side").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")
    || "side";
}

function allPieces() {
  return doc.sides.flatMap((s, i) => (s[piecesKey()] || []).map((p, j) => ({ p, i, j })));
}

function pieceAt(label) {
  return allPieces().find(({ p }) => p.hex === label) || null;
}

function newId(side) {
  const used = new Set(allPieces().map(({ p }) => p.id));
  const base = slug(side.name);
  let n = 1;
  while (used.has(`${base}-${n}`)) n += 1;
  return `${base}-${n}`;
}

function newPiece(side, hex) {
  const list = side[piecesKey()] || (side[piecesKey()] = []);
  const last = list[list.length - 1];
  const piece = { id: newId(side), hex };
  if (piecesKey() === "units") {
    piece.type = last ? structuredClone(last.type)
      : { name: "Foot", quality: 3, speed: 1, attack: 2, defense: 2 };
  } else {
    piece.unit = last && last.unit ? last.unit : "foot";
  }
  list.push(piece);
  return piece;
}

// --- the box ------------------------------------------------------------------------------

// Undo: the box as it was before each change; the keystrokes of one field within a second
// count as one change.
const undo = [];
let lastText = box.value;
let lastChange = { at: 0, what: null };

function remember(text) {
  const now = Date.now();
  const what = document.activeElement;
  const typing = what instanceof HTMLInputElement && what.type !== "checkbox"
    && what === lastChange.what && now - lastChange.at < 1000;
  if (!typing && text !== undefined) undo.push(text);
  if (undo.length > 100) undo.shift();
  lastChange = { at: now, what };
  $("be-undo").disabled = undo.length === 0;
}

function save({ panels = false } = {}) {
  const text = doc ? JSON.stringify(doc, null, 2) : "";
  if (text !== lastText) remember(lastText);
  lastText = text;
  box.value = text;
  drafts[systemSelect.value] = doc;
  clearErrors();
  drawMap();
  if (panels) drawSides();
  show();
}

function load() {
  $("be-box-error").hidden = true;
  lastText = box.value;
  if (!box.value.trim()) { doc = null; drawMap(); drawSides(); show(); return; }
  try {
    const parsed = JSON.parse(box.value);
    if (!parsed || typeof parsed !== "object" || !parsed.map || !Array.isArray(parsed.sides)) {
      throw new Error("a scenario needs a map and its sides");
    }
    parsed.map.terrain = parsed.map.terrain || {};
    doc = parsed;
  } catch (err) {
    $("be-box-error").textContent = `The box does not hold a scenario the editor can draw `
      + `(${err.message}); the drawing shows the last one that it could.`;
    $("be-box-error").hidden = false;
    return;
  }
  drawMap();
  drawSides();
  show();
}

function show() {
  const drawing = doc !== null;
  $("be-drawing").hidden = !drawing;
  $("be-start").hidden = drawing;
  if (drawing) {
    $("be-cols").value = doc.map.cols;
    $("be-rows").value = doc.map.rows;
  }
  const camps = Boolean(system().camps);
  root.querySelectorAll("[data-camps-only]").forEach((el) => { el.hidden = !camps; });
  const sideChoice = $("be-side");
  const names = drawing ? doc.sides.map((s) => s.name || "(unnamed)") : [];
  if ([...sideChoice.options].map((o) => o.textContent).join("|") !== names.join("|")) {
    const chosen = sideChoice.value;
    sideChoice.replaceChildren(...names.map((n, i) => new Option(n, String(i))));
    if (chosen && Number(chosen) < names.length) sideChoice.value = chosen;
  }
  const terrain = $("be-terrain");
  const keys = system().terrains.map((t) => t.key);
  if ([...terrain.options].map((o) => o.value).join("|") !== keys.join("|")) {
    terrain.replaceChildren(...system().terrains.map((t) => new Option(t.label, t.key)));
    terrain.value = keys[1] || keys[0];
  }
}

// --- the map ------------------------------------------------------------------------------

function centre(col, row) {
  return [R + 1.5 * R * col + 2, H / 2 + H * (row - 1) + (col & 1 ? H / 2 : 0) + 2];
}

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function pieceLabel(piece) {
  if (piecesKey() === "units") return `${piece.type?.name || "Unit"} Q${piece.type?.quality ?? "?"}`;
  if (!piece.unit) return piece.hero ? "Hero" : "Leader";
  return piece.unit[0].toUpperCase() + piece.unit.slice(1) + (piece.figures ? ` ${piece.figures}` : "");
}

let drawn = ""; // the system and size the hexes were built for: only their look changes

function drawMap() {
  const svg = $("be-map");
  if (!doc) { svg.replaceChildren(); drawn = ""; return; }
  const { cols, rows } = doc.map;
  const shape = `${systemSelect.value}:${cols}x${rows}`;
  if (shape !== drawn) buildHexes(svg, cols, rows);
  drawn = shape;
  const fills = Object.fromEntries(system().terrains.map((t) => [t.key, t.fill]));
  const marks = {};
  doc.sides.forEach((s, i) => {
    const side = i ? "b" : "a";
    if (s.entry) marks[s.entry] = { text: `${s.name}'s entry`, kind: "entry", side };
    (s.supplies || []).forEach((c) => { marks[c] = { text: `${s.name}'s camp`, kind: "camp", side }; });
  });
  const pieces = new Map(allPieces().filter(({ p }) => p.hex).map((found) => [found.p.hex, found]));
  for (const g of svg.children) {
    const label = g.dataset.hex;
    const kind = doc.map.terrain[label] || "open";
    const found = pieces.get(label);
    const [x, y] = [Number(g.dataset.x), Number(g.dataset.y)];
    const title = [`${label}: ${kind.replace("_", " ")}`];
    const mark = marks[label];
    if (mark) title.push(mark.text);
    if (found) title.push(`${found.p.id} (${doc.sides[found.i].name})`);
    g.querySelector("title").textContent = title.join("; ");
    g.querySelector("polygon").setAttribute("fill", fills[kind] || "#eeeeee");
    g.querySelectorAll(".hex-mark, .mark-label, .piece, .piece-label").forEach((n) => n.remove());
    if (mark) {
      g.append(el("circle", { class: `hex-mark mark-${mark.kind} side-${mark.side}`,
                              cx: x.toFixed(1), cy: y.toFixed(1), r: R - 5 }),
               el("text", { class: `mark-label side-${mark.side}`, x: x.toFixed(1),
                            y: (y + R - 9).toFixed(1) }, mark.kind));
    }
    if (found) {
      g.append(el("rect", { class: `piece side-${found.i ? "b" : "a"}`, x: (x - 21).toFixed(1),
                             y: (y - 6).toFixed(1), width: 42, height: 16, rx: 3 }));
      g.append(el("text", { class: "piece-label", x: x.toFixed(1), y: (y + 6).toFixed(1) },
                  pieceLabel(found.p).slice(0, 10)));
    }
  }
}

function buildHexes(svg, cols, rows) {
  const width = 1.5 * R * (cols - 1) + 2 * R + 4;
  const height = H * rows + H / 2 + 4;
  svg.setAttribute("viewBox", `0 0 ${width.toFixed(1)} ${height.toFixed(1)}`);
  // A small map is drawn larger, to click on; a large one scrolls in its frame.
  const scale = cols * rows <= 400 ? 1.5 : 1;
  svg.setAttribute("width", (width * scale).toFixed(0));
  svg.setAttribute("height", (height * scale).toFixed(0));
  const hexes = [];
  for (let col = 0; col < cols; col += 1) {
    for (let row = 1; row <= rows; row += 1) {
      const label = `${letters(col)}${row}`;
      const [x, y] = centre(col, row);
      const g = el("g", { class: "hex", "data-hex": label, "data-x": x.toFixed(1),
                          "data-y": y.toFixed(1) });
      const points = [0, 1, 2, 3, 4, 5].map((i) => {
        const a = (Math.PI / 3) * i;
        return `${(x + R * Math.cos(a)).toFixed(1)},${(y + R * Math.sin(a)).toFixed(1)}`;
      }).join(" ");
      g.append(el("title", {}), el("polygon", { points }),
               el("text", { class: "hex-label", x: x.toFixed(1), y: (y - H / 2 + 10).toFixed(1) }, label));
      hexes.push(g);
    }
  }
  svg.replaceChildren(...hexes);
  // The legend is the system's: drawn with the hexes, not at every change.
  $("be-legend").replaceChildren(...system().terrains.map((t) => {
    const li = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = t.fill;
    li.append(swatch, t.label);
    return li;
  }));
}

function tool() {
  return root.querySelector('input[name="be-tool"]:checked').value;
}

function say(text) {
  $("be-hover").textContent = text;
}

// One use of the chosen tool on one hex; `drag` for the hexes a held pointer passes over.
function use(label, { drag = false } = {}) {
  if (!doc || !onMap(label)) return;
  const side = doc.sides[Number($("be-side").value || 0)];
  const found = pieceAt(label);
  const kind = tool();
  if (kind === "terrain") {
    const chosen = $("be-terrain").value;
    if (chosen === "open") delete doc.map.terrain[label];
    else doc.map.terrain[label] = chosen;
    save();
    return;
  }
  if (drag) return;
  if (kind === "piece") {
    if (found) {
      focusPiece(found);
      say(`${label} already holds ${found.p.id}: change it below, or erase it first.`);
      return;
    }
    const piece = newPiece(side, label);
    save({ panels: true });
    say(`${piece.id} placed at ${label} for ${side.name}.`);
  } else if (kind === "erase") {
    if (found) {
      doc.sides[found.i][piecesKey()].splice(found.j, 1);
      save({ panels: true });
      say(`${found.p.id} removed from ${label}.`);
    } else {
      say(`${label} holds no piece.`);
    }
  } else if (kind === "entry") {
    side.entry = label;
    save({ panels: true });
    say(`${side.name}'s entry point is ${label}.`);
  } else if (kind === "camp") {
    const camps = side.supplies || (side.supplies = []);
    const at = camps.indexOf(label);
    if (at >= 0) camps.splice(at, 1); else camps.push(label);
    save({ panels: true });
    say(at >= 0 ? `${label} is no longer ${side.name}'s camp.` : `${label} is ${side.name}'s camp.`);
  }
}

function focusPiece({ i, j }) {
  const row = root.querySelector(`[data-path="sides[${i}].${piecesKey()}[${j}]"]`);
  if (!row) return;
  root.querySelectorAll(".be-piece.is-picked").forEach((r) => r.classList.remove("is-picked"));
  row.classList.add("is-picked");
  row.querySelector("input, select")?.focus();
}

// --- the sides ----------------------------------------------------------------------------

function field(labelText, input, path, { wide = false } = {}) {
  const wrap = document.createElement("div");
  wrap.className = `be-field${wide ? " is-wide" : ""}`;
  const label = document.createElement("label");
  input.id = `be-${path.replace(/[^a-z0-9]+/gi, "-")}`;
  label.htmlFor = input.id;
  label.textContent = labelText;
  input.dataset.path = path;
  wrap.append(label, input);
  return wrap;
}

function input(value, change, attrs = {}) {
  const node = document.createElement("input");
  Object.assign(node, attrs);
  if (attrs.type === "checkbox") node.checked = Boolean(value);
  else node.value = value ?? "";
  node.addEventListener(attrs.type === "checkbox" ? "change" : "input", () => {
    change(attrs.type === "checkbox" ? node.checked : node.value);
    save();
  });
  return node;
}

function select(value, choices, change) {
  const node = document.createElement("select");
  node.replaceChildren(...choices.map(([v, text]) => new Option(text, v)));
  node.value = value ?? "";
  node.addEventListener("change", () => { change(node.value); save(); });
  return node;
}

const number = (text) => (text === "" || Number.isNaN(Number(text)) ? text : Number(text));

function setOrDrop(obj, key, value) {
  if (value === "" || value === null || value === false) delete obj[key];
  else obj[key] = value;
}

function elfPiece(piece, path) {
  const units = system().units;
  const full = (units.find((u) => u.key === piece.unit) || {}).figures;
  return [
    field("Unit", select(piece.unit || "", [["", "none (a Leader or Hero alone)"],
      ...units.map((u) => [u.key, `${u.label} (${u.figures} figures, move ${u.move})`])],
      (v) => { setOrDrop(piece, "unit", v); if (!v) delete piece.figures; }), `${path}.unit`),
    field("Figures", input(piece.figures ?? "", (v) => setOrDrop(piece, "figures", number(v)),
      { type: "number", min: 1, max: full || 6, inputMode: "numeric",
        placeholder: full ? `${full} (full)` : "" }), `${path}.figures`),
    field("Leader", input(piece.leader, (v) => setOrDrop(piece, "leader", v),
      { type: "checkbox" }), `${path}.leader`),
    field("Hero", input(piece.hero, (v) => setOrDrop(piece, "hero", v),
      { type: "checkbox" }), `${path}.hero`),
  ];
}

function quadPiece(piece, path) {
  const type = piece.type || (piece.type = {});
  const [low, high] = system().quality;
  const stat = (key, label, attrs) => field(label, input(type[key], (v) => { type[key] = number(v); },
    { type: "number", inputMode: "numeric", ...attrs }), `${path}.type.${key}`);
  const specials = document.createElement("fieldset");
  specials.className = "be-specials";
  specials.dataset.path = `${path}.type.specials`;
  const legend = document.createElement("legend");
  legend.textContent = "Specials";
  specials.append(legend, ...system().specials.map((name) => {
    const label = document.createElement("label");
    const box_ = input((type.specials || []).includes(name), (on) => {
      const list = new Set(type.specials || []);
      if (on) list.add(name); else list.delete(name);
      const kept = system().specials.filter((s) => list.has(s));
      setOrDrop(type, "specials", kept.length ? kept : "");
    }, { type: "checkbox" });
    label.append(box_, ` ${name}`);
    return label;
  }));
  return [
    field("Type", input(type.name, (v) => { type.name = v; }, { maxLength: 40 }), `${path}.type.name`),
    stat("quality", "Quality", { min: low, max: high }),
    stat("speed", "Speed", { min: 0 }),
    stat("attack", "Attack", { min: 0 }),
    stat("defense", "Defence", { min: 0 }),
    field("Ranged (attack/range)", input(type.ranged ?? "", (v) => setOrDrop(type, "ranged", v.trim()),
      { placeholder: "e.g. 2/2", size: 5 }), `${path}.type.ranged`),
    specials,
  ];
}

function pieceRow(side, i, piece, j) {
  const key = piecesKey();
  const path = `sides[${i}].${key}[${j}]`;
  const row = document.createElement("fieldset");
  row.className = "be-piece";
  row.dataset.path = path;
  const legend = document.createElement("legend");
  legend.textContent = piece.id || `(no id) ${j + 1}`;
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "be-remove danger";
  remove.textContent = "Remove";
  remove.setAttribute("aria-label", `Remove ${piece.id || "this piece"}`);
  remove.addEventListener("click", () => { side[key].splice(j, 1); save({ panels: true }); });
  const where = input(piece.hex ?? "", (v) => {
    const at = parseLabel(v);
    if (!v.trim() && key === "forces") piece.hex = null;
    else piece.hex = at ? at.label : v.trim();
  }, { size: 5, placeholder: key === "forces" ? "reserve" : "C3" });
  where.addEventListener("change", () => drawSides());
  row.append(legend,
    field("Id", input(piece.id, (v) => { piece.id = v.trim(); legend.textContent = v.trim(); },
      { maxLength: 40, size: 10 }), `${path}.id`),
    field(key === "forces" ? "Hex (blank: in reserve)" : "Hex", where, `${path}.hex`),
    ...(key === "forces" ? elfPiece(piece, path) : quadPiece(piece, path)),
    remove);
  return row;
}

function drawSides() {
  const out = $("be-sides");
  if (!doc) { out.replaceChildren(); return; }
  const key = piecesKey();
  out.replaceChildren(...doc.sides.map((side, i) => {
    const panel = document.createElement("section");
    panel.className = `be-side side-${i ? "b" : "a"}`;
    panel.dataset.path = `sides[${i}]`;
    const heading = document.createElement("h3");
    heading.textContent = `Side ${i + 1}: ${side.name || "(unnamed)"}`;
    const settings = document.createElement("div");
    settings.className = "be-side-settings";
    settings.append(field("Name", input(side.name, (v) => {
      side.name = v.trim();
      heading.textContent = `Side ${i + 1}: ${side.name || "(unnamed)"}`;
    }, { maxLength: 64 }), `sides[${i}].name`));
    if (key === "forces") {
      settings.append(
        field("Entry point", input(side.entry, (v) => { side.entry = parseLabel(v)?.label || v.trim(); },
          { size: 5 }), `sides[${i}].entry`),
        field("Camps", input((side.supplies || []).join(" "), (v) => {
          side.supplies = v.split(/[\s,]+/).filter(Boolean).map((h) => parseLabel(h)?.label || h);
        }, { size: 10, placeholder: "e.g. A5 B6" }), `sides[${i}].supplies`));
    } else {
      const [low, high] = system().leader_levels;
      settings.append(field("Leader level", input(side.leader_level ?? 0,
        (v) => { side.leader_level = number(v); },
        { type: "number", min: low, max: high, inputMode: "numeric" }), `sides[${i}].leader_level`));
    }
    const list = document.createElement("div");
    list.className = "be-pieces";
    list.dataset.path = `sides[${i}].${key}`;
    const pieces = side[key] || [];
    if (!pieces.length) {
      const empty = document.createElement("p");
      empty.className = "muted";
      empty.textContent = `No ${key} yet: choose “places a piece of” ${side.name || "this side"} above, then click the map.`;
      list.append(empty);
    }
    list.append(...pieces.map((piece, j) => pieceRow(side, i, piece, j)));
    panel.append(heading, settings, list);
    if (key === "forces") {
      const reserve = document.createElement("button");
      reserve.type = "button";
      reserve.textContent = "Add a force in reserve";
      reserve.addEventListener("click", () => { newPiece(side, null); save({ panels: true }); });
      panel.append(reserve);
    }
    return panel;
  }));
}

// --- checking -----------------------------------------------------------------------------

function clearErrors() {
  form.querySelectorAll(".be-error").forEach((e) => e.remove());
  form.querySelectorAll("[data-be-invalid]").forEach((e) => {
    e.removeAttribute("aria-invalid");
    e.removeAttribute("data-be-invalid");
  });
  $("be-status").textContent = "";
}

// The server's path (`scenario.sides[1].forces[0].hex`) → the editor's control for it, or the
// nearest one above it (the piece, the side, the map).
function placeError(path, message) {
  if (path.startsWith("#")) {
    const control = $(path.slice(1));
    return placeNote(control, message);
  }
  let at = path.replace(/^scenario\.?/, "");
  let target = null;
  while (at && !target) {
    target = root.querySelector(`[data-path="${CSS.escape(at)}"]`);
    if (!target) at = at.replace(/(\.[^.[\]]+|\[\d+\])$/, "");
  }
  if (!target) target = path.startsWith("scenario.map") || !at ? $("be-map-wrap") : $("be-sides");
  placeNote(target, message);
}

function placeNote(target, message) {
  const note = document.createElement("p");
  note.className = "form-error be-error";
  note.setAttribute("role", "alert");
  note.id = `be-error-${Date.now()}`;
  note.textContent = message;
  if (target.matches("input, select")) {
    target.setAttribute("aria-invalid", "true");
    target.setAttribute("data-be-invalid", "");
    target.setAttribute("aria-describedby", note.id);
    (target.closest(".be-field") || target.parentElement).after(note);
  } else {
    target.prepend(note);
  }
  note.scrollIntoView({ block: "center" });
  (target.matches("input, select") ? target : note).focus?.();
}

async function check() {
  clearErrors();
  $("be-status").textContent = "Checking…";
  let answer = {};
  try {
    const response = await fetch(root.dataset.checkUrl, {
      method: "POST", body: new FormData(form), headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    try { answer = await response.json(); } catch { answer = { message: `The server answered ${response.status}.` }; }
  } catch {
    answer = { message: "The check could not reach the server; try again." };
  }
  $("be-status").textContent = answer.ok ? `Ready: ${answer.summary}` : "";
  if (!answer.ok) {
    // The form's own controls (turns, fog, hours, system) sit outside the editor.
    const control = { max_turns: "battle-turns", sight: "battle-sight",
                      phase_hours: "battle-hours", system: "battle-system" }[answer.field];
    if (answer.field === "custom" && answer.path) placeError(answer.path, answer.message);
    else if (control) placeError(`#${control}`, answer.message);
    else $("be-status").textContent = answer.message || "The check failed.";
  }
}

// --- wiring -------------------------------------------------------------------------------

$("be-blank").addEventListener("click", () => {
  doc = blank(systemSelect.value);
  save({ panels: true });
  say("A blank map: paint the terrain, then place each side's pieces.");
});
$("be-clear").addEventListener("click", () => {
  doc = null;
  save({ panels: true });
  say("The drawing is cleared: the battle is made from the demo scenario chosen above.");
});
$("be-resize").addEventListener("click", () => {
  const cols = Number($("be-cols").value);
  const rows = Number($("be-rows").value);
  const { max_side: most } = system();
  const error = $("be-size-error");
  if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 2 || rows < 2 || cols > most || rows > most) {
    error.textContent = `A map is 2 to ${most} hexes a side.`;
    error.hidden = false;
    return;
  }
  error.hidden = true;
  doc.map.cols = cols;
  doc.map.rows = rows;
  for (const label of Object.keys(doc.map.terrain)) if (!onMap(label)) delete doc.map.terrain[label];
  const gone = [];
  doc.sides.forEach((side) => {
    side[piecesKey()] = (side[piecesKey()] || []).filter((p) => {
      const keep = p.hex === null || p.hex === undefined || onMap(p.hex);
      if (!keep) gone.push(p.id);
      return keep;
    });
    if (side.supplies) side.supplies = side.supplies.filter((c) => onMap(c));
    const entry = parseLabel(side.entry);
    if (entry && !onMap(side.entry)) {
      // An entry point is needed: it moves to the nearest hex of the smaller map.
      side.entry = `${letters(Math.min(entry.col, cols - 1))}${Math.max(1, Math.min(entry.row, rows))}`;
    }
  });
  save({ panels: true });
  say(gone.length ? `The map is ${cols} × ${rows}; off it now and removed: ${gone.join(", ")}.`
    : `The map is ${cols} × ${rows}.`);
});
systemSelect.addEventListener("change", () => {
  if (doc === null && !drafts[systemSelect.value]) { show(); return; }
  doc = drafts[systemSelect.value] || blank(systemSelect.value);
  save({ panels: true });
  say(`A ${system().name} scenario: each system draws its own map and pieces.`);
});
box.addEventListener("input", load);
$("be-check").addEventListener("click", check);
$("be-undo").addEventListener("click", () => {
  if (!undo.length) return;
  box.value = undo.pop();
  $("be-undo").disabled = undo.length === 0;
  lastChange = { at: 0, what: null };
  clearErrors();
  load();
  say("The last change is undone.");
});
$("be-goto-apply").addEventListener("click", () => {
  const at = doc && onMap($("be-goto").value);
  if (!at) { say(`${$("be-goto").value || "That"} is not a hex of the map.`); return; }
  use(at.label);
});

const map = $("be-map");
map.addEventListener("pointerdown", (event) => {
  const hex = event.target.closest("[data-hex]");
  if (!hex) return;
  painting = tool() === "terrain";
  use(hex.dataset.hex);
});
map.addEventListener("pointerover", (event) => {
  const hex = event.target.closest("[data-hex]");
  if (hex && painting) use(hex.dataset.hex, { drag: true });
});
document.addEventListener("pointerup", () => { painting = false; });

root.hidden = false;
// With the editor drawing it, the JSON is for those who want to read or paste it.
document.querySelector("details.be-json")?.removeAttribute("open");
load();
drawSides();
if (root.dataset.draw && doc === null) {
  doc = blank(systemSelect.value);
  save({ panels: true });
  undo.length = 0;
  $("be-undo").disabled = true;
}
if (root.dataset.errorPath?.startsWith("scenario")) {
  placeError(root.dataset.errorPath, root.dataset.errorMessage);
} else if (root.dataset.errorPath) {
  // Not a field of the scenario (the box is not JSON): the box, with its error, is open.
  document.querySelector("details.be-json")?.setAttribute("open", "");
}
