/**
 * The campaign map: draws the map JSON as one SVG and runs the play tools over the REST API.
 *
 *   mountMap(element, data, options) -> controller
 *     element  an empty container; the toolbar, the SVG viewport, the legend and the side
 *              panel are drawn inside it.
 *     data     the map JSON, either as GET /api/v1/campaigns/<id>/map/ answers it
 *              ({map: {cols, rows, default_terrain}, hexes: [{hex, terrain}], stacks,
 *              fortifications, sightings, viewer, phase, turn}) or a phase snapshot as the
 *              history page has it ({map: {cols, rows, terrain: {label: terrain}}, stacks,
 *              fortifications, phase}).
 *     options  {readOnly: true}: pan, zoom, hover and inspect stacks, no actions (history).
 *              {page: <the map page's tools data>} for the interactive map (mountMapPage).
 *     controller {update(data), select(stackId), selectHex(label), zoomBy(factor),
 *                 panBy(dx, dy), fit(), centreOn(label), destroy(); model, view, tools}
 *
 *   Example (history page): mountMap(el, snapshotJson, {readOnly: true}).
 *   The helpers hexNeighbours, directionTo, hexCenter, parseLabel, formatLabel and
 *   columnLetters are exported too (the same hex maths as rules/hexgrid.py).
 *
 *   mountMapPage(element) boots /campaigns/<id>/map/ from its two json_script elements
 *   ("map-data": the map JSON, "map-page-data": campaign id, API base, CSRF token, the
 *   viewer's scout orders, unit types and pop hexes); the controller is window.campaignMap.
 *   After every action it refetches the map JSON and fires "campaign-changed" on <body>
 *   (the phase bar refreshes); a "phase-changed" event on <body> makes it refetch.
 *
 * Hexes are flat-topped in "odd-q" offset layout, exactly as rules/hexgrid.py: column A is
 * 0, rows count from 1, odd columns (B, D, …) sit half a hex lower. Every hex is one SVG
 * path carrying data-hex="<label>"; the whole map is built as one string and every event is
 * delegated from the SVG, so a 100 × 100 map is 10,000 elements and a handful of listeners.
 * On a big map the first draw puts only the hexes in view (and their markers) on the page
 * before the first frame, then the rest in chunks: performance.mark("map-interactive") when
 * mountMap returns (the map answers input from the next frame), data-ready="true" on the
 * element and the mark "map-complete" once every hex is drawn (tests wait for data-ready;
 * tests/bench/bench_map_page.py times both).
 * The server applies the fog of war; this code only draws what it was given.
 */

const SIZE = 30; // circumradius of a hex in SVG units
const HALF_H = Math.round((Math.sqrt(3) * SIZE) / 2 * 100) / 100; // 25.98
const HEX_H = HALF_H * 2;
const HEX_TAIL = `l${SIZE / 2} -${HALF_H}h${SIZE}l${SIZE / 2} ${HALF_H}l-${SIZE / 2} ${HALF_H}h-${SIZE}z`;
const MIN_ZOOM_FLOOR = 0.05;
const MAX_ZOOM = 4;
const PAN_STEP = 80;
// Bigger maps are drawn in view first, then HEX_CHUNK hexes a task (see drawHexesInViewFirst).
const HEX_CHUNK = 1500;
const HEX_MARGIN = 3;

export const TERRAIN_COLOURS = {
  open: "#e4ebc8",
  road: "#e4ebc8", // open ground: map.js draws the road itself as a line
  hills: "#c8a87c",
  woods: "#5d8a4c",
  swamp: "#86aa9e",
  dense_forest: "#3f6b35",
  rocky: "#9a9488",
  village: "#d6a27a",
  deep_water: "#5a86b8",
};
const DARK_TERRAIN = new Set(["woods", "dense_forest", "deep_water"]);
// The fog's duller shade of each terrain.
const FOG_COLOURS = {
  open: "#b9bdaa", road: "#b9bdaa", hills: "#9e8a6c", woods: "#56704d", swamp: "#74897f",
  dense_forest: "#3d5637", rocky: "#827e75", village: "#ad8f76", deep_water: "#5a7190",
};
// Each terrain's pattern over its colour (a 14-unit tile), so the map reads in greyscale and
// for colour-blind players: trees for woods (denser for dense forest), arcs for hills, reeds
// for swamp, stones for rocky ground, roofs for villages, waves for deep water. Open ground
// is plain; a road hex is open ground with the road drawn as a line through it.
const TERRAIN_GLYPHS = {
  hills: '<path d="M1 11q3-6 6 0M8 5q3-6 6 0" fill="none" stroke-width="1.2"/>',
  woods: '<circle cx="3.5" cy="4" r="2.2"/><circle cx="10.5" cy="11" r="2.2"/>',
  dense_forest: '<circle cx="3.5" cy="3.5" r="2.4"/><circle cx="10.5" cy="3.5" r="2.4"/><circle cx="7" cy="10.5" r="2.4"/><circle cx="0" cy="10.5" r="2.4"/><circle cx="14" cy="10.5" r="2.4"/>',
  swamp: '<path d="M1 5h5M8 12h5M3.5 5v-3.5M10.5 12v-3.5M2 5l-1-2.5M5 5l1-2.5M9 12l-1-2.5M12 12l1-2.5" fill="none" stroke-width="1.3"/>',
  rocky: '<path d="M2 7l2.5-4 2.5 4zM8 13l2.5-4 2.5 4z"/>',
  village: '<path d="M2 8v-3l2.5-2.5 2.5 2.5v3zM9 13v-2.5l2-2 2 2v2.5z"/>',
  deep_water: '<path d="M0 5q1.75-2 3.5 0t3.5 0t3.5 0t3.5 0M0 11q1.75-2 3.5 0t3.5 0t3.5 0t3.5 0" fill="none" stroke-width="1.1"/>',
};

// Arrowheads for the paths of moves and scout orders (overlay lines end in them).
const ARROW_DEFS = [["move", "#1a5fb4"], ["scout", "#6a1b9a"]].map(([kind, colour]) =>
  `<marker id="wc-arrow-${kind}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="4" markerHeight="4" ` +
  `orient="auto-start-reverse" markerUnits="strokeWidth"><path d="M0 0L10 5L0 10z" fill="${colour}"/></marker>`).join("");

// The <defs> of every terrain's pattern, clear (wc-t-*) and fogged (wc-f-*); the CSS fills
// the hexes with them.
export function patternDefs() {
  const out = [];
  for (const [terrain, colour] of Object.entries(TERRAIN_COLOURS)) {
    const glyph = TERRAIN_GLYPHS[terrain] || "";
    for (const [prefix, fill] of [["t", colour], ["f", FOG_COLOURS[terrain] || colour]]) {
      const ink = DARK_TERRAIN.has(terrain) ? "rgba(255,255,255,.38)" : "rgba(40,30,10,.42)";
      out.push(`<pattern id="wc-${prefix}-${terrain}" patternUnits="userSpaceOnUse" width="14" height="14">` +
        `<rect width="14" height="14" fill="${fill}"/>${glyph ? `<g fill="${ink}" stroke="${ink}" stroke-width="0">${glyph}</g>` : ""}</pattern>`);
    }
  }
  return out.join("");
}
const DIRECTIONS = [
  ["N", 0, -1], ["NE", 1, -1], ["SE", 1, 0], ["S", 0, 1], ["SW", -1, 1], ["NW", -1, 0],
];
const SIDE_NAMES = { alliance: "Alliance", opposition: "Opposition" };

// --- Hex maths (the same conventions as rules/hexgrid.py) --------------------------------

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

export function parseLabel(label) {
  const m = /^([A-Z]+)([0-9]+)$/.exec(label || "");
  if (!m) return null;
  let col = 0;
  for (const ch of m[1]) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { col: col - 1, row: Number(m[2]) };
}

export function formatLabel(col, row) {
  return `${columnLetters(col)}${row}`;
}

function toAxial(col, row) {
  return { q: col, r: row - 1 - (col - (col & 1)) / 2 };
}

function fromAxial(q, r) {
  return { col: q, row: r + (q - (q & 1)) / 2 + 1 };
}

/** The labels of a hex's neighbours on a cols × rows map, in the order N, NE, SE, S, SW, NW. */
export function hexNeighbours(label, cols, rows) {
  const at = parseLabel(label);
  if (!at) return [];
  const { q, r } = toAxial(at.col, at.row);
  const out = [];
  for (const [, dq, dr] of DIRECTIONS) {
    const { col, row } = fromAxial(q + dq, r + dr);
    if (col >= 0 && col < cols && row >= 1 && row <= rows) out.push(formatLabel(col, row));
  }
  return out;
}

/** The direction ("N" … "NW") from one hex to an adjacent one, or null. */
export function directionTo(from, to) {
  const a = parseLabel(from);
  const b = parseLabel(to);
  if (!a || !b) return null;
  const p = toAxial(a.col, a.row);
  const t = toAxial(b.col, b.row);
  const found = DIRECTIONS.find(([, dq, dr]) => t.q - p.q === dq && t.r - p.r === dr);
  return found ? found[0] : null;
}

/** The centre of a hex in SVG units. */
export function hexCenter(label) {
  const at = parseLabel(label);
  if (!at) return null;
  return centerOf(at.col, at.row);
}

function centerOf(col, row) {
  return {
    x: SIZE + col * 1.5 * SIZE,
    y: HALF_H + (row - 1) * HEX_H + (col & 1) * HALF_H,
  };
}

function r2(v) {
  return Math.round(v * 100) / 100;
}

// The two ends of a hexside of the hex centred at (x, y), for drawing walls.
function hexsideEnds(x, y, direction) {
  const v = [
    [x + SIZE, y], [x + SIZE / 2, y + HALF_H], [x - SIZE / 2, y + HALF_H],
    [x - SIZE, y], [x - SIZE / 2, y - HALF_H], [x + SIZE / 2, y - HALF_H],
  ];
  const ends = { N: [4, 5], NE: [5, 0], SE: [0, 1], S: [1, 2], SW: [2, 3], NW: [3, 4] }[direction];
  return ends ? [v[ends[0]], v[ends[1]]] : null;
}

// --- Small DOM helpers ---------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function titleCase(text) {
  return String(text || "").replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

// --- Data ------------------------------------------------------------------------------------

/** Both shapes of the map JSON (the API's and a phase snapshot's) as one indexed model. */
function normalize(data) {
  const m = data.map || {};
  const terrain = new Map();
  if (Array.isArray(data.hexes)) for (const row of data.hexes) terrain.set(row.hex, row.terrain);
  else if (m.terrain) for (const [hex, t] of Object.entries(m.terrain)) terrain.set(hex, t);
  const model = {
    cols: m.cols || 1,
    rows: m.rows || 1,
    defaultTerrain: m.default_terrain || "open",
    terrain,
    stacks: data.stacks || [],
    forts: data.fortifications || [],
    sightings: data.sightings || [],
    viewer: data.viewer || null,
    phase: data.phase || null,
    turn: data.turn ?? (data.phase ? data.phase.turn : null),
    stacksAt: new Map(),
    fortsAt: new Map(),
    sightingAt: new Map(),
    stackById: new Map(),
  };
  for (const s of model.stacks) {
    if (!model.stacksAt.has(s.hex)) model.stacksAt.set(s.hex, []);
    model.stacksAt.get(s.hex).push(s);
    if (s.id !== undefined) model.stackById.set(s.id, s);
  }
  for (const f of model.forts) {
    if (!model.fortsAt.has(f.hex)) model.fortsAt.set(f.hex, []);
    model.fortsAt.get(f.hex).push(f);
  }
  for (const s of model.sightings) model.sightingAt.set(s.hex, s);
  return model;
}

function terrainOf(model, label) {
  const known = model.terrain.get(label);
  if (known) return known;
  const seen = model.sightingAt.get(label);
  if (seen && seen.seen && seen.seen.terrain) return seen.seen.terrain;
  return model.defaultTerrain;
}

function isGm(model) {
  return Boolean(model.viewer && model.viewer.role === "gm");
}

// A hex is clear (not dimmed) when the viewer sees it now: the GM always; a side in the hexes
// its stacks occupy and those sighted this turn. Without a viewer (a snapshot) nothing is dimmed.
function clearHexes(model) {
  if (!model.viewer || isGm(model)) return null;
  const clear = new Set();
  for (const s of model.stacks) if (s.side === model.viewer.side) clear.add(s.hex);
  // Only a hex wholly seen this turn (scouted) is clear; a glimpse in a fight is not.
  for (const s of model.sightings) if (model.turn !== null && s.turn === model.turn && s.seen?.whole !== false) clear.add(s.hex);
  return clear;
}

function unitCount(stack) {
  return (stack.units || []).length;
}

// Who owns what: the players' names by membership id and the viewer's own membership (and
// the one they act for), set by the interactive page (mountMap's `page`).
const OWNERS = { names: new Map(), me: null, actingFor: null };

function setOwners(page) {
  OWNERS.names = new Map((page && page.owners || []).map((o) => [o.membership, o.name]));
  OWNERS.me = page ? page.membership ?? null : null;
  OWNERS.actingFor = page && page.acting_for ? page.acting_for.membership : null;
}

// The owners of a stack's units (membership ids), when the viewer knows them.
function stackOwners(stack) {
  return [...new Set((stack.units || []).map((u) => u.owner).filter((o) => o !== undefined && o !== null))];
}

function ownerName(id) {
  return id === OWNERS.me ? "you" : OWNERS.names.get(id) || null;
}

// A chance for people: "100 %", "37.5 %", "0.3 %".
function percent(value) {
  return `${(value * 100).toFixed(1).replace(/\.0$/, "")} %`;
}

// Text for the SVG strings the layers are built from (a player's name is theirs to choose).
function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// "R" for rowan: the counter's owner mark.
function ownerInitial(stack) {
  const owners = stackOwners(stack);
  if (owners.length !== 1) return owners.length ? "+" : "";
  const name = OWNERS.names.get(owners[0]);
  return name ? name.trim().charAt(0).toUpperCase() : "";
}

function stackTitle(stack) {
  const where = `in ${stack.hex} (${plural(unitCount(stack), "unit")})`;
  const owners = stackOwners(stack);
  if (owners.length === 1 && owners[0] === OWNERS.me) return `Your stack ${where}`;
  if (owners.length === 1 && OWNERS.names.has(owners[0])) return `${OWNERS.names.get(owners[0])}'s stack ${where}`;
  const side = SIDE_NAMES[stack.side] || titleCase(stack.side);
  const names = owners.map((o) => ownerName(o)).filter(Boolean);
  return `${side} stack ${where}` + (names.length > 1 ? ` of ${names.join(" and ")}` : "");
}

function hasCommander(stack) {
  return (stack.units || []).some((u) => hasSpecial(u, "commander"));
}

function hasSpecial(unit, special) {
  return Array.isArray(unit.specials) && unit.specials.includes(special);
}

// --- Drawing ---------------------------------------------------------------------------------

// The hexes of `range` ({c0, c1, r0, r1}; the whole map without it), leaving out those of `skip`.
function terrainLayer(model, clear, range = null, skip = null) {
  const { c0, c1, r0, r1 } = range || { c0: 0, c1: model.cols - 1, r0: 1, r1: model.rows };
  const paths = [];
  for (let col = c0; col <= c1; col++) {
    const letters = columnLetters(col);
    const skipping = skip !== null && col >= skip.c0 && col <= skip.c1;
    for (let row = r0; row <= r1; row++) {
      if (skipping && row >= skip.r0 && row <= skip.r1) continue;
      const label = letters + row;
      const { x, y } = centerOf(col, row);
      const fog = clear && !clear.has(label) ? " fog" : "";
      paths.push(`<path data-hex="${label}" class="hex t-${terrainOf(model, label)}${fog}" d="M${r2(x - SIZE)} ${r2(y)}${HEX_TAIL}"/>`);
    }
  }
  return paths.join("");
}

// Labels of the hexes in columns c0..c1 and rows r0..r1 only: laying out 10,000 texts is what
// made a 100 × 100 map slow, and only a screenful of them can be read at once.
function labelsMarkup(model, c0, c1, r0, r1, scale = 1) {
  const out = [];
  const dy = -HALF_H + 3 + 7 * scale;
  for (let col = c0; col <= c1; col++) {
    const letters = columnLetters(col);
    for (let row = r0; row <= r1; row++) {
      const label = letters + row;
      const { x, y } = centerOf(col, row);
      const dark = DARK_TERRAIN.has(terrainOf(model, label)) ? ' class="on-dark"' : "";
      out.push(`<text x="${r2(x)}" y="${r2(y + dy)}"${dark}>${label}</text>`);
    }
  }
  return out.join("");
}

// Roads as lines: from each road hex's centre to the centre of every adjacent road hex (a
// lone road hex gets a dot). Only the hexes the viewer knows the terrain of; a default
// terrain of road would make every hex one, and draws no lines.
function roadsMarkup(model) {
  const roads = new Set();
  for (const [hex, t] of model.terrain) if (t === "road") roads.add(hex);
  for (const s of model.sightings) if (s.seen && s.seen.terrain === "road" && !model.terrain.has(s.hex)) roads.add(s.hex);
  if (!roads.size) return "";
  const segments = [];
  const stops = [];
  for (const hex of roads) {
    const c = hexCenter(hex);
    let joined = 0;
    for (const next of hexNeighbours(hex, model.cols, model.rows)) {
      if (!roads.has(next)) continue;
      joined += 1;
      if (next < hex) continue; // each segment once
      const d = hexCenter(next);
      segments.push(`M${r2(c.x)} ${r2(c.y)}L${r2(d.x)} ${r2(d.y)}`);
    }
    if (!joined) stops.push(`<circle class="road-stop" data-road="${hex}" cx="${r2(c.x)}" cy="${r2(c.y)}" r="5"/>`);
  }
  const d = segments.join("");
  return (d ? `<path class="road-edge" d="${d}"/><path class="road" d="${d}"/>` : "") + stops.join("");
}

// How much bigger than its world size a counter (and a hex label) is drawn at zoom k, so that
// it stays readable when the map is zoomed out to fit a small screen: 1 from k = 1.1 up,
// then in quarter steps up to 1.5 (redrawn only when the step changes).
function markScale(k) {
  const s = Math.min(1.5, Math.max(1, 1.1 / k));
  return Math.round(s * 4) / 4;
}

// A stack of the viewer's side that may not move this turn: some unit has not been with a
// commander (the move/combat phase, when the viewer knows the units' state).
function cannotMove(model, stack) {
  if (!model.viewer || stack.side !== model.viewer.side || !model.phase || model.phase.kind !== "move_combat") return false;
  return (stack.units || []).some((u) => u.was_commanded === false && !hasSpecial(u, "commander"));
}

// One counter: a rounded box `w` wide at (x0, y0), the unit count in its lower half; on a
// stack the viewer knows the owners of, the owner's initial top left and a star top right
// when a commander leads it; a red barred circle at its corner when it may not move this turn.
function counterMarkup({ cls, attrs, x0, y0, w, s, count, initial, commander, stuck }) {
  const hgt = (initial || commander ? 22 : 16) * s;
  const cx = x0 + w / 2;
  let out = `<g class="${cls}"${attrs}><rect x="${r2(x0)}" y="${r2(y0)}" width="${r2(w)}" height="${r2(hgt)}" rx="${r2(3 * s)}"/>` +
    `<text class="count" x="${r2(cx)}" y="${r2(y0 + hgt - 4 * s)}" style="font-size:${r2(11 * s)}px">${count}</text>`;
  if (initial) out += `<text class="owner-mark" x="${r2(x0 + 2.5 * s)}" y="${r2(y0 + 8 * s)}" style="font-size:${r2(7.5 * s)}px">${escapeXml(initial)}</text>`;
  if (commander) out += `<text class="commander-mark" x="${r2(x0 + w - 2.5 * s)}" y="${r2(y0 + 8 * s)}" style="font-size:${r2(7.5 * s)}px">★</text>`;
  if (stuck) {
    const r = 4 * s;
    const bx = x0 + w - r * 0.4;
    const by = y0 + hgt - r * 0.4;
    out += `<g class="no-command"><circle cx="${r2(bx)}" cy="${r2(by)}" r="${r2(r)}"/>` +
      `<path d="M${r2(bx - r * 0.7)} ${r2(by - r * 0.7)}L${r2(bx + r * 0.7)} ${r2(by + r * 0.7)}"/></g>`;
  }
  return `${out}</g>`;
}

// Side by side under the hex's middle, two counters, and a third when it fits across the hex;
// returns their left edges and widths, and how many did not fit.
function counterRow(cx, counts, s) {
  const widths = counts.map((n) => Math.max(22, 10 + 7 * String(n).length) * s);
  let shown = widths.length;
  const total = (k) => widths.slice(0, k).reduce((a, b) => a + b, 0) + (k - 1) * s;
  while (shown > 2 && total(shown) > 66) shown -= 1;
  let left = cx - total(shown) / 2;
  const boxes = [];
  for (let i = 0; i < shown; i++) {
    boxes.push({ x0: left, w: widths[i] });
    left += widths[i] + s;
  }
  return { boxes, more: counts.length - shown };
}

// The markers of the hexes in `range` ({c0, c1, r0, r1}; of the whole map without it), with
// counters drawn `scale` times their world size (markScale). Walls lie on their hexsides and a
// tower sits in its hex's upper left corner, so neither covers a counter.
function marksLayer(model, selectedId, pendingPops, range = null, scale = 1) {
  const s = scale;
  const out = [];
  const outside = (hex) => {
    if (!range) return false;
    const at = parseLabel(hex);
    return !at || at.col < range.c0 || at.col > range.c1 || at.row < range.r0 || at.row > range.r1;
  };
  for (const [hex, forts] of model.fortsAt) {
    const c = hexCenter(hex);
    if (!c || outside(hex)) continue;
    // Hits hidden now may still be known from the side's latest sighting of the hex.
    const seenForts = (model.sightingAt.get(hex)?.seen?.fortifications) || [];
    for (const f of forts) {
      const owner = f.owner || "none";
      const seen = seenForts.find((g) => g.kind === f.kind && (g.direction || null) === (f.direction || null));
      const known = f.hits ?? (seen ? seen.hits : null);
      const hits = known === null || known === undefined ? "?" : known;
      if (f.kind === "wall" && f.direction) {
        const ends = hexsideEnds(c.x, c.y, f.direction);
        if (!ends) continue;
        const [[x1, y1], [x2, y2]] = ends;
        const mx = (x1 + x2) / 2 + (c.x - (x1 + x2) / 2) * 0.12;
        const my = (y1 + y2) / 2 + (c.y - (y1 + y2) / 2) * 0.12;
        out.push(`<line class="wall side-${owner}" x1="${r2(x1)}" y1="${r2(y1)}" x2="${r2(x2)}" y2="${r2(y2)}"/>`);
        out.push(`<text class="wall-hits" x="${r2(mx)}" y="${r2(my + 2.5)}">${hits}</text>`);
      } else {
        // A keep: a crenellated outline with the hits inside.
        const x = c.x - 25;
        const y = c.y - 16;
        out.push(`<g class="tower side-${owner}" data-at="${hex}"><path d="M${r2(x)} ${r2(y + 14)}v-14h3v2.5h3v-2.5h3v2.5h3v-2.5h3v14z"/>` +
          `<text x="${r2(x + 7.5)}" y="${r2(y + 12)}">${hits}</text></g>`);
      }
    }
  }
  for (const sg of model.sightings) {
    const c = hexCenter(sg.hex);
    if (!c || outside(sg.hex)) continue;
    out.push(`<text class="sighting-turn" x="${r2(c.x + 19)}" y="${r2(c.y - 6)}">T${Number(sg.turn)}</text>`);
    const own = (model.stacksAt.get(sg.hex) || []).length > 0;
    const seenStacks = (sg.seen && sg.seen.stacks) || [];
    if (!own && seenStacks.length) {
      const row = counterRow(c.x, seenStacks.map((st) => (st.units || []).length), s);
      row.boxes.forEach((b, i) => {
        out.push(counterMarkup({ cls: `badge seen side-${seenStacks[i].side}`, attrs: ` data-at="${sg.hex}"`,
          x0: b.x0, y0: c.y + 1, w: b.w, s, count: (seenStacks[i].units || []).length }));
      });
      if (row.more) out.push(`<text class="more" x="${r2(c.x)}" y="${r2(c.y + 1 + 26 * s)}">+${row.more}</text>`);
    }
  }
  for (const p of pendingPops || []) {
    const c = hexCenter(p.hex);
    if (c && !outside(p.hex)) out.push(`<text class="pops-waiting" x="${r2(c.x + 18)}" y="${r2(c.y - 6)}">+${Number(p.count)}</text>`);
  }
  for (const [hex, stacks] of model.stacksAt) {
    const c = hexCenter(hex);
    if (!c || outside(hex)) continue;
    const row = counterRow(c.x, stacks.map((st) => unitCount(st)), s);
    row.boxes.forEach((b, i) => {
      const st = stacks[i];
      const selected = st.id !== undefined && st.id === selectedId ? " selected" : "";
      const id = st.id !== undefined ? ` data-stack="${Number(st.id)}"` : "";
      const owners = stackOwners(st);
      const mine = owners.length > 0 && owners.every((o) => o === OWNERS.me) ? " mine" : "";
      const stuck = cannotMove(model, st);
      out.push(counterMarkup({ cls: `badge stack side-${st.side}${selected}${mine}${stuck ? " stuck" : ""}`,
        attrs: `${id} data-at="${hex}"`, x0: b.x0, y0: c.y + 1, w: b.w, s, count: unitCount(st),
        initial: ownerInitial(st), commander: hasCommander(st), stuck }));
    });
    if (row.more) out.push(`<text class="more" x="${r2(c.x)}" y="${r2(c.y + 23 * s + 8)}">+${row.more}</text>`);
  }
  return out.join("");
}

function legendItems(model) {
  const present = new Set([model.defaultTerrain]);
  for (const t of model.terrain.values()) present.add(t);
  for (const s of model.sightings) if (s.seen && s.seen.terrain) present.add(s.seen.terrain);
  const terrains = [...present].sort();
  const items = terrains.map((t) => {
    const swatch = h("span", { class: "swatch pattern", "data-terrain": t });
    swatch.innerHTML = t === "road"
      ? `<svg viewBox="0 0 16 16" aria-hidden="true"><rect width="16" height="16" fill="${TERRAIN_COLOURS.open}"/><path class="road" d="M0 12L16 4"/></svg>`
      : `<svg viewBox="0 0 16 16" aria-hidden="true"><rect width="16" height="16" fill="url(#wc-t-${t})"/></svg>`;
    return h("li", {}, swatch, t === "road" ? "Road (a line through the hexes it joins)" : titleCase(t));
  });
  items.push(h("li", {}, h("span", { class: "swatch side-alliance" }), "Alliance stack (units)"));
  items.push(h("li", {}, h("span", { class: "swatch side-opposition" }), "Opposition stack (units)"));
  items.push(h("li", {}, h("span", { class: "swatch tower-swatch" }), "Tower (hits); thick hexside: wall (hits)"));
  items.push(h("li", {}, h("span", { class: "legend-mark", text: "A ★" }), "On a counter: its owner's initial; ★ a commander leads it"));
  if (model.viewer && !isGm(model) && model.phase && model.phase.kind === "move_combat") {
    items.push(h("li", {}, h("span", { class: "legend-mark no-command-mark", text: "⊘" }), "Cannot move this turn: no commander has been in its hex"));
  }
  if (model.viewer && !isGm(model)) {
    items.push(h("li", {}, h("span", { class: "swatch fog-swatch" }), "Dimmed: not seen this turn"));
    items.push(h("li", {}, h("span", { class: "swatch turn-swatch", text: "T2" }), "Sighted in that turn"));
  }
  return items;
}

// --- The map component -------------------------------------------------------------------------

export function mountMap(element, data, options = {}) {
  const readOnly = Boolean(options.readOnly);
  const page = options.page || null;
  setOwners(page);
  const uid = `map${Math.random().toString(36).slice(2, 8)}`;
  let model = normalize(data);
  let view = { x: 0, y: 0, k: 1 };
  let cursor = null;
  let selectedHex = null;
  let selectedStackId = null;
  // The play tools (interactive page only); set once the component's functions exist.
  let tools = null;

  element.classList.add("map-shell");
  element.replaceChildren();
  const zoomIn = h("button", { type: "button", class: "map-zoom", "aria-label": "Zoom in", text: "+" });
  const zoomOut = h("button", { type: "button", class: "map-zoom", "aria-label": "Zoom out", text: "−" });
  const fitBtn = h("button", { type: "button", class: "map-zoom", text: "Fit map" });
  const miniBtn = h("button", { type: "button", class: "map-zoom", "data-key": "minimap-toggle", "aria-pressed": "false", hidden: true,
    text: "Overview" });
  const toolbar = h("div", { class: "map-toolbar", role: "toolbar", "aria-label": "Map view" },
    zoomIn, zoomOut, fitBtn, miniBtn,
    h("span", { class: "map-hint", text: "Drag or arrow keys to pan, wheel or +/− to zoom; Tab to the hex cursor, arrows move it, Enter selects." }));
  const viewport = h("div", {
    class: "map-viewport", tabindex: "0", role: "application",
    "aria-label": "Map: arrow keys pan, plus and minus zoom, Tab moves to the hex cursor",
    "aria-describedby": `${uid}-tip`,
  });
  const tooltip = h("div", { class: "map-tooltip", role: "tooltip", id: `${uid}-tip`, hidden: true });
  const legend = h("ul", { class: "map-legend", "aria-label": "Legend" });
  const panel = h("aside", { class: "map-panel", "aria-label": "Selection", "aria-live": "polite" });
  // On a phone the panel is a sheet docked under the map, both on one screen; its handle
  // folds it to one line to give the map the room (tapping a hex or stack unfolds it).
  const sheetHandle = h("button", { type: "button", class: "sheet-handle", "data-key": "sheet-handle",
    "aria-expanded": "true", text: "▾ Fold the panel" });
  const sheet = h("div", { class: "map-sheet" }, sheetHandle, panel);
  const legendBox = h("details", { class: "map-legend-box", open: window.matchMedia("(min-width: 821px)").matches },
    h("summary", { text: "Legend" }), legend);
  const body = h("div", { class: "map-body" }, h("div", { class: "map-stage" }, viewport), sheet);
  element.append(toolbar, body, legendBox);

  function foldSheet(folded) {
    if (sheet.classList.contains("folded") === folded) return;
    sheet.classList.toggle("folded", folded);
    // The map's height changed: measure it again, and keep the selected hex in view.
    viewportBox = null;
    requestAnimationFrame(() => {
      viewportBox = null;
      settleView();
      if (!folded && selectedHex) keepVisible(selectedHex);
    });
    sheetHandle.setAttribute("aria-expanded", folded ? "false" : "true");
    sheetHandle.textContent = folded ? "▴ Show the panel" : "▾ Fold the panel";
  }
  sheetHandle.addEventListener("click", () => foldSheet(!sheet.classList.contains("folded")));

  viewport.innerHTML = `<svg class="hexmap" xmlns="http://www.w3.org/2000/svg" role="group" aria-label="Hex map">` +
    `<defs>${patternDefs()}${ARROW_DEFS}</defs>` +
    `<g class="world"><g class="hexes"></g><g class="roads" aria-hidden="true"></g><g class="labels" aria-hidden="true"></g>` +
    `<g class="marks"></g><g class="overlay" aria-hidden="true"></g></g></svg>`;
  // Results and refusals of actions, at the foot of the map for a few seconds (the panel says
  // them too, next to the control); they never catch the pointer.
  const toasts = h("div", { class: "map-toasts", role: "status", "aria-live": "polite" });
  viewport.append(tooltip, toasts);

  // The minimap: the whole map small in the viewport's upper right corner with the part in
  // view framed; a click or drag there brings that part into view. Shown while the map does
  // not fit the viewport (on a desk at once; on a narrow screen once "Overview" is pressed).
  const MINI = 150;
  const miniCanvas = h("canvas", { class: "minimap-canvas", "aria-hidden": "true" });
  const miniFrame = h("div", { class: "minimap-frame" });
  const mini = h("div", { class: "minimap", hidden: true, "data-minimap": "",
    title: "The whole map: click or drag to bring a part into view" }, miniCanvas, miniFrame);
  viewport.append(mini);
  let miniWanted = (element.clientWidth || 0) >= 500;
  let miniScale = 0;
  let miniDrawn = false;
  // Drawn once the map is complete (it would only delay the first screen before that).
  let miniReady = false;

  function drawMinimap() {
    const size = mapSize();
    miniScale = Math.min(MINI / size.w, MINI / size.h);
    const w = Math.max(1, Math.round(size.w * miniScale));
    const hgt = Math.max(1, Math.round(size.h * miniScale));
    const ratio = window.devicePixelRatio || 1;
    miniCanvas.width = Math.round(w * ratio);
    miniCanvas.height = Math.round(hgt * ratio);
    miniCanvas.style.width = `${w}px`;
    miniCanvas.style.height = `${hgt}px`;
    const ctx = miniCanvas.getContext("2d");
    ctx.setTransform(ratio * miniScale, 0, 0, ratio * miniScale, 0, 0);
    // One rectangle per hex, grouped by colour (10,000 on a 100 × 100 map).
    const clear = clearHexes(model);
    const byColour = new Map();
    for (let col = 0; col < model.cols; col++) {
      const letters = columnLetters(col);
      for (let row = 1; row <= model.rows; row++) {
        const label = letters + row;
        const t = terrainOf(model, label);
        const colour = clear && !clear.has(label) ? FOG_COLOURS[t] : TERRAIN_COLOURS[t === "road" ? "open" : t];
        if (!byColour.has(colour)) byColour.set(colour, []);
        byColour.get(colour).push(centerOf(col, row));
      }
    }
    for (const [colour, centres] of byColour) {
      ctx.fillStyle = colour || "#ccc";
      for (const c of centres) ctx.fillRect(c.x - SIZE * 0.76, c.y - HALF_H, SIZE * 1.52, HEX_H);
    }
    for (const st of model.stacks) {
      const c = hexCenter(st.hex);
      if (!c) continue;
      ctx.fillStyle = st.side === "alliance" ? "#1f5fbf" : "#b3261e";
      ctx.fillRect(c.x - SIZE * 0.6, c.y - SIZE * 0.6, SIZE * 1.2, SIZE * 1.2);
    }
    miniDrawn = true;
    placeMiniFrame();
  }

  // Shows or hides the minimap and frames the part of the map in view.
  function placeMiniFrame() {
    const { w, h: vh } = viewportSize();
    const size = mapSize();
    const overflows = size.w * view.k > w + 1 || size.h * view.k > vh + 1;
    miniBtn.hidden = !overflows;
    miniBtn.setAttribute("aria-pressed", miniWanted ? "true" : "false");
    const show = overflows && miniWanted;
    mini.hidden = !show;
    if (!show) return;
    if (!miniDrawn) {
      drawMinimap();
      return;
    }
    const x0 = Math.max(0, -view.x / view.k);
    const y0 = Math.max(0, -view.y / view.k);
    const x1 = Math.min(size.w, (w - view.x) / view.k);
    const y1 = Math.min(size.h, (vh - view.y) / view.k);
    Object.assign(miniFrame.style, {
      left: `${Math.round(x0 * miniScale)}px`, top: `${Math.round(y0 * miniScale)}px`,
      width: `${Math.max(4, Math.round((x1 - x0) * miniScale))}px`, height: `${Math.max(4, Math.round((y1 - y0) * miniScale))}px`,
    });
  }

  function miniPoint(e) {
    const box = miniCanvas.getBoundingClientRect();
    const { w, h: vh } = viewportSize();
    const wx = (e.clientX - box.left) / miniScale;
    const wy = (e.clientY - box.top) / miniScale;
    view = { ...view, x: w / 2 - wx * view.k, y: vh / 2 - wy * view.k };
    // Near an edge the map's edge stops at the viewport's, not a band of nothing.
    settleView();
  }
  let miniDragging = false;
  mini.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    e.stopPropagation();
    miniDragging = true;
    mini.setPointerCapture(e.pointerId);
    miniPoint(e);
  });
  mini.addEventListener("pointermove", (e) => { if (miniDragging) miniPoint(e); });
  mini.addEventListener("pointerup", () => { miniDragging = false; });
  mini.addEventListener("pointercancel", () => { miniDragging = false; });
  miniBtn.addEventListener("click", () => {
    miniWanted = !miniWanted;
    placeMiniFrame();
  });

  function toast(text, kind = "result") {
    // The newest only: an older refusal is stale once something else happened.
    const note = h("div", { class: `map-toast ${kind}`, "data-toast": kind, text });
    toasts.replaceChildren(note);
    setTimeout(() => note.remove(), kind === "error" ? 10000 : 6000);
  }
  const svg = viewport.querySelector("svg");
  const world = svg.querySelector(".world");
  const hexLayer = svg.querySelector(".hexes");
  const labelLayer = svg.querySelector(".labels");
  const roadLayer = svg.querySelector(".roads");
  const markLayer = svg.querySelector(".marks");
  const overlay = svg.querySelector(".overlay");
  let drawnHexes = "";
  let drawnRoads = "";
  // The counters' scale drawn last (markScale of the zoom).
  let drawnScale = 1;

  function mapSize() {
    return {
      w: SIZE * 2 + (model.cols - 1) * 1.5 * SIZE,
      h: model.rows * HEX_H + (model.cols > 1 ? HALF_H : 0),
    };
  }

  // The hex layer (10,000 elements on a 100 × 100 map) is rebuilt only when the data
  // changed, and then only if its markup did; a selection redraws the markers alone.
  function draw(dataChanged = false) {
    if (!drawnHexes && !hexJob && model.cols * model.rows > HEX_CHUNK && drawHexesInViewFirst()) {
      // The rest follows in chunks.
    } else if (dataChanged || (!drawnHexes && !hexJob)) {
      const paths = terrainLayer(model, clearHexes(model));
      if (paths !== drawnHexes) {
        const unfinished = hexJob !== 0;
        hexJob = 0;
        hexLayer.innerHTML = paths;
        drawnHexes = paths;
        drawLabels(true);
        if (cursor) setCursor(cursor, false);
        if (unfinished) hexesComplete();
      }
    }
    if (dataChanged) miniDrawn = false;
    const roads = roadsMarkup(model);
    if (roads !== drawnRoads) {
      roadLayer.innerHTML = roads;
      drawnRoads = roads;
    }
    drawMarks();
    legend.replaceChildren(...legendItems(model));
    drawOverlay();
  }

  // The first draw of a big map: the hexes in view (and a margin) at once, the others in
  // chunks of about HEX_CHUNK, one task each, starting after the first frame. So the map is
  // painted and answers input once a screenful is laid out rather than all 10,000 hexes;
  // data-ready and the mark "map-complete" follow the last chunk.
  let hexJob = 0;
  let hexJobs = 0;

  function drawHexesInViewFirst() {
    const inView = visibleRange(HEX_MARGIN);
    if ((inView.c1 - inView.c0 + 1) * (inView.r1 - inView.r0 + 1) > model.cols * model.rows - HEX_CHUNK) return false;
    const clear = clearHexes(model);
    hexLayer.innerHTML = terrainLayer(model, clear, inView);
    drawLabels(true);
    const job = ++hexJobs;
    hexJob = job;
    let col = 0;
    const step = () => {
      if (hexJob !== job) return;
      const parts = [];
      for (let n = 0; col < model.cols && n < HEX_CHUNK; col++, n += model.rows) {
        parts.push(terrainLayer(model, clear, { c0: col, c1: col, r0: 1, r1: model.rows }, inView));
      }
      hexLayer.insertAdjacentHTML("beforeend", parts.join(""));
      if (col < model.cols) {
        setTimeout(step, 0);
        return;
      }
      hexJob = 0;
      drawnHexes = terrainLayer(model, clear);
      drawMarks();
      if (cursor) setCursor(cursor, false);
      hexesComplete();
    };
    requestAnimationFrame(() => setTimeout(step, 0));
    return true;
  }

  // While the first draw's hexes are coming, the markers of the hexes in view only.
  function drawMarks() {
    const range = hexJob ? visibleRange(HEX_MARGIN) : null;
    drawnScale = markScale(view.k);
    markLayer.innerHTML = marksLayer(model, selectedStackId, page ? page.pops_waiting : [], range, drawnScale);
  }

  function hexesComplete() {
    element.dataset.ready = "true";
    performance.mark("map-complete");
    setTimeout(() => {
      miniReady = true;
      placeMiniFrame();
    }, 0);
  }

  function drawOverlay() {
    const parts = [];
    if (selectedHex) parts.push(ring(selectedHex, "selected-hex"));
    if (tools) parts.push(tools.overlay());
    overlay.innerHTML = parts.join("");
  }

  function ring(label, cls) {
    const c = hexCenter(label);
    if (!c) return "";
    return `<path class="${cls}" d="M${r2(c.x - SIZE + 2)} ${r2(c.y)}l${SIZE / 2 - 1} -${HALF_H - 2}h${SIZE - 2}l${SIZE / 2 - 1} ${HALF_H - 2}l-${SIZE / 2 - 1} ${HALF_H - 2}h-${SIZE - 2}z"/>`;
  }

  let labelRange = "";
  let labelFrame = 0;

  // The columns and rows in the viewport, and `margin` more on each side.
  function visibleRange(margin = 0) {
    const { w, h: vh } = viewportSize();
    const x0 = -view.x / view.k;
    const x1 = (w - view.x) / view.k;
    const y0 = -view.y / view.k;
    const y1 = (vh - view.y) / view.k;
    return {
      c0: Math.max(0, Math.floor((x0 - 2 * SIZE) / (1.5 * SIZE)) - margin),
      c1: Math.min(model.cols - 1, Math.ceil(x1 / (1.5 * SIZE)) + margin),
      r0: Math.max(1, Math.floor(y0 / HEX_H) - margin),
      r1: Math.min(model.rows, Math.ceil(y1 / HEX_H) + 1 + margin),
    };
  }

  function drawLabels(force) {
    const scale = markScale(view.k);
    // Too small to read even scaled up: no labels.
    if (9 * scale * view.k < 7) {
      if (labelRange !== "far") labelLayer.innerHTML = "";
      labelRange = "far";
      return;
    }
    const { c0, c1, r0, r1 } = visibleRange();
    const key = `${c0},${c1},${r0},${r1},${scale}`;
    if (!force && key === labelRange) return;
    labelRange = key;
    labelLayer.style.setProperty("--label-scale", String(scale));
    labelLayer.innerHTML = c0 <= c1 && r0 <= r1 ? labelsMarkup(model, c0, c1, r0, r1, scale) : "";
  }

  function scheduleLabels() {
    if (labelFrame) return;
    labelFrame = requestAnimationFrame(() => {
      labelFrame = 0;
      drawLabels(false);
      // The counters grow back to readable size when zoomed out (markScale's steps).
      if (markScale(view.k) !== drawnScale) drawMarks();
    });
  }

  // --- View: pan and zoom ---
  // The viewport's size, kept by a ResizeObserver: reading clientWidth after a change to the
  // 10,000 hexes would force the browser to lay them all out again there and then.
  let viewportBox = null;
  const resizeObserver = new ResizeObserver(() => {
    viewportBox = null;
    scheduleLabels();
    if (miniReady) placeMiniFrame();
  });
  resizeObserver.observe(viewport);

  function viewportSize() {
    if (!viewportBox) viewportBox = { w: viewport.clientWidth || 300, h: viewport.clientHeight || 300 };
    return viewportBox;
  }

  function minZoom() {
    const { w, h: vh } = viewportSize();
    const size = mapSize();
    return Math.max(MIN_ZOOM_FLOOR, Math.min(w / size.w, vh / size.h) * 0.5);
  }

  function applyView() {
    world.setAttribute("transform", `translate(${r2(view.x)} ${r2(view.y)}) scale(${Math.round(view.k * 10000) / 10000})`);
    viewport.dataset.zoom = String(Math.round(view.k * 1000) / 1000);
    viewport.dataset.pan = `${Math.round(view.x)},${Math.round(view.y)}`;
    scheduleLabels();
    if (miniReady) placeMiniFrame();
  }

  function zoomAt(factor, sx, sy) {
    const k = Math.min(MAX_ZOOM, Math.max(minZoom(), view.k * factor));
    const wx = (sx - view.x) / view.k;
    const wy = (sy - view.y) / view.k;
    view = { k, x: sx - wx * k, y: sy - wy * k };
    applyView();
  }

  function zoomBy(factor) {
    const { w, h: vh } = viewportSize();
    zoomAt(factor, w / 2, vh / 2);
  }

  function panBy(dx, dy) {
    view = { ...view, x: view.x + dx, y: view.y + dy };
    applyView();
  }

  function fit() {
    const { w, h: vh } = viewportSize();
    const size = mapSize();
    const k = Math.min(MAX_ZOOM, Math.min(w / size.w, vh / size.h) * 0.96);
    view = { k, x: (w - size.w * k) / 2, y: (vh - size.h * k) / 2 };
    applyView();
  }

  function centreOn(label, k = view.k) {
    const c = hexCenter(label);
    if (!c) return;
    const { w, h: vh } = viewportSize();
    const size = mapSize();
    let x = w / 2 - c.x * k;
    let y = vh / 2 - c.y * k;
    // A hex near the map's edge: the edge stays at the viewport's, not a band of nothing.
    if (size.w * k > w) x = Math.min(0, Math.max(w - size.w * k, x));
    if (size.h * k > vh) y = Math.min(0, Math.max(vh - size.h * k, y));
    view = { k, x, y };
    applyView();
  }

  // After the viewport changed size: a map taller (wider) than the viewport leaves no empty
  // band above (left of) it; a smaller one is centred.
  function settleView() {
    const { w, h: vh } = viewportSize();
    const size = mapSize();
    const sw = size.w * view.k;
    const sh = size.h * view.k;
    const x = sw > w ? Math.min(0, Math.max(w - sw, view.x)) : (w - sw) / 2;
    const y = sh > vh ? Math.min(0, Math.max(vh - sh, view.y)) : (vh - sh) / 2;
    view = { ...view, x, y };
    applyView();
  }

  function keepVisible(label) {
    const c = hexCenter(label);
    if (!c) return;
    const { w, h: vh } = viewportSize();
    const sx = c.x * view.k + view.x;
    const sy = c.y * view.k + view.y;
    const margin = Math.min(60, w / 4, vh / 4);
    let dx = 0;
    let dy = 0;
    if (sx < margin) dx = margin - sx;
    else if (sx > w - margin) dx = w - margin - sx;
    if (sy < margin) dy = margin - sy;
    else if (sy > vh - margin) dy = vh - margin - sy;
    if (dx || dy) panBy(dx, dy);
  }

  function initialView() {
    const { w, h: vh } = viewportSize();
    const size = mapSize();
    const fitK = Math.min(w / size.w, vh / size.h) * 0.96;
    if (fitK >= 0.55) {
      fit();
      return;
    }
    const mine = model.viewer && model.stacks.find((s) => s.side === model.viewer.side);
    const start = mine ? mine.hex : formatLabel(Math.floor(model.cols / 2), Math.ceil(model.rows / 2));
    centreOn(start, 0.8);
  }

  // --- Hex cursor (roving focus) and tooltip ---
  function hexEl(label) {
    return hexLayer.querySelector(`[data-hex="${label}"]`);
  }

  function describeHex(label) {
    const lines = [`${label}: ${titleCase(terrainOf(model, label))}`];
    for (const f of model.fortsAt.get(label) || []) {
      const where = f.kind === "wall" ? `wall ${f.direction}` : "tower";
      const hits = f.hits === null || f.hits === undefined ? "hits unknown"
        : `${f.hits}/${f.starting_hits} hits${f.seen_turn ? ` (seen T${f.seen_turn})` : ""}`;
      lines.push(`${titleCase(where)} of the ${f.owner}: ${hits}`);
    }
    for (const s of model.stacksAt.get(label) || []) lines.push(stackTitle(s));
    const seen = model.sightingAt.get(label);
    if (seen) {
      const stacks = (seen.seen && seen.seen.stacks) || [];
      if (!stacks.length) lines.push(seen.seen?.whole === false ? `Seen T${seen.turn} in a fight` : `Seen T${seen.turn}: no stacks`);
      // Each sighted stack with its units, as the side last saw them and when.
      for (const st of stacks) {
        const units = (st.units || []).map((u) => `${u.name} (${u.unit_type}, ${u.current_hits} hits)`);
        lines.push(`${SIDE_NAMES[st.side] || st.side} stack, seen T${st.turn ?? seen.turn}: ${units.join(", ") || "no units"}`);
      }
    } else if (clearHexes(model) && !clearHexes(model).has(label)) {
      lines.push("Not seen this turn");
    }
    if (tools) {
      const extra = tools.describe(label);
      if (extra) lines.push(extra);
    }
    return lines;
  }

  function showTooltip(label, sx, sy) {
    tooltip.replaceChildren(...describeHex(label).map((l) => h("div", { text: l })));
    tooltip.hidden = false;
    const { w, h: vh } = viewportSize();
    const tw = tooltip.offsetWidth;
    const th = tooltip.offsetHeight;
    tooltip.style.left = `${Math.max(4, Math.min(sx + 14, w - tw - 4))}px`;
    tooltip.style.top = `${Math.max(4, Math.min(sy + 14, vh - th - 4))}px`;
  }

  function hideTooltip() {
    tooltip.hidden = true;
  }

  function setCursor(label, focus = true) {
    const old = hexLayer.querySelector('[tabindex="0"]');
    if (old && old.dataset.hex !== label) {
      old.removeAttribute("tabindex");
      old.removeAttribute("aria-label");
      old.removeAttribute("role");
    }
    const el = hexEl(label);
    if (!el) return;
    cursor = label;
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", describeHex(label).join(". "));
    if (focus) {
      keepVisible(label);
      el.focus({ preventScroll: true });
    }
  }

  function moveCursor(dCol, dRow) {
    const at = parseLabel(cursor) || { col: 0, row: 1 };
    const col = Math.max(0, Math.min(model.cols - 1, at.col + dCol));
    const row = Math.max(1, Math.min(model.rows, at.row + dRow));
    setCursor(formatLabel(col, row));
  }

  // --- Selection ---
  function selectHex(label) {
    foldSheet(false);
    selectedHex = label;
    const stacks = model.stacksAt.get(label) || [];
    const viewerSide = model.viewer ? model.viewer.side : null;
    const own = stacks.find((s) => s.side === viewerSide && s.id !== undefined);
    const first = own || stacks.find((s) => s.id !== undefined);
    selectedStackId = first ? first.id : null;
    if (tools) tools.selectionChanged();
    draw();
    renderPanel();
  }

  function select(stackId) {
    foldSheet(false);
    const stack = model.stackById.get(stackId);
    if (!stack) {
      selectedStackId = null;
    } else {
      selectedStackId = stack.id;
      selectedHex = stack.hex;
    }
    if (tools) tools.selectionChanged();
    draw();
    renderPanel();
  }

  function activate(label) {
    if (tools && tools.click(label)) return;
    selectHex(label);
  }

  function renderPanel() {
    const focusKey = document.activeElement && panel.contains(document.activeElement)
      ? document.activeElement.dataset.key : null;
    const parts = [];
    if (!selectedHex) {
      parts.push(h("p", { class: "map-panel-empty", text: readOnly
        ? "Select a hex or a stack to see its units."
        : "Select a hex or a stack: its units and orders appear here." }));
    } else {
      parts.push(hexSection(selectedHex));
      const stack = selectedStackId !== null ? model.stackById.get(selectedStackId) : null;
      if (stack) parts.push(stackSection(stack));
    }
    if (tools) parts.push(...tools.panelParts());
    // The panel keeps its scroll position through an action (the same stack's parts again).
    const scrolled = panel.scrollTop;
    panel.replaceChildren(...parts.filter(Boolean));
    panel.scrollTop = scrolled;
    if (focusKey) {
      const again = panel.querySelector(`[data-key="${focusKey}"]`);
      if (again) again.focus();
    }
  }

  function hexSection(label) {
    const stacks = model.stacksAt.get(label) || [];
    const section = h("section", { class: "panel-hex" },
      h("h3", { text: `Hex ${label}` }),
      h("ul", { class: "hex-facts" }, describeHex(label).slice(1).map((l) => h("li", { text: l }))));
    const pickable = stacks.filter((s) => s.id !== undefined);
    if (pickable.length > 1) {
      section.append(h("div", { class: "stack-picker", role: "group", "aria-label": `Stacks in ${label}` },
        pickable.map((s) => h("button", {
          type: "button", "data-key": `pick-${s.id}`, "aria-pressed": s.id === selectedStackId ? "true" : "false",
          onclick: () => select(s.id), text: stackTitle(s),
        }))));
    }
    return section;
  }

  function stackSection(stack) {
    const full = stack.units.length > 0 && stack.units[0].id !== undefined;
    const commandable = tools ? tools.canCommand(stack) : false;
    const head = ["Unit", "Type", "Hits"];
    if (full) head.push("Move left", "Attacked", "Commanded");
    if (commandable) head.push("Order");
    const rows = stack.units.map((u, i) => {
      const cells = [
        h("th", { scope: "row" },
          commandable ? h("label", {},
            h("input", { type: "checkbox", class: "split-pick", value: u.id, "data-key": `split-${u.id}`,
              "aria-label": `Split off ${u.name}` }), " ", u.name) : u.name,
          u.commander_level ? h("span", { class: "muted", text: ` (commander level ${u.commander_level})` }) : null,
          // A phone shows the type here instead of in its own column.
          h("span", { class: "muted type-under", text: u.unit_type }),
          u.mount ? h("span", { class: "muted rides", text: ` rides ${(stack.units.find((m) => m.id === u.mount) || {}).name || "a mount"}` }) : null,
          u.mount && commandable ? h("button", { type: "button", class: "link", "data-key": `dismount-${u.id}`,
            onclick: () => tools.dismount(stack, u), text: "Dismount" }) : null),
        h("td", { class: "col-type", text: u.unit_type }),
        h("td", { text: u.hits !== undefined ? `${u.current_hits}/${u.hits}` : String(u.current_hits) }),
      ];
      if (full) {
        cells.push(h("td", { text: String(Math.max(0, (u.move || 0) - (u.movement_used || 0))) }));
        cells.push(h("td", { text: u.has_attacked ? "yes" : "no" }));
        cells.push(h("td", { text: u.was_commanded ? "yes" : "no" }));
      }
      if (commandable) {
        cells.push(h("td", { class: "reorder" },
          h("button", { type: "button", "data-key": `up-${u.id}`, "aria-label": `Move ${u.name} up`, disabled: i === 0,
            onclick: () => tools.reorder(stack, i, -1), text: "↑" }),
          h("button", { type: "button", "data-key": `down-${u.id}`, "aria-label": `Move ${u.name} down`,
            disabled: i === stack.units.length - 1, onclick: () => tools.reorder(stack, i, 1), text: "↓" }),
          h("button", { type: "button", "data-key": `front-${u.id}`, "aria-label": `Move ${u.name} to the front`,
            title: "To the front (takes hits first)", disabled: i === 0, onclick: () => tools.reorder(stack, i, "front"), text: "⤒" }),
          h("button", { type: "button", "data-key": `back-${u.id}`, "aria-label": `Move ${u.name} to the back`,
            title: "To the back (takes hits last)", disabled: i === stack.units.length - 1,
            onclick: () => tools.reorder(stack, i, "back"), text: "⤓" })));
      }
      return h("tr", {}, cells);
    });
    // Orders first: a big stack's table is long, and the tools should not scroll away.
    const section = h("section", { class: "panel-stack", "data-stack-panel": stack.id },
      h("h3", { text: stackTitle(stack) }));
    if (tools) section.append(...tools.stackParts(stack).filter(Boolean));
    section.append(h("div", { class: "table-scroll" }, h("table", { class: "units" },
      h("caption", { class: "visually-hidden", text: `Units of the ${stackTitle(stack)}` }),
      h("thead", {}, h("tr", {}, head.map((t) => h("th", { scope: "col", class: t === "Type" ? "col-type" : null, text: t })))),
      h("tbody", {}, rows))));
    return section;
  }

  // --- Events (all delegated) ---
  const pointers = new Map();
  let drag = null;
  let suppressClick = false;

  function localPoint(e) {
    const box = svg.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  }

  function hexOfTarget(target) {
    const hexNode = target.closest("[data-hex]");
    if (hexNode) return hexNode.dataset.hex;
    const at = target.closest("[data-at]");
    return at ? at.dataset.at : null;
  }

  function onPointerDown(e) {
    if (e.button !== undefined && e.button !== 0 && e.pointerType === "mouse") return;
    pointers.set(e.pointerId, localPoint(e));
    if (pointers.size === 1) {
      const p = localPoint(e);
      drag = { startX: p.x, startY: p.y, viewX: view.x, viewY: view.y, moved: false, id: e.pointerId };
    } else if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      drag = { pinch: Math.hypot(a.x - b.x, a.y - b.y), k: view.k, moved: true };
    }
  }

  function onPointerMove(e) {
    if (pointers.has(e.pointerId)) pointers.set(e.pointerId, localPoint(e));
    if (!drag) {
      const label = e.target instanceof Element ? hexOfTarget(e.target) : null;
      if (label) {
        const p = localPoint(e);
        showTooltip(label, p.x, p.y);
      } else if (document.activeElement === null || !hexLayer.contains(document.activeElement)) {
        hideTooltip();
      }
      return;
    }
    if (drag.pinch !== undefined && pointers.size >= 2) {
      const [a, b] = [...pointers.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y);
      if (drag.pinch > 0) zoomAt((drag.k * dist) / drag.pinch / view.k, (a.x + b.x) / 2, (a.y + b.y) / 2);
      return;
    }
    if (drag.pinch !== undefined) return;
    const p = localPoint(e);
    const dx = p.x - drag.startX;
    const dy = p.y - drag.startY;
    if (!drag.moved && Math.hypot(dx, dy) > 4) {
      drag.moved = true;
      svg.setPointerCapture(e.pointerId);
      svg.classList.add("dragging");
      hideTooltip();
    }
    if (drag.moved) {
      view = { ...view, x: drag.viewX + dx, y: drag.viewY + dy };
      applyView();
    }
  }

  function onPointerUp(e) {
    pointers.delete(e.pointerId);
    if (drag && drag.moved) suppressClick = true;
    if (pointers.size === 0) {
      drag = null;
      svg.classList.remove("dragging");
    } else if (pointers.size === 1) {
      const [p] = [...pointers.values()];
      drag = { startX: p.x, startY: p.y, viewX: view.x, viewY: view.y, moved: true };
    }
  }

  function onClick(e) {
    if (suppressClick) {
      suppressClick = false;
      return;
    }
    const stackNode = e.target.closest("[data-stack]");
    const label = hexOfTarget(e.target);
    if (!label) return;
    setCursor(label, false);
    if (stackNode && !(tools && tools.busyWithMap())) {
      select(Number(stackNode.dataset.stack));
      return;
    }
    activate(label);
  }

  function onWheel(e) {
    e.preventDefault();
    const p = localPoint(e);
    zoomAt(Math.exp(-e.deltaY * 0.0015), p.x, p.y);
  }

  function onKeyDown(e) {
    const onHex = e.target instanceof Element && e.target.matches("[data-hex]");
    const keys = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (e.key in keys) {
      e.preventDefault();
      const [dx, dy] = keys[e.key];
      if (onHex && !e.shiftKey) moveCursor(dx, dy);
      else panBy(-dx * PAN_STEP, -dy * PAN_STEP);
      return;
    }
    if (e.key === "+" || e.key === "=") {
      e.preventDefault();
      zoomBy(1.25);
    } else if (e.key === "-" || e.key === "_") {
      e.preventDefault();
      zoomBy(0.8);
    } else if (e.key === "0") {
      e.preventDefault();
      fit();
    } else if (onHex && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      activate(e.target.dataset.hex);
    } else if (e.key === "Escape" && tools) {
      tools.cancel();
    }
  }

  function onFocusIn(e) {
    if (e.target instanceof Element && e.target.matches("[data-hex]")) {
      const label = e.target.dataset.hex;
      const c = hexCenter(label);
      showTooltip(label, c.x * view.k + view.x, c.y * view.k + view.y);
    }
  }

  function onViewportFocus(e) {
    if (e.target === viewport && !cursor) {
      const mine = model.viewer && model.stacks.find((s) => s.side === model.viewer.side);
      setCursor(mine ? mine.hex : "A1", false);
    }
  }

  svg.addEventListener("pointerdown", onPointerDown);
  svg.addEventListener("pointermove", onPointerMove);
  svg.addEventListener("pointerup", onPointerUp);
  svg.addEventListener("pointercancel", onPointerUp);
  svg.addEventListener("pointerleave", () => { if (!drag) hideTooltip(); });
  svg.addEventListener("click", onClick);
  svg.addEventListener("wheel", onWheel, { passive: false });
  viewport.addEventListener("keydown", onKeyDown);
  viewport.addEventListener("focusin", onFocusIn);
  viewport.addEventListener("focus", onViewportFocus);
  viewport.addEventListener("focusout", (e) => { if (!viewport.contains(e.relatedTarget)) hideTooltip(); });
  zoomIn.addEventListener("click", () => zoomBy(1.25));
  zoomOut.addEventListener("click", () => zoomBy(0.8));
  fitBtn.addEventListener("click", fit);

  const controller = {
    get model() { return model; },
    get view() { return { ...view }; },
    get selectedStackId() { return selectedStackId; },
    get tools() { return tools; },
    update(newData) {
      model = normalize(newData);
      if (selectedStackId !== null && !model.stackById.has(selectedStackId)) selectedStackId = null;
      if (tools) tools.dataChanged();
      draw(true);
      renderPanel();
    },
    select,
    selectHex,
    zoomBy,
    panBy,
    fit,
    centreOn,
    destroy() {
      hexJob = 0;
      resizeObserver.disconnect();
      element.replaceChildren();
      element.classList.remove("map-shell");
    },
  };

  if (!readOnly && page) {
    tools = makeTools({
      page, controller, element, getModel: () => model, getSelected: () => selectedStackId,
      redrawOverlay: drawOverlay, renderPanel, redraw: draw, toast,
    });
  }

  // On a phone the sheet starts folded, so the whole map is seen first.
  if (!readOnly && window.matchMedia("(max-width: 820px)").matches) foldSheet(true);
  // The view first, while the page is small to lay out; then the hexes and labels are drawn
  // once for it.
  initialView();
  draw();
  renderPanel();
  if (!hexJob) hexesComplete();
  // The hexes in view are drawn and every handler is attached: the map answers input from the
  // next frame (tests/bench/bench_map_page.py times to here).
  performance.mark("map-interactive");
  return controller;
}

// --- The play tools: move, split/merge/reorder, attack, scout, pops ---------------------------

class ApiError extends Error {
  constructor(message, code, field, status) {
    super(message);
    this.code = code;
    this.field = field;
    this.status = status;
  }
}

function makeApi(page) {
  return async function api(method, path, body) {
    let url = path.startsWith("/") ? path : page.api + path;
    // A Chief Warlord acting for a late player: every order and its previews name them.
    const ally = page.acting_for ? page.acting_for.membership : null;
    if (ally !== null && !path.startsWith("/")) {
      if (method === "GET") url += `${url.includes("?") ? "&" : "?"}on_behalf_of=${ally}`;
      else body = { ...(body || {}), on_behalf_of: ally };
    }
    let response;
    try {
      response = await fetch(url, {
        method,
        credentials: "same-origin",
        headers: {
          Accept: "application/json",
          ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
          ...(method !== "GET" ? { "X-CSRFToken": page.csrf_token } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (exc) {
      throw new ApiError("The server could not be reached; nothing was changed. Try again.", "network");
    }
    if (response.status === 204) return null;
    let payload = null;
    try {
      payload = await response.json();
    } catch (exc) {
      payload = null;
    }
    if (!response.ok) {
      const detail = payload && payload.detail ? payload.detail : `The server refused (HTTP ${response.status}).`;
      throw new ApiError(detail, payload && payload.code, payload && payload.field, response.status);
    }
    return payload;
  };
}

function errorNote(message, key) {
  // An empty text node rather than null: Element.append would write "null".
  return message ? h("p", { class: "map-error", role: "alert", "data-error": key, text: message })
    : document.createTextNode("");
}

function oddsChart(title, rows, cls) {
  const max = Math.max(...rows.map((r) => r.chance), 0.0001);
  return h("figure", { class: `odds-chart ${cls}` },
    h("figcaption", { text: title }),
    h("ol", { class: "odds-bars" }, rows.map((r) => h("li", {},
      h("span", { class: "odds-hits", text: plural(r.hits, "hit") }),
      h("span", { class: "odds-bar", "aria-hidden": "true" },
        h("span", { style: `width:${Math.max(2, Math.round((r.chance / max) * 100))}%` })),
      h("span", { class: "odds-p", text: `${r.p} (${(r.chance * 100).toFixed(1)}%)` })))));
}

function makeTools({ page, controller, element, getModel, getSelected, renderPanel, redrawOverlay, redraw, toast }) {
  const api = makeApi(page);
  let tool = null; // {kind: "move"|"attack"|"scout"|"pops", ...}
  let busy = false;
  let result = null; // {text, link} of the last action
  const errors = {}; // error sentence per control

  const model = () => getModel();
  const viewer = () => model().viewer || {};
  const phaseKind = () => (model().phase ? model().phase.kind : null);
  const selectedStack = () => {
    const id = getSelected();
    return id === null ? null : model().stackById.get(id) || null;
  };

  function canCommand(stack) {
    if (!stack || stack.id === undefined) return false;
    const v = viewer();
    if (v.role === "gm") {
      return stack.side === "opposition" && phaseKind() === "opposition"
        && !model().phase.awaiting_draw && stack.declared === undefined;
    }
    if (v.role !== "player" || stack.side !== v.side || phaseKind() !== "move_combat") return false;
    // A player orders their own units (or those of the player they act for), never an ally's.
    const owners = stackOwners(stack);
    const acting = OWNERS.actingFor ?? OWNERS.me;
    return owners.length > 0 && owners.every((o) => o === acting);
  }

  // Why the viewer has no orders for a stack of their own side, in one sentence (or null).
  function readOnlyReason(stack) {
    const v = viewer();
    if (v.role === "gm" && stack.side === "opposition" && phaseKind() === "opposition") {
      if (stack.declared !== undefined) {
        return `Declared for the alliance's draw (#${stack.declared}): this stack waits for the draw ` +
          "(withdraw the declaration in the phase bar to give it other orders).";
      }
      if (model().phase.awaiting_draw) return "The opposition's orders are in: its declared combats wait for the alliance's draw.";
      return null;
    }
    if (stack.id === undefined || v.role !== "player" || stack.side !== v.side || canCommand(stack)) return null;
    const owners = stackOwners(stack);
    const acting = OWNERS.actingFor ?? OWNERS.me;
    if (owners.length && !owners.every((o) => o === acting)) {
      const names = owners.map((o) => OWNERS.names.get(o) || "an ally").join(" and ");
      return `${names === "an ally" ? "An ally's" : `${names}'s`} stack: only ${names} gives its orders ` +
        "(the Chief Warlord too, once they are late or away).";
    }
    if (phaseKind() === "scout") return "Stacks move and fight in the move/combat phase; now only scouts get orders.";
    if (phaseKind() === "opposition") return "The opposition phase is the GM's: your stacks wait for your next move/combat phase.";
    return null;
  }

  // The viewer's (or the acted-for player's) stacks: where, how many units, the move left,
  // and whether they may move this turn (a commander was in their hex).
  function myStacksPart() {
    const v = viewer();
    if (v.role !== "player") return null;
    const acting = OWNERS.actingFor ?? OWNERS.me;
    const mine = getModel().stacks.filter((st) => st.id !== undefined && st.side === v.side
      && stackOwners(st).length > 0 && stackOwners(st).every((o) => o === acting));
    if (!mine.length) return null;
    const onlyMine = element.classList.contains("only-mine");
    const part = h("section", { class: "my-stacks", "aria-labelledby": "my-stacks-title" },
      h("h4", { id: "my-stacks-title", text: OWNERS.actingFor !== null ? `${page.acting_for.name}'s stacks` : "Your stacks" }),
      h("label", { class: "check" }, h("input", { type: "checkbox", "data-key": "only-mine", checked: onlyMine,
        onchange: (e) => { element.classList.toggle("only-mine", e.target.checked); } }), " Show only these on the map"));
    const list = h("ul", { class: "my-stacks-list" });
    for (const st of mine) {
      const left = Math.min(...st.units.map((u) => Math.max(0, (u.move || 0) - (u.movement_used || 0))));
      const commanded = st.units.every((u) => u.was_commanded || hasSpecial(u, "commander"));
      const note = phaseKind() === "move_combat" && !commanded ? "; no commander this turn, cannot move" : "";
      list.append(h("li", {}, h("button", { type: "button", class: "link", "data-key": `mine-${st.id}`,
        onclick: () => controller.select(st.id),
        text: `${st.hex}: ${plural(unitCount(st), "unit")}${hasCommander(st) ? ", with a commander" : ""}, move left ${left}${note}` })));
    }
    part.append(list);
    return part;
  }

  function scoutsOf(stack) {
    const v = viewer();
    if (!stack || v.role !== "player" || stack.side !== v.side || phaseKind() !== "scout") return [];
    return stack.units.filter((u) => hasSpecial(u, "scout"));
  }

  function setError(key, message) {
    for (const k of Object.keys(errors)) delete errors[k];
    if (message) errors[key] = message;
  }

  // A refusal of a click on the map: next to the tool's control and as a toast on the map.
  function mapRefusal(key, message) {
    setError(key, message);
    toast(message, "error");
  }

  // `announce` tells the page's other parts (the phase bar) that the game changed; not when
  // the phase bar itself asked for the refresh, or it would replace its own message.
  async function refresh(selectId, { announce = true, reloadTools = false } = {}) {
    // A new phase: the page's own data (scout orders, pops) is fetched again too.
    if (reloadTools && page.tools_url) {
      Object.assign(page, await api("GET", page.tools_url));
      setOwners(page);
    }
    const data = await api("GET", page.map_url);
    controller.update(data);
    if (selectId !== undefined && selectId !== null) controller.select(selectId);
    if (announce) document.body.dispatchEvent(new CustomEvent("campaign-changed", { bubbles: true }));
  }

  // Runs one request with the panel showing it is busy; a refusal shows next to `key`.
  async function run(key, work) {
    if (busy) return;
    busy = true;
    setError(key, null);
    renderPanel();
    const before = result;
    try {
      await work();
      // The result also as a toast on the map, where the person is looking after a click there.
      if (result && result !== before) toast(result.text, "result");
    } catch (exc) {
      const message = exc instanceof ApiError ? exc.message : String(exc);
      setError(key, message);
      toast(message, "error");
    } finally {
      busy = false;
      renderPanel();
      redrawOverlay();
    }
  }

  function cancel() {
    tool = null;
    setError("", null);
    redrawOverlay();
    renderPanel();
  }

  // --- Move ---
  function startMove(stack) {
    tool = { kind: "move", stackId: stack.id, reachable: null, dest: null, path: null, cost: null };
    result = null;
    run("move", async () => {
      const data = await api("GET", `stacks/${stack.id}/reachable/`);
      tool.reachable = new Map(data.hexes.map((r) => [r.hex, r.cost]));
      tool.moveLeft = data.move_left;
    });
  }

  function moveClick(label) {
    if (!tool.reachable) return true;
    if (!tool.reachable.has(label)) {
      mapRefusal("move", `${label} cannot be reached by this stack now; pick a highlighted hex.`);
      renderPanel();
      return true;
    }
    tool.dest = label;
    tool.path = null;
    run("move", async () => {
      const data = await api("GET", `stacks/${tool.stackId}/path/?to=${encodeURIComponent(label)}`);
      tool.path = data.path;
      tool.cost = data.cost;
      tool.road = Boolean(data.all_on_road) && data.cost > tool.moveLeft;
    });
    return true;
  }

  function confirmMove() {
    const { stackId, path, dest, cost } = tool;
    run("move", async () => {
      const data = await api("POST", `stacks/${stackId}/move/`, { path });
      tool = null;
      const moved = data.stack ? data.stack.id : null;
      // Ambushed, the stack stopped short of its destination: say where it is, not where
      // it was going (data.path is the route it really took, start hex first).
      const stopped = data.path[data.path.length - 1];
      result = {
        text: (data.ambushed
          ? `Ambushed from ${path[data.path.length - 1]}: the stack stopped in ${stopped} after ${plural(data.cost, "movement point")}; see the combat report.`
          : `Moved to ${dest} for ${plural(cost, "movement point")}.`) +
          (moved === null ? " The stack is gone." : ""),
        event: data.combat_event || null,
      };
      // A move can capture a fortified hex: what the side may repair changes with it.
      await refresh(moved, { reloadTools: true });
    });
  }

  // --- Split, merge, reorder ---
  function split(stack) {
    const picked = [...document.querySelectorAll(`[data-stack-panel="${stack.id}"] .split-pick:checked`)]
      .map((el) => Number(el.value));
    if (!picked.length) {
      setError("split", "Tick the units to split off into a new stack first.");
      renderPanel();
      return;
    }
    run("split", async () => {
      const data = await api("POST", `stacks/${stack.id}/split/`, { units: picked });
      result = { text: `Split ${plural(picked.length, "unit")} into a new stack in ${stack.hex}.` };
      await refresh(data.stack ? data.stack.id : stack.id);
    });
  }

  function merge(stack, other) {
    run("merge", async () => {
      const data = await api("POST", "stacks/merge/", { stacks: [stack.id, other.id] });
      result = { text: `Merged the stacks in ${stack.hex}.` };
      await refresh(data.stack ? data.stack.id : stack.id);
    });
  }

  // Move one unit a step up or down (delta ±1), or to the front or the back of the stack
  // ("front" / "back"): one request either way.
  function reorder(stack, index, delta) {
    const order = stack.units.map((u) => u.id);
    if (delta === "front" || delta === "back") {
      if ((delta === "front" && index === 0) || (delta === "back" && index === order.length - 1)) return;
      const [unit] = order.splice(index, 1);
      if (delta === "front") order.unshift(unit); else order.push(unit);
    } else {
      const j = index + delta;
      if (j < 0 || j >= order.length) return;
      [order[index], order[j]] = [order[j], order[index]];
    }
    const moved = stack.units[index].name;
    run("reorder", async () => {
      await api("POST", `stacks/${stack.id}/reorder/`, { order });
      result = { text: delta === "front" ? `${moved} now leads the stack: it takes hits first.`
        : delta === "back" ? `${moved} is now last in the stack: it takes hits last.`
        : "The stack's order is changed." };
      await refresh(stack.id);
    });
  }

  // --- Attack ---
  function startAttack(stack) {
    tool = { kind: "attack", stackId: stack.id, targets: null, target: null, preview: null,
      withdraw: false, directedAt: null, ranged: null };
    result = null;
    run("attack", async () => {
      const targets = await api("GET", `stacks/${stack.id}/targets/`);
      tool.targets = targets;
      if (!targets.length) {
        throw new ApiError("No enemy stack your side knows of is next to this stack: scout or move first.", "no_targets");
      }
    });
  }

  function attackClick(label) {
    if (!tool.targets) return true;
    const there = tool.targets.filter((t) => t.hex === label);
    if (!there.length) {
      mapRefusal("attack", `There is no enemy stack you can attack in ${label}; pick a marked hex.`);
      renderPanel();
      return true;
    }
    chooseTarget(there[0]);
    return true;
  }

  function attackBody() {
    return { target: tool.target.id, withdraw: tool.withdraw, directed_at: tool.directedAt, ranged: tool.ranged };
  }

  function chooseTarget(target) {
    tool.target = target;
    tool.preview = null;
    tool.directedAt = null;
    preview();
  }

  function preview() {
    run("attack", async () => {
      tool.preview = await api("POST", `stacks/${tool.stackId}/attack/preview/`, attackBody());
    });
  }

  function confirmAttack() {
    const stackId = tool.stackId;
    const body = attackBody();
    const where = tool.target.hex;
    run("attack", async () => {
      const data = await api("POST", `stacks/${stackId}/attack/`, body);
      tool = null;
      if (data.declared) {
        result = {
          text: `Declared (#${data.report.seq}): the attack on the stack in ${where} is rolled at the alliance's draw, after you end the phase.`,
          event: data.event,
        };
        await refresh(stackId);
        return;
      }
      const r = (data.report && data.report.result) || {};
      const lines = [];
      if (r.hits_on_defender !== undefined) {
        lines.push(`${plural(r.hits_on_defender, "hit")} on the defender, ${plural(r.hits_on_attacker, "hit")} on the attacker.`);
      }
      if (r.winner) lines.push(`Winner: ${r.winner}.`);
      if (data.report && data.report.withdrew) lines.push("The attacker withdrew.");
      result = {
        text: `Attacked the stack in ${where}. ${lines.join(" ")}`.trim(),
        event: data.event,
        explanation: data.report ? data.report.explanation : null,
      };
      await refresh(data.stack ? data.stack.id : null);
    });
  }

  // --- Scout ---
  function scoutOrder(unitId) {
    return (page.scout_orders || []).find((o) => o.scout === unitId) || null;
  }

  function startScout(stack, unit, fromOrder) {
    tool = {
      kind: "scout", unitId: unit.id, unitName: unit.name, origin: stack.hex, stackId: stack.id,
      limit: (unit.move || 0) + Math.floor((unit.move || 0) / 2),
      path: fromOrder ? [...fromOrder.inspected_hexes] : [],
    };
    result = null;
    setError("scout", null);
    redrawOverlay();
    renderPanel();
  }

  function scoutClick(label) {
    const last = tool.path.length ? tool.path[tool.path.length - 1] : tool.origin;
    if (tool.path.length && label === last) {
      tool.path.pop();
      setError("scout", null);
    } else if (!directionTo(last, label)) {
      mapRefusal("scout", `${label} is not next to ${last}: a scout path is a chain of adjacent hexes (§5).`);
    } else if (tool.path.length >= tool.limit) {
      mapRefusal("scout", `${tool.unitName} may inspect at most ${plural(tool.limit, "hex")} (M + floor(M / 2), §5).`);
    } else {
      tool.path.push(label);
      setError("scout", null);
    }
    redrawOverlay();
    renderPanel();
    return true;
  }

  function scoutDirections() {
    const out = [];
    let here = tool.origin;
    for (const label of tool.path) {
      out.push(directionTo(here, label));
      here = label;
    }
    return out;
  }

  function submitScout() {
    const unitId = tool.unitId;
    const directions = scoutDirections();
    run("scout", async () => {
      const order = await api("POST", "scout-orders/", { scout: unitId, directions });
      const name = tool.unitName;
      page.scout_orders = (page.scout_orders || []).filter((o) => o.scout !== unitId);
      page.scout_orders.push({ ...order, scout_name: name });
      tool = null;
      result = { text: `${name} will inspect ${order.inspected_hexes.join(", ")} when the phase ends.` };
    });
  }

  function cancelScout(order) {
    run("scout", async () => {
      await api("POST", `scout-orders/${order.id}/cancel/`, {});
      page.scout_orders = page.scout_orders.filter((o) => o.id !== order.id);
      if (tool && tool.kind === "scout" && tool.unitId === order.scout) tool = null;
      result = { text: `The scout order of ${order.scout_name} is cancelled.` };
    });
  }

  // --- Pops ---
  function startPops() {
    tool = { kind: "pops", hex: (page.pop_hexes || [])[0] || null };
    result = null;
    setError("pops", null);
    redrawOverlay();
    renderPanel();
  }

  function popsClick(label) {
    if (!(page.pop_hexes || []).includes(label)) {
      mapRefusal("pops", `${label} is not a pop hex; pops appear in ${(page.pop_hexes || []).join(" or ")} (§5).`);
    } else {
      tool.hex = label;
      setError("pops", null);
    }
    redrawOverlay();
    renderPanel();
    return true;
  }

  function buyPops(form) {
    const unitType = Number(form.querySelector("[name=unit_type]").value);
    const count = Number(form.querySelector("[name=count]").value);
    const hex = form.querySelector("[name=hex]").value;
    run("pops", async () => {
      const data = await api("POST", "pops/buy/", { unit_type: unitType, count, hex });
      const typeName = (page.unit_types.find((t) => t.id === unitType) || {}).name || "units";
      const left = data && (data.pop_points ?? data.points_left);
      if (left !== undefined && left !== null) page.pop_points = String(left);
      const waiting = page.pops_waiting.find((p) => p.hex === hex);
      if (waiting) waiting.count += count;
      else page.pops_waiting.push({ hex, count });
      tool = null;
      result = { text: `Bought ${count} × ${typeName}; they appear in ${hex} at the next scout phase.` };
      await refresh(getSelected(), { reloadTools: true });
    });
  }

  // --- Siege (§4) ---
  function hasSiege(stack) {
    return stack.units.some((u) => hasSpecial(u, "siege"));
  }

  // Why the stack cannot move at all this turn (the rules' own sentences, §2), or null.
  function moveReason(stack) {
    const stuck = stack.units.filter((u) => !u.was_commanded && !hasSpecial(u, "commander"));
    if (stuck.length === 1) {
      return `${stuck[0].name} may not move this turn: no commander of its side has been in its hex (§2 command).`;
    }
    if (stuck.length > 1) {
      const names = stuck.length <= 4 ? stuck.map((u) => u.name).join(", ")
        : `${stuck.slice(0, 3).map((u) => u.name).join(", ")} and ${stuck.length - 3} more`;
      return `${stuck.length} units in ${stack.hex} may not move this turn (${names}): no commander of their side ` +
        `has been in ${stack.hex}; bring one through ${stack.hex} first (§2 command).`;
    }
    return null;
  }

  function attackReason(stack) {
    if (stack.units.length && stack.units.every((u) => u.has_attacked)) {
      return "Every unit of this stack has already attacked this turn; each unit attacks at most once per turn (§3).";
    }
    return null;
  }

  function siegeReason(stack) {
    if (!stack.units.some((u) => hasSpecial(u, "siege") && !u.has_attacked)) {
      return "Every siege unit of this stack has already attacked this turn; each unit attacks at most once per turn (§3).";
    }
    return null;
  }

  function startSiege(stack) {
    tool = { kind: "siege", stackId: stack.id, data: null, target: null };
    result = null;
    run("siege", async () => {
      tool.data = await api("GET", `stacks/${stack.id}/siege/targets/`);
      if (!tool.data.targets.length) {
        throw new ApiError(`No enemy fortification is in reach from ${stack.hex}: a tower is struck from its own hex, a wall hexside from the hex across it (§4).`, "no_targets");
      }
      tool.target = tool.data.targets[0];
    });
  }

  // The hits the side knows of a fortification: seen now (the siege answer), else the map's.
  function knownFortHits(target) {
    if (target.hits !== null && target.hits !== undefined) return { hits: target.hits, of: target.starting_hits, turn: null };
    const f = (model().fortsAt.get(target.hex) || []).find((g) => g.kind === target.kind && (g.direction || null) === (target.direction || null));
    if (f && f.hits !== null && f.hits !== undefined) return { hits: f.hits, of: f.starting_hits, turn: f.seen_turn ?? null };
    return null;
  }

  function fortLabel(target) {
    const known = knownFortHits(target);
    const hits = known ? `${known.hits}/${known.of} hits${known.turn ? ` (seen T${known.turn})` : ""}` : "hits unknown";
    return `${titleCase(target.description)} (${hits})`;
  }

  function confirmSiege() {
    const { stackId, target } = tool;
    run("siege", async () => {
      const data = await api("POST", `stacks/${stackId}/siege/`, { fortification: target.id });
      tool = null;
      if (data.declared) {
        result = {
          text: `Declared (#${data.report.seq}): the siege of ${target.description} is rolled at the alliance's draw, after you end the phase.`,
          event: data.event,
        };
        await refresh(stackId, { reloadTools: true });
        return;
      }
      const r = data.report || {};
      const f = data.fortification || {};
      const state = f.hits === 0 ? (f.kind === "tower" ? " It is destroyed." : " The hexside is breached.") : "";
      result = {
        text: `Siege of ${target.description}: ${plural(r.damage, "hit")} of damage, ${r.hits_before} → ${r.hits_after} hits.${state}`,
        event: data.event,
        explanation: r.explanation || null,
      };
      await refresh(stackId, { reloadTools: true });
    });
  }

  function siegePanel(stack) {
    const box = h("section", { class: "tool-panel", "aria-label": "Siege" }, h("h4", { text: "Siege" }));
    const data = tool.data;
    if (!data) box.append(h("p", { text: busy ? "Finding the fortifications in reach…" : "" }));
    else if (data.targets.length) {
      box.append(h("p", { text: "Choose the fortification to strike (a tower from its own hex, a wall hexside from the hex across it, §4):" }),
        h("div", { class: "targets", role: "group", "aria-label": "Fortifications in reach" }, data.targets.map((t) => button(
          fortLabel(t), `siege-target-${t.id}`, () => { tool.target = t; renderPanel(); },
          { "aria-pressed": tool.target && tool.target.id === t.id ? "true" : "false" }))));
      const o = data.odds;
      if (o && tool.target) {
        const known = knownFortHits(tool.target);
        const breach = known ? o.damage.filter((d) => d.damage >= known.hits).reduce((a, d) => a + d.chance, 0) : null;
        const what = tool.target.kind === "tower" ? "destroys the tower" : "breaches the hexside";
        box.append(h("div", { class: "odds siege-odds" },
          h("p", { class: "odds-summary", text:
            `Siege attack ${o.siege_attack} × CB ${o.cb} × RN (2d6 + 8) / 20: expected ≈ ${o.expected_damage.value.toFixed(1)} damage (exactly ${o.expected_damage.p}).` +
            (breach !== null ? ` Chance it ${what}${known.turn ? ` (hits as seen T${known.turn})` : ""}: ${(breach * 100).toFixed(1)} %.` : " Its hits are unknown to your side: scout its hex first to know them.") }),
          oddsChart("Damage to the fortification", o.damage.map((d) => ({ hits: d.damage, p: d.p, chance: d.chance })), "on-defender")));
        box.append(button("Confirm siege", "siege-confirm", confirmSiege, { class: "primary" }));
      }
    }
    box.append(button("Cancel", "siege-cancel", cancel), errorNote(errors.siege, "siege"));
    return box;
  }

  // --- Mount and dismount (§2 mounts) ---
  function startMount(stack) {
    tool = { kind: "mount", stackId: stack.id };
    result = null;
    setError("mount", null);
    renderPanel();
  }

  function mountPanel(stack) {
    const box = h("section", { class: "tool-panel", "aria-label": "Mount" }, h("h4", { text: "Mount" }));
    const carriers = stack.units.filter((u) => !u.mount);
    const riders = stack.units.filter((u) => !u.mount && !stack.units.some((r) => r.mount === u.id));
    const select = h("select", { "data-key": "mount-select", "aria-label": "Mount" },
      carriers.map((u) => h("option", { value: u.id, text: `${u.name} (${u.unit_type}, hits ${u.hits}, move ${u.move}${hasSpecial(u, "flying") ? ", flying" : ""})` })));
    const ticks = h("fieldset", { class: "riders" }, h("legend", { text: "Riders" }),
      riders.map((u) => h("label", { class: "check" },
        h("input", { type: "checkbox", value: u.id, "data-key": `rider-${u.id}` }), ` ${u.name} (hits ${u.hits})`)));
    box.append(h("p", { class: "muted", text: "A mount carries riders whose starting hits add up to at most half its own hits; heavy units (hits over 7) cannot ride. Riders move with the mount's move, class and flying." }),
      h("label", { class: "field" }, "Mount ", select), ticks,
      button("Mount the ticked riders", "mount-confirm", () => {
        const picked = [...ticks.querySelectorAll("input:checked")].map((el) => Number(el.value));
        const mount = Number(select.value);
        if (!picked.length) {
          setError("mount", "Tick the riders first.");
          renderPanel();
          return;
        }
        run("mount", async () => {
          await api("POST", "mount/", { riders: picked, mount });
          tool = null;
          const name = (stack.units.find((u) => u.id === mount) || {}).name || "the mount";
          result = { text: `${plural(picked.length, "rider")} now ${picked.length === 1 ? "rides" : "ride"} ${name}.` };
          await refresh(stack.id);
        });
      }, { class: "primary" }),
      button("Cancel", "mount-cancel", cancel), errorNote(errors.mount, "mount"));
    return box;
  }

  function dismount(stack, unit) {
    run("mount", async () => {
      await api("POST", "mount/", { riders: [unit.id], mount: null });
      result = { text: `${unit.name} dismounted.` };
      await refresh(stack.id);
    });
  }

  // --- Pop points: the Chief Warlord's pool, repairs (§4, §5) ---
  function repairFort(fort, input) {
    const hits = Number(input.value);
    run(`repair-${fort.id}`, async () => {
      const data = await api("POST", `fortifications/${fort.id}/repair/`, { hits });
      const f = data.fortification || {};
      result = { text: `Repaired the ${fort.kind === "tower" ? "tower" : `wall ${fort.direction}`} of ${fort.hex} by ${plural(hits, "hit")} for ${plural(hits, "pop point")}: now ${f.hits}/${f.starting_hits} hits.` };
      await refresh(getSelected(), { reloadTools: true });
    });
  }

  // --- What the map shows and does for the tool ---
  function overlay() {
    const out = [];
    // Scout orders given this phase, as arrows along their paths (the one being edited is
    // drawn by its tool).
    for (const order of page.scout_orders || []) {
      if (tool && tool.kind === "scout" && tool.unitId === order.scout) continue;
      const from = model().stacks.find((st) => (st.units || []).some((u) => u.id === order.scout));
      if (from && Array.isArray(order.inspected_hexes)) {
        out.push(polyline([from.hex, ...order.inspected_hexes], "scout-path planned", `data-scout-order="${Number(order.scout)}"`));
      }
    }
    if (!tool) return out.join("");
    if (tool.kind === "move" && tool.reachable) {
      for (const [hex, cost] of tool.reachable) {
        const c = hexCenter(hex);
        if (!c) continue;
        out.push(`<g class="reach${hex === tool.dest ? " dest" : ""}" data-reach="${hex}"><circle cx="${r2(c.x)}" cy="${r2(c.y - 6)}" r="9"/>` +
          `<text x="${r2(c.x)}" y="${r2(c.y - 2.5)}">${Number(cost)}</text></g>`);
      }
      if (tool.path) out.push(polyline([model().stackById.get(tool.stackId)?.hex, ...tool.path], "move-path"));
    }
    if (tool.kind === "attack" && tool.targets) {
      for (const t of tool.targets) {
        const c = hexCenter(t.hex);
        if (c) out.push(`<circle class="target${tool.target && tool.target.id === t.id ? " chosen" : ""}" cx="${r2(c.x)}" cy="${r2(c.y)}" r="${SIZE * 0.8}"/>`);
      }
    }
    if (tool.kind === "scout") {
      out.push(polyline([tool.origin, ...tool.path], "scout-path"));
      tool.path.forEach((hex, i) => {
        const c = hexCenter(hex);
        out.push(`<g class="scout-step" data-step="${hex}"><circle cx="${r2(c.x)}" cy="${r2(c.y - 6)}" r="8"/><text x="${r2(c.x)}" y="${r2(c.y - 2.5)}">${i + 1}</text></g>`);
      });
    }
    if (tool.kind === "pops") {
      for (const hex of page.pop_hexes || []) {
        const c = hexCenter(hex);
        if (c) out.push(`<circle class="pop-hex${hex === tool.hex ? " chosen" : ""}" cx="${r2(c.x)}" cy="${r2(c.y)}" r="${SIZE * 0.8}"/>`);
      }
    }
    return out.join("");
  }

  // A path through hex centres as an arrow; its last leg stops short of the centre, so the
  // arrowhead does not cover the last hex's counters.
  function polyline(labels, cls, attrs = "") {
    const pts = labels.map(hexCenter).filter(Boolean);
    if (pts.length < 2) return "";
    const [a, b] = pts.slice(-2);
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const end = { x: b.x - ((b.x - a.x) / len) * 8, y: b.y - ((b.y - a.y) / len) * 8 };
    const xy = [...pts.slice(0, -1), end].map((c) => `${r2(c.x)},${r2(c.y)}`);
    return `<polyline class="${cls}" ${attrs} points="${xy.join(" ")}"/>`;
  }

  function describe(label) {
    if (!tool) return null;
    if (tool.kind === "move" && tool.reachable && tool.reachable.has(label)) {
      return `Reachable: costs ${plural(tool.reachable.get(label), "movement point")}`;
    }
    if (tool.kind === "scout") {
      const i = tool.path.indexOf(label);
      if (i >= 0) return `Scout path step ${i + 1}`;
    }
    return null;
  }

  function click(label) {
    if (!tool || busy) return Boolean(tool);
    if (tool.kind === "move") return moveClick(label);
    if (tool.kind === "attack") return attackClick(label);
    if (tool.kind === "scout") return scoutClick(label);
    if (tool.kind === "pops") return popsClick(label);
    return false;
  }

  // --- Panel parts ---
  function button(text, key, onclick, extra = {}) {
    return h("button", { type: "button", "data-key": key, disabled: busy, onclick, text, ...extra });
  }

  function stackParts(stack) {
    const parts = [];
    if (canCommand(stack)) {
      const others = (model().stacksAt.get(stack.hex) || []).filter((s) => s.id !== stack.id && s.side === stack.side);
      parts.push(h("div", { class: "stack-actions", role: "group", "aria-label": "Orders for this stack" },
        button("Move…", "move", () => startMove(stack), moveReason(stack)
          ? { disabled: true, title: moveReason(stack), "aria-describedby": `move-why-${stack.id}` } : {}),
        button("Attack…", "attack", () => startAttack(stack), attackReason(stack)
          ? { disabled: true, title: attackReason(stack), "aria-describedby": `attack-why-${stack.id}` } : {}),
        hasSiege(stack) ? button("Siege…", "siege", () => startSiege(stack), siegeReason(stack)
          ? { disabled: true, title: siegeReason(stack), "aria-describedby": `siege-why-${stack.id}` } : {}) : null,
        stack.units.length > 1 ? button("Mount…", "mount", () => startMount(stack)) : null,
        button("Split off ticked units", "split", () => split(stack)),
        others.map((o) => button(`Merge stack in ${o.hex} (${plural(unitCount(o), "unit")}) into this`, `merge-${o.id}`, () => merge(stack, o)))));
      // A control that can only fail now is disabled, with its reason in one sentence.
      if (moveReason(stack)) {
        parts.push(h("p", { class: "muted disabled-why", id: `move-why-${stack.id}`, text: `Move: ${moveReason(stack)}` }));
      }
      if (attackReason(stack)) {
        parts.push(h("p", { class: "muted disabled-why", id: `attack-why-${stack.id}`, text: `Attack: ${attackReason(stack)}` }));
      }
      if (hasSiege(stack) && siegeReason(stack)) {
        parts.push(h("p", { class: "muted disabled-why", id: `siege-why-${stack.id}`, text: `Siege: ${siegeReason(stack)}` }));
      }
      if (result) {
        parts.push(resultBox());
        result.shownInStack = true;
      }
      for (const key of ["split", "merge", "reorder"]) parts.push(errorNote(errors[key], key));
      if (tool && tool.stackId === stack.id && tool.kind === "siege") parts.push(siegePanel(stack));
      else parts.push(errorNote(errors.siege, "siege"));
      if (tool && tool.stackId === stack.id && tool.kind === "mount") parts.push(mountPanel(stack));
      else parts.push(errorNote(errors.mount, "mount"));
      if (tool && tool.stackId === stack.id && tool.kind === "move") parts.push(movePanel(stack));
      else parts.push(errorNote(errors.move, "move"));
      if (tool && tool.stackId === stack.id && tool.kind === "attack") parts.push(attackPanel(stack));
      else parts.push(errorNote(errors.attack, "attack"));
    }
    const why = readOnlyReason(stack);
    if (why) parts.push(h("p", { class: "muted read-only-why", "data-read-only": stack.id, text: why }));
    const scouts = scoutsOf(stack);
    if (scouts.length) parts.push(scoutPanel(stack, scouts));
    return parts;
  }

  function movePanel(stack) {
    const box = h("section", { class: "tool-panel", "aria-label": "Move" }, h("h4", { text: "Move" }));
    if (!tool.reachable) box.append(h("p", { text: busy ? "Finding the hexes this stack can reach…" : "" }));
    else if (!tool.dest) {
      box.append(h("p", { text: `Move left: ${tool.moveLeft}. ${plural(tool.reachable.size, "hex")} can be reached; each shows what it costs. Click one on the map.` }));
    } else if (tool.path) {
      box.append(h("p", { class: "move-plan", text: `Move to ${tool.dest} along ${tool.path.join(" → ")}: costs ${plural(tool.cost, "movement point")}.` +
        (tool.road ? ` The road bonus gives the extra hex: the whole move is on road (§2).` : "") }),
        button("Confirm move", "move-confirm", confirmMove, { class: "primary" }));
    }
    box.append(button("Cancel", "move-cancel", cancel), errorNote(errors.move, "move"));
    return box;
  }

  function attackPanel(stack) {
    const box = h("section", { class: "tool-panel", "aria-label": "Attack" }, h("h4", { text: "Attack" }));
    if (tool.targets) {
      box.append(h("p", { text: "Choose the enemy stack to attack (marked on the map):" }),
        h("div", { class: "targets", role: "group", "aria-label": "Targets" }, tool.targets.map((t) => button(
          `${stackTitle(t)}`, `target-${t.id}`, () => chooseTarget(t),
          { "aria-pressed": tool.target && tool.target.id === t.id ? "true" : "false" }))));
    }
    const ranged = stack.units.length > 0 && stack.units.every((u) => hasSpecial(u, "ranged") || hasSpecial(u, "commander"))
      && stack.units.some((u) => hasSpecial(u, "ranged"));
    const commanded = stack.units.some((u) => hasSpecial(u, "commander"));
    const lead = stack.units.find((u) => !u.has_attacked);
    if (lead && (hasSpecial(lead, "commander") || hasSpecial(lead, "siege") || hasSpecial(lead, "scout"))) {
      const what = hasSpecial(lead, "commander") ? "a commander" : hasSpecial(lead, "siege") ? "a siege unit" : "a scout";
      box.append(h("p", { class: "attack-warning", role: "note", "data-warning": "lead",
        text: `${lead.name} (${what}) leads this stack: the defender's hits fall on it first. ` +
          "Send it to the back (⤓ in the units table) before attacking?" }));
    }
    if (tool.target) {
      if (ranged) {
        box.append(h("label", { class: "check" },
          h("input", { type: "checkbox", "data-key": "withdraw", checked: tool.withdraw,
            onchange: (e) => { tool.withdraw = e.target.checked; preview(); } }),
          " Withdraw after the ranged strike"));
      }
      const p = tool.preview;
      const defenders = p && p.odds ? p.odds.units.filter((u) => u.side === "defender") : (tool.target.units || []);
      if (commanded && defenders.some((u) => u.id !== undefined)) {
        box.append(h("label", { class: "field" }, "Directed target (led by a commander) ",
          h("select", { "data-key": "directed", onchange: (e) => {
            tool.directedAt = e.target.value ? Number(e.target.value) : null;
            preview();
          } },
          h("option", { value: "", text: "None: hits spread as the rules say" }),
          defenders.filter((u) => u.id !== undefined).map((u) => h("option", { value: u.id, selected: tool.directedAt === u.id, text: u.name })))));
      }
      if (p && p.odds) box.append(oddsView(p));
      else if (busy) box.append(h("p", { text: "Computing the exact odds…" }));
      box.append(button("Confirm attack", "attack-confirm", confirmAttack, { class: "primary", disabled: busy || !p }));
    }
    box.append(button("Cancel", "attack-cancel", cancel), errorNote(errors.attack, "attack"));
    return box;
  }

  function oddsView(p) {
    const o = p.odds;
    const wrap = h("div", { class: "odds" });
    // Numbers for people: decimals and percentages (the exact fractions in a tooltip).
    const none = o.winner.none ? o.winner.none.value : 0;
    wrap.append(h("p", { class: "odds-summary",
      title: `Exactly: ${o.expected_hits_on_defender.p} and ${o.expected_hits_on_attacker.p} hits; ` +
        `attacker wins ${o.winner.attacker.p}, defender ${o.winner.defender.p}.`,
      text: `Expected ≈ ${o.expected_hits_on_defender.value.toFixed(1)} hits on the defender, ` +
        `≈ ${o.expected_hits_on_attacker.value.toFixed(1)} on the attacker. ` +
        `Attacker wins ${percent(o.winner.attacker.value)}, defender wins ${percent(o.winner.defender.value)}` +
        (none > 0 ? `, neither ${percent(none)}.` : ".") }));
    wrap.append(oddsChart("Hits on the defender", o.hits_on_defender, "on-defender"));
    wrap.append(oddsChart("Hits on the attacker", o.hits_on_attacker, "on-attacker"));
    wrap.append(h("table", { class: "croak" },
      h("caption", { text: "Chance each unit is croaked" }),
      h("thead", {}, h("tr", {}, ["Unit", "Side", "Croaked"].map((t) => h("th", { scope: "col", text: t })))),
      h("tbody", {}, o.units.map((u) => h("tr", {},
        h("th", { scope: "row", text: u.name }), h("td", { text: u.side }),
        h("td", { text: `${u.croak} (${(u.croak_chance * 100).toFixed(1)}%)` }))))));
    return wrap;
  }

  function scoutPanel(stack, scouts) {
    const box = h("section", { class: "tool-panel", "aria-label": "Scout orders" }, h("h4", { text: "Scout orders" }));
    for (const unit of scouts) {
      const order = scoutOrder(unit.id);
      const planning = tool && tool.kind === "scout" && tool.unitId === unit.id;
      const row = h("div", { class: "scout-row" }, h("strong", { text: unit.name }));
      if (planning) {
        const left = tool.limit - tool.path.length;
        row.append(
          h("p", { class: "scout-plan", text: tool.path.length
            ? `Path: ${tool.origin} → ${tool.path.join(" → ")} (${plural(left, "step")} left).`
            : `Click the hexes to inspect, starting next to ${tool.origin} (${plural(left, "step")} left). Click the last hex again to take it back.` }),
          button("Submit order", "scout-submit", submitScout, { class: "primary", disabled: busy || !tool.path.length }),
          button("Undo last step", "scout-undo", () => { tool.path.pop(); redrawOverlay(); renderPanel(); }, { disabled: !tool.path.length }),
          button("Stop planning", "scout-stop", cancel));
      } else if (order) {
        row.append(h("p", { class: "scout-order", text: `Ordered to inspect ${order.inspected_hexes.join(", ")}.` }),
          button("Edit path", `scout-edit-${unit.id}`, () => startScout(stack, unit, order)),
          button("Cancel order", `scout-cancel-${unit.id}`, () => cancelScout(order)));
      } else {
        row.append(button("Plan scout path", `scout-plan-${unit.id}`, () => startScout(stack, unit, null)));
      }
      box.append(row);
    }
    box.append(errorNote(errors.scout, "scout"));
    return box;
  }

  function popsPanel() {
    const v = viewer();
    if (v.role !== "player" || v.side !== "alliance") return null;
    const types = page.unit_types || [];
    const points = Number(page.pop_points || 0);
    const box = h("section", { class: "tool-panel pops", "aria-label": "Pops" }, h("h4", { text: "Pops" }),
      h("p", { "data-pop-points": page.pop_points, text: `Your pop points: ${page.pop_points}.` + ((page.pops_waiting || []).length
        ? ` Waiting to appear: ${page.pops_waiting.map((p) => `${p.count} in ${p.hex}`).join(", ")}.` : "") }));
    const priced = types.filter((t) => Number(t.cost) > 0);
    if (priced.length) {
      box.append(h("p", { class: "can-buy", text: points > 0
        ? "Enough for up to: " + priced.map((t) => `${Math.floor(points / Number(t.cost))} × ${t.name} (${t.cost} points each)`).join(", ") + "."
        : "Pops cost: " + priced.map((t) => `${t.name} ${t.cost}`).join(", ") + " points each." }));
    }
    if (types.length && (page.pop_hexes || []).length) {
      if (!tool || tool.kind !== "pops") {
        const cheapest = Math.min(...types.map((t) => Number(t.cost)));
        box.append(button("Buy pops…", "pops-start", startPops, points < cheapest
          ? { disabled: true, title: `Not enough pop points: the cheapest of your unit types costs ${cheapest}.` } : {}));
        if (points < cheapest) box.append(h("p", { class: "muted disabled-why", text: `Buying pops needs at least ${cheapest} pop points (your cheapest unit type).` }));
      } else {
        const form = h("form", { class: "pops-form", onsubmit: (e) => { e.preventDefault(); buyPops(form); } },
          h("label", { class: "field" }, "Unit type ", h("select", { name: "unit_type", "data-key": "pops-type" },
            types.map((t) => h("option", { value: t.id, text: `${t.name} (${t.cost} points each)` })))),
          h("label", { class: "field" }, "How many ", h("input", { name: "count", type: "number", min: "1", value: "1", "data-key": "pops-count" })),
          h("label", { class: "field" }, "Pop hex (or click one on the map) ", h("select", { name: "hex", "data-key": "pops-hex",
            onchange: (e) => { tool.hex = e.target.value; redrawOverlay(); } },
            (page.pop_hexes || []).map((hx) => h("option", { value: hx, selected: hx === tool.hex, text: hx })))),
          h("button", { type: "submit", class: "primary", "data-key": "pops-buy", disabled: busy, text: "Buy" }),
          button("Cancel", "pops-cancel", cancel));
        box.append(form);
      }
      box.append(errorNote(errors.pops, "pops"));
    }
    box.append(...[poolPart(), repairPart(points)].filter(Boolean));
    return box;
  }

  // The Chief Warlord's pool of granted pop points: every alliance player sees it; the Chief
  // Warlord shares it (§5).
  function poolPart() {
    if (page.pop_pool === null || page.pop_pool === undefined) return null;
    const pool = Number(page.pop_pool);
    const part = h("div", { class: "pop-pool" }, h("h5", { text: "Granted pop points" }));
    if (!page.is_chief_warlord) {
      part.append(h("p", { "data-pop-pool": page.pop_pool, text: `The Chief Warlord holds ${plural(pool, "pop point")} granted by the GM to share.` }));
      return part;
    }
    part.append(h("p", { "data-pop-pool": page.pop_pool, text: pool > 0
      ? `You hold ${plural(pool, "pop point")} granted by the GM. Share them among the alliance's players (what you keep stays in the pool).`
      : "No granted pop points to share: the GM grants them each turn." }));
    if (pool > 0) {
      const form = h("form", { class: "share-form", onsubmit: (e) => { e.preventDefault(); shareAll(form); } },
        (page.alliance_players || []).map((p) => h("label", { class: "field" }, `${p.name} (has ${p.pop_points}) `,
          h("input", { type: "number", min: "0", max: String(Math.floor(pool)), value: "0", name: `share-${p.membership}`,
            "data-key": `share-${p.membership}`, "data-membership": p.membership }))),
        h("button", { type: "submit", class: "primary", "data-key": "share-confirm", disabled: busy, text: "Share" }));
      part.append(form);
    }
    part.append(errorNote(errors.share, "share"));
    return part;
  }

  function shareAll(form) {
    const shares = [...form.querySelectorAll("[data-membership]")]
      .map((el) => ({ membership: Number(el.dataset.membership), points: Number(el.value) }))
      .filter((s) => s.points !== 0);
    if (!shares.length) {
      setError("share", "Enter the points to give to at least one player.");
      renderPanel();
      return;
    }
    run("share", async () => {
      const data = await api("POST", "pops/share/", { shares });
      const names = new Map((page.alliance_players || []).map((p) => [p.membership, p.name]));
      result = { text: `Shared: ${shares.map((s) => `${names.get(s.membership) || "a player"} ${s.points}`).join(", ")}; ${data.pool} left in the pool.` };
      await refresh(getSelected(), { reloadTools: true });
    });
  }

  // Fortifications the side holds below their starting hits: 1 pop point per hit (§4).
  function repairPart(points) {
    const forts = page.repairable || [];
    if (!forts.length) return null;
    const why = phaseKind() === "opposition" ? "Repairs are made in the alliance's phases, not in the opposition phase."
      : points < 1 ? "You have no pop points: the Chief Warlord shares those the GM grants." : null;
    const part = h("div", { class: "repairs" }, h("h5", { text: "Repair fortifications (1 pop point per hit)" }));
    for (const f of forts) {
      const missing = f.starting_hits - f.hits;
      const input = h("input", { type: "number", min: "1", max: String(Math.min(missing, Math.floor(points)) || 1),
        value: String(Math.max(1, Math.min(missing, Math.floor(points)))), "data-key": `repair-hits-${f.id}`,
        "aria-label": `Hits to repair on the ${f.kind === "tower" ? "tower" : `wall ${f.direction}`} of ${f.hex}` });
      part.append(h("div", { class: "repair-row" },
        h("span", { text: `${f.kind === "tower" ? "Tower" : `Wall ${f.direction}`} of ${f.hex}: ${f.hits}/${f.starting_hits} hits ` }),
        input, button("Repair", `repair-${f.id}`, () => repairFort(f, input), why ? { disabled: true, title: why } : {}),
        errorNote(errors[`repair-${f.id}`], `repair-${f.id}`)));
    }
    if (why) part.append(h("p", { class: "muted disabled-why", text: why }));
    return part;
  }

  // The last action's result (or its report link), shown right under the orders of the stack
  // it concerns, else at the top of the tools' part: where the person is looking.
  function resultBox() {
    const link = result.event && page.report_url
      ? h("a", { href: page.report_url.replace("{event}", String(result.event)), text: "Open the full report" }) : null;
    const box = h("div", { class: "map-result", role: "status" }, h("p", { text: result.text }), link);
    const explanation = Array.isArray(result.explanation) ? result.explanation
      : result.explanation ? [String(result.explanation)] : [];
    if (explanation.length) {
      box.append(h("details", {}, h("summary", { text: "How it was resolved" }),
        h("ul", {}, explanation.map((line) => h("li", { text: typeof line === "string" ? line : JSON.stringify(line) })))));
    }
    return box;
  }

  function panelParts() {
    const parts = [];
    if (result && !result.shownInStack) parts.push(resultBox());
    if (result) result.shownInStack = false;
    parts.push(myStacksPart());
    parts.push(popsPanel());
    return parts;
  }

  return {
    canCommand,
    stackParts,
    panelParts,
    overlay,
    describe,
    click,
    cancel,
    reorder,
    dismount,
    busyWithMap: () => Boolean(tool),
    selectionChanged() {
      const s = selectedStack();
      if (tool && tool.stackId !== undefined && (!s || s.id !== tool.stackId) && tool.kind !== "scout") tool = null;
    },
    dataChanged() {},
    refresh,
    // The phase bar announced a new phase: follow it, and say so if the map could not (the
    // session ended, the server is away) instead of leaving the old phase on screen silently.
    async follow() {
      try {
        await refresh(getSelected(), { announce: false, reloadTools: true });
      } catch (exc) {
        const message = exc instanceof ApiError ? exc.message : String(exc);
        toast(`The map could not follow the new phase: ${message} Reload the page.`, "error");
      }
    },
  };
}

/** Boots the map page from its json_script elements (templates/campaigns/map.html). */
export function mountMapPage(element) {
  const data = JSON.parse(document.getElementById("map-data").textContent);
  const page = JSON.parse(document.getElementById("map-page-data").textContent);
  const controller = mountMap(element, data, { page });
  // The phase bar announces a new phase; the map follows without a reload.
  document.body.addEventListener("phase-changed", () => controller.tools && controller.tools.follow());
  window.campaignMap = controller;
  return controller;
}
