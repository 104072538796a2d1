"""Hex coordinates for flat-top odd-q maps: labels like "J10", directions, distance, lines."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "Direction",
    "Grid",
    "Hex",
    "HexLabelError",
    "column_index",
    "column_letters",
    "direction_to",
    "distance",
    "format_label",
    "hex_range",
    "hex_to_offset",
    "line",
    "neighbor",
    "neighbors",
    "offset_to_hex",
    "parse_label",
    "ring",
]


@dataclass(frozen=True, order=True, slots=True)
class Hex:
    """A hex in axial coordinates (q = column, r = diagonal axis); s = -q - r completes the cube."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r


class Direction(enum.Enum):
    """The six neighbours of a flat-top hex, clockwise from north, in this fixed order."""

    N = (0, -1)
    NE = (1, -1)
    SE = (1, 0)
    S = (0, 1)
    SW = (-1, 1)
    NW = (-1, 0)

    @property
    def dq(self) -> int:
        return self.value[0]

    @property
    def dr(self) -> int:
        return self.value[1]

    @property
    def opposite(self) -> Direction:
        return _OPPOSITE[self]


_OPPOSITE: dict[Direction, Direction] = {
    Direction.N: Direction.S,
    Direction.NE: Direction.SW,
    Direction.SE: Direction.NW,
    Direction.S: Direction.N,
    Direction.SW: Direction.NE,
    Direction.NW: Direction.SE,
}
_BY_DELTA: dict[tuple[int, int], Direction] = {d.value: d for d in Direction}


class HexLabelError(ValueError):
    """A hex label such as "J10" that cannot be read or written."""


_LABEL = re.compile(r"([A-Z]+)([0-9]+)")
_LETTERS = re.compile(r"[A-Z]+")


def column_letters(index: int) -> str:
    """The letters of a 0-based column index: 0 → "A", 25 → "Z", 26 → "AA"."""
    if index < 0:
        raise HexLabelError(f"Column index must be 0 or more (column A), not {index}.")
    letters = ""
    n = index + 1
    while n > 0:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def column_index(letters: str) -> int:
    """The 0-based index of column letters: "A" → 0, "Z" → 25, "AA" → 26."""
    if not _LETTERS.fullmatch(letters):
        raise HexLabelError(
            f"Column must be uppercase letters A to Z (like 'J' or 'AB'), not {letters!r}."
        )
    n = 0
    for ch in letters:
        n = n * 26 + (ord(ch) - ord("A") + 1)
    return n - 1


def offset_to_hex(*, col: int, row: int) -> Hex:
    """The hex at 0-based column (A = 0), 1-based row (odd-q: odd columns sit half a hex lower)."""
    return Hex(col, (row - 1) - (col - (col & 1)) // 2)


def hex_to_offset(h: Hex) -> tuple[int, int]:
    """The (0-based column, 1-based row) of a hex; the inverse of offset_to_hex."""
    return h.q, h.r + (h.q - (h.q & 1)) // 2 + 1


def parse_label(label: str) -> Hex:
    """The hex named by a label such as "A1", "J10" or "AB7" (column letters, then row from 1)."""
    if not label:
        raise HexLabelError("Hex label is empty; write a column then a row, like 'J10'.")
    match = _LABEL.fullmatch(label)
    if match is None:
        if label.upper() != label and _LABEL.fullmatch(label.upper()):
            raise HexLabelError(f"Column letters must be uppercase in hex label {label!r}.")
        raise HexLabelError(
            f"Hex label {label!r} must be column letters then a row number, like 'J10' or 'AB7'."
        )
    letters, digits = match.groups()
    row = int(digits)
    if row < 1:
        raise HexLabelError(f"Row must be 1 or more in hex label {label!r}.")
    if digits != str(row):
        raise HexLabelError(f"Row must be written without leading zeros in hex label {label!r}.")
    return offset_to_hex(col=column_index(letters), row=row)


def format_label(h: Hex) -> str:
    """The label of a hex, such as "J10"; hexes left of column A or above row 1 have none."""
    col, row = hex_to_offset(h)
    if col < 0:
        raise HexLabelError(f"Hex (q={h.q}, r={h.r}) is left of column A and has no label.")
    if row < 1:
        raise HexLabelError(f"Hex (q={h.q}, r={h.r}) is above row 1 and has no label.")
    return f"{column_letters(col)}{row}"


def neighbor(h: Hex, d: Direction) -> Hex:
    """The hex next to h in direction d."""
    dq, dr = d.value
    return Hex(h.q + dq, h.r + dr)


def neighbors(h: Hex) -> dict[Direction, Hex]:
    """All six neighbours of h, in Direction order."""
    return {d: Hex(h.q + d.value[0], h.r + d.value[1]) for d in Direction}


def direction_to(a: Hex, b: Hex) -> Direction | None:
    """The direction from a to an adjacent hex b, or None when they are not adjacent."""
    return _BY_DELTA.get((b.q - a.q, b.r - a.r))


def distance(a: Hex, b: Hex) -> int:
    """The number of steps between two hexes."""
    dq = a.q - b.q
    dr = a.r - b.r
    return max(abs(dq), abs(dr), abs(dq + dr))


def _round_component(scaled: int, n: int, nudge: int) -> tuple[int, tuple[int, int]]:
    """Round scaled/n + ε·nudge to an integer; also return |rounded − value| as (scaled, ε)."""
    floor, rem = divmod(scaled, n)
    rounded = floor + 1 if 2 * rem > n or (2 * rem == n and nudge > 0) else floor
    diff = rounded * n - scaled
    # diff is exact in units of 1/n; the infinitesimal part is −nudge·ε.
    if diff > 0 or (diff == 0 and -nudge > 0):
        return rounded, (diff, -nudge)
    return rounded, (-diff, nudge)


def line(a: Hex, b: Hex, *, nudge: int = 1) -> list[Hex]:
    """The hexes on the straight line from a to b, both included (distance + 1 hexes).

    Cube linear interpolation with Red Blob Games' nudge (+ε, +2ε, −3ε on q, r, s),
    computed exactly with integers so the result never depends on float rounding.
    `nudge=-1` pushes the other way: where the line runs along an edge between two hexes,
    the two nudges give the two hexes (a line of sight can read both sides of the edge).
    """
    if nudge not in (1, -1):
        raise ValueError(f"A line's nudge is 1 or -1, not {nudge}.")
    n = distance(a, b)
    if n == 0:
        return [a]
    out: list[Hex] = []
    for i in range(n + 1):
        sq = a.q * n + (b.q - a.q) * i
        sr = a.r * n + (b.r - a.r) * i
        ss = a.s * n + (b.s - a.s) * i
        q, dq = _round_component(sq, n, nudge)
        r, dr = _round_component(sr, n, 2 * nudge)
        s, ds = _round_component(ss, n, -3 * nudge)
        if dq > dr and dq > ds:
            q = -r - s
        elif dr > ds:
            r = -q - s
        out.append(Hex(q, r))
    return out


def within_45(facing: Direction, a: Hex, b: Hex) -> bool:
    """Whether b lies within 45° of the direction `facing` seen from a's centre (a 90° front
    arc), computed exactly: flat-top centres as (x, √3·y) integers, cos² 45° = ½."""
    fx, fy = 3 * facing.dq, 2 * facing.dr + facing.dq
    dq, dr = b.q - a.q, b.r - a.r
    vx, vy = 3 * dq, 2 * dr + dq
    dot = fx * vx + 3 * fy * vy
    return dot > 0 and 2 * dot * dot >= (fx * fx + 3 * fy * fy) * (vx * vx + 3 * vy * vy)


def facing_towards(a: Hex, b: Hex) -> Direction:
    """The hex direction nearest the line from a to b (ties: the first clockwise from N)."""
    dq, dr = b.q - a.q, b.r - a.r
    vx, vy = 3 * dq, 2 * dr + dq
    return max(Direction, key=lambda d: (3 * d.dq) * vx + 3 * (2 * d.dr + d.dq) * vy)


_RING_WALK = (Direction.SE, Direction.S, Direction.SW, Direction.NW, Direction.N, Direction.NE)


def ring(center: Hex, radius: int) -> list[Hex]:
    """The hexes at exactly `radius` steps from center, clockwise from the one due north."""
    if radius < 0:
        raise ValueError(f"A ring's radius must be 0 or more, not {radius}.")
    if radius == 0:
        return [center]
    h = Hex(center.q, center.r - radius)
    out: list[Hex] = []
    for d in _RING_WALK:
        for _ in range(radius):
            out.append(h)
            h = neighbor(h, d)
    return out


def hex_range(center: Hex, radius: int) -> list[Hex]:
    """Every hex within `radius` steps of center (center included), sorted by (q, r)."""
    if radius < 0:
        raise ValueError(f"A range's radius must be 0 or more, not {radius}.")
    out: list[Hex] = []
    for dq in range(-radius, radius + 1):
        for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
            out.append(Hex(center.q + dq, center.r + dr))
    return out


@dataclass(frozen=True)
class Grid:
    """A rectangular map of `cols` columns (A, B, …) and `rows` rows (1, 2, …)."""

    cols: int
    rows: int

    def __post_init__(self) -> None:
        if self.cols < 1 or self.rows < 1:
            raise ValueError(
                f"A map needs at least one column and one row, not {self.cols} × {self.rows}."
            )

    def contains(self, h: Hex) -> bool:
        col, row = hex_to_offset(h)
        return 0 <= col < self.cols and 1 <= row <= self.rows

    def hexes(self) -> Iterator[Hex]:
        """Every hex of the map, column by column (A1, A2, …, B1, …)."""
        for col in range(self.cols):
            for row in range(1, self.rows + 1):
                yield offset_to_hex(col=col, row=row)

    def neighbors(self, h: Hex) -> dict[Direction, Hex]:
        """The neighbours of h that are on the map, in Direction order."""
        return {d: n for d, n in neighbors(h).items() if self.contains(n)}
