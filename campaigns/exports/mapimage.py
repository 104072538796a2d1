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
from campaigns.models import Campaign, Fortification, Map, Membership, Phase, Role, Sighting
from campaigns.selectors import map_state, phase_history
from rules.hexgrid import column_letters

RADIUS = 18  # centre to corner of a flat-top hex, in pixels
MARGIN = 10
_ROOT3 = math.sqrt(3)

TERRAIN_COLOURS = {
    "open": "#e9e4c8", "road": "#d2b47c", "woods": "#6a9a55", "hills": "#b8955e",
    "swamp": "#7c9a8c", "mountains": "#9a9a9a", "water": "#78aee0",
}
UNKNOWN_TERRAIN = "#cfcfcf"
SIDE_COLOURS = {"alliance": "#1f5fbf", "opposition": "#b22222"}
SIGHTING_COLOUR = "#6b6b6b"
MARK_COLOUR = "#ff8c00"


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


def picture_size(cols: int, rows: int) -> tuple[int, int]:
    """Width and height in pixels of a cols × rows map (odd columns sit half a hex lower)."""
    width = 2 * MARGIN + 2 * RADIUS + (cols - 1) * 1.5 * RADIUS
    height = 2 * MARGIN + _ROOT3 * RADIUS * (rows + (0.5 if cols > 1 else 0))
    return math.ceil(width), math.ceil(height)


def _centre(label: str) -> tuple[float, float] | None:
    letters = "".join(ch for ch in label if ch.isalpha())
    digits = label[len(letters):]
    if not letters or not digits.isdigit():
        return None
    col = 0
    for ch in letters:
        col = col * 26 + (ord(ch) - ord("A") + 1)
    col -= 1
    row = int(digits) - 1
    x = MARGIN + RADIUS + col * 1.5 * RADIUS
    y = MARGIN + _ROOT3 / 2 * RADIUS + row * _ROOT3 * RADIUS + (_ROOT3 / 2 * RADIUS if col % 2
                                                               else 0)
    return x, y


def _corners(x: float, y: float, r: float = RADIUS) -> list[tuple[float, float]]:
    return [(x + r * math.cos(math.radians(60 * i)), y + r * math.sin(math.radians(60 * i)))
            for i in range(6)]


# The corners (as indexes of `_corners`, clockwise from east) at the ends of each hexside.
_HEXSIDE_CORNERS = {"SE": (0, 1), "S": (1, 2), "SW": (2, 3), "NW": (3, 4), "N": (4, 5),
                    "NE": (5, 0)}


def _wall(centre: tuple[float, float], direction: str | None) -> list[tuple[float, float]]:
    """The two ends of a wall hexside, drawn just inside the hex."""
    corners = _corners(*centre, r=RADIUS - 2)
    a, b = _HEXSIDE_CORNERS.get(direction or "", (4, 5))
    return [corners[a], corners[b]]


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


def _caption(campaign: Campaign, phase: Phase | None) -> str:
    if phase is None:
        return f"{campaign.name} — now"
    return f"{campaign.name} — turn {phase.turn.number}, {phase.get_kind_display().lower()}"


def map_picture(*, viewer: User | None, campaign: Campaign, phase: Phase | None) -> MapPicture:
    """The map for `viewer` (None: the public picture: terrain and fortifications when the
    campaign's terrain is known to all, no stack), now or at the opening of `phase`."""
    caption = _caption(campaign, phase)
    if viewer is None:
        state = phase.snapshot.state if phase is not None else _current_public_state(campaign)
        return _public(campaign, state, caption)
    if phase is None:
        state = map_state(user=viewer, campaign=campaign)
        own_kind = state["viewer"]["side"]
        return MapPicture(
            cols=state["map"]["cols"], rows=state["map"]["rows"],
            terrain=dict(state["map"]["terrain"]), terrain_known=campaign.terrain_known_to_all
            or state["viewer"]["role"] == Role.GM,
            fortifications=state["fortifications"],
            stacks=[(s["hex"], s["side"], len(s["units"])) for s in state["stacks"]],
            sightings=[(s["hex"], s["turn"], _count_seen(s["seen"], own_kind))
                       for s in state["sightings"]],
            caption=caption,
        )
    return _past_picture(viewer, campaign, phase, caption)


def _past_picture(viewer: User, campaign: Campaign, phase: Phase, caption: str) -> MapPicture:
    history = phase_history(user=viewer, phase=phase)
    membership = Membership.objects.select_related("side").get(campaign=campaign, user=viewer)
    is_gm = membership.role == Role.GM
    stacks = [(s["hex"], s["side"], len(s["units"])) for s in history["stacks"]]
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


def render_png(picture: MapPicture) -> bytes:
    size = picture_size(picture.cols, picture.rows)
    image = Image.new("RGB", size, "#ffffff")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    for label in hex_labels(picture.cols, picture.rows):
        centre = _centre(label)
        if centre is None:
            continue
        draw.polygon(_corners(*centre), fill=_hex_fill(picture, label), outline="#555555")
        draw.text((centre[0], centre[1] - RADIUS * 0.55), label, fill="#333333", anchor="mm",
                  font=font)
    for f in picture.fortifications:
        centre = _centre(f["hex"])
        if centre is not None and f["kind"] == "tower":
            x, y = centre
            draw.rectangle((x - 4, y + 4, x + 4, y + 12),
                           fill=SIDE_COLOURS.get(f["owner"] or "", "#444444"))
        elif centre is not None:
            draw.line(_wall(centre, f.get("direction")),
                      fill=SIDE_COLOURS.get(f["owner"] or "", "#444444"), width=3)
    for (hex_label, side), n in sorted(_stack_counts(picture).items()):
        centre = _centre(hex_label)
        if centre is None:
            continue
        x, y = centre
        dx = -5 if side == "alliance" else 5
        draw.ellipse((x + dx - 7, y - 5, x + dx + 7, y + 9),
                     fill=SIDE_COLOURS.get(side, "#444444"))
        draw.text((x + dx, y + 2), str(n), fill="#ffffff", anchor="mm", font=font)
    for hex_label, _turn, n in picture.sightings:
        centre = _centre(hex_label)
        if centre is None or n == 0:
            continue
        x, y = centre
        draw.ellipse((x - 7, y - 5, x + 7, y + 9), outline=SIGHTING_COLOUR, width=2)
        draw.text((x, y + 2), str(n), fill=SIGHTING_COLOUR, anchor="mm", font=font)
    for hex_label in picture.marked:
        centre = _centre(hex_label)
        if centre is not None:
            draw.polygon(_corners(*centre, r=RADIUS - 1.5), outline=MARK_COLOUR, width=3)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def render_svg(picture: MapPicture) -> str:
    width, height = picture_size(picture.cols, picture.rows)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(picture.caption)}>',
        f"<title>{escape(picture.caption)}</title>",
        '<g font-family="sans-serif" font-size="8" text-anchor="middle">',
    ]

    def points(corners: list[tuple[float, float]]) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)

    for label in hex_labels(picture.cols, picture.rows):
        centre = _centre(label)
        if centre is None:
            continue
        x, y = centre
        parts.append(f'<polygon points="{points(_corners(x, y))}" '
                     f'fill="{_hex_fill(picture, label)}" stroke="#555555"/>'
                     f'<text x="{x:.1f}" y="{y - RADIUS * 0.45:.1f}" fill="#333333">{label}</text>')
    for f in picture.fortifications:
        centre = _centre(f["hex"])
        if centre is None:
            continue
        colour = SIDE_COLOURS.get(f["owner"] or "", "#444444")
        x, y = centre
        if f["kind"] == "tower":
            parts.append(f'<rect x="{x - 4:.1f}" y="{y + 4:.1f}" width="8" height="8" '
                         f'fill="{colour}"><title>tower ({escape(str(f["owner"]))})</title></rect>')
        else:
            (x1, y1), (x2, y2) = _wall(centre, f.get("direction"))
            parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                         f'stroke="{colour}" stroke-width="3"/>')
    for (hex_label, side), n in sorted(_stack_counts(picture).items()):
        centre = _centre(hex_label)
        if centre is None:
            continue
        x, y = centre
        dx = -5 if side == "alliance" else 5
        parts.append(f'<circle cx="{x + dx:.1f}" cy="{y + 2:.1f}" r="7" '
                     f'fill="{SIDE_COLOURS.get(side, "#444444")}"><title>{escape(side)}: '
                     f'{n} units</title></circle><text x="{x + dx:.1f}" y="{y + 5:.1f}" '
                     f'fill="#ffffff">{n}</text>')
    for hex_label, turn, n in picture.sightings:
        centre = _centre(hex_label)
        if centre is None or n == 0:
            continue
        x, y = centre
        parts.append(f'<circle cx="{x:.1f}" cy="{y + 2:.1f}" r="7" fill="none" '
                     f'stroke="{SIGHTING_COLOUR}" stroke-width="2"><title>seen in turn {turn}: '
                     f'{n} units</title></circle><text x="{x:.1f}" y="{y + 5:.1f}" '
                     f'fill="{SIGHTING_COLOUR}">{n}</text>')
    for hex_label in picture.marked:
        centre = _centre(hex_label)
        if centre is not None:
            ring = points(_corners(*centre, r=RADIUS - 1.5))
            parts.append(f'<polygon class="marked" points="{ring}" fill="none" '
                         f'stroke="{MARK_COLOUR}" stroke-width="3"/>')
    parts.append("</g></svg>")
    return "\n".join(parts)
