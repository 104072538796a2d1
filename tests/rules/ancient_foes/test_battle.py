"""A whole Ancient Foes 2 battle on the hex map (rules/ancient_foes/battle.py): deployment,
who starts, facing and "in front", leaders' moves and orders (command range, the second
order's D6), forward moves, turns and formation changes, fire and fight on the map, the
history flags, initiative with the player's choices, the victory check, the JSON form,
properties and a scripted battle stored as a golden file."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ancient_foes.battle import ENGINE, AfBattle, AfOrder, acting_sides
from rules.battle import BattleError
from rules.dice import FixedDice, SeededDice
from rules.hexgrid import Direction, format_label, parse_label, within_45
from rules.jsonio import InputError
from rules.plane import Point
from tests.rules.ancient_foes.battle_script import SCENARIO, orders_for
from tests.rules.battles import check_golden, check_json_form, play_out

GOLDEN = Path(__file__).parent / "golden" / "battle.json"


def band(name: str, facing: str, *units: tuple[str, str, str]) -> dict[str, Any]:
    return {"name": name, "facing": facing,
            "units": [{"name": n, "code": c, "at": h} for n, c, h in units]}


def leader(name: str, where: str, code: str = "H-Sw-Ho-Leader", facing: str = "N"
           ) -> dict[str, Any]:
    return band(name, facing, (name, code, where))


def battle(red: list[dict[str, Any]], blue: list[dict[str, Any]], *, cols: int = 12,
           rows: int = 12, terrain: dict[str, str] | None = None, **conf: Any) -> AfBattle:
    """Red's turn, round 1 (the first-player roll has its own test); armies may stand close
    (deployment_cm 0) unless a test says otherwise."""
    scen = {"map": {"cols": cols, "rows": rows, "terrain": terrain or {}},
            "sides": [{"name": "red", "bands": red}, {"name": "blue", "bands": blue}]}
    conf.setdefault("deployment_cm", 0)
    conf.setdefault("leader_cap", "up")  # two-band armies with their leader
    state = ENGINE.start(scenario=scen, settings=conf, dice=FixedDice([6, 1])).state
    assert state.active == "red"
    return state


def cmd(side: str, kind: str, **kw: Any) -> AfOrder:
    if isinstance(kw.get("to"), str):
        kw["to"] = parse_label(kw["to"])
    if isinstance(kw.get("facing"), str):
        kw["facing"] = Direction[kw["facing"]]
    if "formation" in kw:
        kw["formation"] = tuple((n, parse_label(h) if isinstance(h, str) else h)
                                for n, h in kw["formation"].items())
    return AfOrder(side=side, kind=kind, **kw)  # type: ignore[arg-type]


def order(leader_name: str, band_name: str, what: str, side: str = "red", **kw: Any) -> AfOrder:
    return cmd(side, "order", leader=leader_name, band=band_name, order=what, **kw)


def act(state: AfBattle, rolls: list[int], *orders: AfOrder) -> tuple[AfBattle, list[Any]]:
    dice = FixedDice(rolls)
    result = ENGINE.step(state=state, orders=list(orders), dice=dice)
    assert dice.remaining == 0
    return result.state, list(result.events)


def refused(state: AfBattle, *orders: AfOrder) -> BattleError:
    with pytest.raises(BattleError) as caught:
        ENGINE.step(state=state, orders=list(orders), dice=FixedDice([]))
    return caught.value


def hexes(state: AfBattle, name: str) -> list[str]:
    return [format_label(u.hex) for u in state.band(name).units]


FOOT = "H-Sw-Fo"  # movement 8, attack 4, defence 6
JAV = "L-Ja-Fo"  # range 8, movement 12, attack 2, defence 4
LEGION = [leader("dux", "B6"), band("legion", "N", ("a", FOOT, "C6"), ("b", FOOT, "D6"))]
FAR_BLUE = [leader("rex", "K2", facing="S"),
            band("horde", "S", ("x", FOOT, "J2"), ("y", FOOT, "J3"))]


# --- deployment and who starts --------------------------------------------------------------


def test_start_deploys_and_the_highest_d6_starts_after_a_roll_off():
    scen = {"map": {"cols": 30, "rows": 8},
            "sides": [{"name": "red", "bands": [band("r", "SE", ("r1", FOOT, "B2"))]},
                      {"name": "blue", "bands": [band("b", "NW", ("b1", FOOT, "T2"))]}]}
    result = ENGINE.start(scenario=scen, settings={}, dice=FixedDice([3, 3, 1, 4]))
    assert (result.state.order, result.state.active, result.state.step) == (
        ("blue", "red"), "blue", "command")
    assert result.events[1].text == ("Who starts: red 3, blue 3, red (roll-off 2) 1, blue "
                                     "(roll-off 2) 4; blue starts.")
    assert result.events[0].text == "2 bands deployed on a 30 × 8 map (2 cm a hex)."


@pytest.mark.parametrize(("conf", "change", "field", "message"), [
    ({}, lambda s: s["sides"][1]["bands"][0]["units"][0].update(at="P2"), "scenario.sides",
     "r and b deploy 28 cm apart; armies deploy at least 30 cm apart."),
    ({}, lambda s: s["sides"][0]["bands"].append(leader("chief", "A8")), "scenario.sides[0]",
     "The army has 1 leaders but only 2 bands; at most one leader per 3 bands is allowed (0 "
     "here)."),
    ({}, lambda s: s["sides"][0]["bands"][0].update(facing="E"),
     "scenario.sides[0].bands[0].facing", "is one of N, NE, SE, S, SW, NW."),
    ({}, lambda s: s["sides"][0]["bands"][0]["units"].append(
        {"name": "r2", "code": FOOT, "at": "B4"}), "scenario.sides[0].bands[0].units",
     "band 'r' has gaps: a band stands together, base to base."),
])
def test_a_bad_deployment_is_refused_naming_the_rule(conf, change, field, message):
    scen = {"map": {"cols": 30, "rows": 8},
            "sides": [{"name": "red", "bands": [band("r", "SE", ("r1", FOOT, "B2"))]},
                      {"name": "blue", "bands": [band("b", "NW", ("b1", FOOT, "T2"))]}]}
    change(scen)
    with pytest.raises(InputError) as caught:
        ENGINE.start(scenario=scen, settings=conf, dice=FixedDice([6, 1]))
    assert (caught.value.field, caught.value.message) == (field, message)


def test_the_leader_cap_setting_rounds_up_so_a_small_army_may_have_its_leader():
    scen = {"map": {"cols": 30, "rows": 8},
            "sides": [{"name": "red", "bands": [band("r", "SE", ("r1", FOOT, "B2")),
                                                leader("chief", "A8")]},
                      {"name": "blue", "bands": [band("b", "NW", ("b1", FOOT, "T2"))]}]}
    state = ENGINE.start(scenario=scen, settings={"leader_cap": "up"},
                         dice=FixedDice([6, 1])).state
    assert state.side("red").had_leaders and not state.side("blue").had_leaders


def test_the_state_survives_its_json_form_and_replays_identically():
    dice = SeededDice(seed="json")
    state = ENGINE.start(scenario=SCENARIO, settings={}, dice=dice).state
    for _ in range(9):
        state = ENGINE.step(state=state, orders=orders_for(state), dice=dice).state
    check_json_form(ENGINE, state, orders_for(state))


def test_only_the_player_whose_turn_it_is_gives_orders():
    state = battle(LEGION, FAR_BLUE)
    error = refused(state, cmd("blue", "done"))
    assert (error.field, error.rule, str(error)) == (
        "orders[0]", "turn", "blue does not act now: it is red's turn (command).")


# --- facing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("facing", "there", "ahead"), [
    ("N", "E1", True), ("N", "F3", True), ("N", "G3", True), ("N", "F4", False),
    ("N", "E6", False), ("NE", "F4", True), ("NE", "G5", True), ("NE", "E3", False),
])
def test_in_front_is_within_45_degrees_of_the_facing(facing, there, ahead):
    assert within_45(Direction[facing], parse_label("E5"), parse_label(there)) is ahead


# --- leaders' moves and orders --------------------------------------------------------------


def test_a_leader_moves_in_any_direction_then_orders_and_not_after():
    state = battle(LEGION, FAR_BLUE)
    state, events = act(state, [], cmd("red", "move_leader", leader="dux", to="B9"))
    assert (hexes(state, "dux"), events[0].text) == (["B9"], "dux moves 6 cm to B9.")
    error = refused(state, cmd("red", "move_leader", leader="dux", to="B8"))
    assert str(error) == ("dux has already moved or given orders this turn: a leader moves "
                          "once, before he gives orders.")
    error = refused(battle(LEGION, FAR_BLUE), cmd("red", "move_leader", leader="dux",
                                                  to="L6"))
    assert (error.rule, str(error)) == (
        "leaders", "dux may move 14 cm but this move is 20 cm; a band moves no farther than "
        "its slowest unit allows.")


def test_command_range_and_the_second_orders_d6():
    far = [leader("dux", "A12"), band("legion", "N", ("a", FOOT, "C1"), ("b", FOOT, "D1"))]
    error = refused(battle(far, FAR_BLUE), order("dux", "legion", "turn", facing="S"))
    assert (error.rule, str(error)) == (
        "command range", "legion is 24 cm from dux; a leader's command range is 20 cm.")
    state = battle(LEGION, FAR_BLUE)
    state, events = act(state, [2], order("dux", "legion", "move", to="C4"),
                        order("dux", "legion", "move", to="C1"))
    assert [e.text for e in events] == [
        "dux orders legion to move: legion moves 4 cm to C4, D4.",
        "dux orders legion to move: second order, D6 2 (needs 3+): it fails."]
    assert [r.value for r in events[1].rolls] == [2]
    error = refused(state, order("dux", "legion", "turn", facing="N"))
    assert str(error) == "dux has given his two orders this turn."
    _, events = act(battle(LEGION, FAR_BLUE), [3],
                    order("dux", "legion", "move", to="C4"),
                    order("dux", "legion", "turn", facing="S"))
    assert events[1].text == ("dux orders legion to turn (second order, D6 3: given): legion "
                              "now faces S.")


def test_a_band_moves_only_forwards_and_as_far_as_its_allowance():
    state = battle(LEGION, FAR_BLUE, terrain={"C3": "woods"})
    error = refused(state, order("dux", "legion", "move", to="F6"))
    assert (error.rule, str(error)) == (
        "move", "legion faces N and moves only forwards (within 45°); F6 is not ahead of it: "
        "turn it first.")
    state, events = act(state, [], order("dux", "legion", "move", to="C1"))
    # 8 cm (4 hexes) in the open; a move that crosses the woods at C3 has 6 cm (3 hexes).
    assert hexes(state, "legion") == ["C3", "D3"]
    assert events[0].text == (
        "dux orders legion to move: legion moves 6 cm to C3, D3, short of C1 (legion may move "
        "6 cm but this move is 8 cm; a band moves no farther than its slowest unit allows).")


def test_a_band_stops_before_another_band():
    blocker = [leader("rex", "K10", facing="S"), band("wall", "S", ("w", FOOT, "C3"))]
    state = battle(LEGION, blocker)
    state, events = act(state, [], order("dux", "legion", "move", to="C1"))
    assert hexes(state, "legion") == ["C4", "D4"]
    assert "would cross C3, held by another band" in events[0].text


def test_turning_and_changing_formation_exclude_each_other_and_keep_neighbours():
    state = battle(LEGION, FAR_BLUE)
    turned, _ = act(state, [], order("dux", "legion", "turn", facing="S"))
    error = refused(turned, order("dux", "legion", "formation", formation={"b": "C7"}))
    assert str(error) == "legion turned this turn; a band cannot change formation and turn."
    error = refused(state, order("dux", "legion", "formation", formation={"b": "C8"}))
    assert (error.rule, str(error)) == (
        "formation", "legion would have gaps: after a formation change its units stand "
        "together with no gaps.")
    three = [leader("dux", "B6"),
             band("legion", "N", ("a", FOOT, "C6"), ("b", FOOT, "D6"), ("c", FOOT, "E6"))]
    error = refused(battle(three, FAR_BLUE),
                    order("dux", "legion", "formation", formation={"a": "F6"}))
    assert str(error) == ("a would no longer stand next to any unit it stood next to before "
                          "the change.")
    formed, events = act(state, [], order("dux", "legion", "formation", formation={"b": "C7"}))
    assert hexes(formed, "legion") == ["C6", "C7"]
    error = refused(battle([leader("dux", "B6"), band("solo", "N", ("s", FOOT, "C6"))],
                           FAR_BLUE), order("dux", "solo", "formation", formation={"s": "C7"}))
    assert str(error) == ("solo is a single unit; only a band of more than one unit changes "
                          "formation.")


# --- fire and fight -------------------------------------------------------------------------


SKIRMISH = [leader("dux", "B9"), band("javelins", "N", ("j1", JAV, "C6"), ("j2", JAV, "D6"))]


def test_fire_needs_the_target_in_front_and_kills_on_d6_plus_attack_at_least_defence():
    blue = [leader("rex", "K10", facing="S"),
            band("targets", "S", ("t1", "M-Sw-Fo", "C3"), ("t2", "M-Sw-Fo", "D3"))]
    state = battle(SKIRMISH, blue)
    turned, _ = act(state, [], order("dux", "javelins", "turn", facing="S"))
    error = refused(turned, order("dux", "targets", "turn", facing="N"))
    assert (error.field, str(error)) == ("orders[0].band", "targets is not a band of red.")
    away = battle([leader("dux", "B9"),
                   band("javelins", "S", ("j1", JAV, "C6"), ("j2", JAV, "D6"))], blue)
    error = refused(away, order("dux", "javelins", "fire", target="targets"))
    assert (error.rule, str(error)) == (
        "fire", "targets is not in front of javelins (facing S); a band fires only at a band "
        "in front of it, not to its side or behind.")
    state, events = act(state, [3, 1], order("dux", "javelins", "fire", target="targets"))
    assert [e.kind for e in events] == ["order", "fire"]
    assert events[1].text.startswith("javelins fires at targets: j1 (C6) fires at t1 (C3), "
                                     "6 cm, range 8 cm: D6 3 + attack 2 = 5 vs defence 5: "
                                     "kill;")
    assert hexes(state, "targets") == ["D3"] and state.band("targets").lost


def test_fight_needs_contact_and_a_fallen_leader_costs_his_side_one_next_round():
    red = [leader("dux", "C8"), band("legion", "N", ("a", FOOT, "C6"), ("b", FOOT, "D6"))]
    blue = [leader("rex", "C5", code="L-Ha-Fo-Leader", facing="S"),
            leader("rex2", "J1", code="L-Ha-Fo-Leader", facing="S"),
            band("horde", "S", ("x", FOOT, "H1"), ("y", FOOT, "I1")),
            band("spare", "S", ("z", FOOT, "K1")),
            band("more", "S", ("v", FOOT, "L4")),
            band("last", "S", ("w", FOOT, "L6"))]
    state = battle(red, blue)
    error = refused(state, order("dux", "legion", "fight", target="horde"))
    assert (error.rule, str(error)) == (
        "fight", "No unit of legion is within fighting range (1 cm: an adjacent hex) of horde.")
    state, events = act(state, [2], order("dux", "legion", "fight", target="rex"))
    assert events[1].text == ("legion fights rex: a (C6) fights rex (C5), 2 cm: D6 2 + attack 4 "
                              "= 6 vs defence 5: kill; b does not attack: the target band is "
                              "destroyed. rex is destroyed.")
    assert events[2].text == "blue's leader rex falls: its bands fight at −1 next round."
    assert state.side("blue").leader_fell == 1
    assert state.killed == ("rex/rex",)


def test_the_history_flags_moves_in_a_row_and_turns_without_acting():
    red = [leader("dux", "B19"), band("legion", "N", ("a", FOOT, "C19"), ("b", FOOT, "D19"))]
    state = battle(red, FAR_BLUE, rows=20)
    for lead, to in (("B15", "C15"), ("B11", "C11"), ("B7", "C7")):
        state, _ = act(state, [], cmd("red", "move_leader", leader="dux", to=lead),
                       order("dux", "legion", "move", to=to), cmd("red", "done"),
                       cmd("blue", "done"))
    legion = state.band("legion")
    assert (hexes(state, "legion"), legion.moves, state.band("dux").idle,
            state.band("horde").idle) == (["C7", "D7"], 3, 0, 3)
    assert state.field_band(legion).moved_three_times
    state, events = act(state, [], order("dux", "legion", "move", to="C1"))
    assert events[0].text == (
        "dux orders legion to move: legion moves 6 cm to C4, D4, short of C1 (legion may move "
        "6 cm but this move is 8 cm; a band moves no farther than its slowest unit allows).")


# --- initiative -----------------------------------------------------------------------------


def test_a_band_out_of_command_range_in_contact_must_fight_by_initiative():
    red = [leader("dux", "A12"), band("lost", "N", ("l1", FOOT, "N6"), ("l2", FOOT, "O6"))]
    blue = [leader("rex", "P1", facing="S"), band("foe", "S", ("f1", FOOT, "N5"))]
    state = battle(red, blue, cols=16)
    state, events = act(state, [1, 6], cmd("red", "done"))
    assert [e.kind for e in events] == ["orders_done", "initiative", "fight", "turn"]
    assert events[1].text == "lost takes initiative: it is out of every leader's command range."
    assert state.active == "blue" and state.band("lost").idle == 0


def test_with_two_bands_in_reach_the_player_chooses_and_a_wrong_choice_is_refused():
    red = [leader("dux", "A12"), band("lost", "N", ("l1", FOOT, "N6"), ("l2", FOOT, "O6"))]
    blue = [leader("rex", "P1", facing="S"), band("foe", "S", ("f1", FOOT, "N5")),
            band("other", "S", ("o1", FOOT, "O5"))]
    state = battle(red, blue, cols=16)
    state, events = act(state, [], cmd("red", "done"))
    assert (state.step, state.queue[0], events[-1].kind) == ("initiative", "lost",
                                                             "orders_done")
    error = refused(state, cmd("red", "initiative", band="lost", target="rex"))
    assert str(error) == "lost must fight at one of foe, other, not rex."
    error = refused(state, cmd("red", "initiative", band="lost"))
    assert str(error) == "lost must fight: choose the target among foe, other."
    state, events = act(state, [6], cmd("red", "initiative", band="lost", target="other"))
    assert "other is destroyed" in events[1].text and state.active == "blue"


def test_a_leader_in_contact_may_flee_on_2_or_must_fight():
    red = [leader("dux", "E6"), band("far", "N", ("f", FOOT, "A12"))]
    blue = [leader("rex", "L1", facing="S"), band("foe", "S", ("x", FOOT, "E5")),
            band("b2", "S", ("y", FOOT, "K1"))]
    state, events = act(battle(red, blue), [], cmd("red", "done"))
    assert state.queue[0] == "dux"  # a leader does not command himself: he takes initiative
    fled, events = act(state, [2], cmd("red", "initiative", band="dux", flee=True))
    assert events[0].text == ("dux tries to flee: D6 2 (2+): the leader turns around and moves "
                              "his full distance.")
    assert (hexes(fled, "dux"), fled.band("dux").facing) == (["E12"], Direction.S)
    caught, events = act(state, [1, 6], cmd("red", "initiative", band="dux", flee=True))
    assert events[0].text == ("dux tries to flee: D6 1 (needs 2+): the flight fails, he must "
                              "fight.")
    assert events[2].kind == "fight"


def test_a_band_that_cannot_win_falls_back_its_full_move():
    red = [leader("dux", "A12"), band("peasants", "N", ("p", "L-Ha-Fo-Ix", "N6"))]
    blue = [leader("rex", "P1", facing="S"), band("guard", "S", ("g", "H-Sw-El", "N5"))]
    state = battle(red, blue, cols=16)
    state, events = act(state, [], cmd("red", "done"))
    assert [e.kind for e in events] == ["orders_done", "initiative", "fall_back", "turn"]
    assert hexes(state, "peasants") == ["N12"]
    assert events[2].text == "peasants falls back: moves 12 cm to N12."


def test_a_band_that_lost_units_closes_its_gaps_by_initiative():
    red = [leader("dux", "A12"),
           band("line", "N", ("l1", FOOT, "L6"), ("l2", FOOT, "M6"), ("l3", FOOT, "N6"))]
    start = battle(red, FAR_BLUE, cols=16)
    # The middle unit fell in blue's turn: the band has a gap and knows it lost units.
    line = start.band("line")
    state = replace(start, bands=tuple(
        replace(b, units=(line.units[0], line.units[2]), lost=True) if b.name == "line" else b
        for b in start.bands))
    state, events = act(state, [], cmd("red", "done"))
    assert state.queue[0] == "line"
    error = refused(state, cmd("red", "initiative", band="line"))
    assert str(error) == "line lost units and has gaps: give the formation that closes them."
    state, events = act(state, [], cmd("red", "initiative", band="line",
                                       formation={"l3": "M6"}))
    assert hexes(state, "line") == ["L6", "M6"] and not state.band("line").lost
    assert events[1].text == "line closes its gaps: L6, M6."


# --- the end --------------------------------------------------------------------------------


def test_after_the_last_round_the_most_units_win_and_equal_is_a_draw():
    state = battle(LEGION, FAR_BLUE, max_rounds=1)
    state, events = act(state, [], cmd("red", "done"), cmd("blue", "done"))
    assert events[-1].text == "A draw at the end of round 1: red and blue have 3 units left each."
    error = refused(state, cmd("red", "done"))
    assert (error.rule, str(error)) == ("victory", "The battle is over.")


# --- a whole battle, scripted ---------------------------------------------------------------


def test_a_scripted_battle_from_deployment_to_victory_matches_its_golden_file():
    state, events = play_out(ENGINE, SCENARIO, "af-0", orders_for)
    verdict = ENGINE.outcome(state)
    assert verdict is not None and verdict.winner == "Carthage"
    assert {"initiative", "leader_fell", "victory"} <= {e["kind"] for e in events}
    check_golden(GOLDEN, verdict, events)


def _units(state: AfBattle) -> list[str]:
    return [f"{b.name}/{u.name}" for b in state.bands for u in b.units]


@settings(max_examples=15, deadline=None)
@given(st.text(min_size=1, max_size=8), st.integers(1, 4))
def test_a_battle_never_duplicates_stacks_or_revives_units_and_replays_the_same(seed, rounds):
    dice = SeededDice(seed=seed)
    conf = {"max_rounds": rounds}
    state = ENGINE.start(scenario=SCENARIO, settings=conf, dice=dice).state
    everyone = set(_units(state))
    given_orders = []
    for _ in range(300):
        if ENGINE.outcome(state) is not None:
            break
        orders = orders_for(state)
        given_orders.append(orders)
        state = ENGINE.step(state=state, orders=orders, dice=dice).state
        alive = _units(state)
        assert len(alive) == len(set(alive))
        assert set(alive) | set(state.killed) == everyone
        assert not set(alive) & set(state.killed)
        placed = [u.hex for b in state.bands for u in b.units]
        assert len(placed) == len(set(placed)) and all(state.table.contains(h) for h in placed)
    again_dice = SeededDice(seed=seed)
    again = ENGINE.start(scenario=SCENARIO, settings=conf, dice=again_dice).state
    for orders in given_orders:
        again = ENGINE.step(state=again, orders=orders, dice=again_dice).state
    assert ENGINE.state_to_json(again) == ENGINE.state_to_json(state)
    assert acting_sides(state) in ((), (state.active,))


# --- the continuous table -------------------------------------------------------------------


def table(red: list[dict[str, Any]], blue: list[dict[str, Any]], *,
          terrain: list[dict[str, Any]] | None = None, **conf: Any) -> AfBattle:
    scen = {"map": {"width": 100, "height": 60, "terrain": terrain or []},
            "sides": [{"name": "red", "bands": red}, {"name": "blue", "bands": blue}]}
    conf = {"board": "continuous", "deployment_cm": 0, "leader_cap": "up", **conf}
    return ENGINE.start(scenario=scen, settings=conf, dice=FixedDice([6, 1])).state


def tband(name: str, facing: list[int], *units: tuple[str, str, list[Any]]) -> dict[str, Any]:
    return {"name": name, "facing": facing,
            "units": [{"name": n, "code": c, "at": p} for n, c, p in units]}


def places(state: AfBattle, name: str) -> list[Point]:
    return [u.hex for u in state.band(name).units]  # type: ignore[misc]


T_RED = [tband("dux", [1, 0], ("dux", "H-Sw-Ho-Leader", [6, 30])),
         tband("legion", [1, 0], ("a", FOOT, [10, 28]), ("b", FOOT, [10, 32]))]
T_BLUE = [tband("rex", [-1, 0], ("rex", "H-Sw-Ho-Leader", [94, 30])),
          tband("horde", [-1, 0], ("x", FOOT, [90, 28]), ("y", FOOT, [90, 32]))]


def test_on_the_table_armies_deploy_30_cm_apart_between_base_edges():
    scen = {"map": {"width": 100, "height": 60}, "sides": [
        {"name": "red", "bands": [tband("r", [1, 0], ("r1", FOOT, [10, 30]))]},
        {"name": "blue", "bands": [tband("b", [-1, 0], ("b1", FOOT, [43, 30]))]}]}
    with pytest.raises(InputError) as caught:
        ENGINE.start(scenario=scen, settings={"board": "continuous"}, dice=FixedDice([6, 1]))
    assert caught.value.message == ("r and b deploy 29 cm apart; armies deploy at least 30 cm "
                                     "apart.")
    scen["sides"][1]["bands"][0]["units"][0]["at"] = [44, 30]
    state = ENGINE.start(scenario=scen, settings={"board": "continuous"},
                         dice=FixedDice([6, 1])).state
    assert state.table.label(state.band("b").units[0].hex) == "(44, 30)"


def test_on_the_table_a_band_moves_forwards_as_far_as_its_allowance_exactly():
    state = table(T_RED, T_BLUE)
    error = refused(state, order("dux", "legion", "move", to=[10, 50]))
    assert str(error) == ("legion faces [1, 0] and moves only forwards (within 45°); "
                          "(10, 50) is not ahead of it: turn it first.")
    state, events = act(state, [], order("dux", "legion", "move", to=[30, 28]))
    assert places(state, "legion") == [Point(F(18), F(28)), Point(F(18), F(32))]
    assert events[0].text.startswith("dux orders legion to move: legion moves 8 cm to "
                                     "(18, 28), (18, 32), short of (30, 28)")


def test_on_the_table_rough_ground_crossed_costs_2_cm():
    wood = [{"terrain": "woods", "polygon": [[14, 0], [20, 0], [20, 60], [14, 60]]}]
    state, _ = act(table(T_RED, T_BLUE, terrain=wood), [],
                   order("dux", "legion", "move", to=[30, 28]))
    assert places(state, "legion") == [Point(F(16), F(28)), Point(F(16), F(32))]


def test_on_the_table_fighting_range_is_1_cm_between_bases():
    near = [tband("rex", [-1, 0], ("rex", "H-Sw-Ho-Leader", [94, 30])),
            tband("horde", [-1, 0], ("x", FOOT, [15, 28]))]  # a's edge 1 cm from x's
    state, events = act(table(T_RED, near), [6], order("dux", "legion", "fight",
                                                          target="horde"))
    assert events[1].text.startswith("legion fights horde: a (10, 28) fights x (15, 28), 1 cm:")
    apart = [near[0], tband("horde", [-1, 0], ("x", FOOT, [16, 28]))]
    error = refused(table(T_RED, apart), order("dux", "legion", "fight", target="horde"))
    assert str(error) == ("No unit of legion is within fighting range (1 cm: base to base) "
                          "of horde.")


def test_on_the_table_fire_reaches_between_base_edges_and_woods_on_the_line_cost_range():
    red = [T_RED[0], tband("javelins", [1, 0], ("j", JAV, [10, 30]))]
    blue = [T_BLUE[0], tband("target", [-1, 0], ("t1", FOOT, [22, 30]), ("t2", FOOT, [22, 34]))]
    state, events = act(table(red, blue), [3], order("dux", "javelins", "fire",
                                                     target="target"))
    assert "j (10, 30) fires at t1 (22, 30), 8 cm, range 8 cm: D6 3 + attack 2 = 5" in \
        events[1].text
    wood = [{"terrain": "woods", "polygon": [[15, 0], [17, 0], [17, 60], [15, 60]]}]
    state, events = act(table(red, blue, terrain=wood), [],
                        order("dux", "javelins", "fire", target="target"))
    assert "j does not attack: no unit of target is within its range of 8 cm" in events[1].text


def test_on_the_table_a_formation_change_keeps_bases_touching_a_former_neighbour():
    state = table(T_RED, T_BLUE)
    formed, _ = act(state, [], order("dux", "legion", "formation",
                                     formation={"b": [14, 28]}))
    assert places(formed, "legion") == [Point(F(10), F(28)), Point(F(14), F(28))]
    error = refused(state, order("dux", "legion", "formation", formation={"b": [20, 28]}))
    assert str(error) == ("legion would have gaps: after a formation change its units stand "
                          "together with no gaps.")


def test_a_table_state_survives_its_json_form():
    from tests.rules.ancient_foes.battle_script import CONTINUOUS

    dice = SeededDice(seed="table-json")
    state = ENGINE.start(scenario=CONTINUOUS, settings={"board": "continuous"},
                         dice=dice).state
    for _ in range(8):
        state = ENGINE.step(state=state, orders=orders_for(state), dice=dice).state
    check_json_form(ENGINE, state, orders_for(state))


def test_the_same_armies_fight_on_the_continuous_table_golden():
    from tests.rules.ancient_foes.battle_script import CONTINUOUS

    state, events = play_out(ENGINE, CONTINUOUS, "ac-1", orders_for,
                             settings={"board": "continuous"})
    verdict = ENGINE.outcome(state)
    assert verdict is not None and verdict.winner == "Carthage"
    check_golden(GOLDEN.parent / "battle-continuous.json", verdict, events)


@settings(max_examples=5, deadline=None)
@given(st.text(min_size=1, max_size=8))
def test_on_the_table_bases_never_overlap_and_stay_on_it(seed):
    from tests.rules.ancient_foes.battle_script import CONTINUOUS

    dice = SeededDice(seed=seed)
    state = ENGINE.start(scenario=CONTINUOUS, settings={"board": "continuous",
                                                        "max_rounds": 3}, dice=dice).state
    for _ in range(200):
        if ENGINE.outcome(state) is not None:
            break
        state = ENGINE.step(state=state, orders=orders_for(state), dice=dice).state
        spots = [u.hex for b in state.bands for u in b.units]
        assert all(state.table.contains(p) for p in spots)
        assert not any(state.table.overlap(a, b) for i, a in enumerate(spots)
                       for b in spots[i + 1:])
