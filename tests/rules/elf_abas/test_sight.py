"""Fog of war in the ELF ABAS engine, the GM's setting `sight` (docs/rules/elf_abas.md): what
a side sees, its view of the state, and why the sight is at least 5 hexes (the longest shot
and the longest move stay inside it, so no order can touch what its side does not see)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.battle import BattleError
from rules.dice import FixedDice, SeededDice
from rules.elf_abas.battle import ENGINE, MIN_SIGHT, ElfBattle, ElfOrder, Target, sight_of
from rules.hexgrid import parse_label
from rules.jsonio import InputError


def field(*, red_supplies: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"map": {"cols": 16, "rows": 5},
            "sides": [{"name": "red", "entry": "A3", "supplies": list(red_supplies),
                       "forces": [{"id": "r1", "unit": "foot", "hex": "B3"},
                                  {"id": "r2", "unit": "foot"}]},
                      {"name": "blue", "entry": "P3", "forces": [
                          {"id": "b1", "unit": "foot", "hex": "G3"},
                          {"id": "b2", "unit": "mounted", "hex": "H3"},
                          {"id": "b3", "unit": "foot"}]}]}


def begin(scen: dict[str, Any], **conf: Any) -> ElfBattle:
    state = ENGINE.start(scenario=scen, settings=conf, dice=SeededDice(seed="t")).state
    return replace(state, order=("red", "blue", "red", "blue"), card=0)


def test_sight_is_a_setting_of_five_hexes_or_more():
    assert MIN_SIGHT == 5
    for value, message in ((4, "must be at least 5."), (61, "must be at most 60.")):
        with pytest.raises(InputError) as bad:
            begin(field(), sight=value)
        assert (bad.value.field, bad.value.message) == ("settings.sight", message)
    state = begin(field(), sight=7)
    data = ENGINE.state_to_json(state)
    assert data["settings"]["sight"] == 7
    assert ENGINE.state_from_json(data).settings.sight == 7
    assert begin(field()).settings.sight is None


def test_a_side_sees_its_own_forces_and_the_enemy_within_sight_of_its_eyes():
    # B3 to G3 is 5 hexes, to H3 6; A3 (the entry point) is farther still.
    state = begin(field(), sight=5)
    assert sight_of(state, "red") == {"r1", "r2", "b1"}
    assert sight_of(state, "blue") == {"b1", "b2", "b3", "r1"}
    # A camp is an eye too: H3 is 4 hexes from L3.
    assert sight_of(begin(field(red_supplies=("L3",)), sight=5), "red") == {
        "r1", "r2", "b1", "b2"}
    assert sight_of(begin(field()), "red") is None
    assert ENGINE.sees(state, "red") == {"r1", "r2", "b1"}


def test_a_sides_view_leaves_out_what_it_does_not_see():
    state = begin(field(), sight=5)
    # Blue's second card: b2 moves a hex, out of red's sight.
    state = replace(state, card=1)
    state = ENGINE.step(state=state, orders=[ElfOrder(side="blue", kind="move", force="b2",
                                                      path=(parse_label("I3"),))],
                        dice=FixedDice([])).state
    red = ENGINE.view(state, "red")
    assert [f["id"] for f in red["forces"]] == ["r1", "r2", "b1"]
    assert red["moved"] == {} and red["busy"] == []
    assert red["fog"] == {"sight": 5}
    blue = ENGINE.view(state, "blue")
    assert blue["moved"] == {"b2": 1}
    assert [f["id"] for f in blue["forces"]] == ["r1", "b1", "b2", "b3"]
    # Without fog the view is the whole state.
    assert ENGINE.view(begin(field()), "red") == ENGINE.state_to_json(begin(field()))


def test_the_longest_shot_is_five_hexes():
    """Six Missile figures roll one die a hex fewer: 1D at 5 hexes, nothing at 6; so a
    shooter's target, and every hex between, is within the least sight."""
    def shot(at: str) -> ElfBattle:
        scen = {"map": {"cols": 16, "rows": 5},
                "sides": [{"name": "red", "entry": "A3",
                           "forces": [{"id": "bows", "unit": "missile", "hex": "B3"}]},
                          {"name": "blue", "entry": "P3",
                           "forces": [{"id": "foe", "unit": "foot", "hex": at}]}]}
        return ENGINE.step(state=begin(scen), orders=[ElfOrder(
            side="red", kind="attack", force="bows", targets=(Target(force="foe"),))],
            dice=FixedDice([])).state

    assert shot("G3").declared[0].dice == 1
    with pytest.raises(BattleError) as none:
        shot("H3")
    assert str(none.value).startswith("bows rolls 0D at foe")
