"""The battle page's map: the hexes of a battle's state (as the viewer may see it) with their
terrain, the pieces on them, the entry points and camps, as plain data the template draws
as an SVG (flat-top hexes, odd columns half a hex lower, as every Warcamp map)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from campaigns.games.battle.systems import System
from rules.hexgrid import column_letters, distance, parse_label

R = 30.0  # the hex's radius in SVG units
H = math.sqrt(3) * R
SIDE_CLASSES = ("side-a", "side-b")


def _centre(col: int, row: int) -> tuple[float, float]:
    return R + 1.5 * R * col + 2, H / 2 + H * (row - 1) + (H / 2 if col & 1 else 0) + 2


def _points(x: float, y: float) -> str:
    return " ".join(f"{x + R * math.cos(math.radians(60 * i)):.1f},"
                    f"{y + R * math.sin(math.radians(60 * i)):.1f}" for i in range(6))


def _piece_label(system: System, piece: Mapping[str, Any]) -> str:
    if system.key == "quad":
        return f"{piece['type']['name']} Q{piece.get('quality', '?')}"
    if piece.get("hero") and not piece.get("unit"):
        return "Hero"
    parts = [str(piece.get("unit") or "force").replace("_", " ").title()]
    if piece.get("figures") is not None:
        parts.append(str(piece["figures"]))
    return " ".join(parts)


def _out_of_sight(state: Mapping[str, Any], viewer: str | None) -> set[str] | None:
    """Under fog of war, the hexes `viewer`'s side does not see (None: no fog, or the viewer
    sees all): farther than the sight from each of its pieces on the field, its entry point
    and its camps (as the engine counts them, in `rules.elf_abas.battle.sight_of`)."""
    fog = state.get("fog")
    if not isinstance(fog, Mapping) or viewer is None:
        return None
    reach = int(fog["sight"])
    eyes = [parse_label(str(p["hex"])) for p in state.get("forces") or []
            if p.get("side") == viewer and p.get("hex")]
    for side in state.get("sides") or []:
        if side.get("name") == viewer:
            eyes += [parse_label(str(h)) for h in [side.get("entry"), *side.get("supplies", [])]
                     if h]
    grid = state.get("map") or {}
    return {f"{column_letters(c)}{r}" for c in range(int(grid.get("cols", 0)))
            for r in range(1, int(grid.get("rows", 0)) + 1)
            if all(distance(parse_label(f"{column_letters(c)}{r}"), eye) > reach
                   for eye in eyes)}


def board(system: System, state: Mapping[str, Any], sides: list[str],
          viewer: str | None = None) -> dict[str, Any]:
    """`{"width", "height", "hexes": [...], "legend": [...]}`: each hex with its label,
    polygon, centre, terrain and fill, and the piece on it (id, side, label, class); under
    fog of war, whether `viewer`'s side sees it."""
    fogged = _out_of_sight(state, viewer) or set()
    grid = state.get("map") or {}
    cols, rows = int(grid.get("cols", 0)), int(grid.get("rows", 0))
    terrain: Mapping[str, str] = grid.get("terrain") or {}
    pieces: dict[str, Mapping[str, Any]] = {}
    for piece in state.get(system.pieces) or []:
        if isinstance(piece, Mapping) and piece.get("hex"):
            pieces[str(piece["hex"])] = piece
    marks: dict[str, str] = {}
    for side in state.get("sides") or []:
        if isinstance(side, Mapping):
            if side.get("entry"):
                marks[str(side["entry"])] = f"{side['name']}'s entry"
            for camp in side.get("supplies") or []:
                marks[str(camp)] = f"{side['name']}'s camp"
    hexes: list[dict[str, Any]] = []
    for col in range(cols):
        for row in range(1, rows + 1):
            label = f"{column_letters(col)}{row}"
            x, y = _centre(col, row)
            kind = terrain.get(label, "open")
            piece = pieces.get(label)
            hexes.append({
                "label": label, "points": _points(x, y), "x": round(x, 1), "y": round(y, 1),
                "terrain": kind, "fill": system.terrain_colours.get(kind, "#eeeeee"),
                "mark": marks.get(label, ""), "fogged": label in fogged,
                "piece": None if piece is None else {
                    "id": piece["id"], "side": piece["side"], "label": _piece_label(system, piece),
                    "class": SIDE_CLASSES[sides.index(piece["side"]) % 2]
                    if piece["side"] in sides else "side-a",
                    "leader": bool(piece.get("leader")), "hero": bool(piece.get("hero"))},
            })
    width = 1.5 * R * (cols - 1) + 2 * R + 4
    height = H * rows + H / 2 + 4
    used = sorted({str(h["terrain"]) for h in hexes})
    return {"width": round(width, 1), "height": round(height, 1), "hexes": hexes,
            "marks": bool(marks), "fog": bool(fogged),
            "legend": [(t.replace("_", " "), system.terrain_colours.get(t, "#eeeeee"))
                       for t in used]}
