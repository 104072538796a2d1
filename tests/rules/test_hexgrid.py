"""Hex coordinates, labels, neighbours, distance, lines, rings and ranges (rules/hexgrid.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.hexgrid import (
    Direction,
    Grid,
    Hex,
    HexLabelError,
    column_index,
    column_letters,
    direction_to,
    distance,
    format_label,
    hex_range,
    hex_to_offset,
    line,
    neighbor,
    neighbors,
    offset_to_hex,
    parse_label,
    ring,
)

LABELS = [
    ("A1", Hex(0, 0)),
    ("A2", Hex(0, 1)),
    ("B1", Hex(1, 0)),
    ("C1", Hex(2, -1)),
    ("J10", Hex(9, 5)),
    ("Z1", Hex(25, -12)),
    ("AA1", Hex(26, -13)),
    ("AB7", Hex(27, -7)),
]


@pytest.mark.parametrize(("label", "expected"), LABELS)
def test_parse_and_format_label(label: str, expected: Hex) -> None:
    assert parse_label(label) == expected
    assert format_label(expected) == label


BAD_LABELS = [
    ("", "Hex label is empty; write a column then a row, like 'J10'."),
    ("J0", "Row must be 1 or more in hex label 'J0'."),
    ("1A", "Hex label '1A' must be column letters then a row number, like 'J10' or 'AB7'."),
    ("a-1", "Hex label 'a-1' must be column letters then a row number, like 'J10' or 'AB7'."),
    ("j10", "Column letters must be uppercase in hex label 'j10'."),
    ("J01", "Row must be written without leading zeros in hex label 'J01'."),
    ("J", "Hex label 'J' must be column letters then a row number, like 'J10' or 'AB7'."),
    ("10", "Hex label '10' must be column letters then a row number, like 'J10' or 'AB7'."),
    (" J10", "Hex label ' J10' must be column letters then a row number, like 'J10' or 'AB7'."),
]


@pytest.mark.parametrize(("label", "message"), BAD_LABELS)
def test_parse_label_errors(label: str, message: str) -> None:
    with pytest.raises(HexLabelError) as info:
        parse_label(label)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("h", "message"),
    [
        (Hex(-1, 0), "Hex (q=-1, r=0) is left of column A and has no label."),
        (Hex(0, -1), "Hex (q=0, r=-1) is above row 1 and has no label."),
        (Hex(1, -1), "Hex (q=1, r=-1) is above row 1 and has no label."),
    ],
)
def test_format_label_errors(h: Hex, message: str) -> None:
    with pytest.raises(HexLabelError) as info:
        format_label(h)
    assert str(info.value) == message


COLUMNS = [(0, "A"), (1, "B"), (25, "Z"), (26, "AA"), (27, "AB"), (51, "AZ"), (52, "BA"),
           (701, "ZZ"), (702, "AAA")]


@pytest.mark.parametrize(("index", "letters"), COLUMNS)
def test_column_letters(index: int, letters: str) -> None:
    assert column_letters(index) == letters
    assert column_index(letters) == index


@pytest.mark.parametrize("letters", ["", "a", "A1", "Ä"])
def test_column_index_rejects(letters: str) -> None:
    with pytest.raises(HexLabelError):
        column_index(letters)


def test_column_letters_rejects_negative() -> None:
    with pytest.raises(HexLabelError) as info:
        column_letters(-1)
    assert str(info.value) == "Column index must be 0 or more (column A), not -1."


@given(col=st.integers(min_value=0, max_value=2000), row=st.integers(min_value=1, max_value=2000))
def test_label_round_trip(col: int, row: int) -> None:
    h = offset_to_hex(col=col, row=row)
    assert hex_to_offset(h) == (col, row)
    label = format_label(h)
    assert parse_label(label) == h
    assert label == f"{column_letters(col)}{row}"


@given(q=st.integers(-500, 500), r=st.integers(-500, 500))
def test_offset_round_trip(q: int, r: int) -> None:
    col, row = hex_to_offset(Hex(q, r))
    assert offset_to_hex(col=col, row=row) == Hex(q, r)


def test_cube_coordinates_sum_to_zero() -> None:
    h = parse_label("J10")
    assert (h.q, h.r, h.s) == (9, 5, -14)


DISTANCES = [
    ("A1", "J10", 14),
    ("A1", "A1", 0),
    ("A1", "B1", 1),
    ("A1", "A2", 1),
    ("A1", "C1", 2),
    ("B10", "I10", 7),
    ("A1", "AB7", 27),
    ("C5", "C1", 4),
]


@pytest.mark.parametrize(("a", "b", "expected"), DISTANCES)
def test_distance(a: str, b: str, expected: int) -> None:
    assert distance(parse_label(a), parse_label(b)) == expected
    assert distance(parse_label(b), parse_label(a)) == expected


NEIGHBOURS = [
    # B is an odd column, half a hex lower: its NE/SE neighbours are rows 10 and 11.
    ("B10", {"N": "B9", "NE": "C10", "SE": "C11", "S": "B11", "SW": "A11", "NW": "A10"}),
    # C is an even column, half a hex higher: its NE/SE neighbours are rows 4 and 5.
    ("C5", {"N": "C4", "NE": "D4", "SE": "D5", "S": "C6", "SW": "B5", "NW": "B4"}),
]


@pytest.mark.parametrize(("label", "expected"), NEIGHBOURS)
def test_neighbors(label: str, expected: dict[str, str]) -> None:
    got = {d.name: format_label(n) for d, n in neighbors(parse_label(label)).items()}
    assert got == expected
    assert list(got) == ["N", "NE", "SE", "S", "SW", "NW"]


GRID_NEIGHBOURS = [
    ("A1", {"SE": "B1", "S": "A2"}),
    ("B1", {"NE": "C1", "SE": "C2", "S": "B2", "SW": "A2", "NW": "A1"}),
    ("J10", {"N": "J9", "NW": "I10"}),
    ("E5", {"N": "E4", "NE": "F4", "SE": "F5", "S": "E6", "SW": "D5", "NW": "D4"}),
]


@pytest.mark.parametrize(("label", "expected"), GRID_NEIGHBOURS)
def test_grid_neighbors_leave_out_off_map_hexes(label: str, expected: dict[str, str]) -> None:
    grid = Grid(cols=10, rows=10)
    got = {d.name: format_label(n) for d, n in grid.neighbors(parse_label(label)).items()}
    assert got == expected


def test_grid_contains_and_hexes() -> None:
    grid = Grid(cols=3, rows=2)
    assert [format_label(h) for h in grid.hexes()] == ["A1", "A2", "B1", "B2", "C1", "C2"]
    assert grid.contains(parse_label("C2"))
    assert not grid.contains(parse_label("D1"))
    assert not grid.contains(parse_label("A3"))
    assert not grid.contains(Hex(0, -1))
    assert not grid.contains(Hex(-1, 0))


def test_grid_needs_a_hex() -> None:
    with pytest.raises(ValueError, match="at least one column and one row"):
        Grid(cols=0, rows=5)


@pytest.mark.parametrize(
    ("d", "opposite"),
    [(Direction.N, Direction.S), (Direction.NE, Direction.SW), (Direction.SE, Direction.NW),
     (Direction.S, Direction.N), (Direction.SW, Direction.NE), (Direction.NW, Direction.SE)],
)
def test_direction_opposite(d: Direction, opposite: Direction) -> None:
    assert d.opposite is opposite
    h = Hex(3, -2)
    assert neighbor(neighbor(h, d), opposite) == h


def test_direction_order() -> None:
    assert [d.name for d in Direction] == ["N", "NE", "SE", "S", "SW", "NW"]


@given(q=st.integers(-50, 50), r=st.integers(-50, 50))
def test_direction_to_adjacent(q: int, r: int) -> None:
    h = Hex(q, r)
    for d, n in neighbors(h).items():
        assert direction_to(h, n) is d
        assert distance(h, n) == 1
    assert direction_to(h, h) is None
    assert direction_to(h, Hex(q + 2, r)) is None


@pytest.mark.parametrize("radius", [0, 1, 2, 3, 7])
def test_ring(radius: int) -> None:
    center = parse_label("J10")
    hexes = ring(center, radius)
    assert len(hexes) == max(1, 6 * radius)
    assert len(set(hexes)) == len(hexes)
    assert all(distance(center, h) == radius for h in hexes)
    if radius:
        assert hexes[0] == Hex(center.q, center.r - radius)  # starts due north
        assert all(distance(a, b) == 1 for a, b in zip(hexes, hexes[1:] + hexes[:1], strict=True))


def test_ring_one_in_clockwise_order() -> None:
    assert [format_label(h) for h in ring(parse_label("C5"), 1)] == [
        "C4", "D4", "D5", "C6", "B5", "B4",
    ]


@pytest.mark.parametrize("radius", [0, 1, 2, 5])
def test_hex_range(radius: int) -> None:
    center = Hex(4, -1)
    hexes = hex_range(center, radius)
    assert len(hexes) == 3 * radius * (radius + 1) + 1
    assert hexes == sorted(hexes)
    assert set(hexes) == {h for k in range(radius + 1) for h in ring(center, k)}


@pytest.mark.parametrize("fn", [ring, hex_range])
def test_negative_radius(fn: object) -> None:
    with pytest.raises(ValueError, match="radius must be 0 or more"):
        fn(Hex(0, 0), -1)  # type: ignore[operator]


LINES = [
    ("A1", "A4", ["A1", "A2", "A3", "A4"]),
    ("A1", "C1", ["A1", "B1", "C1"]),
    ("A1", "A1", ["A1"]),
    ("A1", "E3", ["A1", "B1", "C2", "D2", "E3"]),  # straight along the SE diagonal
    ("B10", "I10", ["B10", "C10", "D10", "E10", "F10", "G10", "H10", "I10"]),
]


@pytest.mark.parametrize(("a", "b", "expected"), LINES)
def test_line(a: str, b: str, expected: list[str]) -> None:
    assert [format_label(h) for h in line(parse_label(a), parse_label(b))] == expected


def _float_line(a: Hex, b: Hex) -> list[Hex]:
    """Red Blob Games' float version with the nudge, as a reference for small coordinates."""
    n = distance(a, b)
    eps = (1e-6, 2e-6, -3e-6)
    out = []
    for i in range(n + 1):
        t = i / n if n else 0.0
        cq = a.q + eps[0] + (b.q - a.q) * t
        cr = a.r + eps[1] + (b.r - a.r) * t
        cs = a.s + eps[2] + (b.s - a.s) * t
        q, r, s = round(cq), round(cr), round(cs)
        dq, dr, ds = abs(q - cq), abs(r - cr), abs(s - cs)
        if dq > dr and dq > ds:
            q = -r - s
        elif dr > ds:
            r = -q - s
        out.append(Hex(q, r))
    return out


coords = st.integers(-30, 30)


@given(q1=coords, r1=coords, q2=coords, r2=coords)
def test_line_properties(q1: int, r1: int, q2: int, r2: int) -> None:
    a, b = Hex(q1, r1), Hex(q2, r2)
    hexes = line(a, b)
    assert hexes[0] == a
    assert hexes[-1] == b
    assert len(hexes) == distance(a, b) + 1
    assert all(distance(x, y) == 1 for x, y in zip(hexes, hexes[1:], strict=False))
    assert hexes == _float_line(a, b)
