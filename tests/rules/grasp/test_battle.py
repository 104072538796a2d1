"""A GRASP battle on the hex adaptation (rules/grasp/battle.py): deployment, pips and the
phasing order, command markers and spans, moves toward markers through the going, fire (range,
arcs, all-round fire, supports), close combat (contact, reserved pips), recoils, flight,
capture, resupply, the end of the battle and its points, the JSON form, properties and a
scripted battle stored as a golden file."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle import BattleError
from rules.dice import FixedDice, SeededDice
from rules.grasp.battle import (
    ENGINE,
    Cloud,
    GraspBattle,
    GraspOrder,
    acting_sides,
    points_lost,
)
from rules.grasp.combat import Level
from rules.grasp.dielevels import DieLevel
from rules.grasp.terrain import TerrainClass
from rules.grasp.units import Special
from rules.hexgrid import Direction, format_label, parse_label
from rules.jsonio import InputError
from rules.plane import Point
from tests.rules.battles import check_golden, check_json_form, play_out
from tests.rules.grasp.battle_script import (
    ARCHERS,
    CONTINUOUS,
    FOOT,
    KNIGHTS,
    SCENARIO,
    SCOUTS,
    WAGON,
    orders_for,
)
from tests.rules.grasp.battle_script import GENERAL as LOW_TECH

# The generals here command by high-tech means, so that their orders move units at once
# (a low-tech order arrives a turn late: see the tests of that rule, which use LOW_TECH).
GENERAL = {**LOW_TECH, "command_high_tech": True}

GOLDEN = Path(__file__).parent / "golden" / "battle.json"
GOLDEN_CONTINUOUS = Path(__file__).parent / "golden" / "battle-continuous.json"


def unit(uid: str, where: str, kind: dict[str, Any], facing: str = "SE") -> dict[str, Any]:
    return {"id": uid, "at": where, "facing": facing, "type": kind}


def begin(west: list[dict[str, Any]], east: list[dict[str, Any]], rolls: list[int], *,
          terrain: dict[str, str] | None = None, **conf: Any) -> GraspBattle:
    scen = {"map": {"cols": 12, "rows": 8, "terrain": terrain or {}},
            "sides": [{"name": "West", "edge": "W", "units": west},
                      {"name": "East", "edge": "E", "units": east}]}
    return ENGINE.start(scenario=scen, settings=conf, dice=FixedDice(rolls)).state


def cmd(side: str, kind: str, **kw: Any) -> GraspOrder:
    if isinstance(kw.get("to"), str):
        kw["to"] = parse_label(kw["to"])
    if "supports" in kw:
        kw["supports"] = tuple(kw["supports"])
    if "positions" in kw:
        kw["positions"] = tuple(kw["positions"].items())
    return GraspOrder(side=side, kind=kind, **kw)  # type: ignore[arg-type]


def act(state: GraspBattle, rolls: list[int], *orders: GraspOrder
        ) -> tuple[GraspBattle, list[Any]]:
    dice = FixedDice(rolls)
    result = ENGINE.step(state=state, orders=list(orders), dice=dice)
    assert dice.remaining == 0
    return result.state, list(result.events)


def refused(state: GraspBattle, *orders: GraspOrder) -> BattleError:
    with pytest.raises(BattleError) as caught:
        ENGINE.step(state=state, orders=list(orders), dice=FixedDice([]))
    return caught.value


def where(state: GraspBattle, uid: str) -> str:
    return format_label(state.unit(uid).pos)


def to_fire(state: GraspBattle) -> GraspBattle:
    """Both sides done with markers (nobody has one): the fire step."""
    state, _ = act(state, [], *[cmd(s, "done") for s in state.phasing])
    assert state.step == "fire"
    return state


def to_combat(state: GraspBattle) -> GraspBattle:
    state, _ = act(to_fire(state), [], *[cmd(s, "done") for s in state.phasing])
    assert state.step == "combat"
    return state


WEST = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)]
EAST = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "J4", FOOT, "NW")]


# --- deployment, pips, phasing --------------------------------------------------------------


def test_start_rolls_each_sides_pips_and_the_highest_phases_first():
    result = ENGINE.start(scenario={"map": {"cols": 12, "rows": 8}, "sides": [
        {"name": "West", "edge": "W", "units": WEST},
        {"name": "East", "edge": "E", "units": EAST}]}, settings={}, dice=FixedDice([2, 5]))
    state = result.state
    assert [e.text for e in result.events] == [
        "4 units deployed on a 12 × 8 map (1 MU a hex).", "Turn 1.", "West rolls 2 pips.",
        "East rolls 5 pips.", "Phasing order: East, West."]
    assert (state.phasing, acting_sides(state), state.side("East").pips) == (
        ("East", "West"), ("East",), 5)
    tied = begin(WEST, EAST, [4, 4])
    assert tied.phasing == ("West", "East")


@pytest.mark.parametrize(("change", "field", "message"), [
    (lambda s: s["sides"][0]["units"][1]["type"].update(fs="d6"),
     "scenario.sides[0].units[1].type", "A unit with a fire strength needs a fire range."),
    (lambda s: s["map"]["terrain"].update(C4="impassable"), "scenario.sides",
     "w-foot starts in impassable terrain at C4: a unit never starts there."),
    (lambda s: s["sides"][1]["units"][1].update(at="C4"), "scenario.sides",
     "e-foot and w-foot stand on one another: every unit has its own place."),
    (lambda s: s["sides"][0].update(edge="X"), "scenario.sides[0].edge",
     "must be one of N, S, W, E (got 'X')."),
])
def test_a_bad_scenario_is_refused_naming_the_field(change, field, message):
    import copy

    scen = {"map": {"cols": 12, "rows": 8, "terrain": {}},
            "sides": [{"name": "West", "edge": "W", "units": copy.deepcopy(WEST)},
                      {"name": "East", "edge": "E", "units": copy.deepcopy(EAST)}]}
    change(scen)
    with pytest.raises(InputError) as caught:
        ENGINE.start(scenario=scen, settings={}, dice=FixedDice([1, 1]))
    assert (caught.value.field, caught.value.message) == (field, message)


def test_the_state_survives_its_json_form_and_replays_identically():
    dice = SeededDice(seed="json")
    state = ENGINE.start(scenario=SCENARIO, settings={}, dice=dice).state
    for _ in range(14):
        state = ENGINE.step(state=state, orders=orders_for(state), dice=dice).state
    check_json_form(ENGINE, state, orders_for(state))


def test_only_the_phasing_side_acts_and_only_with_the_steps_orders():
    state = begin(WEST, EAST, [5, 2])
    error = refused(state, cmd("East", "done"))
    assert (error.field, error.rule, str(error)) == (
        "orders[0]", "turn", "East does not act now: West phases in the command step.")
    error = refused(state, cmd("West", "fire", unit="w-foot", target="e-foot"))
    assert str(error) == ("In the command step a side gives marker, enter, off_table, jam, "
                          "rally, extinguish, environment or recover orders or is done.")


# --- command markers and moves --------------------------------------------------------------


def test_a_marker_costs_one_pip_within_a_command_span_and_two_beyond():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT),
            unit("w-far", "B8", {**FOOT, "move": 2})]
    far_general = {**GENERAL, "command_range": 3}
    state = begin([{**west[0], "type": far_general}, west[1], west[2]], EAST, [3, 1])
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="F4"))
    assert (events[0].text, state.side("West").pips) == (
        "West places w-foot's marker at F4 (1 pip).", 2)
    state, events = act(state, [], cmd("West", "marker", unit="w-far", to="C8"))
    assert (events[0].text, state.side("West").pips) == (
        "West places w-far's marker at C8 (2 pips).", 0)
    error = refused(state, cmd("West", "marker", unit="w-general", to="B3"))
    assert (error.rule, str(error)) == ("pips", "West has 0 pips left; this marker costs 1.")


def test_smoke_between_halves_a_low_tech_command_span_but_not_a_high_tech_one():
    west = [unit("w-general", "B4", LOW_TECH), unit("w-foot", "G4", FOOT)]
    state = begin(west, EAST, [6, 1])
    smoky = replace(state, clouds=(Cloud(kind="smoke", at=parse_label("D4"),
                                         was=TerrainClass.GOOD),))
    _, events = act(state, [], cmd("West", "marker", unit="w-foot", to="H4"))
    assert events[0].text == "West places w-foot's marker at H4 (1 pip)."
    # 5 hexes away: within its span of 8, not within half of it.
    _, events = act(smoky, [], cmd("West", "marker", unit="w-foot", to="H4"))
    assert events[0].text == "West places w-foot's marker at H4 (2 pips)."
    high = replace(smoky, units=tuple(replace(u, type=replace(u.type, command_high_tech=True))
                                      if u.id == "w-general" else u for u in smoky.units))
    _, events = act(high, [], cmd("West", "marker", unit="w-foot", to="H4"))
    assert events[0].text == "West places w-foot's marker at H4 (1 pip)."


def test_units_move_toward_their_markers_paying_the_going_and_unused_pips_are_reserved():
    state = begin(WEST, EAST, [4, 1], terrain={"E3": "light", "E4": "light", "E5": "light"})
    state, events = act(state, [],  # fixed moves: no move die is rolled
                        cmd("West", "marker", unit="w-foot", to="H4"), cmd("West", "done"),
                        cmd("East", "done"))
    assert [e.text for e in events[1:3]] == ["West reserves 3 pips.", "East reserves 1 pip."]
    # 3 MU: D3 costs 1, E3 (light going: half move) costs 2.
    assert where(state, "w-foot") == "E3" and state.unit("w-foot").marker == parse_label("H4")
    assert events[-1].text == "w-foot moves 3 MU toward its marker at H4: C4 → D3 → E3."
    assert (state.step, state.side("West").reserved) == ("fire", 3)


@pytest.mark.parametrize(("specials", "text"), [
    ([], "w-foot spends its move turning toward its marker at B6, to face S (it turns at most "
         "60° a move)."),
    (["clumsy"], "w-foot spends its move turning toward its marker at B6, to face S (it turns "
                 "at most 60° a move)."),
    (["agile"], "w-foot moves 3 MU toward its marker at B6: E4 → D4 → C5 → B5.")])
def test_a_unit_turns_at_most_90_degrees_a_move_agile_180_clumsy_45_on_the_hex_map(
        specials, text):
    # Facing SE, its marker behind it: 60° (one hexside) is the nearest a hex map comes to
    # 90° and to 45°; 180° turns it right round.
    state = begin([unit("w-general", "B4", GENERAL),
                   unit("w-foot", "E4", {**FOOT, "specials": specials})], EAST, [5, 1])
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="B6"),
                        cmd("West", "done"), cmd("East", "done"))
    assert events[-1].text == text


@pytest.mark.parametrize(("specials", "text"), [
    ([], "spends its move turning toward its marker at (2, 6), to face [0, 1] (it turns at "
         "most 90° a move)."),
    (["clumsy"], "spends its move turning toward its marker at (2, 6), to face [1, 1] (it "
                 "turns at most 45° a move)."),
    (["agile"], "moves 3 MU toward its marker at (2, 6): (5, 4) → (2.51, 5.66).")])
def test_on_the_continuous_board_turns_are_exact_90_45_or_180_degrees(specials, text):
    state = plane([at("w-general", 1, 1, GENERAL),
                   at("w-foot", 5, 4, {**FOOT, "specials": specials})], PLANE_EAST, [5, 1])
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to=[2, 6]),
                        cmd("West", "done"), cmd("East", "done"))
    assert events[-1].text == f"w-foot {text}"


def test_a_low_tech_order_arrives_next_turn_and_is_acted_on_before_the_pips_are_rolled():
    west = [unit("w-general", "B4", LOW_TECH), unit("w-foot", "C4", FOOT)]
    state, events = act(begin(west, EAST, [4, 1]), [],
                        cmd("West", "marker", unit="w-foot", to="H4"), cmd("West", "done"),
                        cmd("East", "done"))
    assert (where(state, "w-foot"), state.unit("w-foot").marker_high_tech) == ("C4", False)
    assert not any(e.kind == "move" for e in events)
    state, events = act(state, [3, 2], *[cmd(s, "done") for s in ("West", "East")] * 2)
    turn = [e.text for e in events].index("Turn 2.")
    assert [e.text for e in events[turn:turn + 3]] == [
        "Turn 2.", "w-foot moves 3 MU toward its marker at H4: C4 → D3 → E3 → F3.",
        "West rolls 3 pips."]
    # A high-tech command's order is acted on at once, in the same turn.
    fast = begin([unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)], EAST, [4, 1])
    fast, events = act(fast, [], cmd("West", "marker", unit="w-foot", to="H4"),
                       cmd("West", "done"), cmd("East", "done"))
    assert (where(fast, "w-foot"), fast.unit("w-foot").marker_high_tech) == ("F3", True)


def test_a_unit_stops_on_contact_and_one_without_fatigue_does_not_close_in():
    state = begin(WEST, [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "F4", FOOT)],
                  [4, 1])
    moved, _ = act(state, [], cmd("West", "marker", unit="w-foot", to="H4"),
                   cmd("West", "done"), cmd("East", "done"))
    assert where(moved, "w-foot") == "F3"  # next to e-foot at F4: contact, it stops there
    tired = replace(state, units=tuple(replace(u, fatigue=None) if u.id == "w-foot" else u
                                       for u in state.units))
    held, events = act(tired, [], cmd("West", "marker", unit="w-foot", to="H4"),
                       cmd("West", "done"), cmd("East", "done"))
    assert where(held, "w-foot") == "C4"
    assert events[-1].text == "w-foot moves 3 MU toward its marker at H4: it cannot get closer."


@pytest.mark.parametrize(("facing", "passes"), [
    ("SE", True), ("NW", True), ("N", False), ("NE", False), ("S", False), ("SW", False)])
def test_a_unit_passes_through_a_friend_facing_its_way_or_the_opposite_way(facing, passes):
    # w-foot heads SE for H4; D4 is held by a friend facing across, D3 by one facing `facing`.
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT),
            unit("w-foot-2", "D3", FOOT, facing), unit("w-foot-3", "D4", FOOT, "N")]
    state, events = act(begin(west, EAST, [4, 1]), [],
                        cmd("West", "marker", unit="w-foot", to="H4"), cmd("West", "done"),
                        cmd("East", "done"))
    assert events[-1].text == (
        "w-foot moves 3 MU toward its marker at H4: C4 → D3 → E3 → F3 (passing through "
        "w-foot-2)." if passes else
        "w-foot moves 3 MU toward its marker at H4: it cannot get closer.")


def test_a_move_that_would_end_on_a_friend_ends_where_it_last_stood_free():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT),
            unit("w-foot-2", "E3", FOOT), unit("w-foot-3", "F3", FOOT),
            unit("w-block", "D4", FOOT, "N"), unit("w-block-2", "E4", FOOT, "N")]
    state, events = act(begin(west, EAST, [4, 1]), [],
                        cmd("West", "marker", unit="w-foot", to="H4"), cmd("West", "done"),
                        cmd("East", "done"))
    assert events[-1].text == "w-foot moves 3 MU toward its marker at H4: C4 → D3."


def test_small_units_pass_through_anyone_unless_shaken_and_anyone_passes_through_them():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", SCOUTS),
            unit("w-foot-2", "D3", FOOT, "N"), unit("w-foot-3", "D4", FOOT, "N")]
    state, events = act(begin(west, EAST, [4, 1]), [],
                        cmd("West", "marker", unit="w-foot", to="H4"), cmd("West", "done"),
                        cmd("East", "done"))
    assert events[-1].text == ("w-foot moves 6 MU toward its marker at H4: C4 → D3 → E3 → F3 → "
                               "G4 → H4 (passing through w-foot-2) (reached).")
    shaken = begin(west, EAST, [4, 1])
    shaken = replace(shaken, units=tuple(replace(u, fatigue=None) if u.id == "w-foot" else u
                                         for u in shaken.units))
    _, events = act(shaken, [], cmd("West", "marker", unit="w-foot", to="H4"),
                    cmd("West", "done"), cmd("East", "done"))
    assert events[-1].text == "w-foot moves 6 MU toward its marker at H4: it cannot get closer."
    # A friend facing across lets through a foot unit if the friend is small.
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT),
            unit("w-scouts", "D3", SCOUTS, "N"), unit("w-foot-3", "D4", FOOT, "N")]
    _, events = act(begin(west, EAST, [4, 1]), [],
                    cmd("West", "marker", unit="w-foot", to="H4"), cmd("West", "done"),
                    cmd("East", "done"))
    assert events[-1].text == ("w-foot moves 3 MU toward its marker at H4: C4 → D3 → E3 → F3 "
                               "(passing through w-scouts).")


# --- fire -----------------------------------------------------------------------------------


def test_fire_needs_range_and_the_arc_ahead_and_its_result_is_applied():
    west = [unit("w-general", "B4", GENERAL), unit("w-bows", "C4", ARCHERS)]
    state = to_fire(begin(west, [unit("e-general", "K4", GENERAL, "NW"),
                                 unit("e-foot", "H4", FOOT, "NW"),
                                 unit("e-side", "C7", FOOT, "N")], [5, 1]))
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-general"))
    assert (error.rule, str(error)) == (
        "fire", "w-bows cannot fire at e-general: it is 8 MU away, beyond its range of 6 MU.")
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-side"))
    assert str(error) == ("w-bows cannot fire at e-side: it is outside the 45° arc ahead of "
                          "w-bows (facing SE); only all-round fire reaches another arc.")
    state, events = act(state, [5, 2], cmd("West", "fire", unit="w-bows", target="e-foot"))
    foot = state.unit("e-foot")
    assert (foot.fatigue, where(state, "e-foot")) == (DieLevel.D4, "I5")  # straight away
    assert events[0].text.startswith("w-bows fires at e-foot: firer: w-bows d6 rolled [5]")
    assert events[1].text == "e-foot recoils to I5."
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-foot"))
    assert str(error) == "w-bows has already fired this turn."


def test_all_round_fire_reaches_a_second_arc_one_die_less():
    bows = {**ARCHERS, "specials": ["all_round"]}
    state = to_fire(begin([unit("w-general", "B4", GENERAL), unit("w-bows", "C4", bows)],
                          [unit("e-general", "K4", GENERAL, "NW"),
                           unit("e-side", "C7", FOOT, "N")], [5, 1]))
    state, events = act(state, [4, 1], cmd("West", "fire", unit="w-bows", target="e-side"))
    assert events[0].text.startswith("w-bows fires at e-side from its second arc (one die "
                                     "less): firer: w-bows d4 rolled [4]")


def test_area_fire_strikes_every_unit_within_1_mu_of_the_target_each_on_its_own_roll():
    mortar = {**ARCHERS, "specials": ["area_fire"]}
    east = [unit("e-general", "K1", GENERAL, "NW"), unit("e-a", "H4", FOOT, "NW"),
            unit("e-b", "H5", FOOT, "NW"), unit("e-far", "H7", FOOT, "NW")]
    state = to_fire(begin([unit("w-general", "B4", GENERAL), unit("w-mortar", "C4", mortar)],
                          east, [5, 1]))
    state, events = act(state, [5, 2, 1, 6], cmd("West", "fire", unit="w-mortar",
                                                 target="e-a"))
    shots = [e.text.split(":")[0] for e in events if e.kind == "fire"]
    assert shots == ["w-mortar fires at e-a", "w-mortar fires at e-b (area fire)"]
    assert (state.unit("e-a").fatigue, state.unit("e-b").fatigue,
            state.unit("e-far").fatigue) == (DieLevel.D4, DieLevel.D6, DieLevel.D6)


def test_continuous_fire_strikes_every_unit_on_the_line_before_the_target():
    gun = {**ARCHERS, "specials": ["continuous_fire"]}
    east = [unit("e-general", "K1", GENERAL, "NW"), unit("e-near", "E4", FOOT, "NW"),
            unit("e-target", "G4", FOOT, "NW")]
    state = to_fire(begin([unit("w-general", "B4", GENERAL), unit("w-gun", "C4", gun)],
                          east, [5, 1]))
    state, events = act(state, [5, 1, 5, 1], cmd("West", "fire", unit="w-gun",
                                                 target="e-target"))
    assert [e.text.split(":")[0] for e in events if e.kind == "fire"] == [
        "w-gun fires at e-near (continuous fire)", "w-gun fires at e-target"]


# --- close combat ---------------------------------------------------------------------------


def test_close_combat_needs_contact_and_a_reserved_pip_needs_a_command_unit_in_contact():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "F4", FOOT, "NW"),
            unit("e-far", "H7", FOOT, "NW")]
    state = to_combat(begin(west, east, [5, 1]))
    error = refused(state, cmd("West", "fight", unit="w-foot", target="e-far"))
    assert (error.rule, str(error)) == ("combat", "w-foot is not in contact with e-far.")
    error = refused(state, cmd("West", "fight", unit="w-foot", target="e-foot",
                               command_pip=True))
    assert (error.rule, str(error)) == (
        "pips", "A reserved pip modifies the roll only of a unit in contact with a command "
        "unit (in its command range if high tech).")
    state, events = act(state, [6, 2], cmd("West", "fight", unit="w-foot", target="e-foot"))
    assert (state.unit("e-foot").fatigue, where(state, "e-foot")) == (DieLevel.D4, "G5")
    assert events[1].text == "e-foot recoils to G5."  # on from w-foot's side through F4


def test_an_impetuous_winner_follows_a_recoiling_enemy_unless_a_reserved_pip_holds_it():
    knights = {**FOOT, "specials": ["impetuous"]}
    west = [unit("w-general", "D4", GENERAL), unit("w-knights", "E4", knights)]
    east = [unit("e-general", "K1", GENERAL, "NW"), unit("e-foot", "F4", FOOT, "NW")]
    state = to_combat(begin(west, east, [5, 1]))
    followed, events = act(state, [6, 2], cmd("West", "fight", unit="w-knights",
                                              target="e-foot"))
    assert where(followed, "e-foot") == "G5"
    assert events[-1].text == ("w-knights follows impetuously into F4, in contact with e-foot "
                               "again.")
    held, events = act(state, [6, 2], cmd("West", "fight", unit="w-knights", target="e-foot",
                                          hold=True))
    assert (where(held, "w-knights"), events[-1].text) == (
        "E4", "West holds w-knights with a reserved pip.")
    assert held.side("West").reserved == state.side("West").reserved - 1


# --- flight, capture, resupply --------------------------------------------------------------


def test_a_destroyed_big_unit_leaves_its_wreck_as_difficult_going():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", {**FOOT, "cc": "d8"})]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-knights", "F4", KNIGHTS, "NW")]
    state = to_combat(begin(west, east, [6, 1]))
    # d8 rolls 8; the knights (big: the best of three d6 here) roll 1s: destroyed; the
    # wreck's level d6 = 4 (medium).
    state, events = act(state, [8, 1, 1, 1, 4],
                        cmd("West", "fight", unit="w-foot", target="e-knights"))
    assert events[0].text.endswith("e-knights is destroyed; e-knights is left on table as "
                                   "difficult going blocking line of sight to medium level "
                                   "(d6 = 4).")
    assert [e.text for e in events[1:]] == [
        "e-knights was destroyed.",
        "The wreck of e-knights is left at F4: difficult going from now on."]
    assert state.field.going(parse_label("F4")) is TerrainClass.DIFFICULT
    assert ENGINE.to_json(state)["map"]["terrain"] == {"F4": "difficult"}
    # On the continuous board the wreck is the square its base covered.
    plain = plane([at("w-general", 1, 1, GENERAL), at("w-foot", 5, 4, {**FOOT, "cc": "d8"})],
                  [*PLANE_EAST, at("e-knights", 6, 4, KNIGHTS, [-1, 0])], [6, 1])
    plain, events = act(to_combat(plain), [8, 1, 1, 1, 4],
                        cmd("West", "fight", unit="w-foot", target="e-knights"))
    assert events[-1].text == "The wreck of e-knights is left at (6, 4): difficult going from now on."
    assert ENGINE.to_json(plain)["map"]["terrain"] == [
        {"going": "difficult", "polygon": [["11/2", "7/2"], ["13/2", "7/2"], ["13/2", "9/2"],
                                           ["11/2", "9/2"]]}]


FLYER = {"cc": "d6", "fatigue": "d6", "move": 4, "specials": ["flyer"]}
MOLES = {"cc": "d6", "fatigue": "d6", "move": 2, "specials": ["tunneller"]}


def aloft(uid: str, where: str, kind: dict[str, Any], level: str, facing: str = "SE"
          ) -> dict[str, Any]:
    return {**unit(uid, where, kind, facing), "level": level}


def test_a_marker_may_send_a_flyer_up_or_down_one_level_a_move_over_the_units_below():
    west = [unit("w-general", "B4", GENERAL), aloft("w-hawk", "C4", FLYER, "near_flying"),
            unit("w-foot", "D3", FOOT, "N")]
    state, events = act(begin(west, EAST, [6, 1]), [],
                        cmd("West", "marker", unit="w-hawk", to="H4", level="distant_flying"),
                        cmd("West", "done"), cmd("East", "done"))
    assert [events[0].text, events[-1].text] == [
        "West places w-hawk's marker at H4, distant_flying (1 pip).",
        "w-hawk moves 4 MU toward its marker at H4: C4 → D3 → E3 → F3 → G4 (passing over "
        "w-foot); it climbs to medium_flying."]
    hawk = state.unit("w-hawk")
    assert (hawk.level, hawk.marker_level) == (Level.MEDIUM_FLYING, Level.DISTANT_FLYING)
    assert ENGINE.from_json(ENGINE.to_json(state)) == state
    # Only flyers go up, only tunnellers down; a level is one of the seven.
    error = refused(begin(west, EAST, [6, 1]),
                    cmd("West", "marker", unit="w-foot", to="H4", level="near_flying"))
    assert (error.rule, error.field, str(error)) == (
        "levels", "orders[0].level", "w-foot: only a flyer goes above the surface "
        "(near_flying).")
    error = refused(begin(west, EAST, [6, 1]),
                    cmd("West", "marker", unit="w-hawk", to="H4", level="orbital"))
    assert error.field == "orders[0].level" and str(error).startswith("A level is one of ")
    with pytest.raises(InputError) as bad:
        begin([unit("w-general", "B4", GENERAL), aloft("w-mole", "C4", FOOT, "near_below")],
              EAST, [6, 1])
    assert (bad.value.field, bad.value.message) == (
        "scenario.sides[0].units[1].level", "only a tunneller or a swimmer goes below the "
        "surface (near_below).")


def test_a_flyer_without_fatigue_goes_down_a_level_a_turn_at_1_5_times_its_move():
    west = [unit("w-general", "B4", GENERAL), aloft("w-hawk", "C4", FLYER, "medium_flying"),
            aloft("w-kite", "C6", FLYER, "near_flying")]
    state = begin(west, EAST, [6, 1])
    state = replace(state, units=tuple(replace(u, fatigue=None) if u.id.startswith("w-h")
                                       or u.id == "w-kite" else u for u in state.units))
    state, events = act(state, [], cmd("West", "marker", unit="w-hawk", to="K2"),
                        cmd("West", "done"), cmd("East", "done"))
    # Without a marker w-kite still goes down; w-hawk (a fixed 4 MU) goes down a level in
    # good going at 1.5 × its move.
    assert [e.text for e in events if e.kind in ("level", "move")] == [
        "w-kite, without fatigue, descends to surface.",
        "w-hawk moves 6 MU (1.5 × going down) toward its marker at K2: C4 → D3 → E3 → F2 → "
        "G2 → H1 → I1; it descends to near_flying."]


def test_close_combat_is_between_units_at_one_level_and_fire_between_levels_needs_range():
    west = [unit("w-general", "B4", GENERAL), aloft("w-hawk", "E4", FLYER, "near_flying"),
            unit("w-bows", "E6", ARCHERS)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "F4", FOOT, "NW"),
            aloft("e-kite", "F6", FLYER, "medium_flying", "NW")]
    state = to_combat(begin(west, east, [6, 1]))
    error = refused(state, cmd("West", "fight", unit="w-hawk", target="e-foot"))
    assert (error.rule, str(error)) == (
        "levels", "w-hawk (near_flying) and e-foot (surface) are at different levels: close "
        "combat is between units at one level.")
    # Bows (fire range 6 MU) reach two levels up (6 needed): the range test is in the text.
    state = to_fire(begin(west, east, [6, 1]))
    _, events = act(state, [4, 2], cmd("West", "fire", unit="w-bows", target="e-kite"))
    assert "range test: 2 level(s) apart needs 6; fire range 6 MU reaches" in events[0].text
    short = {**ARCHERS, "fire_range": 3}
    west_short = [unit("w-general", "B4", GENERAL), unit("w-bows", "E6", short)]
    state = to_fire(begin(west_short, east, [6, 1]))
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-kite"))
    assert (error.rule, str(error)) == ("levels", "w-bows cannot fire at e-kite: fire range 3 "
                                        "MU does not reach 6.")


def test_a_tunneller_below_is_shot_two_die_levels_less_near_the_surface_and_not_deeper():
    west = [unit("w-general", "B4", GENERAL), unit("w-bows", "E6", {**ARCHERS, "fs": "d8"})]
    near = [unit("e-general", "K4", GENERAL, "NW"), aloft("e-mole", "F6", MOLES, "near_below")]
    state = to_fire(begin(west, near, [6, 1]))
    _, events = act(state, [4, 2], cmd("West", "fire", unit="w-bows", target="e-mole"))
    assert events[0].text.startswith("w-bows fires at e-mole: w-bows fires at a near-surface "
                                     "tunneller two die levels less: d8 → d4")
    deep = [near[0], aloft("e-mole", "F6", MOLES, "medium_below")]
    error = refused(to_fire(begin(west, deep, [6, 1])),
                    cmd("West", "fire", unit="w-bows", target="e-mole"))
    assert str(error) == ("w-bows cannot fire at e-mole: e-mole is tunnelling below "
                          "near-surface level: only other tunnellers may fire at it.")


SMOKERS = {**ARCHERS, "specials": ["smoke"]}
FIRE_RAISERS = {**ARCHERS, "specials": ["fires"]}
MORTAR = {**ARCHERS, "fire": "indirect", "specials": ["smoke"]}


def marked_g6(west: list[dict[str, Any]], east: list[dict[str, Any]]) -> GraspBattle:
    """West's foot marched toward its marker at G6 (still marked): the fire step."""
    state, _ = act(begin(west, east, [6, 1]), [],
                   cmd("West", "marker", unit="w-foot", to="G6"), cmd("West", "done"),
                   cmd("East", "done"))
    assert state.step == "fire" and state.unit("w-foot").marker == parse_label("G6")
    return state


def test_smoke_fired_at_a_marked_place_is_difficult_going_blocks_sight_and_clears():
    west = [unit("w-general", "B4", GENERAL), unit("w-smoke", "D4", SMOKERS),
            unit("w-foot", "C6", FOOT)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-bows", "I6", ARCHERS, "NW")]
    state = marked_g6(west, east)
    error = refused(state, cmd("West", "fire", unit="w-smoke", to="H6", lay="smoke"))
    assert (error.rule, str(error)) == ("fires", "Smoke is fired at a place one of West's "
                                        "command markers marks, not H6.")
    error = refused(state, cmd("West", "fire", unit="w-foot", to="G6", lay="smoke"))
    assert str(error) == "w-foot has no smoke special: it cannot lay smoke."
    state, events = act(state, [], cmd("West", "fire", unit="w-smoke", to="G6", lay="smoke"))
    assert [e.text for e in events] == ["w-smoke fires smoke at G6.", "Smoke covers G6."]
    assert state.field.going(parse_label("G6")) is TerrainClass.DIFFICULT
    assert ENGINE.to_json(state)["clouds"] == [{"kind": "smoke", "at": "G6", "was": "good"}]
    assert ENGINE.from_json(ENGINE.to_json(state)) == state
    state, _ = act(state, [], cmd("West", "done"))
    error = refused(state, cmd("East", "fire", unit="e-bows", target="w-foot"))
    assert str(error) == ("e-bows cannot fire at w-foot: the smoke at G6 blocks the line of "
                          "sight (only indirect fire shoots over it).")
    # Next turn the smoke clears as the fire step begins (step 6).
    state, _ = act(state, [1, 6], cmd("East", "done"), cmd("West", "done"),
                   cmd("East", "done"))
    state, events = act(state, [], cmd("East", "done"), cmd("West", "done"))
    assert events[-1].text == "The smoke clears from G6."
    assert (state.clouds, state.field.going(parse_label("G6"))) == ((), TerrainClass.GOOD)


def test_unspotted_indirect_smoke_misses_on_an_odd_score_and_falls_before_the_firer():
    west = [unit("w-general", "B4", GENERAL, "N"), unit("w-mortar", "D6", MORTAR),
            unit("w-foot", "C6", FOOT)]
    state = marked_g6(west, [unit("e-general", "K4", GENERAL, "NW")])
    _, events = act(state, [3], cmd("West", "fire", unit="w-mortar", to="G6", lay="smoke"))
    assert [e.text for e in events] == [
        "w-mortar fires smoke at G6 (unspotted: 3, odd, a miss): it falls in front of the "
        "firer.", "Smoke covers E7."]
    _, events = act(state, [4], cmd("West", "fire", unit="w-mortar", to="G6", lay="smoke"))
    assert events[-1].text == "Smoke covers G6."


def test_a_fire_started_on_a_unit_fights_it_with_a_d6_and_is_put_out_with_a_d4():
    west = [unit("w-general", "B4", GENERAL), unit("w-fire", "D4", FIRE_RAISERS),
            unit("w-foot", "C6", FOOT)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "G6", FOOT, "NW")]
    state, events = act(marked_g6(west, east), [6, 2],
                        cmd("West", "fire", unit="w-fire", to="G6", lay="fire"))
    assert [e.text for e in events] == [
        "w-fire fires to start a fire at G6.", "A fire covers G6.",
        "The fire starts: the fire at G6 engages e-foot: attacker: the fire at G6 d6 rolled "
        "[6] kept 6 = 6 → total 6; defender: e-foot d6 rolled [2] kept 2 = 2 → total 2; the "
        "fire at G6 wins and doubles its opponent; e-foot: fatigue d6 → d4; e-foot recoils "
        "1 MU.", "e-foot recoils to G5."]
    # A fire burns on (no clearing); next turn e-foot, next to it, puts it out.
    state, _ = act(state, [1, 6], cmd("West", "done"), cmd("East", "done"),
                   cmd("West", "done"), cmd("East", "done"))
    assert [c.kind for c in state.clouds] == ["fire"]
    state, events = act(state, [2, 4], cmd("East", "extinguish", unit="e-foot"))
    assert [e.text for e in events] == [
        "e-foot fights the fire at G6: the fire at G6 engages e-foot: attacker: the fire at G6 "
        "d4 rolled [2] kept 2 = 2 → total 2; defender: e-foot d6 rolled [4] kept 4 = 4 → "
        "total 4; e-foot wins and doubles its opponent.", "e-foot puts out the fire at G6."]
    assert (state.clouds, state.tending) == ((), ("e-foot",))
    assert state.field.going(parse_label("G6")) is TerrainClass.GOOD
    error = refused(state, cmd("East", "marker", unit="e-foot", to="C4"))
    assert str(error) == "e-foot is putting out a fire this turn and does nothing else."
    error = refused(state, cmd("East", "extinguish", unit="e-general"))
    assert str(error) == "e-general is not on or next to a fire."


def test_minus_tech_guns_leave_smoke_ahead_and_a_maximal_roll_in_dry_weather_starts_a_fire():
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "H5", FOOT, "NW")]
    muskets = {**ARCHERS, "fs": "<2d6"}
    state = to_fire(begin([unit("w-general", "B4", GENERAL), unit("w-musket", "E4", muskets)],
                          east, [6, 1]))
    _, events = act(state, [3, 4, 2], cmd("West", "fire", unit="w-musket", target="e-foot"))
    assert events[-1].text == "w-musket fires −Tech: smoke covers F4."
    dry = ENGINE.start(scenario={"map": {"cols": 12, "rows": 8}, "conditions": "dry", "sides": [
        {"name": "West", "edge": "W", "units": [unit("w-general", "B4", GENERAL),
                                                unit("w-bows", "E4", ARCHERS)]},
        {"name": "East", "edge": "E", "units": east}]}, settings={},
        dice=FixedDice([6, 1])).state
    # 6 on the d6: the maximum; the d6 for the fire, 5: on the target, where it recoiled.
    _, events = act(to_fire(dry), [6, 2, 5, 3, 4],
                    cmd("West", "fire", unit="w-bows", target="e-foot"))
    assert [e.text for e in events[1:4]] == [
        "e-foot recoils to I6.",
        "w-bows rolled its damage die's maximum in dry conditions: an accidental fire (d6 = 5) "
        "at I6.", "A fire covers I6."]
    assert events[-1].text.startswith("The fire starts: the fire at I6 engages e-foot")


TANK = {**FOOT, "specials": ["vehicle"]}


@pytest.mark.parametrize(("facing", "text"), [
    ("NW", ["w-tank rams e-foot in front: rammer (front: lower of two CC dice): w-tank d6 "
            "rolled [5, 2] kept 2 +4 (1d6 (medium) [4]) = 6 → total 6; target: e-foot d6 "
            "rolled [3] kept 3 +1 (1d6 (medium) [1]) = 4 → total 4; w-tank wins; e-foot: "
            "fatigue d6 → d4; e-foot: fatigue d4 → none; e-foot recoils 1 MU.",
            "e-foot recoils to G5."]),
    ("SE", ["w-tank rams e-foot in the side or rear: rammer (side or rear: higher of two CC "
            "dice): w-tank d6 rolled [5, 2] kept 5 +4 (1d6 (medium) [4]) = 9 → total 9; "
            "target: e-foot d6 rolled [3] kept 3 +1 (1d6 (medium) [1]) = 4 → total 4; w-tank "
            "wins and doubles its opponent; e-foot is destroyed.", "e-foot was destroyed."])])
def test_a_vehicle_rams_with_its_cc_plus_a_d6_and_the_loser_loses_one_die_more(facing, text):
    west = [unit("w-general", "B4", GENERAL), unit("w-tank", "E4", TANK)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "F4", FOOT, facing)]
    state = to_combat(begin(west, east, [6, 1]))
    _, events = act(state, [5, 2, 4, 3, 1], cmd("West", "fight", unit="w-tank",
                                                target="e-foot", ram=True))
    assert [e.text for e in events] == text
    foot = to_combat(begin([unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)],
                           east, [6, 1]))
    error = refused(foot, cmd("West", "fight", unit="w-foot", target="e-foot", ram=True))
    assert (error.rule, error.field, str(error)) == (
        "ram", "orders[0].ram", "w-foot is neither a vehicle nor an assault unit: it cannot "
        "ram.")


def test_a_doubled_vehicle_is_boarded_fought_aboard_and_captured_without_fatigue():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-tank", "F4", TANK, "NW")]
    state = to_combat(begin(west, east, [6, 1]))
    state, events = act(state, [6, 2], cmd("West", "fight", unit="w-foot", target="e-tank",
                                           board=True))
    assert [e.text for e in events[1:]] == [
        "e-tank recoils to G5.",
        "w-foot boards e-tank: the fight goes on aboard, wherever it goes."]
    assert [(w.id, w.aboard) for w in state.waiting] == [("w-foot", "e-tank")]
    assert ENGINE.to_json(state)["sides"][0]["waiting"][0]["aboard"] == "e-tank"
    assert ENGINE.from_json(ENGINE.to_json(state)) == state
    # At the end of the combat step the boarders fight the crew; without fatigue it is taken.
    state, events = act(state, [5, 1, 3, 3], cmd("West", "done"), cmd("East", "done"))
    assert [e.text for e in events[2:5]] == [
        "Aboard e-tank: w-foot fights its crew (nobody recoils aboard): attacker: w-foot d6 "
        "rolled [5] kept 5 = 5 → total 5; defender: e-tank d6 rolled [1] kept 1 = 1 → total "
        "1; w-foot wins and doubles its opponent; e-tank: fatigue d4 → none.",
        "e-tank, without fatigue, is captured by West's boarders: it now fights for West.",
        "The boarding action ends: w-foot comes back at F4."]
    assert (state.unit("e-tank").side, state.seized, where(state, "w-foot")) == (
        "West", ("e-tank",), "F4")
    # East lost the tank's whole cost; West's points do not count the damage it came with.
    assert points_lost(state, "East") == 15 and points_lost(state, "West") == 0
    # Foot is not boarded.
    foot = to_combat(begin(west, [east[0], unit("e-foot", "F4", FOOT, "NW")], [6, 1]))
    _, events = act(foot, [6, 2], cmd("West", "fight", unit="w-foot", target="e-foot",
                                      board=True))
    assert events[-1].text == ("w-foot does not board: only a vehicle or carrier that is not "
                               "small is boarded.")


def test_supporting_units_board_too_and_all_come_back_when_the_crew_wins():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT),
            unit("w-foot-2", "F5", FOOT, "N")]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-tank", "F4", TANK, "NW")]
    state = to_combat(begin(west, east, [6, 1]))
    state, events = act(state, [6, 1, 2], cmd("West", "fight", unit="w-foot", target="e-tank",
                                              supports=["w-foot-2"], board=True))
    assert events[-1].text == ("w-foot and w-foot-2 board e-tank: the fight goes on aboard, "
                               "wherever it goes.")
    state, events = act(state, [1, 2, 6, 3, 3], cmd("West", "done"), cmd("East", "done"))
    assert [e.text for e in events[2:5]] == [
        "Aboard e-tank: w-foot and w-foot-2 fight its crew (nobody recoils aboard): attacker: "
        "w-foot d6 rolled [1] kept 1 = 1; w-foot-2 d6 rolled [2] kept 2 = 2; best: w-foot-2 → "
        "total 2; defender: e-tank d6 rolled [6] kept 6 = 6 → total 6; e-tank wins and doubles "
        "its opponent; w-foot: fatigue d6 → d4.",
        "The boarding action ends: w-foot comes back at F4.",
        "The boarding action ends: w-foot-2 comes back at F5."]
    assert (state.unit("e-tank").side, state.waiting) == ("East", ())
    assert state.unit("w-foot").fatigue == DieLevel.D4


SKIRMISHERS = {**FOOT, "specials": ["skirmisher"]}


def test_after_a_combat_not_lost_a_unit_may_pass_through_a_loose_enemy():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-skirm", "F4", SKIRMISHERS, "NW")]
    state = to_combat(begin(west, east, [6, 1]))
    drawn, events = act(state, [3, 3], cmd("West", "fight", unit="w-foot", target="e-skirm",
                                           through=True))
    assert events[-1].text == "w-foot passes through the loose e-skirm to G5."
    assert (where(drawn, "w-foot"), where(drawn, "e-skirm")) == ("G5", "F4")
    # Lost: no passing (it recoils instead).
    _, events = act(state, [2, 3], cmd("West", "fight", unit="w-foot", target="e-skirm",
                                       through=True))
    assert events[-1].text == "w-foot lost the combat: it does not pass through."
    # Skirmishers are always loose, but the hex beyond must be free.
    blocked = to_combat(begin(west, [*east, unit("e-rear", "G5", FOOT, "NW")], [6, 1]))
    _, events = act(blocked, [3, 3], cmd("West", "fight", unit="w-foot", target="e-skirm",
                                         through=True))
    assert events[-1].text == "w-foot finds no room beyond e-skirm and stays."
    # Foot with a friend right behind it is in close order: not passed through.
    closed = to_combat(begin(west, [unit("e-general", "K4", GENERAL, "NW"),
                                    unit("e-foot", "F4", FOOT, "NW"),
                                    unit("e-rear", "G5", FOOT, "NW")], [6, 1]))
    # 5 against 3 + 2 (close order): a draw.
    _, events = act(closed, [5, 3], cmd("West", "fight", unit="w-foot", target="e-foot",
                                           through=True))
    assert events[-1].text == "e-foot is in close order: nobody passes through it."
    # On the continuous board it stops once clear of the enemy's base, on the line.
    pl = plane([at("w-general", 1, 1, GENERAL), at("w-foot", 5, 4, FOOT)],
               [*PLANE_EAST, at("e-skirm", 6, "9/2", SKIRMISHERS, [-1, 0])], [6, 1])
    pl, events = act(to_combat(pl), [3, 3], cmd("West", "fight", unit="w-foot",
                                                target="e-skirm", through=True))
    assert events[-1].text == "w-foot passes through the loose e-skirm to (6.9, 4.95)."
    assert pl.unit("w-foot").pos == Point(Fraction(69, 10), Fraction(99, 20))
    assert not pl.field.overlap(pl.unit("w-foot").pos, pl.unit("e-skirm").pos)


def test_a_unit_without_fatigue_that_passes_the_flee_test_flees_toward_its_edge():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)]
    east = [unit("e-foot", "F4", FOOT, "NW")]  # no command unit within 10 MU to run to
    state = to_combat(begin(west, east, [5]))
    state = replace(state, units=tuple(replace(u, fatigue=None) if u.id == "e-foot" else u
                                       for u in state.units))
    state, events = act(state, [4, 6, 2, 3],
                        cmd("West", "fight", unit="w-foot", target="e-foot"))
    flight = next(e for e in events if e.kind == "flee")
    assert flight.text == "e-foot flees 3 MU toward its E edge: F4 → G4 → H3 → I3."
    assert state.unit("e-foot").fleeing


def test_a_fleeing_unit_with_two_enemies_in_contact_is_captured():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT),
            unit("w-foot-2", "F5", FOOT)]
    east = [unit("e-foot", "F4", FOOT, "NW"), unit("e-rear", "L8", FOOT, "NW")]
    state = to_combat(begin(west, east, [5]))
    state = replace(state, units=tuple(replace(u, fatigue=None) if u.id == "e-foot" else u
                                       for u in state.units))
    state, events = act(state, [4, 6, 2, 3],
                        cmd("West", "fight", unit="w-foot", target="e-foot"))
    assert [e.text for e in events if e.kind == "captured"] == [
        "e-foot tries to flee but enemies are already in contact: it is captured."]
    assert dict(state.gone)["e-foot"] == "was captured"
    assert state.side("East").lost == 15  # its whole cost: CC d6 6 + move 3 MU + fatigue d6 6


def test_a_supply_unit_next_to_a_tired_friend_resupplies_it_at_the_turns_start():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT),
            unit("w-wagon", "C5", WAGON)]
    state = begin(west, EAST, [5, 1])
    state = replace(state, units=tuple(replace(u, fatigue=DieLevel.D4) if u.id == "w-foot"
                                       else u for u in state.units))
    state, events = act(state, [3, 3], cmd("West", "marker", unit="w-general", to="B3"),
                        *[cmd(s, "done") for s in ("West", "East")] * 3)
    assert "w-wagon resupplies w-foot to d6; it is down to d8." in [e.text for e in events]
    assert state.unit("w-foot").fatigue is DieLevel.D6


# --- reserves, off-table, teleport, elite, green ------------------------------------------


def test_a_reserve_comes_on_at_the_base_edge_on_a_pip_score_of_six():
    west = [*WEST, {"id": "w-late", "at": None, "facing": "SE", "type": FOOT}]
    state = begin(west, EAST, [5, 1])
    assert [w.id for w in state.waiting] == ["w-late"]
    error = refused(state, cmd("West", "enter", unit="w-late", to="A2"))
    assert (error.rule, str(error)) == (
        "reserves", "West rolled 5 pips: reserves come on with a pip score of 6 or more "
        "(with pip dice that cannot reach it, their maximum last turn and 3 or more now).")
    big = replace(state, sides=tuple(replace(s, rolled=6, pips=6) if s.name == "West" else s
                                     for s in state.sides))
    error = refused(big, cmd("West", "enter", unit="w-late", to="C2"))
    assert str(error) == "w-late comes on at a free place of West's W edge, not C2."
    state, events = act(big, [], cmd("West", "enter", unit="w-late", to="A2"))
    assert (where(state, "w-late"), state.waiting, state.side("West").pips) == ("A2", (), 5)
    assert events[0].text == "w-late comes on at A2 (West rolled 6 pips; 1 pip)."


def test_with_only_a_d4_for_pips_reserves_need_a_4_then_3_or_more():
    d4 = {**GENERAL, "pips": "d4"}
    west = [unit("w-general", "B4", d4), {"id": "w-late", "at": None, "facing": "SE",
                                          "type": FOOT}]
    state = begin(west, EAST, [3, 1])
    lucky = replace(state, sides=tuple(replace(s, rolled_before=4) if s.name == "West" else s
                                       for s in state.sides))
    state, _ = act(lucky, [], cmd("West", "enter", unit="w-late", to="A3"))
    assert where(state, "w-late") == "A3"


def test_a_reserve_may_be_reallocated_off_table_for_a_pip():
    west = [*WEST, {"id": "w-late", "at": None, "facing": "SE", "type": FOOT}]
    state, events = act(begin(west, EAST, [2, 1]), [],
                        cmd("West", "off_table", unit="w-late"))
    assert state.waiting[0].off_table and state.side("West").pips == 1
    error = refused(state, cmd("West", "enter", unit="w-late", to="A2"))
    assert str(error) == "West has no unit 'w-late' in reserve."


GUNS = {**ARCHERS, "fire": "indirect"}


def off_table_guns(pips: int, east: list[dict[str, Any]] | None = None) -> GraspBattle:
    """West's indirect-fire guns reallocated off-table; the fire step of turn 1."""
    west = [*WEST, {"id": "w-guns", "at": None, "facing": "SE", "type": GUNS}]
    east = east or [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "E4", FOOT, "NW"),
                    unit("e-bows", "F6", ARCHERS, "NW")]
    state, _ = act(begin(west, east, [pips, 1]), [],
                   cmd("West", "off_table", unit="w-guns"), cmd("West", "done"),
                   cmd("East", "done"))
    assert state.step == "fire"
    return state


def test_off_table_fire_is_called_for_on_a_pip_score_of_6_and_measured_from_the_base_edge():
    state, events = act(off_table_guns(6), [5, 2],
                        cmd("West", "fire", unit="w-guns", target="e-foot"))
    assert [e.text for e in events] == [
        "w-guns fires from off-table at e-foot: firer: w-guns d6 rolled [5] kept 5 = 5 → total "
        "5; target: e-foot d6 rolled [2] kept 2 = 2 → total 2; w-guns wins and doubles its "
        "opponent; e-foot: fatigue d6 → d4; e-foot recoils 1 MU.",
        "e-foot recoils to F4."]
    assert state.acted == ("w-guns",)
    error = refused(state, cmd("West", "fire", unit="w-guns", target="e-bows"))
    assert str(error) == "w-guns has already fired this turn."
    # A pip score under 6 cannot call for it.
    error = refused(off_table_guns(5), cmd("West", "fire", unit="w-guns", target="e-foot"))
    assert (error.rule, error.field, str(error)) == (
        "off-table", "orders[0].unit", "West rolled 5 pips: calling for off-table fire needs a "
        "pip score of 6 or more (with pip dice that cannot reach it, their maximum last turn "
        "and 3 or more now).")
    # 6 MU from the W edge: e-far in column I is 8 hexes from column A.
    far = off_table_guns(6, [unit("e-general", "K4", GENERAL, "NW"),
                             unit("e-far", "I4", FOOT, "NW")])
    error = refused(far, cmd("West", "fire", unit="w-guns", target="e-far"))
    assert str(error) == ("w-guns cannot fire at e-far: it is 8 MU from West's W edge, beyond "
                          "its range of 6 MU.")


def test_off_table_fire_must_be_indirect_and_unspotted_indirect_fire_hits_on_evens_only():
    west = [*WEST, {"id": "w-bows", "at": None, "facing": "SE", "type": ARCHERS}]
    state, _ = act(begin(west, EAST, [6, 1]), [], cmd("West", "off_table", unit="w-bows"),
                   cmd("West", "done"), cmd("East", "done"))
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-foot"))
    assert (error.rule, str(error)) == ("off-table", "w-bows fires from off-table only with "
                                        "indirect fire (the source treats and costs off-table "
                                        "fire as indirect).")
    # e-foot behind West's general (facing NW, away from it): unspotted; a 5 misses.
    state = off_table_guns(6)
    state = replace(state, units=tuple(replace(u, facing=Direction.NW) if u.id == "w-general"
                                       else u for u in state.units))
    state, events = act(state, [5, 2], cmd("West", "fire", unit="w-guns", target="e-foot"))
    assert "indirect fire at an unspotted target hits on even scores only: 5 misses" in \
        events[0].text
    assert state.unit("e-foot").fatigue == DieLevel.D6


def test_off_table_units_are_engaged_by_enemies_whose_range_reaches_their_base_edge():
    state, _ = act(off_table_guns(6), [], cmd("West", "done"))
    state, events = act(state, [2, 1], cmd("East", "fire", unit="e-bows", target="w-guns"))
    assert events[0].text == (
        "e-bows fires at w-guns, off-table: firer: e-bows d6 rolled [2] kept 2 = 2 → total 2; "
        "target: w-guns d4 rolled [1] kept 1 = 1 → total 1; e-bows wins and doubles its "
        "opponent; w-guns: fatigue d6 → d4; w-guns recoils 1 MU.")
    assert events[1].text == "w-guns is off-table: it stays there."
    guns = state.waiting[0]
    assert (guns.off_table, guns.worn[0]) == (True, DieLevel.D4)
    assert points_lost(state, "West") == 2  # the fatigue die lost: d6 (6) → d4 (4)
    waiting = ENGINE.to_json(state)["sides"][0]["waiting"]
    assert (waiting[0]["fatigue"], waiting[0]["attributes"]) == ("d4", {"cc": "d4", "fs": "d6"})
    assert ENGINE.from_json(ENGINE.to_json(state)) == state
    # Out of reach: bows 8 hexes from the W edge.
    far = off_table_guns(6, [unit("e-general", "K4", GENERAL, "NW"),
                             unit("e-bows", "I4", ARCHERS, "NW")])
    far, _ = act(far, [], cmd("West", "done"))
    error = refused(far, cmd("East", "fire", unit="e-bows", target="w-guns"))
    assert str(error) == ("e-bows cannot fire at w-guns: it is 8 MU from West's base edge, "
                          "beyond its range of 6 MU.")


def test_a_teleporter_jumps_to_its_marker_every_other_turn_away_from_enemies():
    jumper = {**FOOT, "specials": ["teleport"]}
    state = begin([unit("w-general", "B4", GENERAL), unit("w-jump", "C4", jumper)],
                  EAST, [5, 1])
    state, events = act(state, [], cmd("West", "marker", unit="w-jump", to="F4"),
                        cmd("West", "done"), cmd("East", "done"))
    assert (where(state, "w-jump"), state.unit("w-jump").teleported) == ("F4", 1)
    assert "w-jump teleports from C4 to F4." in [e.text for e in events]
    # Turn 2: it teleported last turn, so it walks toward its new marker.
    state, _ = act(state, [5, 1], *[cmd(s, "done") for s in ("West", "East")] * 2)
    state, _ = act(state, [], cmd("West", "marker", unit="w-jump", to="H6"),
                   cmd("West", "done"), cmd("East", "done"))
    assert (where(state, "w-jump"), state.unit("w-jump").teleported) == ("H6", 1)
    near = begin([unit("w-general", "B4", GENERAL), unit("w-jump", "C4", jumper)],
                 EAST, [5, 1])
    near, _ = act(near, [], cmd("West", "marker", unit="w-jump", to="H4"),
                  cmd("West", "done"), cmd("East", "done"))
    # H4 is within 3 MU of e-foot at J4: it walks its 3 MU instead.
    assert (where(near, "w-jump"), near.unit("w-jump").teleported) == ("F3", 0)


def test_an_elite_adds_a_reserved_pip_to_its_roll_and_others_may_not():
    elite = {**ARCHERS, "specials": ["elite"]}
    west = [unit("w-general", "B4", GENERAL), unit("w-bows", "C4", elite),
            unit("w-plain", "C3", ARCHERS)]
    state = begin(west, [unit("e-general", "K1", GENERAL, "NW"),
                         unit("e-foot", "G4", FOOT, "NW")], [5, 1])
    state, _ = act(state, [], cmd("West", "done"), cmd("East", "done"))
    state, events = act(state, [3, 3], cmd("West", "fire", unit="w-bows", target="e-foot",
                                           elite_pip=True))
    assert "+1 (elite's reserved pip) → total 4" in events[0].text
    assert state.side("West").reserved == 4
    error = refused(state, cmd("West", "fire", unit="w-plain", target="e-foot",
                               elite_pip=True))
    assert str(error) == ("w-plain is not elite; only elite units add a reserved pip to their "
                          "own roll.")


def test_green_troops_cost_twice_the_pips_and_lose_a_draw():
    green = {**FOOT, "specials": ["green"]}
    state = begin([unit("w-general", "B4", GENERAL), unit("w-green", "C4", green)],
                  EAST, [5, 1])
    state, events = act(state, [], cmd("West", "marker", unit="w-green", to="F4"))
    assert events[0].text == "West places w-green's marker at F4 (2 pips)."
    fight = begin([unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)],
                  [unit("e-general", "K1", GENERAL, "NW"), unit("e-green", "F4", green, "NW")],
                  [5, 1])
    fight, events = act(to_combat(fight), [3, 3],
                        cmd("West", "fight", unit="w-foot", target="e-green"))
    assert fight.unit("e-green").fatigue is DieLevel.D4  # the draw is its loss


HORDE = {"cc": "d6", "fatigue": "d4", "move": 3, "specials": ["horde"]}


def test_shooters_at_a_horde_have_one_more_and_a_beaten_horde_flees():
    state = to_fire(begin([unit("w-general", "B4", GENERAL), unit("w-bows", "C4", ARCHERS)],
                          [unit("e-general", "K1", GENERAL, "NW"),
                           unit("e-mob", "G4", HORDE, "NW")], [5, 1]))
    state, events = act(state, [3, 2], cmd("West", "fire", unit="w-bows", target="e-mob"))
    assert "+1 (shooting at a horde) → total 4" in events[0].text
    # Beaten (3 + 1 against 2), the horde loses its d4 and, a horde, flees.
    assert state.unit("e-mob").fleeing and state.unit("e-mob").fatigue is None
    assert [e.kind for e in events] == ["fire", "flee"]


def test_a_horde_that_rolls_a_1_in_a_lost_combat_surrenders():
    state = to_combat(begin([unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)],
                            [unit("e-general", "K1", GENERAL, "NW"),
                             unit("e-mob", "F4", HORDE, "NW")], [5, 1]))
    state, events = act(state, [5, 1], cmd("West", "fight", unit="w-foot", target="e-mob"))
    assert dict(state.gone)["e-mob"] == "surrendered"
    assert events[-1].text == "e-mob (a horde) rolled a 1 and surrendered."


def test_hordes_in_contact_are_one_group_and_an_order_to_one_moves_them_all():
    west = [unit("w-general", "B4", GENERAL), unit("w-mob", "C4", HORDE),
            unit("w-mob-2", "C5", HORDE), unit("w-mob-3", "C6", HORDE),
            unit("w-far", "C8", HORDE), unit("w-foot", "D4", FOOT)]
    state, events = act(begin(west, EAST, [6, 1]), [],
                        cmd("West", "marker", unit="w-mob", to="H4"))
    # C6 touches C5 which touches C4: one group; C8 stands apart; foot is no horde.
    assert events[0].text == ("West places w-mob's marker at H4 (1 pip); the hordes with it "
                              "follow: w-mob-2, w-mob-3.")
    assert [u.id for u in state.units if u.marker == parse_label("H4")] == [
        "w-mob", "w-mob-2", "w-mob-3"]
    assert state.side("West").pips == 5


def test_a_destroyed_horde_re_spawns_at_its_base_line_for_2_pips():
    state = begin([unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)],
                  [unit("e-general", "K1", GENERAL, "NW"), unit("e-mob", "F4", HORDE, "NW")],
                  [5, 2])
    mob = state.unit("e-mob")
    from rules.grasp.battle import _gone

    state = _gone(state, mob, "was destroyed")
    assert [(w.id, w.respawn) for w in state.waiting] == [("e-mob", True)]
    assert state.side("East").lost == 13  # its whole cost each time: CC 6, move 3, fatigue 4
    state, _ = act(state, [], cmd("West", "done"))
    state, events = act(state, [], cmd("East", "enter", unit="e-mob", to="L4"))
    assert (where(state, "e-mob"), state.side("East").pips) == ("L4", 0)
    assert events[0].text == "e-mob re-spawns at L4 (2 pips)."


AMBUSHERS = {"cc": "d6", "fs": "d6", "fire_range": 4, "move": 3, "fatigue": "d6",
             "specials": ["ambush"]}


def test_an_ambush_is_hidden_until_an_enemy_comes_in_reach_then_fires_for_free():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)]
    east = [unit("e-general", "K1", GENERAL, "NW"), unit("e-lurk", "H4", AMBUSHERS, "NW")]
    state = begin(west, east, [5, 1], terrain={"H4": "light"})
    assert state.unit("e-lurk").hidden
    error = refused(to_fire(state), cmd("West", "fire", unit="w-foot", target="e-lurk"))
    assert str(error) == "There is no unit 'e-lurk' on the field."
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="H4"),
                        cmd("West", "done"), cmd("East", "done"))
    # w-foot marches to F3 — within e-lurk's 4 MU: the ambush is sprung.
    assert (where(state, "w-foot"), state.step, acting_sides(state)) == (
        "F3", "ambush", ("East",))
    assert events[-1].text == "Ambush! e-lurk is revealed at H4 and acts at once."
    error = refused(state, cmd("East", "fire", unit="e-general", target="w-foot"))
    assert str(error) == "e-general did not spring an ambush: only ambushers act now."
    state, events = act(state, [5, 1], cmd("East", "fire", unit="e-lurk", target="w-foot"),
                        cmd("East", "done"))
    assert state.step == "fire" and "e-lurk" in state.acted
    assert state.unit("w-foot").fatigue is DieLevel.D4


def test_an_ambush_is_map_marked_in_light_or_difficult_terrain():
    with pytest.raises(InputError) as caught:
        begin(WEST, [unit("e-general", "K1", GENERAL, "NW"),
                     unit("e-lurk", "H4", AMBUSHERS, "NW")], [5, 1])
    assert caught.value.message == ("e-lurk lies in ambush in good going at H4: an ambush is "
                                    "map-marked in light or difficult terrain.")


HIGH_TECH = GENERAL


def test_signals_warfare_jams_the_enemys_next_roll_and_orders_an_enemy_for_4_pips():
    west = [unit("w-general", "B4", HIGH_TECH), unit("w-foot", "C4", FOOT)]
    east = [unit("e-general", "H4", HIGH_TECH, "NW"), unit("e-foot", "G4", FOOT, "NW")]
    state = begin(west, east, [6, 1])
    state = replace(state, sides=tuple(replace(s, reserved=2) if s.name == "West" else s
                                       for s in state.sides))
    state, events = act(state, [], cmd("West", "jam", target="East", pips=2))
    assert events[0].text == "West trades 2 reserved pips to take as many off East's next pip roll."
    state, events = act(state, [], cmd("West", "marker", unit="e-foot", to="K4"))
    assert events[0].text == ("West places e-foot's marker at K4 (4 pips) (signals warfare: "
                              "w-general orders an enemy unit).")
    state, _ = act(state, [], cmd("West", "done"), cmd("East", "done"))
    state, events = act(state, [6, 5], *[cmd(s, "done") for s in ("West", "East")] * 2)
    assert "East rolls 3 pips (2 jammed by enemy signals)." in [e.text for e in events]
    low = begin([unit("w-general", "B4", LOW_TECH), unit("w-foot", "C4", FOOT)], east, [6, 1])
    error = refused(low, cmd("West", "marker", unit="e-foot", to="K4"))
    assert error.rule == "signals"


def test_signals_warfare_cancels_an_order_as_it_is_issued_for_2_reserved_pips():
    west = [unit("w-general", "B4", HIGH_TECH), unit("w-foot", "C4", FOOT),
            unit("w-foot-2", "C6", FOOT)]
    east = [unit("e-general", "H4", HIGH_TECH, "NW"), unit("e-foot", "G4", FOOT, "NW")]
    state = begin(west, east, [6, 1])
    state = replace(state, sides=tuple(replace(s, reserved=3) if s.name == "East" else s
                                       for s in state.sides))
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="E4"))
    assert (acting_sides(state), state.listening, state.issued) == (("East",), ("East",),
                                                                    "w-foot")
    assert state.unit("w-foot").marker == parse_label("E4")
    # West waits for East's answer; East may only cancel or pass.
    error = refused(state, cmd("West", "marker", unit="w-foot-2", to="E6"))
    assert (error.rule, str(error)) == ("turn", "West does not act now: East may cancel the "
                                        "order to w-foot as it is issued.")
    error = refused(state, cmd("East", "done"))
    assert (error.rule, error.field) == ("signals", "orders[0].kind")
    assert ENGINE.from_json(ENGINE.to_json(state)) == state
    state, events = act(state, [], cmd("East", "cancel"))
    assert [e.text for e in events] == [
        "East's signals cancel the order to w-foot as it is issued (2 reserved pips)."]
    assert (state.unit("w-foot").marker, state.side("East").reserved,
            state.side("West").pips, acting_sides(state)) == (None, 1, 5, ("West",))
    # With 1 reserved pip left East cannot cancel again: no window opens.
    state, events = act(state, [], cmd("West", "marker", unit="w-foot-2", to="E6"))
    assert (state.listening, state.unit("w-foot-2").marker) == ((), parse_label("E6"))
    # A window East lets pass leaves the order standing.
    state = replace(state, sides=tuple(replace(s, reserved=2) if s.name == "East" else s
                                       for s in state.sides))
    state, _ = act(state, [], cmd("West", "marker", unit="w-foot", to="D4"))
    state, events = act(state, [], cmd("East", "pass"))
    assert [e.text for e in events] == ["East lets the order to w-foot pass."]
    assert (state.unit("w-foot").marker, state.side("East").reserved, state.listening) == (
        parse_label("D4"), 2, ())
    # A low-tech command issues its orders unheard.
    low = begin([unit("w-general", "B4", LOW_TECH), unit("w-foot", "C4", FOOT)], east, [6, 1])
    low = replace(low, sides=tuple(replace(s, reserved=3) for s in low.sides))
    low, _ = act(low, [], cmd("West", "marker", unit="w-foot", to="E4"))
    assert low.listening == ()


def test_a_fleeing_unit_spreads_the_rout_to_friends_it_contacts():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)]
    east = [unit("e-foot", "F4", FOOT, "NW"), unit("e-friend", "I3", FOOT, "NW")]
    state = to_combat(begin(west, east, [5]))
    state = replace(state, units=tuple(replace(u, fatigue=None) if u.id == "e-foot" else u
                                       for u in state.units))
    state, events = act(state, [4, 6, 2, 3, 6],
                        cmd("West", "fight", unit="w-foot", target="e-foot"))
    assert [e.text for e in events if e.kind in ("flee", "rout")] == [
        "e-foot flees 3 MU toward its E edge: F4 → G4 → H3.",
        "e-friend, contacted by the fleeing e-foot, rolls 6 against its d6: it joins the rout."]
    assert state.unit("e-friend").fleeing


def test_a_reserved_pip_holds_a_fleeing_unit_in_contact_with_a_command_unit():
    east = [unit("e-general", "J3", GENERAL, "NW"), unit("e-friend", "I3", FOOT, "NW"),
            unit("e-far", "L8", FOOT, "NW")]
    state = begin(WEST, east, [1, 5])
    state = replace(state, units=tuple(replace(u, fleeing=True) if u.id in ("e-friend", "e-far")
                                       else u for u in state.units),
                    sides=tuple(replace(s, reserved=1) if s.name == "East" else s
                                for s in state.sides))
    error = refused(state, cmd("East", "rally", unit="e-far"))
    assert str(error) == "e-far is held only in contact with a command unit of its side."
    state, events = act(state, [], cmd("East", "rally", unit="e-friend"))
    assert (state.unit("e-friend").fleeing, state.side("East").reserved) == (False, 0)
    assert events[0].text == "East holds the fleeing e-friend with a reserved pip."


MINED = {"map": {"cols": 12, "rows": 8, "terrain": {"D3": "light"},
                 "mines": {"D3": {"going": "light", "cc": "d8"}}},
         "sides": [{"name": "West", "edge": "W", "units": WEST},
                   {"name": "East", "edge": "E", "units": EAST}]}


def march_into_mines(rolls: list[int]) -> tuple[GraspBattle, list[Any]]:
    state = ENGINE.start(scenario=MINED, settings={}, dice=FixedDice([5, 1])).state
    return act(state, rolls, cmd("West", "marker", unit="w-foot", to="H4"),
               cmd("West", "done"), cmd("East", "done"))


def test_a_unit_marching_into_mines_stops_there_and_fights_them():
    state, events = march_into_mines([6, 2])
    assert where(state, "w-foot") == "D3"  # its march (toward H4) stops in the minefield
    assert events[-1].text.startswith("w-foot runs into the mines at D3: attacker: w-foot d6 "
                                      "rolled [6] kept 6 = 6 -1 (defender holds light going)")


def test_beaten_mines_thin_out_and_a_beaten_unit_recoils_the_way_it_came():
    won, _ = march_into_mines([4, 2])
    # Beaten (3 against 2): the woods under the mines go one class easier, and the light
    # mines with them: cleared.
    assert won.field.mines_at(parse_label("D3")) is None
    assert won.field.going(parse_label("D3")) is TerrainClass.GOOD
    doubled, _ = march_into_mines([6, 2])
    # Doubled (5 against 2): the terrain goes one class harder; the mines change with it.
    assert doubled.field.going(parse_label("D3")) is TerrainClass.DIFFICULT
    assert doubled.field.mines_at(parse_label("D3")) is None
    lost, events = march_into_mines([2, 7])
    assert (where(lost, "w-foot"), lost.unit("w-foot").fatigue) == ("C4", DieLevel.D4)
    assert events[-1].text == "w-foot recoils to C4."
    assert lost.field.mines_at(parse_label("D3")) is not None


def test_on_the_continuous_board_a_march_stops_just_inside_a_minefield():
    field = [{"going": "light", "polygon": [[4, 0], [6, 0], [6, 10], [4, 10]],
              "mines": {"going": "light", "cc": "d8"}}]
    state, events = act(plane(PLANE_WEST, PLANE_EAST, [5, 1], terrain=field), [4, 2],
                        cmd("West", "marker", unit="w-foot", to=[12, 4]), cmd("West", "done"),
                        cmd("East", "done"))
    pos = state.unit("w-foot").pos
    assert Fraction(4) < pos.x < Fraction(41, 10) and pos.y == 4
    assert events[-1].text.startswith(f"w-foot runs into the mines at {state.label(pos)}:")
    assert state.field.mines_at(pos) is None  # beaten, and the woods with them


def prefs(preferred: list[str], unpreferred: str, conditions: str | None = None,
          rolls: list[int] | None = None) -> tuple[GraspBattle, list[Any]]:
    scen: dict[str, Any] = {"map": {"cols": 12, "rows": 8}, "sides": [
        {"name": "West", "edge": "W", "units": WEST, "preferred": preferred,
         "unpreferred": unpreferred},
        {"name": "East", "edge": "E", "units": EAST}]}
    if conditions:
        scen["conditions"] = conditions
    result = ENGINE.start(scenario=scen, settings={}, dice=FixedDice(rolls or [5, 1]))
    return result.state, list(result.events)


@pytest.mark.parametrize(("total", "conditions"), [
    (4, "wet-cold"), (5, "wet-cold"), (6, "wet"), (9, "wet-hot"), (10, "temperate"),
    (17, "temperate"), (18, "dry-cold"), (22, "dry"), (24, "dry-hot")])
def test_the_prevailing_conditions_from_4d6(total, conditions):
    from rules.grasp.battle import condition_for_roll

    assert condition_for_roll(total) == conditions


def test_conditions_are_rolled_when_a_side_has_preferences_and_harden_its_terrain():
    state, events = prefs(["temperate", "dry"], "wet", rolls=[1, 2, 2, 1, 5, 1])
    assert state.conditions == "wet"
    assert [e.text for e in events[1:3]] == [
        "The prevailing conditions: 4d6 = 6, wet.",
        "West fights in its un-preferred conditions: all terrain is one level harder for it."]
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="H4"),
                        cmd("West", "done"), cmd("East", "done"))
    # Good going counts as light for West: 2 MU a hex, so its 3 MU buy one hex.
    assert events[-1].text == "w-foot moves 3 MU toward its marker at H4: C4 → D3."
    fixed, events = prefs(["temperate", "dry"], "wet", conditions="dry")
    assert fixed.conditions == "dry" and all(e.kind != "conditions" for e in events)


def test_preferences_are_temperate_and_one_other_and_a_third_unpreferred():
    with pytest.raises(InputError) as caught:
        prefs(["wet", "dry"], "wet-hot")
    assert caught.value.field == "scenario.sides[0].preferred"
    with pytest.raises(InputError) as caught:
        prefs(["temperate", "dry"], "dry")
    assert caught.value.message == "is a condition other than the preferred ones."


def open_field(rolls: list[int], **conf: Any) -> GraspBattle:
    def army(prefix: str) -> list[dict[str, Any]]:
        return [{"id": f"{prefix}-general", "facing": "N", "type": GENERAL},
                *({"id": f"{prefix}-foot-{i}", "facing": "N", "type": FOOT} for i in range(4))]

    scen = {"map": {"cols": 12, "rows": 8}, "deployment": "open",
            "sides": [{"name": "West", "edge": "W", "units": army("w")},
                      {"name": "East", "edge": "E", "units": army("e")}]}
    return ENGINE.start(scenario=scen, settings=conf, dice=FixedDice(rolls)).state


def test_a_terrain_piece_measures_no_more_than_10_mu():
    state = open_field([2, 5, 1], mu_per_hex=3)
    error = refused(state, cmd("West", "terrain", going="light", place=["A1", "F1"]))
    assert str(error) == "A terrain piece measures no more than 10 MU in any direction."


def test_open_deployment_terrain_in_rolled_sectors_then_quarters_then_units():
    # 1d6 each: West 2, East 5 → West first; each army is 114 points: one piece each.
    state = open_field([2, 5, 1])
    assert (state.step, acting_sides(state), state.deployment.sector) == (
        "deploy", ("West",), "NW")
    error = refused(state, cmd("West", "terrain", going="light", place=["H6"]))
    assert str(error) == "The piece lies in the NW quarter its sector die gave."
    state, events = act(state, [4], cmd("West", "terrain", going="light", place=["B2", "B3"]))
    assert events[-1].text == "East places a terrain piece in the SE quarter."
    state, _ = act(state, [], cmd("East", "terrain", going="difficult", place=["K7"]))
    assert state.field.going(parse_label("B2")) is TerrainClass.LIGHT
    assert state.deployment.stage == "quadrant"
    state, _ = act(state, [], cmd("West", "quadrant", quadrant="SW"))
    error = refused(state, cmd("East", "quadrant", quadrant="SW"))
    assert str(error) == "East chooses a free quarter: NW, NE, SE."
    state, _ = act(state, [], cmd("East", "quadrant", quadrant="NE"))
    error = refused(state, cmd("West", "deploy", positions={"w-foot-0": "K2"}))
    assert str(error) == ("w-foot-0 deploys on a free place of West's SW quarter that is not "
                          "impassable, not K2.")
    state, events = act(state, [], cmd("West", "deploy", positions={
        "w-general": "B6", "w-foot-0": "C5", "w-foot-1": "C6", "w-foot-2": "C7"}))
    assert events[0].text == "West deploys 4 units in the SW quarter, 1 in reserve."
    state, events = act(state, [3, 4], cmd("East", "deploy", positions={
        "e-general": "K2", "e-foot-0": "J2", "e-foot-1": "J3", "e-foot-2": "J4",
        "e-foot-3": "J1"}))
    assert (state.step, state.turn, state.phasing) == ("command", 1, ("East", "West"))
    assert [w.id for w in state.waiting] == ["w-foot-3"]
    check_json_form(ENGINE, state, [cmd("East", "done")])


# --- the end --------------------------------------------------------------------------------


def test_a_turn_without_orders_shots_or_moves_ends_the_battle_on_points():
    state = begin(WEST, EAST, [5, 1])
    state = replace(state, units=tuple(replace(u, fatigue=DieLevel.D4) if u.id == "e-foot"
                                       else u for u in state.units))
    state, events = act(state, [], *[cmd(s, "done") for s in ("West", "East")] * 3)
    verdict = ENGINE.outcome(state)
    assert (verdict.winner, verdict.scores) == ("West", {"West": 0, "East": 2})
    assert events[-1].text == ("The battle ends: turn 1 passed without an order, a shot or a "
                               "move. West wins, having lost the fewest points (0).")
    assert points_lost(state, "East") == 2
    error = refused(state, cmd("West", "done"))
    assert (error.rule, str(error)) == ("victory", "The battle is over.")


def test_after_the_battle_each_prisoner_rolls_2d6_and_joins_its_captor_on_doubles():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT),
            unit("w-foot-2", "F5", FOOT)]
    east = [unit("e-foot", "F4", FOOT, "NW"), unit("e-rear", "L8", FOOT, "NW")]
    state = to_combat(begin(west, east, [5]))
    state = replace(state, units=tuple(replace(u, fatigue=None) if u.id == "e-foot" else u
                                       for u in state.units))
    state, _ = act(state, [4, 6, 2, 3], cmd("West", "fight", unit="w-foot", target="e-foot"))
    assert state.prisoners == (("e-foot", "West"),)
    mob = begin([unit("w-general", "B4", GENERAL), unit("w-foot", "E4", FOOT)],
                [unit("e-general", "K1", GENERAL, "NW"), unit("e-mob", "F4", HORDE, "NW")],
                [5, 1])
    mob, _ = act(to_combat(mob), [5, 1], cmd("West", "fight", unit="w-foot", target="e-mob"))
    assert mob.prisoners == (("e-mob", "West"),)
    # Both prisoners in one battle; the turn ends quietly: the battle ends, then 2d6 each.
    state = replace(state, prisoners=(("e-foot", "West"), ("e-mob", "West")), busy=False)
    state, events = act(state, [3, 3, 4, 1], cmd("West", "done"), cmd("East", "done"))
    assert [e.text for e in events[-3:]] == [
        "The battle ends: turn 1 passed without an order, a shot or a move. West wins, having "
        "lost the fewest points (0).",
        "e-foot, held by West, rolls 3 and 3: doubles, it joins West.",
        "e-mob, held by West, rolls 4 and 1: no doubles, it stays a prisoner."]
    assert [r.purpose for r in events[-2].rolls] == ["recruiting e-foot"] * 2
    assert state.recruited == ("e-foot",)
    assert ENGINE.to_json(state)["prisoners"] == [
        {"unit": "e-foot", "captor": "West", "recruited": True},
        {"unit": "e-mob", "captor": "West", "recruited": False}]
    assert ENGINE.from_json(ENGINE.to_json(state)) == state


def check_passing(before: GraspBattle, events: Any) -> None:
    """No move goes through a unit it may not pass: a friend facing across, or a (not small)
    enemy, unless the mover is small."""
    for e in events:
        if e.kind not in ("move", "flee") or "(passing through " not in e.text:
            continue
        known = {u.id: u for u in before.units}
        mover = known.get(e.data["unit"])
        if mover is None:
            continue  # it came on in this very step
        named = re.split(r"[;)]", e.text.split("(passing through ", 1)[1])[0].split(", ")
        for other in [known[uid] for uid in named if uid in known]:
            assert mover.type.has(Special.SMALL) or other.type.has(Special.SMALL) or (
                other.side == mover.side), e.text


# --- a whole battle, scripted ---------------------------------------------------------------


def test_a_scripted_battle_from_deployment_to_victory_matches_its_golden_file():
    state, events = play_out(ENGINE, SCENARIO, "g-12", orders_for)
    verdict = ENGINE.outcome(state)
    assert verdict is not None and verdict.winner == "West"
    assert {"captured", "fled", "flee", "resupply", "fire", "close_combat", "recruit"} <= {
        e["kind"] for e in events}
    assert any("(passing through" in str(e["text"]) for e in events)
    check_golden(GOLDEN, verdict, events)


@settings(max_examples=15, deadline=None)
@given(st.text(min_size=1, max_size=8), st.integers(1, 5), st.booleans())
def test_a_battle_never_duplicates_stacks_or_revives_units_and_replays_the_same(seed, turns,
                                                                                climate):
    dice = SeededDice(seed=seed)
    # With `climate`, the weather and dust in dry conditions too.
    conf = {"max_turns": turns, **({"weather": True, "dust": True} if climate else {})}
    scenario = {**SCENARIO, **({"conditions": "dry"} if climate else {})}
    state = ENGINE.start(scenario=scenario, settings=conf, dice=dice).state
    # (The weather thrown at the start may already have destroyed a unit.)
    everyone = {u.id for u in state.units} | {u for u, _ in state.gone}
    lost = {s.name: 0 for s in state.sides}
    given_orders = []
    for _ in range(400):
        if ENGINE.outcome(state) is not None:
            break
        orders = orders_for(state)
        given_orders.append(orders)
        before = state
        result = ENGINE.step(state=state, orders=orders, dice=dice)
        state = result.state
        check_passing(before, result.events)
        alive = [u.id for u in state.units]
        gone = {u for u, _ in state.gone}
        assert len(alive) == len(set(alive)) and set(alive) | gone == everyone
        assert not set(alive) & gone
        placed = [u.pos for u in state.units]
        assert len(placed) == len(set(placed)) and all(state.field.contains(h) for h in placed)
        for s in state.sides:
            assert s.lost >= lost[s.name]
            lost[s.name] = s.lost
    again_dice = SeededDice(seed=seed)
    again = ENGINE.start(scenario=scenario, settings=conf, dice=again_dice).state
    for orders in given_orders:
        again = ENGINE.step(state=again, orders=orders, dice=again_dice).state
    assert ENGINE.state_to_json(again) == ENGINE.state_to_json(state)


# --- the continuous board -------------------------------------------------------------------


def plane(west: list[dict[str, Any]], east: list[dict[str, Any]], rolls: list[int], *,
          terrain: list[dict[str, Any]] | None = None) -> GraspBattle:
    scen = {"map": {"width": 16, "height": 10, "terrain": terrain or []},
            "sides": [{"name": "West", "edge": "W", "units": west},
                      {"name": "East", "edge": "E", "units": east}]}
    return ENGINE.start(scenario=scen, settings={"board": "continuous"},
                        dice=FixedDice(rolls)).state


def at(uid: str, x: Any, y: Any, kind: dict[str, Any], facing: list[int] | None = None
       ) -> dict[str, Any]:
    return {"id": uid, "at": [x, y], "facing": facing or [1, 0], "type": kind}


PLANE_WEST = [at("w-general", 1, 1, GENERAL), at("w-foot", 2, 4, FOOT)]
PLANE_EAST = [at("e-general", 15, 9, GENERAL, [-1, 0])]


def march(state: GraspBattle, to: list[int]) -> tuple[GraspBattle, list[Any]]:
    return act(state, [], cmd("West", "marker", unit="w-foot", to=to), cmd("West", "done"),
               cmd("East", "done"))


def test_on_the_continuous_board_a_move_is_a_straight_line_paid_in_mu():
    state, events = march(plane(PLANE_WEST, PLANE_EAST, [5, 1]), [12, 4])
    assert state.unit("w-foot").pos == Point(Fraction(5), Fraction(4))
    assert events[-1].text == "w-foot moves 3 MU toward its marker at (12, 4): (2, 4) → (5, 4)."
    diagonal, _ = march(plane(PLANE_WEST, PLANE_EAST, [5, 1]), [5, 8])  # 3-4-5: 3 MU of 5
    assert diagonal.unit("w-foot").pos == Point(Fraction(19, 5), Fraction(32, 5))


def test_light_going_costs_double_for_the_part_of_the_line_inside_it():
    woods = [{"going": "light", "polygon": [[3, 0], [6, 0], [6, 9], [3, 9]]}]
    state, _ = march(plane(PLANE_WEST, PLANE_EAST, [5, 1], terrain=woods), [12, 4])
    # 1 MU in the open to x = 3, then 2 MU of move buy 1 MU in the woods.
    assert state.unit("w-foot").pos == Point(Fraction(4), Fraction(4))
    wall = [{"going": "impassable", "polygon": [[4, 0], [5, 0], [5, 9], [4, 9]]}]
    blocked, _ = march(plane(PLANE_WEST, PLANE_EAST, [5, 1], terrain=wall), [12, 4])
    assert blocked.unit("w-foot").pos == Point(Fraction(399, 100), Fraction(4))


def test_a_move_stops_at_contact_and_bases_never_overlap():
    east = [*PLANE_EAST, at("e-foot", 6, 4, FOOT, [-1, 0])]
    state, _ = march(plane(PLANE_WEST, east, [5, 1]), [12, 4])
    # Contact: bases (1 MU across) at most ¼ MU apart, centres 1¼ MU.
    assert state.unit("w-foot").pos == Point(Fraction(19, 4), Fraction(4))
    assert state.field.in_contact(state.unit("w-foot").pos, state.unit("e-foot").pos)


@pytest.mark.parametrize(("facing", "text"), [
    ([1, 0], "(2, 4) → (5, 4) (passing through w-friend)"),
    ([-2, 0], "(2, 4) → (5, 4) (passing through w-friend)"),
    ([0, 1], "(2, 4) → (3, 4)"),
    ([1, 1], "(2, 4) → (3, 4)")])
def test_on_the_continuous_board_a_friend_facing_the_way_is_passed_through(facing, text):
    state, events = march(plane([*PLANE_WEST, at("w-friend", 4, 4, FOOT, facing)], PLANE_EAST,
                                [5, 1]), [12, 4])
    assert events[-1].text == f"w-foot moves 3 MU toward its marker at (12, 4): {text}."
    # A move whose budget ends on the friend stops where its base last cleared the friend's.
    short, events = march(plane([*PLANE_WEST, at("w-friend", 5, 4, FOOT, [1, 0])], PLANE_EAST,
                                [5, 1]), [12, 4])
    assert short.unit("w-foot").pos == Point(Fraction(4), Fraction(4))
    assert events[-1].text == "w-foot moves 3 MU toward its marker at (12, 4): (2, 4) → (4, 4)."


def test_fire_range_and_the_arc_are_exact_on_the_continuous_board():
    bows = {**ARCHERS, "fire_range": 5}
    east = [*PLANE_EAST, at("e-near", 6, 7, FOOT), at("e-side", 3, 8, FOOT),
            at("e-far", 8, 4, FOOT)]
    state = to_fire(plane([PLANE_WEST[0], at("w-bows", 2, 4, bows)], east, [5, 1]))
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-far"))
    assert str(error) == ("w-bows cannot fire at e-far: it is 6.00 MU away, beyond its range "
                          "of 5 MU.")
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-side"))
    assert str(error) == ("w-bows cannot fire at e-side: it is outside the 45° arc ahead of "
                          "w-bows (facing [1, 0]); only all-round fire reaches another arc.")
    state, events = act(state, [5, 1], cmd("West", "fire", unit="w-bows", target="e-near"))
    assert events[1].text == "e-near recoils to (6.8, 7.6)."  # 1 MU straight away (3-4-5)


def test_a_continuous_state_survives_its_json_form():
    dice = SeededDice(seed="plane-json")
    state = ENGINE.start(scenario=CONTINUOUS, settings={"board": "continuous"},
                         dice=dice).state
    for _ in range(10):
        state = ENGINE.step(state=state, orders=orders_for(state), dice=dice).state
    check_json_form(ENGINE, state, orders_for(state))


def test_the_same_armies_fight_it_out_on_the_continuous_board_golden():
    state, events = play_out(ENGINE, CONTINUOUS, "c-4", orders_for,
                             settings={"board": "continuous"})
    verdict = ENGINE.outcome(state)
    assert verdict is not None and verdict.winner == "East"
    assert {"rout", "flee", "resupply", "close_combat", "recruit"} <= {e["kind"] for e in events}
    assert any("(passing through" in str(e["text"]) for e in events)
    check_golden(GOLDEN_CONTINUOUS, verdict, events)


@settings(max_examples=8, deadline=None)
@given(st.text(min_size=1, max_size=8))
def test_on_the_continuous_board_bases_never_overlap_and_stay_on_it(seed):
    dice = SeededDice(seed=seed)
    state = ENGINE.start(scenario=CONTINUOUS, settings={"board": "continuous",
                                                        "max_turns": 4}, dice=dice).state
    for _ in range(300):
        if ENGINE.outcome(state) is not None:
            break
        before = state
        result = ENGINE.step(state=state, orders=orders_for(state), dice=dice)
        state = result.state
        check_passing(before, result.events)
        for a in state.units:
            assert state.field.contains(a.pos)
            for b in state.units:
                if a.id < b.id:
                    assert not state.field.overlap(a.pos, b.pos)


def test_open_deployment_on_the_continuous_board():
    def army(prefix: str) -> list[dict[str, Any]]:
        return [{"id": f"{prefix}-general", "facing": [1, 0], "type": GENERAL},
                *({"id": f"{prefix}-foot-{i}", "facing": [1, 0], "type": FOOT}
                  for i in range(4))]

    scen = {"map": {"width": 16, "height": 10}, "deployment": "open",
            "sides": [{"name": "West", "edge": "W", "units": army("w")},
                      {"name": "East", "edge": "E", "units": army("e")}]}
    state = ENGINE.start(scenario=scen, settings={"board": "continuous"},
                         dice=FixedDice([2, 5, 3])).state
    assert state.deployment.sector == "SW"
    error = refused(state, cmd("West", "terrain", going="light",
                               place=[[6, 1], [9, 1], [9, 3]]))  # x 9 is in the east half
    assert str(error) == "The piece lies in the SW quarter its sector die gave."
    state, _ = act(state, [2], cmd("West", "terrain", going="light",
                                   place=[[1, 1], [4, 1], [4, 4], [1, 4]]))
    assert state.field.going(Point(Fraction(2), Fraction(2))) is TerrainClass.LIGHT


DENIZEN = {"cc": "d8", "fatigue": "d6", "move": 3, "specials": ["denizen"]}


def test_a_denizen_keeps_to_its_terrain_and_is_removed_when_forced_out():
    woods = {"F3": "light", "F4": "light", "G4": "light", "F5": "light"}
    east = [unit("e-general", "K1", GENERAL, "NW"), unit("e-troll", "F4", DENIZEN, "NW")]
    state = begin(WEST, east, [1, 5], terrain=woods)
    # Its march toward C4 stops at the edge of its woods: it does not leave them.
    marched, _ = act(state, [], cmd("East", "marker", unit="e-troll", to="C4"),
                     cmd("East", "done"), cmd("West", "done"))
    assert where(marched, "e-troll") == "F4"
    fought = to_combat(replace(state, phasing=("West", "East"), units=tuple(
        replace(u, pos=parse_label("E4")) if u.id == "w-foot" else u for u in state.units)))
    fought, events = act(fought, [6, 1], cmd("West", "fight", unit="w-foot", target="e-troll"))
    # Beaten, it would recoil straight away from E4 onto G5, open ground: it is removed.
    assert events[-1].text == "e-troll, a denizen forced from its terrain, is removed."
    assert (dict(fought.gone)["e-troll"], fought.waiting) == ("was forced from its terrain", ())


def test_a_denizen_needs_light_or_difficult_terrain_to_deploy():
    with pytest.raises(InputError) as caught:
        begin(WEST, [unit("e-general", "K1", GENERAL, "NW"),
                     unit("e-troll", "F4", DENIZEN, "NW")], [5, 1])
    assert caught.value.message == ("e-troll is a denizen: it is deployed in light or "
                                    "difficult terrain, not good going at F4.")


def test_a_destroyed_denizen_re_spawns_in_light_or_difficult_terrain_for_2_pips():
    from rules.grasp.battle import _gone

    woods = {"F3": "light", "F4": "light"}
    state = begin(WEST, [unit("e-general", "K1", GENERAL, "NW"),
                         unit("e-troll", "F4", DENIZEN, "NW")], [1, 5], terrain=woods)
    state = _gone(state, state.unit("e-troll"), "was destroyed")
    error = refused(state, cmd("East", "enter", unit="e-troll", to="C2"))
    assert str(error) == ("e-troll, a denizen, re-spawns at a free place of light or difficult "
                          "terrain, not C2.")
    state, events = act(state, [], cmd("East", "enter", unit="e-troll", to="F3"))
    assert (where(state, "e-troll"), events[0].text) == ("F3", "e-troll re-spawns at F3 "
                                                         "(2 pips).")
