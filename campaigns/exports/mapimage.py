"""The strategic map as a picture (PNG with Pillow, or SVG) as one viewer may see it.

What goes into the picture comes only from the fog-of-war selectors (`map_state` for now,
`phase_history` for the opening of a past phase) or, for the public picture, from terrain and
fortifications alone: a stack the viewer may not see never reaches the drawing code.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from PIL import Image, ImageDraw, ImageFont

from accounts.models import User
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Fortification,
    Map,
    Membership,
    Phase,
    Role,
    Sighting,
)
from campaigns.selectors import map_state, phase_history, sees_everything
from rules.hexgrid import Grid, column_letters, format_label, parse_label

RADIUS = 18  # centre to corner of a flat-top hex, in pixels, at the natural width
MARGIN = 10
_ROOT3 = math.sqrt(3)
# The widths a picture may be asked for (`?width=`), in pixels.
MIN_WIDTH = 300
MAX_WIDTH = 2000

# The map page's terrain colours (static/js/map.js); a road hex is open ground with the road
# drawn as a line through it.
TERRAIN_COLOURS = {
    "open": "#e4ebc8", "road": "#e4ebc8", "hills": "#c8a87c", "woods": "#5d8a4c",
    "swamp": "#86aa9e", "dense_forest": "#3f6b35", "rocky": "#9a9488", "village": "#d6a27a",
    "deep_water": "#5a86b8",
}
ROAD_COLOUR = "#8a5a2b"
UNKNOWN_TERRAIN = "#cfcfcf"
SIDE_COLOURS = {"alliance": "#1f5fbf", "opposition": "#b22222"}
SIGHTING_COLOUR = "#6b6b6b"
MARK_COLOUR = "#ff8c00"
TOWER_FILL = "#f2efe6"


@dataclass(frozen=True)
class MapPicture:
    """Everything drawn, already filtered for the viewer."""

    cols: int
    rows: int
    terrain: dict[str, str]
    terrain_known: bool
    fortifications: list[dict[str, Any]] = field(default_factory=list)
    # (hex, side kind, number of units)
    stacks: list[tuple[str, str, int]] = field(default_factory=list)
    # (hex, turn seen, number of enemy units seen)
    sightings: list[tuple[str, int, int]] = field(default_factory=list)
    caption: str = ""
    # Hexes outlined for the reader's eye (the hexes of the event a replay is showing).
    marked: tuple[str, ...] = ()


def _natural_width(cols: int) -> float:
    return 2 * MARGIN + 2 * RADIUS + (cols - 1) * 1.5 * RADIUS


def _map_height(rows: int, cols: int, radius: float) -> float:
    return 2 * MARGIN + _ROOT3 * radius * (rows + (0.5 if cols > 1 else 0))


def clamp_width(value: str | int | None) -> int | None:
    """A requested picture width in pixels, or None for the natural size; ValueError when it
    is not a whole number from MIN_WIDTH to MAX_WIDTH."""
    if value in (None, ""):
        return None
    text = str(value)
    if not text.isdigit() or not MIN_WIDTH <= int(text) <= MAX_WIDTH:
        raise ValueError(f"width is a whole number of pixels from {MIN_WIDTH} to {MAX_WIDTH}.")
    return int(text)


@dataclass(frozen=True)
class Layout:
    """Where everything goes in a picture `width` pixels wide: the caption band on top, the
    hexes, the legend's rows below."""

    cols: int
    rows: int
    width: int
    radius: float
    font_size: int
    caption_height: int
    map_height: int
    legend_rows: tuple[tuple[tuple[str, str], ...], ...]

    @property
    def height(self) -> int:
        return self.caption_height + self.map_height + self.legend_height

    @property
    def legend_height(self) -> int:
        return math.ceil(len(self.legend_rows) * self.font_size * 1.8 + self.font_size * 0.6)

    def centre(self, label: str) -> tuple[float, float] | None:
        letters = "".join(ch for ch in label if ch.isalpha())
        digits = label[len(letters):]
        if not letters or not digits.isdigit():
            return None
        col = 0
        for ch in letters:
            col = col * 26 + (ord(ch) - ord("A") + 1)
        col -= 1
        row = int(digits) - 1
        r = self.radius
        x = MARGIN + r + col * 1.5 * r
        y = (self.caption_height + MARGIN + _ROOT3 / 2 * r + row * _ROOT3 * r
             + (_ROOT3 / 2 * r if col % 2 else 0))
        return x, y

    def corners(self, x: float, y: float, inset: float = 0) -> list[tuple[float, float]]:
        r = self.radius - inset
        return [(x + r * math.cos(math.radians(60 * i)), y + r * math.sin(math.radians(60 * i)))
                for i in range(6)]

    def wall(self, centre: tuple[float, float], direction: str | None) -> list[tuple[float, float]]:
        """The two ends of a wall hexside, drawn just inside the hex."""
        corners = self.corners(*centre, inset=2 * self.scale)
        a, b = _HEXSIDE_CORNERS.get(direction or "", (4, 5))
        return [corners[a], corners[b]]

    @property
    def scale(self) -> float:
        return self.radius / RADIUS


def legend_items(picture: MapPicture) -> list[tuple[str, str]]:
    """(kind, text) of what the picture shows, for its legend."""
    items: list[tuple[str, str]] = []
    kinds = set(picture.terrain.values())
    if picture.terrain_known:
        kinds.add("open")
    for kind in sorted(kinds):
        text = "road (line)" if kind == "road" else kind.replace("_", " ")
        items.append((f"terrain:{kind}", text))
    if not picture.terrain_known:
        items.append(("terrain:unknown", "terrain unknown"))
    sides = {side for _, side, _ in picture.stacks}
    for side in ("alliance", "opposition"):
        if side in sides:
            items.append((f"stack:{side}", f"{side} stack (units)"))
    if any(f["kind"] == "tower" for f in picture.fortifications):
        items.append(("tower", "tower"))
    if any(f["kind"] == "wall" for f in picture.fortifications):
        items.append(("wall", "wall"))
    if any(n for _, _, n in picture.sightings):
        items.append(("seen", "seen earlier (units)"))
    return items


def layout(picture: MapPicture, width: int | None = None) -> Layout:
    natural = _natural_width(picture.cols)
    scale = 1.0 if width is None else (width - 2 * MARGIN) / (natural - 2 * MARGIN)
    radius = RADIUS * scale
    total_width = math.ceil(natural * scale) if width is None else width
    font_size = max(11, round(11 * min(scale, 2)))
    font = ImageFont.load_default(size=font_size)
    rows: list[list[tuple[str, str]]] = [[]]
    used = float(MARGIN)
    for item in legend_items(picture):
        need = font_size * 1.6 + font.getlength(item[1]) + font_size
        if rows[-1] and used + need > total_width - MARGIN:
            rows.append([])
            used = float(MARGIN)
        rows[-1].append(item)
        used += need
    return Layout(
        cols=picture.cols, rows=picture.rows, width=total_width, radius=radius,
        font_size=font_size, caption_height=round(font_size * 2.2),
        map_height=math.ceil(_map_height(picture.rows, picture.cols, radius)),
        legend_rows=tuple(tuple(r) for r in rows if r),
    )


def picture_size(picture: MapPicture, width: int | None = None) -> tuple[int, int]:
    """Width and height in pixels of the picture: caption, map, legend."""
    box = layout(picture, width)
    return box.width, box.height


# The corners (as indexes of `Layout.corners`, clockwise from east) at the ends of each hexside.
_HEXSIDE_CORNERS = {"SE": (0, 1), "S": (1, 2), "SW": (2, 3), "NW": (3, 4), "N": (4, 5),
                    "NE": (5, 0)}


def hex_labels(cols: int, rows: int) -> list[str]:
    """Every hex of a cols × rows map, column by column."""
    return [f"{column_letters(c)}{r}" for c in range(cols) for r in range(1, rows + 1)]


def _count_seen(seen: dict[str, Any], own_kind: str | None) -> int:
    return sum(len(s.get("units", [])) for s in seen.get("stacks", [])
               if s.get("side") != own_kind)


def _public(campaign: Campaign, state: dict[str, Any], caption: str) -> MapPicture:
    known = campaign.terrain_known_to_all
    return MapPicture(
        cols=state["map"]["cols"], rows=state["map"]["rows"],
        terrain=dict(state["map"]["terrain"]) if known else {}, terrain_known=known,
        fortifications=[{"hex": f["hex"], "kind": f["kind"], "direction": f.get("direction"),
                         "owner": f["owner"]}
                        for f in state["fortifications"]] if known else [],
        caption=caption,
    )


def _current_public_state(campaign: Campaign) -> dict[str, Any]:
    game_map = Map.objects.values("cols", "rows", "terrain").get(campaign=campaign)
    forts = [{"hex": f["hex"], "kind": f["kind"], "direction": f["direction"] or None,
              "owner": f["owner__kind"]}
             for f in Fortification.objects.filter(campaign=campaign)
             .order_by("hex", "kind", "direction").values("hex", "kind", "direction",
                                                          "owner__kind")]
    return {"map": game_map, "fortifications": forts}


def _caption(campaign: Campaign, phase: Phase | None, whose: str = "public view") -> str:
    """"The Broad Way: turn 2, move/combat phase, the alliance's view" (plain punctuation: the
    pictures' font has no dashes)."""
    when = ("now" if phase is None
            else f"turn {phase.turn.number}, {phase.get_kind_display().lower()}")
    return f"{campaign.name}: {when}, {whose}"


def _whose(role: str, side: str | None, lifted: bool = False) -> str:
    if lifted and role != Role.GM:
        return "the fog lifted"
    return "the GM's view" if role == Role.GM else f"the {side}'s view"


def map_picture(*, viewer: User | None, campaign: Campaign, phase: Phase | None,
                events: list[tuple[str, dict[str, Any]]] | None = None) -> MapPicture:
    """The map for `viewer` (None: the public picture: terrain and fortifications when the
    campaign's terrain is known to all, no stack), now or at the opening of `phase`."""
    if viewer is None:
        caption = _caption(campaign, phase)
        state = phase.snapshot.state if phase is not None else _current_public_state(campaign)
        return _public(campaign, state, caption)
    if phase is None:
        state = map_state(user=viewer, campaign=campaign)
        own_kind = state["viewer"]["side"]
        lifted = campaign.status == CampaignStatus.FINISHED
        caption = _caption(campaign, phase, _whose(state["viewer"]["role"], own_kind, lifted))
        return MapPicture(
            cols=state["map"]["cols"], rows=state["map"]["rows"],
            terrain=dict(state["map"]["terrain"]), terrain_known=campaign.terrain_known_to_all
            or lifted or state["viewer"]["role"] == Role.GM,
            fortifications=state["fortifications"],
            stacks=[(s["hex"], s["side"], len(s["units"])) for s in state["stacks"]],
            sightings=[(s["hex"], s["turn"], _count_seen(s["seen"], own_kind))
                       for s in state["sightings"]],
            caption=caption,
        )
    return _past_picture(viewer, campaign, phase, events)


def replayed_stacks(stacks: list[dict[str, Any]],
                    events: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, int]]:
    """The stacks of a phase's opening (as the viewer saw them) after the viewer's visible
    events, in order: moves move them, splits and merges regroup their units, fights take
    croaked units and gone stacks away. `events`: (kind, payload) as the viewer sees them.
    Stacks the viewer did not see at the opening (another side's) stay out."""
    where = {s["id"]: (s["hex"], s["side"]) for s in stacks}
    units = {s["id"]: {u["id"] for u in s.get("units", [])} for s in stacks}
    for kind, payload in events:
        if kind == "stack_moved" and payload.get("stack") in where:
            where[payload["stack"]] = (str(payload.get("to")), where[payload["stack"]][1])
        elif kind == "stack_split" and payload.get("from") in where:
            leaving = set(payload.get("units") or [])
            units[payload["from"]] -= leaving
            where[payload["new"]] = where[payload["from"]]
            units[payload["new"]] = leaving
        elif kind == "stacks_merged" and payload.get("into") in where:
            for other in payload.get("merged") or []:
                units[payload["into"]] |= units.pop(other, set())
                where.pop(other, None)
        elif kind in ("combat", "ambush"):
            croaked = {c.get("unit") for c in payload.get("casualties") or []
                       if isinstance(c, dict) and c.get("croaked")}
            for ids in units.values():
                ids -= croaked
            for gone in payload.get("stacks_gone") or []:
                where.pop(gone, None)
    return [(hex_label, side, len(units.get(sid, ())))
            for sid, (hex_label, side) in where.items() if units.get(sid)]


def _past_picture(viewer: User, campaign: Campaign, phase: Phase,
                  events: list[tuple[str, dict[str, Any]]] | None = None) -> MapPicture:
    history = phase_history(user=viewer, phase=phase)
    membership = Membership.objects.select_related("side").get(campaign=campaign, user=viewer)
    is_gm = sees_everything(membership, campaign)
    caption = _caption(campaign, phase, _whose(
        membership.role, membership.side.kind if membership.side is not None else None,
        lifted=is_gm))
    if events is not None:
        caption += f", after {len(events)} event{'s' if len(events) != 1 else ''}"
    stacks = replayed_stacks(history["stacks"], events or [])
    terrain = dict(history["map"]["terrain"])
    forts = history["fortifications"]
    sightings: list[tuple[str, int, int]] = []
    if not is_gm:
        own_kind = membership.side.kind if membership.side is not None else None
        occupied = {h for h, _, _ in stacks}
        if not campaign.terrain_known_to_all:
            terrain = {h: t for h, t in terrain.items() if h in occupied}
            forts = [f for f in forts if f["owner"] == own_kind or f["hex"] in occupied]
        # The side's sightings as they stood when the phase opened: the newest per hex.
        latest: dict[str, tuple[int, int]] = {}
        rows = (Sighting.objects.filter(campaign=campaign, side=membership.side,
                                        created_at__lte=phase.opened_at)
                .order_by("hex", "-created_at", "-id").values("hex", "turn__number", "seen"))
        for row in rows if membership.side is not None else []:
            if row["hex"] not in latest:
                latest[row["hex"]] = (row["turn__number"], _count_seen(row["seen"], own_kind))
        sightings = [(h, t, n) for h, (t, n) in sorted(latest.items())]
    return MapPicture(
        cols=history["map"]["cols"], rows=history["map"]["rows"], terrain=terrain,
        terrain_known=is_gm or campaign.terrain_known_to_all, fortifications=forts,
        stacks=stacks, sightings=sightings, caption=caption,
    )


def _hex_fill(picture: MapPicture, label: str) -> str:
    if label in picture.terrain:
        return TERRAIN_COLOURS.get(picture.terrain[label], UNKNOWN_TERRAIN)
    return TERRAIN_COLOURS["open"] if picture.terrain_known else UNKNOWN_TERRAIN


def _stack_counts(picture: MapPicture) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for hex_label, side, n in picture.stacks:
        counts[(hex_label, side)] = counts.get((hex_label, side), 0) + n
    return counts


def _roads(picture: MapPicture) -> list[tuple[str, str]]:
    """Pairs of adjacent road hexes (each once), for the road lines."""
    roads = {h for h, t in picture.terrain.items() if t == "road"}
    grid = Grid(picture.cols, picture.rows)
    pairs = []
    for h in sorted(roads):
        for n in grid.neighbors(parse_label(h)).values():
            other = format_label(n)
            if other in roads and h < other:
                pairs.append((h, other))
    return pairs


def _keep(box: Layout, centre: tuple[float, float]) -> list[tuple[float, float]]:
    """A tower: a small crenellated keep in its hex's upper left corner (never where the
    stack markers are)."""
    s = box.scale
    x0, y0 = centre[0] - 15 * s, centre[1] - 10 * s
    steps = [(0, 9), (0, 0), (2, 0), (2, 2), (4, 2), (4, 0), (6, 0), (6, 2), (8, 2), (8, 0),
             (10, 0), (10, 9)]
    return [(x0 + dx * s, y0 + dy * s) for dx, dy in steps]


def _swatch_colour(kind: str) -> str:
    if kind.startswith("terrain:"):
        return TERRAIN_COLOURS.get(kind.split(":", 1)[1], UNKNOWN_TERRAIN)
    if kind.startswith("stack:"):
        return SIDE_COLOURS[kind.split(":", 1)[1]]
    return "#ffffff"


def render_png(picture: MapPicture, width: int | None = None) -> bytes:
    box = layout(picture, width)
    s = box.scale
    image = Image.new("RGB", (box.width, box.height), "#ffffff")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=max(8, round(8 * s)))
    big = ImageFont.load_default(size=box.font_size)
    draw.text((MARGIN, box.caption_height / 2), picture.caption, fill="#111111", anchor="lm",
              font=big)
    for label in hex_labels(picture.cols, picture.rows):
        centre = box.centre(label)
        if centre is None:
            continue
        draw.polygon(box.corners(*centre), fill=_hex_fill(picture, label), outline="#555555")
        draw.text((centre[0], centre[1] - box.radius * 0.62), label, fill="#333333",
                  anchor="mm", font=font)
    for a, b in _roads(picture):
        ca, cb = box.centre(a), box.centre(b)
        if ca and cb:
            draw.line([ca, cb], fill=ROAD_COLOUR, width=max(2, round(3 * s)))
    for f in picture.fortifications:
        centre = box.centre(f["hex"])
        colour = SIDE_COLOURS.get(f["owner"] or "", "#444444")
        if centre is not None and f["kind"] == "tower":
            draw.polygon(_keep(box, centre), fill=TOWER_FILL, outline=colour,
                         width=max(1, round(1.5 * s)))
        elif centre is not None:
            draw.line(box.wall(centre, f.get("direction")), fill=colour,
                      width=max(2, round(3 * s)))
    for (hex_label, side), n in sorted(_stack_counts(picture).items()):
        centre = box.centre(hex_label)
        if centre is None:
            continue
        x, y = centre
        dx = (-5 if side == "alliance" else 5) * s
        r = 6.5 * s
        draw.ellipse((x + dx - r, y + 4 * s - r, x + dx + r, y + 4 * s + r),
                     fill=SIDE_COLOURS.get(side, "#444444"))
        draw.text((x + dx, y + 4 * s), str(n), fill="#ffffff", anchor="mm", font=font)
    for hex_label, _turn, n in picture.sightings:
        centre = box.centre(hex_label)
        if centre is None or n == 0:
            continue
        x, y = centre
        r = 6.5 * s
        draw.ellipse((x - r, y + 4 * s - r, x + r, y + 4 * s + r), outline=SIGHTING_COLOUR,
                     width=max(1, round(2 * s)))
        draw.text((x, y + 4 * s), str(n), fill=SIGHTING_COLOUR, anchor="mm", font=font)
    for hex_label in picture.marked:
        centre = box.centre(hex_label)
        if centre is not None:
            draw.polygon(box.corners(*centre, inset=1.5 * s), outline=MARK_COLOUR,
                         width=max(2, round(3 * s)))
    # The legend, row by row under the map.
    fs = box.font_size
    for i, row in enumerate(box.legend_rows):
        y = box.caption_height + box.map_height + fs * 0.6 + i * fs * 1.8
        x = float(MARGIN)
        for kind, text in row:
            sw = (x, y, x + fs * 1.1, y + fs * 1.1)
            if kind == "wall":
                draw.line([(x, y + fs * 0.55), (x + fs * 1.1, y + fs * 0.55)], fill="#444444",
                          width=3)
            elif kind == "tower":
                draw.rectangle(sw, fill=TOWER_FILL, outline="#444444", width=2)
            elif kind == "seen":
                draw.ellipse(sw, outline=SIGHTING_COLOUR, width=2)
            elif kind.startswith("stack:"):
                draw.ellipse(sw, fill=_swatch_colour(kind))
            else:
                draw.rectangle(sw, fill=_swatch_colour(kind), outline="#555555")
                if kind == "terrain:road":
                    draw.line([(x, y + fs * 0.9), (x + fs * 1.1, y + fs * 0.2)],
                              fill=ROAD_COLOUR, width=2)
            draw.text((x + fs * 1.5, y + fs * 0.55), text, fill="#222222", anchor="lm", font=big)
            x += fs * 1.6 + big.getlength(text) + fs
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def render_svg(picture: MapPicture, width: int | None = None) -> str:
    box = layout(picture, width)
    s = box.scale
    fs = box.font_size
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{box.width}" height="{box.height}" '
        f'viewBox="0 0 {box.width} {box.height}" role="img" '
        f"aria-label={quoteattr(picture.caption)}>",
        f"<title>{escape(picture.caption)}</title>",
        f'<text class="caption" x="{MARGIN}" y="{box.caption_height / 2 + fs * 0.35:.1f}" '
        f'font-family="sans-serif" font-size="{fs}" fill="#111111">'
        f"{escape(picture.caption)}</text>",
        f'<g font-family="sans-serif" font-size="{8 * s:.1f}" text-anchor="middle">',
    ]

    def points(corners: list[tuple[float, float]]) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)

    for label in hex_labels(picture.cols, picture.rows):
        centre = box.centre(label)
        if centre is None:
            continue
        x, y = centre
        parts.append(f'<polygon points="{points(box.corners(x, y))}" '
                     f'fill="{_hex_fill(picture, label)}" stroke="#555555"/>'
                     f'<text x="{x:.1f}" y="{y - box.radius * 0.5:.1f}" fill="#333333">'
                     f"{label}</text>")
    for a, b in _roads(picture):
        ca, cb = box.centre(a), box.centre(b)
        if ca and cb:
            parts.append(f'<line class="road" x1="{ca[0]:.1f}" y1="{ca[1]:.1f}" x2="{cb[0]:.1f}" '
                         f'y2="{cb[1]:.1f}" stroke="{ROAD_COLOUR}" stroke-width="{3 * s:.1f}" '
                         'stroke-linecap="round"/>')
    for f in picture.fortifications:
        centre = box.centre(f["hex"])
        if centre is None:
            continue
        colour = SIDE_COLOURS.get(f["owner"] or "", "#444444")
        if f["kind"] == "tower":
            parts.append(f'<polygon class="tower" points="{points(_keep(box, centre))}" '
                         f'fill="{TOWER_FILL}" stroke="{colour}" stroke-width="{1.5 * s:.1f}">'
                         f'<title>tower ({escape(str(f["owner"]))})</title></polygon>')
        else:
            (x1, y1), (x2, y2) = box.wall(centre, f.get("direction"))
            parts.append(f'<line class="wall" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
                         f'y2="{y2:.1f}" stroke="{colour}" stroke-width="{3 * s:.1f}"/>')
    for (hex_label, side), n in sorted(_stack_counts(picture).items()):
        centre = box.centre(hex_label)
        if centre is None:
            continue
        x, y = centre
        dx = (-5 if side == "alliance" else 5) * s
        parts.append(f'<circle cx="{x + dx:.1f}" cy="{y + 4 * s:.1f}" r="{6.5 * s:.1f}" '
                     f'fill="{SIDE_COLOURS.get(side, "#444444")}"><title>{escape(side)}: '
                     f'{n} units</title></circle><text x="{x + dx:.1f}" y="{y + 7 * s:.1f}" '
                     f'fill="#ffffff">{n}</text>')
    for hex_label, turn, n in picture.sightings:
        centre = box.centre(hex_label)
        if centre is None or n == 0:
            continue
        x, y = centre
        parts.append(f'<circle cx="{x:.1f}" cy="{y + 4 * s:.1f}" r="{6.5 * s:.1f}" fill="none" '
                     f'stroke="{SIGHTING_COLOUR}" stroke-width="{2 * s:.1f}"><title>seen in turn '
                     f'{turn}: {n} units</title></circle><text x="{x:.1f}" y="{y + 7 * s:.1f}" '
                     f'fill="{SIGHTING_COLOUR}">{n}</text>')
    for hex_label in picture.marked:
        centre = box.centre(hex_label)
        if centre is not None:
            ring = points(box.corners(*centre, inset=1.5 * s))
            parts.append(f'<polygon class="marked" points="{ring}" fill="none" '
                         f'stroke="{MARK_COLOUR}" stroke-width="{3 * s:.1f}"/>')
    parts.append("</g>")
    font = ImageFont.load_default(size=fs)
    parts.append(f'<g class="legend" font-family="sans-serif" font-size="{fs}" fill="#222222">')
    for i, row in enumerate(box.legend_rows):
        y = box.caption_height + box.map_height + fs * 0.6 + i * fs * 1.8
        x = float(MARGIN)
        for kind, text in row:
            size = fs * 1.1
            if kind == "wall":
                mark = (f'<line x1="{x:.1f}" y1="{y + size / 2:.1f}" x2="{x + size:.1f}" '
                        f'y2="{y + size / 2:.1f}" stroke="#444444" stroke-width="3"/>')
            elif kind in ("seen", "tower") or kind.startswith("stack:"):
                fill = ("none" if kind == "seen" else TOWER_FILL if kind == "tower"
                        else _swatch_colour(kind))
                mark = (f'<rect x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" '
                        f'rx="{size / 2 if kind != "tower" else 0:.1f}" fill="{fill}" '
                        f'stroke="{SIGHTING_COLOUR if kind == "seen" else "#444444"}"/>')
            else:
                mark = (f'<rect x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" '
                        f'fill="{_swatch_colour(kind)}" stroke="#555555"/>')
            parts.append(f'{mark}<text x="{x + fs * 1.5:.1f}" y="{y + fs * 0.9:.1f}">'
                         f'{escape(text)}</text>')
            x += fs * 1.6 + font.getlength(text) + fs
    parts.append("</g></svg>")
    return "\n".join(parts)
