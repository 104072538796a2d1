"""GRASP battle rules read where the source leaves a gap: the berserk combat type (its name
lost in the source's table), swimmers below the surface, a flyer in a void, and terrain
engaged by fire, in close combat and by a ram."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from rules.dice import FixedDice
from rules.grasp.battle import ENGINE, GraspBattle, _blocked
from rules.grasp.combat import Level
from rules.grasp.terrain import TerrainClass
from rules.hexgrid import parse_label
from rules.plane import Point
from tests.rules.battles import check_json_form
from tests.rules.grasp.battle_script import ARCHERS, FOOT
from tests.rules.grasp.test_battle import (
    EAST,
    GENERAL,
    act,
    begin,
    cmd,
    refused,
    to_combat,
    to_fire,
    unit,
    where,
)

WILD = {**FOOT, "specials": ["berserk"]}
WEST = [unit("w-general", "B4", GENERAL), unit("w-wild", "E4", WILD)]
FOE = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "F4", FOOT, "NW")]


def texts(events):
    return [e.text for e in events]


def test_a_berserk_units_first_order_costs_2_pips_and_the_rest_are_free():
    state = begin(WEST, EAST, [6, 1])
    state, events = act(state, [], cmd("West", "marker", unit="w-wild", to="G4"))
    assert texts(events)[0] == "West places w-wild's marker at G4 (2 pips)."
    assert (state.side("West").pips, state.unit("w-wild").unleashed) == (4, True)
    state, events = act(state, [], cmd("West", "marker", unit="w-wild", to="G5"))
    assert texts(events)[0] == "West places w-wild's marker at G5 (0 pips)."
    assert state.side("West").pips == 4
    poor = begin(WEST, EAST, [1, 6])
    poor, _ = act(poor, [], cmd("East", "done"))
    error = refused(poor, cmd("West", "marker", unit="w-wild", to="G4"))
    assert str(error) == "West has 1 pips left; this marker costs 2 (berserk: its first order)."


def test_a_berserk_unit_is_destroyed_by_a_loss_or_a_draw():
    state = to_combat(begin(WEST, FOE, [5, 1]))
    lost, events = act(state, [2, 6], cmd("West", "fight", unit="w-wild", target="e-foot"))
    assert texts(events)[1:] == ["w-wild is berserk: a loss destroys it.",
                                 "w-wild was destroyed."]
    assert "w-wild" in dict(lost.gone)
    drawn, events = act(state, [3, 3], cmd("West", "fight", unit="w-wild", target="e-foot"))
    assert texts(events)[1] == "w-wild is berserk: a draw destroys it."


def test_a_berserk_win_costs_the_loser_a_fatigue_die_more():
    state = to_combat(begin(WEST, FOE, [5, 1]))
    state, events = act(state, [6, 2], cmd("West", "fight", unit="w-wild", target="e-foot"))
    assert texts(events)[1:] == [
        "A berserk win: e-foot loses a fatigue die more, down to none.", "e-foot recoils to G5."]
    assert state.unit("e-foot").fatigue is None
    # Without the special the same dice leave it a d4.
    plain = to_combat(begin([WEST[0], unit("w-wild", "E4", FOOT)], FOE, [5, 1]))
    plain, _ = act(plain, [6, 2], cmd("West", "fight", unit="w-wild", target="e-foot"))
    assert plain.unit("e-foot").fatigue.label == "d4"


SUB = {**FOOT, "specials": ["swimmer"]}


def test_a_swimmer_dives_below_the_surface_one_level_a_move():
    west = [unit("w-general", "B4", GENERAL), unit("w-sub", "C4", SUB)]
    state = begin(west, EAST, [6, 1])
    state, events = act(state, [], cmd("West", "marker", unit="w-sub", to="E4",
                                       level="medium_below"),
                        cmd("West", "done"), cmd("East", "done"))
    sub = state.unit("w-sub")
    assert (sub.level, where(state, "w-sub")) == (Level.NEAR_BELOW, "E4")
    plain = begin([west[0], unit("w-foot", "C4", FOOT)], EAST, [6, 1])
    error = refused(plain, cmd("West", "marker", unit="w-foot", to="E4", level="near_below"))
    assert str(error) == "w-foot: only a tunneller or a swimmer goes below the surface " \
        "(near_below)."


JET = {**FOOT, "move": 3, "specials": ["flyer"]}


def test_in_a_void_a_flyer_without_fatigue_drifts_straight_on_until_it_leaves_the_field():
    west = [unit("w-general", "B4", GENERAL), unit("w-jet", "H4", JET, "N")]
    west[1]["level"] = "near_flying"
    state = begin(west, EAST, [6, 1], void=True)
    state = _tired(state, "w-jet")
    error = refused(state, cmd("West", "marker", unit="w-jet", to="H6"))
    assert (error.rule, str(error)) == (
        "void", "w-jet has no fatigue die and drifts in the void: no order reaches it.")
    state, events = act(state, [3, 2], cmd("West", "marker", unit="w-general", to="B5"),
                        *[cmd(s, "done") for s in ("West", "East") * 3])
    assert "w-jet, without fatigue in the void, drifts on to H1." in texts(events)
    assert state.unit("w-jet").level == Level.NEAR_FLYING  # it does not come down
    state, events = act(state, [3, 2], cmd("West", "marker", unit="w-general", to="B4"),
                        *[cmd(s, "done") for s in ("West", "East") * 3])
    assert "w-jet, without fatigue in the void, drifts off the field." in texts(events)
    assert dict(state.gone)["w-jet"] == "drifted off the field"


def test_out_of_a_void_a_flyer_without_fatigue_comes_down_instead():
    west = [unit("w-general", "B4", GENERAL), unit("w-jet", "H4", JET, "N")]
    west[1]["level"] = "near_flying"
    state = _tired(begin(west, EAST, [6, 1]), "w-jet")
    state, events = act(state, [], cmd("West", "done"), cmd("East", "done"))
    assert "w-jet, without fatigue, descends to surface." in texts(events)
    assert where(state, "w-jet") == "H4"


def _tired(state, uid):
    return replace(state, units=tuple(replace(u, fatigue=None) if u.id == uid else u
                                      for u in state.units))


# --- engaging terrain ---------------------------------------------------------------------------

TANK = {**FOOT, "specials": ["vehicle"]}
GROUND = {"D4": "light", "E7": "difficult", "G6": "light"}


def engaging() -> GraspBattle:
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT),
            unit("w-bows", "C6", ARCHERS), unit("w-tank", "F6", TANK)]
    return begin(west, EAST, [5, 1], terrain=GROUND)


@pytest.mark.parametrize(("rolls", "going", "verdict"), [
    ([3, 2], TerrainClass.GOOD, "w-foot wins; the light terrain at D4: terrain lost: one "
     "class easier, light → good."),
    ([5, 2], TerrainClass.DIFFICULT, "w-foot wins and doubles its opponent; the light terrain "
     "at D4: terrain doubled: one class harder, light → difficult."),
])
def test_a_unit_fights_the_terrain_next_to_it_with_the_die_its_class_gives(rolls, going,
                                                                           verdict):
    state, events = act(to_combat(engaging()), rolls,
                        cmd("West", "fight", unit="w-foot", to="D4"))
    assert texts(events)[0].startswith(
        f"w-foot fights the light terrain at D4: attacker: w-foot d6 rolled [{rolls[0]}]")
    assert "defender: the light terrain at D4 d4 rolled" in texts(events)[0]
    assert texts(events)[0].endswith(verdict)
    assert state.field.going(parse_label("D4")) is going
    assert "w-foot" in state.acted


def test_terrain_that_wins_hurts_the_unit_which_recoils_away_from_it():
    state, events = act(to_combat(engaging()), [1, 4],
                        cmd("West", "fight", unit="w-foot", to="D4"))
    assert texts(events)[1:] == ["w-foot recoils to B3."]
    assert (state.unit("w-foot").fatigue.label, state.field.going(parse_label("D4"))) == (
        "d4", TerrainClass.LIGHT)


def test_a_unit_fires_at_terrain_in_range_and_in_its_arc():
    state, events = act(to_fire(engaging()), [5, 2],
                        cmd("West", "fire", unit="w-bows", to="E7"))
    assert texts(events) == [
        "w-bows fires at the difficult terrain at E7: firer: w-bows d6 rolled [5] kept 5 = 5 → "
        "total 5; target: the difficult terrain at E7 d8 rolled [2] kept 2 = 2 → total 2; "
        "w-bows wins and doubles its opponent; the difficult terrain at E7: terrain doubled: "
        "one class harder, difficult → impassable."]
    assert state.field.going(parse_label("E7")) is TerrainClass.IMPASSABLE
    assert state.busy


def test_a_vehicle_rams_a_terrain_piece_at_its_front():
    state, events = act(to_combat(engaging()), [2, 5, 3, 1, 2],
                        cmd("West", "fight", unit="w-tank", to="G6", ram=True))
    assert texts(events) == [
        "w-tank rams the light terrain at G6: rammer (front: lower of two CC dice): w-tank d6 "
        "rolled [2, 5] kept 2 +3 (1d6 (medium) [3]) = 5 → total 5; target: the light terrain "
        "at G6 d4 rolled [1] kept 1 +2 (1d6 (medium) [2]) = 3 → total 3; w-tank wins; the "
        "light terrain at G6: terrain lost: one class easier, light → good."]


@pytest.mark.parametrize(("order", "rule", "message"), [
    (cmd("West", "fight", unit="w-foot", to="C3"), "combat",
     "There is no terrain to engage at C3: it is good going."),
    (cmd("West", "fight", unit="w-foot", to="G6"), "combat",
     "w-foot is not in contact with G6."),
    (cmd("West", "fight", unit="w-foot", to="D4", ram=True), "ram",
     "w-foot is no vehicle: only a vehicle rams a terrain piece."),
    (cmd("West", "fight", unit="w-foot", to="D4", supports=["w-tank"]), "combat",
     "A unit engages terrain alone: no supports, pips, passing through or boarding."),
])
def test_engaging_terrain_is_refused_with_the_rule(order, rule, message):
    error = refused(to_combat(engaging()), order)
    assert (error.rule, str(error)) == (rule, message)


def test_on_the_continuous_board_a_beaten_terrain_changes_its_1_mu_square():
    scen = {"map": {"width": 24, "height": 16, "terrain": [
        {"going": "light", "polygon": [[5, 7], [8, 7], [8, 9], [5, 9]]}]},
        "sides": [{"name": "West", "edge": "W", "units": [
            unit("w-general", [2, 8], GENERAL, [1, 0]), unit("w-foot", [4, 8], FOOT, [1, 0])]},
            {"name": "East", "edge": "E", "units": [
                unit("e-general", [22, 8], GENERAL, [-1, 0]),
                unit("e-foot", [18, 3], FOOT, [-1, 0])]}]}
    state = ENGINE.start(scenario=scen, settings={"board": "continuous"},
                         dice=FixedDice([5, 1])).state
    state, _ = act(to_combat(state), [3, 2],
                   cmd("West", "fight", unit="w-foot", to=Point(Fraction(5), Fraction(8))))
    going = state.field.going
    assert (going(Point(Fraction(26, 5), Fraction(8))), going(Point(Fraction(6), Fraction(8)))
            ) == (TerrainClass.GOOD, TerrainClass.LIGHT)
    assert state.field.map_json()["terrain"][-1] == {
        "going": "good", "polygon": [["9/2", "15/2"], ["11/2", "15/2"], ["11/2", "17/2"],
                                     ["9/2", "17/2"]], "exact": True}
    check_json_form(ENGINE, state, [cmd("West", "done")])


# --- dust ----------------------------------------------------------------------------------------


def dry(rolls: list[int], **conf: Any) -> GraspBattle:
    scen = {"map": {"cols": 12, "rows": 8}, "conditions": "dry",
            "sides": [{"name": "West", "edge": "W", "units": [
                unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)]},
                {"name": "East", "edge": "E", "units": EAST}]}
    dice = FixedDice(rolls)
    state = ENGINE.start(scenario=scen, settings=conf, dice=dice).state
    assert dice.remaining == 0
    return state


def test_in_dry_conditions_a_moving_unit_raises_dust_behind_it_until_the_next_turn():
    state = dry([5, 1], dust=True)
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="F4"),
                        cmd("West", "done"), cmd("East", "done"))
    assert texts(events)[-2:] == [
        "w-foot moves 3 MU toward its marker at F4: C4 → D3 → E4 → F4 (reached).",
        "w-foot raises dust: it covers E4, behind it."]
    assert state.field.going(parse_label("E4")) is TerrainClass.DIFFICULT
    state, events = act(state, [2, 2], *[cmd(s, "done") for s in ("West", "East") * 2])
    assert texts(events)[4:6] == ["Turn 2.", "The dust settles at E4."]
    assert state.field.going(parse_label("E4")) is TerrainClass.GOOD
    quiet, events = act(dry([5, 1]), [], cmd("West", "marker", unit="w-foot", to="F4"),
                        cmd("West", "done"), cmd("East", "done"))
    assert not any("dust" in t for t in texts(events))


def test_dust_goes_down_wind_and_does_not_block_sight():
    state = dry([6, 1, 2, 5, 2], dust=True, weather=True)  # 7, the wind (3) from the east
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="F4"),
                        cmd("West", "done"), cmd("East", "done"))
    # An east wind carries it to the hexside clockwise of west: NW of F4.
    assert texts(events)[-1] == "w-foot raises dust: it covers E4, down-wind."
    assert state.clouds[0].kind == "dust"
    assert _blocked(state, parse_label("D4"), parse_label("F4")) is None  # no cloud to sight
