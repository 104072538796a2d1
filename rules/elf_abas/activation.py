"""ELF ABAS activation order: two cards a player, mixed, then a D6 of cards go to the bottom."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.dice import Dice
from rules.elf_abas.units import UnitError, plural

__all__ = ["CARDS_PER_PLAYER", "ActivationOrder", "activation_order"]

CARDS_PER_PLAYER = 2


@dataclass(frozen=True, kw_only=True)
class ActivationOrder:
    """The pile as built, as mixed, the D6 cut and the cards in the order they are drawn."""

    pile: tuple[str, ...]
    mixed: tuple[str, ...]
    cut: int
    order: tuple[str, ...]

    @property
    def first(self) -> str:
        return self.order[0]

    def explain(self) -> list[str]:
        return [
            f"pile: {', '.join(self.pile)}",
            f"mixed: {', '.join(self.mixed)}",
            f"D6 = {self.cut}: {plural(self.cut, 'card')} from the top"
            f" go{'es' if self.cut == 1 else ''} to the bottom",
            f"drawn in order: {', '.join(self.order)}; {self.first} goes first",
        ]

    def to_dict(self) -> dict[str, object]:
        return {
            "pile": list(self.pile),
            "mixed": list(self.mixed),
            "cut": self.cut,
            "order": list(self.order),
            "first": self.first,
            "explanation": self.explain(),
        }


def activation_order(players: Sequence[str], *, dice: Dice) -> ActivationOrder:
    """Who goes when: each player puts two cards in a pile; the pile is mixed (a Fisher–Yates
    shuffle: for the card at position i from the bottom, counting from 1, a d(i) picks the card
    to swap it with); a D6 is rolled and that many cards go from the top to the bottom; the
    cards are then drawn from the top, each one activation of its player."""
    if len(players) < 2:
        raise UnitError("Activation needs at least two players.")
    if len(set(players)) != len(players) or not all(players):
        raise UnitError("Each player needs a different, non-empty name.")
    pile = [p for p in players for _ in range(CARDS_PER_PLAYER)]
    mixed = list(pile)
    for i in range(len(mixed) - 1, 0, -1):
        j = dice.roll(i + 1, f"mix card {i + 1}") - 1
        mixed[i], mixed[j] = mixed[j], mixed[i]
    cut = dice.roll(6, "cut D6")
    k = cut % len(mixed)
    order = mixed[k:] + mixed[:k]
    return ActivationOrder(pile=tuple(pile), mixed=tuple(mixed), cut=cut, order=tuple(order))
