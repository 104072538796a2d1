"""How places and facings read and print on the two kinds of board the measured systems use
(Ancient Foes 2's tables, GRASP's fields): a hex map (labels such as "C4", the six hex
directions) and a continuous board (points [x, y] with exact numbers, facing vectors)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import ClassVar, TypeVar

from rules.battle import hex_from_json, on_map
from rules.hexgrid import Direction, Grid, Hex, format_label
from rules.jsonio import InputError, JSONObject, as_object, child, get_int, get_list, only_fields
from rules.plane import Point, Vec

__all__ = ["HexPlaces", "PlanePlaces", "areas_from_json", "number_json", "point_from_json"]


def number_from_json(value: object, path: str, unit: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InputError(path, f'is a number of {unit}: a whole number or an exact string '
                         '("7/2").')
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise InputError(path, f"{value!r} is not an exact number.") from None


def number_json(x: Fraction) -> object:
    return x.numerator if x.denominator == 1 else str(x)


def point_from_json(value: object, path: str, unit: str) -> Point:
    if not isinstance(value, list) or len(value) != 2:
        raise InputError(path, f"is a point [x, y] in {unit}.")
    return Point(number_from_json(value[0], child(path, 0), unit),
                 number_from_json(value[1], child(path, 1), unit))


def _decimal(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else format(float(x), "g")


class HexPlaces:
    """Places are hexes of `grid`; facings the six hex directions."""

    grid: Grid

    def label(self, p: Hex | Point) -> str:
        assert isinstance(p, Hex)
        return format_label(p)

    def pos_json(self, p: Hex | Point) -> object:
        return self.label(p)

    def pos_from_json(self, value: object, path: str) -> Hex | Point:
        return on_map(self.grid, hex_from_json(value, path), path)

    def facing_json(self, f: Direction | Vec) -> object:
        assert isinstance(f, Direction)
        return f.name

    def facing_from_json(self, value: object, path: str) -> Direction | Vec:
        names = {d.name: d for d in Direction}
        if not isinstance(value, str) or value.upper() not in names:
            raise InputError(path, f"is one of {', '.join(names)}.")
        return names[value.upper()]


class PlanePlaces:
    """Places are points of a `width` × `height` board in `UNIT`; facings are vectors."""

    UNIT: ClassVar[str] = "MU"
    width: int
    height: int

    def contains(self, p: Hex | Point) -> bool:
        raise NotImplementedError

    def label(self, p: Hex | Point) -> str:
        assert isinstance(p, Point)
        return f"({_decimal(p.x)}, {_decimal(p.y)})"

    def pos_json(self, p: Hex | Point) -> object:
        assert isinstance(p, Point)
        return [number_json(p.x), number_json(p.y)]

    def pos_from_json(self, value: object, path: str) -> Hex | Point:
        p = point_from_json(value, path, self.UNIT)
        if not self.contains(p):
            raise InputError(path, f"{self.label(p)} is not on the {self.width} × "
                             f"{self.height} {self.UNIT} board (a base stays on it).")
        return p

    def facing_json(self, f: Direction | Vec) -> object:
        assert isinstance(f, Vec)
        return [number_json(f.dx), number_json(f.dy)]

    def facing_from_json(self, value: object, path: str) -> Direction | Vec:
        p = point_from_json(value, path, self.UNIT)
        if p.x == 0 and p.y == 0:
            raise InputError(path, "a facing is a direction [dx, dy], not [0, 0].")
        return Vec(p.x, p.y)


T = TypeVar("T")


def areas_from_json(obj: JSONObject, path: str, *, key: str, kinds: Mapping[str, T],
                    unit: str, size: tuple[int, int]) -> tuple[int, int,
                                                               list[tuple[T, tuple[Point, ...]]]]:
    """A continuous board `{"width", "height", "terrain"?: [{key, "polygon"}]}`: its size
    (each side within `size`) and its areas, each a kind of `kinds` and a polygon."""
    only_fields(obj, ("width", "height", "terrain"), path)
    low, high = size
    width = get_int(obj, "width", path, minimum=low, maximum=high)
    height = get_int(obj, "height", path, minimum=low, maximum=high)
    areas: list[tuple[T, tuple[Point, ...]]] = []
    for i, raw in enumerate(get_list(obj, "terrain", path, default=True)):
        at = child(child(path, "terrain"), i)
        a = as_object(raw, at)
        only_fields(a, (key, "polygon"), at)
        name = a.get(key)
        if not isinstance(name, str) or name not in kinds:
            raise InputError(child(at, key), f"is one of {', '.join(kinds)}.")
        points = tuple(point_from_json(p, child(child(at, "polygon"), j), unit)
                       for j, p in enumerate(get_list(a, "polygon", at)))
        if not 3 <= len(points) <= 40:
            raise InputError(child(at, "polygon"), "has 3 to 40 corners.")
        areas.append((kinds[name], points))
    if len(areas) > 60:
        raise InputError(child(path, "terrain"), "has at most 60 areas.")
    return width, height, areas
