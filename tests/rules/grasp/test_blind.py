"""GRASP's blind deployment (rules/grasp/battle.py): deployment as the open one, every unit a
marker to the enemy until it is contacted or a scout identifies it within its fire range, and
each side's view of the state (`view_for`)."""

from __future__ import annotations

from typing import Any

import pytest

from rules.battle import BattleError
from rules.dice import FixedDice
from rules.grasp.battle import ENGINE, GraspBattle, view_for
from rules.hexgrid import parse_label
from tests.rules.battles import check_json_form
from tests.rules.grasp.battle_script import FOOT
from tests.rules.grasp.test_battle import GENERAL, act, cmd

SCOUT = {"cc": "d4", "fatigue": "d4", "move": 6, "fs": "d4", "fire_range": 4,
         "specials": ["scout", "small"]}


def blind(rolls: list[int]) -> GraspBattle:
    def army(prefix: str) -> list[dict[str, Any]]:
        return [{"id": f"{prefix}-1", "facing": "N", "type": GENERAL},
                {"id": f"{prefix}-2", "facing": "N", "type": FOOT},
                {"id": f"{prefix}-3", "facing": "N", "type": SCOUT}]

    scen = {"map": {"cols": 12, "rows": 8}, "deployment": "blind",
            "sides": [{"name": "West", "edge": "W", "units": army("w")},
                      {"name": "East", "edge": "E", "units": army("e")}]}
    dice = FixedDice(rolls)
    state = ENGINE.start(scenario=scen, settings={}, dice=dice).state
    assert dice.remaining == 0
    return state


def deployed() -> GraspBattle:
    state = blind([2, 5])  # West deploys first; armies under 100 points place no terrain
    assert (state.step, state.deployment.stage) == ("deploy", "quadrant")
    state, _ = act(state, [], cmd("West", "quadrant", quadrant="SW"),
                   cmd("East", "quadrant", quadrant="SE"),
                   cmd("West", "deploy", positions={"w-1": "B7", "w-2": "E6", "w-3": "D7"}))
    state, _ = act(state, [5, 2], cmd("East", "deploy", positions={
        "e-1": "K7", "e-2": "H6", "e-3": "J8"}))
    return state


def test_blind_deployment_places_every_unit_as_a_marker():
    state = deployed()
    assert (state.step, state.turn, state.blind) == ("command", 1, True)
    assert all(u.concealed for u in state.units)
    west = view_for(state, "West")
    east_units = next(s for s in west["sides"] if s["name"] == "East")["units"]
    assert east_units == [
        {"id": "e-1", "at": "K7", "facing": "N", "level": "surface", "concealed": True},
        {"id": "e-2", "at": "H6", "facing": "N", "level": "surface", "concealed": True},
        {"id": "e-3", "at": "J8", "facing": "N", "level": "surface", "concealed": True}]
    own = next(s for s in west["sides"] if s["name"] == "West")["units"]
    assert [u["type"]["cc"] for u in own] == ["d6", "d6", "d4"]
    check_json_form(ENGINE, state, [cmd("West", "done")])


def test_a_marker_is_revealed_when_contacted():
    state = deployed()
    state, events = act(state, [], cmd("West", "marker", unit="w-2", to="G6"),
                        cmd("West", "done"), cmd("East", "done"))
    assert state.unit("w-2").pos == parse_label("G6")
    assert [e.text for e in events if e.kind == "spotted"] == [
        "The marker at G6 is contacted by e-2: it is w-2.",
        "The marker at H6 is contacted by w-2: it is e-2."]
    assert (state.unit("w-2").concealed, state.unit("e-2").concealed,
            state.unit("e-1").concealed) == (False, False, True)
    east_units = next(s for s in view_for(state, "West")["sides"]
                      if s["name"] == "East")["units"]
    assert [("type" in u) for u in east_units] == [False, True, False]


def test_a_scout_identifies_markers_within_its_fire_range_in_its_arc():
    state = deployed()
    # Facing N, nothing is in its arc within 4 MU; it turns to face NE (its whole move).
    state, events = act(state, [], cmd("West", "marker", unit="w-3", to="G8"),
                        cmd("West", "done"), cmd("East", "done"))
    assert [e.text for e in events][-2:] == [
        "w-3 spends its move turning toward its marker at G8, to face NE (it turns at most "
        "60° a move).",
        "The marker at H6 is identified by the scout w-3: it is e-2."]
    # e-3 (6 MU) and e-1 (7 MU) are in its arc too, beyond its range.
    assert [u.id for u in state.units if u.concealed] == ["w-1", "w-2", "w-3", "e-1", "e-3"]


def test_a_view_is_for_a_side_of_the_battle():
    with pytest.raises(BattleError) as caught:
        view_for(deployed(), "North")
    assert str(caught.value) == "There is no side 'North' in this battle."
