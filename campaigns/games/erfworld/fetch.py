"""Fetch: load what a rules computation needs from the database into the rules' dataclasses.

Saleor's "fetch, then calculate": services call these, pass the result to `rules`, and
store what `rules` returns. Nothing here decides a rule.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from campaigns.models import Campaign, Fortification, FortificationKind, Stack, UnitType
from rules.erfworld.board import Board, board_from_labels
from rules.erfworld.types import Special, UnitStats
from rules.erfworld.units import unit_stats_from_dict


def unit_type_data(unit_type: UnitType) -> dict[str, Any]:
    """A unit type's design as the ruleset's JSON shape."""
    return {
        "hits": unit_type.hits,
        "attack": unit_type.attack,
        "defence": unit_type.defence,
        "move": unit_type.move,
        "specials": list(unit_type.specials),
    }


def unit_stats(unit_type: UnitType) -> UnitStats:
    return unit_stats_from_dict(unit_type_data(unit_type))


def is_commander(unit_type: UnitType) -> bool:
    return unit_stats(unit_type).has(Special.COMMANDER)


def board_for(campaign: Campaign) -> Board:
    """The campaign's map as the rules see it: terrain, towers, walls, owners, stack hexes."""
    game_map = campaign.map
    towers: dict[str, tuple[int, str]] = {}
    walls: dict[str, dict[str, int]] = defaultdict(dict)
    owners: dict[str, str] = {}
    forts = Fortification.objects.filter(campaign=campaign).values_list(
        "hex", "kind", "direction", "hits", "owner__kind"
    )
    for hex_label, kind, direction, hits, owner in forts:
        owners[hex_label] = owner
        if kind == FortificationKind.TOWER:
            towers[hex_label] = (hits, owner)
        else:
            walls[hex_label][direction] = hits
    stacks: dict[str, list[str]] = defaultdict(list)
    for side_kind, hex_label in (
        Stack.objects.filter(campaign=campaign).values_list("side__kind", "hex").distinct()
    ):
        stacks[side_kind].append(hex_label)
    return board_from_labels(
        cols=game_map.cols,
        rows=game_map.rows,
        terrain=game_map.terrain,
        towers=towers,
        walls=walls,
        fort_owners=owners,
        stacks=stacks,
    )
