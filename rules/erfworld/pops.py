"""Pops (rules-erfworld.md §5): sharing the GM's pop points and buying new units with them."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from rules.erfworld.types import UnitStats
from rules.erfworld.units import format_fraction, unit_cost
from rules.hexgrid import Hex, format_label


class PopError(ValueError):
    """A pop share or a pop purchase breaks a rule of §5."""


@dataclass(frozen=True, kw_only=True)
class PopShare:
    """How the Chief Warlord shared the granted pop points; what is not shared stays unspent."""

    shares: Mapping[str, Fraction]
    kept: Fraction


def share_pop_points(*, granted: Fraction | int, shares: Mapping[str, Fraction | int]) -> PopShare:
    """Check the Chief Warlord's sharing of `granted` pop points among alliance players."""
    total = Fraction(granted)
    if total < 0:
        raise PopError("The GM cannot grant a negative number of pop points.")
    clean: dict[str, Fraction] = {}
    for player, amount in shares.items():
        value = Fraction(amount)
        if value < 0:
            raise PopError(f"{player} cannot be given a negative share of pop points.")
        clean[player] = value
    given = sum(clean.values(), Fraction(0))
    if given > total:
        raise PopError(
            f"The shares add up to {format_fraction(given)} pop points, but only "
            f"{format_fraction(total)} were granted (§5: the Chief Warlord shares the points "
            "the GM granted)."
        )
    return PopShare(shares=clean, kept=total - given)


@dataclass(frozen=True, kw_only=True)
class PopOrder:
    """Buy `count` units of the player's type `unit_type`, to appear in `hex`."""

    unit_type: str
    count: int
    hex: Hex


@dataclass(frozen=True, kw_only=True)
class PopLine:
    unit_type: str
    count: int
    hex: Hex
    unit_cost: Fraction
    cost: Fraction


@dataclass(frozen=True, kw_only=True)
class PopPurchase:
    """A valid purchase: what each line costs, the total, and the pop points left."""

    lines: tuple[PopLine, ...]
    total: Fraction
    points_left: Fraction

    def explain(self) -> list[str]:
        out = [
            f"{line.count} × {line.unit_type} at {format_fraction(line.unit_cost)} = "
            f"{format_fraction(line.cost)}, appearing in {format_label(line.hex)}"
            for line in self.lines
        ]
        out.append(
            f"Total {format_fraction(self.total)}; {format_fraction(self.points_left)} pop "
            "points left."
        )
        return out


def buy_pops(
    *,
    orders: Sequence[PopOrder],
    unit_types: Mapping[str, UnitStats],
    pop_points: Fraction | int,
    pop_hexes: Collection[Hex],
) -> PopPurchase:
    """Price a player's pop orders: existing types only, at cost, into a pop hex, within points.

    `unit_types` are the player's own designed types (types cannot change once the campaign has
    started, so pops are always of these).
    """
    if not orders:
        raise PopError("A pop purchase needs at least one unit.")
    allowed = ", ".join(sorted(format_label(h) for h in pop_hexes)) or "none"
    lines = []
    for order in orders:
        if order.unit_type not in unit_types:
            known = ", ".join(sorted(unit_types)) or "none"
            raise PopError(
                f"{order.unit_type!r} is not one of your unit types ({known}); pops can only be "
                "of your existing types (§5)."
            )
        if order.count < 1:
            raise PopError(f"The number of {order.unit_type} to pop must be 1 or more.")
        if order.hex not in pop_hexes:
            raise PopError(
                f"Pops appear only in the scenario's pop hexes ({allowed}), not in "
                f"{format_label(order.hex)} (§5)."
            )
        each = unit_cost(unit_types[order.unit_type])
        lines.append(
            PopLine(unit_type=order.unit_type, count=order.count, hex=order.hex,
                    unit_cost=each, cost=each * order.count)
        )
    total = sum((line.cost for line in lines), Fraction(0))
    points = Fraction(pop_points)
    if total > points:
        raise PopError(
            f"These pops cost {format_fraction(total)} pop points, but you have "
            f"{format_fraction(points)} (§5: pops are bought at cost)."
        )
    return PopPurchase(lines=tuple(lines), total=total, points_left=points - total)
