"""GRASP battle specials read where the source leaves a gap: the berserk combat type (its
name lost in the source's table) and swimmers below the surface."""

from __future__ import annotations

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
