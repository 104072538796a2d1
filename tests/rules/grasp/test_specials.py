"""GRASP battle specials read where the source leaves a gap: the berserk combat type (its
name lost in the source's table) and swimmers below the surface."""

from __future__ import annotations

from dataclasses import replace

from rules.grasp.combat import Level
from tests.rules.grasp.battle_script import FOOT
from tests.rules.grasp.test_battle import (
    EAST,
    GENERAL,
    act,
    begin,
    cmd,
    refused,
    to_combat,
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
