"""A whole QUAD battle (rules/quad/battle.py): deployment, the draw, steal windows, what a
played card lets a unit do, combat on the map with the source's examples, elimination, the
victory check, the JSON form, and a scripted battle stored as a golden file."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle import BattleError
from rules.dice import FixedDice, SeededDice
from rules.hexgrid import distance, format_label, parse_label
from rules.jsonio import InputError
from rules.quad.battle import ENGINE, QuadBattle, QuadOrder, acting_sides
from rules.quad.deck import CardKind
from tests.rules.battles import check_golden, check_json_form, play_out
from tests.rules.quad.battle_script import SCENARIO, orders_for

GOLDEN = Path(__file__).parent / "golden" / "battle.json"

UNIT = {"quality": 3, "speed": 2, "attack": 2, "defense": 1}


def duel(red: dict[str, Any], blue: dict[str, Any], *, terrain: dict[str, str] | None = None,
         red_at: str = "C3", blue_at: str = "C4", extra: list[dict[str, Any]] | None = None,
         blue_policy: dict[str, str] | None = None, cols: int = 6, rows: int = 8
         ) -> dict[str, Any]:
    """Two sides of one unit each (plus `extra` red units), no tactics cards."""
    return {"map": {"cols": cols, "rows": rows, "terrain": terrain or {}},
            "sides": [
                {"name": "red", "units": [{"id": "r", "hex": red_at, "type": red},
                                          *(extra or [])]},
                {"name": "blue", "policy": blue_policy or {},
                 "units": [{"id": "b", "hex": blue_at, "type": blue}]}]}


def begin(scenario: dict[str, Any], *, seed: str = "t", first_draws: bool = True
          ) -> QuadBattle:
    """Started, turn 1's draw answered by both (red holds the activation, no window)."""
    dice = SeededDice(seed=seed)
    state = ENGINE.start(scenario=scenario, settings={}, dice=dice).state
    return ENGINE.step(state=state, dice=dice, orders=[
        QuadOrder(side="red", kind="draw", take=first_draws),
        QuadOrder(side="blue", kind="draw", take=first_draws)]).state


def give_cards(state: QuadBattle, side: str, unit: str, tactics: int = 0) -> QuadBattle:
    """The side's hand set to the unit's three cards (and tactics cards): fixed for a test."""
    from dataclasses import replace

    from rules.quad.deck import Card

    hand = tuple(Card(kind=CardKind.UNIT, unit=unit, copy=c) for c in (1, 2, 3)) + tuple(
        Card(kind=CardKind.TACTICS, unit="", copy=c) for c in range(1, tactics + 1))
    players = tuple(replace(p, hand=hand, draw_pile=tuple(
        c for c in p.draw_pile if c not in hand)) if p.player == side else p
        for p in state.cards.players)
    return replace(state, cards=replace(state.cards, players=players))


def play(state: QuadBattle, rolls: list[int], **order: Any) -> tuple[QuadBattle, list[Any]]:
    dice = FixedDice(rolls)
    result = ENGINE.step(state=state, orders=[QuadOrder(side="red", kind="play", **order)],
                         dice=dice)
    assert dice.remaining == 0
    return result.state, list(result.events)


# --- deployment and the JSON form ----------------------------------------------------------


def test_start_deploys_builds_the_decks_and_waits_for_the_draw():
    result = ENGINE.start(scenario=SCENARIO, settings={}, dice=SeededDice(seed="golden"))
    state = result.state
    assert (state.step, acting_sides(state), len(state.units)) == ("draw", ("red", "blue"), 6)
    red, blue = state.cards.players
    # Red: 3 units × 3 cards + ⌊3/3⌋ + leader 1 = 11 cards, a starting hand of 2; blue: 10, 1.
    assert (len(red.hand) + len(red.draw_pile), len(red.hand)) == (11, 2)
    assert (len(blue.hand) + len(blue.draw_pile), len(blue.hand)) == (10, 1)
    assert [e.kind for e in result.events] == ["deployed", "decks"]
    assert len(result.events[1].rolls) == 10 + 9  # the two Fisher–Yates shuffles


@pytest.mark.parametrize(("change", "field"), [
    (lambda s: s["sides"].pop(), "scenario.sides"),
    (lambda s: s["sides"][1]["units"][0].update(hex="A2"), "scenario.sides[1].units[0].hex"),
    (lambda s: s["sides"][1]["units"][0].update(hex="Z9"), "scenario.sides[1].units[0].hex"),
    (lambda s: s["sides"][1]["units"][0].update(id="red-horse"),
     "scenario.sides[1].units[0].id"),
    (lambda s: s["map"]["terrain"].update(B2="lava"), "scenario.map.terrain.B2"),
    (lambda s: s["sides"][0]["units"][0]["type"].update(quality=6),
     "scenario.sides[0].units[0].type.quality"),
])
def test_a_bad_scenario_is_refused_naming_the_field(change, field):
    scenario = copy.deepcopy(SCENARIO)
    change(scenario)
    with pytest.raises(InputError) as info:
        ENGINE.start(scenario=scenario, settings={}, dice=SeededDice(seed="x"))
    assert info.value.field == field


def test_the_state_survives_its_json_form_and_replays_identically():
    state = begin(SCENARIO, seed="json")
    check_json_form(ENGINE, state, orders_for(state))


# --- the turn: draw, who acts, steal windows ------------------------------------------------


def test_the_draw_is_optional_and_the_first_player_alternates_by_turn():
    dice = SeededDice(seed="draw")
    state = ENGINE.start(scenario=SCENARIO, settings={}, dice=dice).state
    hands = [len(p.hand) for p in state.cards.players]
    state = ENGINE.step(state=state, dice=dice, orders=[
        QuadOrder(side="blue", kind="draw", take=False)]).state
    assert acting_sides(state) == ("red",)
    state = ENGINE.step(state=state, dice=dice, orders=[
        QuadOrder(side="red", kind="draw", take=True)]).state
    assert [len(p.hand) for p in state.cards.players] == [hands[0] + 1, hands[1]]
    assert (state.cards.turn, state.cards.active) == (1, "red")


def test_an_order_from_a_side_that_does_not_act_is_refused():
    state = begin(SCENARIO)
    while state.step != "activation":
        state = ENGINE.step(state=state, orders=orders_for(state), dice=SeededDice("w")).state
    idle = next(s for s in ("red", "blue") if s != state.cards.active)
    with pytest.raises(BattleError) as info:
        ENGINE.step(state=state, orders=[QuadOrder(side=idle, kind="release")],
                    dice=SeededDice(seed="x"))
    assert (info.value.rule, info.value.field) == ("turn", "orders[0]")
    assert f"{state.cards.active} holds the activation" in str(info.value)


def test_a_steal_window_opens_after_a_card_and_a_tactics_card_takes_the_activation():
    state = begin(duel(UNIT, UNIT, red_at="A1", blue_at="F8"))
    state = give_cards(give_cards(state, "red", "r"), "blue", "b", tactics=1)
    state, events = play(state, [], unit="r", action="hold")
    assert (state.step, acting_sides(state)) == ("steal", ("blue",))
    result = ENGINE.step(state=state, orders=[QuadOrder(side="blue", kind="steal")],
                         dice=SeededDice(seed="x"))
    state = result.state
    assert (state.cards.active, state.step) == ("blue", "activation")
    assert result.events[0].text == ("blue plays tactics 1 and steals the activation from "
                                     "red.")
    assert state.cards.cards_of("blue").tactics_in_hand == 0


def test_when_every_side_releases_without_playing_the_turn_ends_and_the_next_draw_opens():
    state = begin(duel(UNIT, UNIT, red_at="A1", blue_at="F8"))
    dice = SeededDice(seed="rel")
    result = ENGINE.step(state=state, dice=dice, orders=[
        QuadOrder(side="red", kind="release"), QuadOrder(side="blue", kind="release")])
    assert [e.kind for e in result.events] == ["release", "release", "turn_over"]
    assert (result.state.step, acting_sides(result.state)) == ("draw", ("red", "blue"))
    # Each drew two cards for releasing without playing.
    assert [len(p.hand) for p in result.state.cards.players] == [
        len(p.hand) + 2 for p in state.cards.players]


# --- what a card lets a unit do ------------------------------------------------------------


def test_a_move_into_difficult_terrain_is_attacked_and_stopped():
    state = give_cards(begin(duel(UNIT, UNIT, red_at="C3", blue_at="F8",
                                  terrain={"C5": "forest"})), "red", "r")
    # The forest rolls a 4 against quality 3: a hit, the unit stays in C4.
    state, events = play(state, [4], unit="r", action="move", path=[parse_label("C4"),
                                                                     parse_label("C5")])
    assert format_label(state.unit("r").hex) == "C4"
    assert "forest at C5 attacks (rolls 4 against quality 3)" in events[1].text
    assert [r.value for r in events[0].rolls] == [4]


def test_a_move_through_another_unit_or_beyond_its_speed_is_refused():
    state = give_cards(begin(duel(UNIT, UNIT, red_at="C3", blue_at="C4")), "red", "r")
    with pytest.raises(BattleError) as info:
        play(state, [], unit="r", action="move", path=[parse_label("C4"), parse_label("C5")])
    assert info.value.rule == "movement" and "adjacent empty hex" in str(info.value)
    with pytest.raises(BattleError) as info:
        play(state, [], unit="r", action="move",
             path=[parse_label(h) for h in ("B3", "A3", "A2")])
    assert "moves at most 2 hexes" in str(info.value)


def test_source_example_1_on_the_map_the_defender_keeps_the_6_and_pushes_the_attacker_back():
    attacker = {"quality": 3, "speed": 1, "attack": 4, "defense": 0}
    defender = {"quality": 5, "speed": 1, "attack": 0, "defense": 2}
    state = give_cards(begin(duel(attacker, defender, blue_policy={
        "strike_back": "others_first"})), "red", "r")
    state, events = play(state, [1, 3, 5, 6, 4, 6], unit="r", action="attack", target="b")
    # The 6 blocks the hit; the 4 strikes back: the attacker falls back one hex, away from C4.
    assert (state.unit("r").quality, state.unit("b").quality) == (3, 5)
    assert format_label(state.unit("r").hex) == "C2"
    assert distance(state.unit("r").hex, state.unit("b").hex) == 2
    assert [e.kind for e in events] == ["play", "combat", "outcome"]


def test_source_example_1_under_the_default_policy_costs_the_attacker_quality():
    attacker = {"quality": 3, "speed": 1, "attack": 4, "defense": 0}
    defender = {"quality": 5, "speed": 1, "attack": 0, "defense": 2}
    state = give_cards(begin(duel(attacker, defender)), "red", "r")
    state, _ = play(state, [1, 3, 5, 6, 4, 6], unit="r", action="attack", target="b")
    assert (state.unit("r").quality, format_label(state.unit("r").hex)) == (2, "C3")


def test_source_example_2_on_the_map_the_defender_loses_quality_and_retreats_three_hexes():
    attacker = {"quality": 5, "speed": 1, "attack": 5, "defense": 0}
    defender = {"quality": 3, "speed": 1, "attack": 0, "defense": 3}
    state = give_cards(begin(duel(attacker, defender)), "red", "r")
    state, events = play(state, [2, 4, 5, 5, 6, 1, 4, 5], unit="r", action="attack",
                         target="b")
    blue = state.unit("b")
    assert (blue.quality, format_label(blue.hex)) == (2, "C7")
    assert distance(blue.hex, state.unit("r").hex) == 4
    assert "falls back 3 of 3 hexes: C4 → C5 → C6 → C7" in events[2].text


def test_a_fall_back_against_the_map_edge_costs_quality_instead():
    attacker = {"quality": 5, "speed": 1, "attack": 5, "defense": 0}
    defender = {"quality": 3, "speed": 1, "attack": 0, "defense": 3}
    state = give_cards(begin(duel(attacker, defender, red_at="C7", blue_at="C8")), "red", "r")
    state, events = play(state, [2, 4, 5, 5, 6, 1, 4, 5], unit="r", action="attack",
                         target="b")
    # Q3 → 2 by the 6; three hexes of fall-back cannot be made from the edge: 2 − 3 → 0.
    assert "b" in state.eliminated and [u.id for u in state.units] == ["r"]
    assert events[-2].kind == "eliminated"
    assert state.cards.cards_of("blue").hand == ()
    assert events[-1].kind == "victory" and ENGINE.outcome(state).winner == "red"


def test_allies_next_to_the_target_and_supports_next_to_the_defender_add_dice():
    ally = {"id": "r2", "hex": "B4", "type": UNIT}
    support = {"quality": 3, "speed": 1, "attack": 0, "defense": 1, "specials": ["support"]}
    scenario = duel(UNIT, UNIT, extra=[ally])
    scenario["sides"][1]["units"].append({"id": "b2", "hex": "D4", "type": support})
    state = give_cards(begin(scenario), "red", "r")
    state, events = play(state, [1, 1, 1, 1, 1], unit="r", action="attack", target="b")
    result = events[1].data["result"]
    assert result["attack"]["dice"] == 3 and result["defense"]["dice"] == 2
    assert [m["reason"] for m in result["attack"]["modifiers"]][1].startswith("1 allied unit")


def test_a_charger_moves_and_attacks_with_two_more_dice_and_others_may_not():
    charger = {**UNIT, "specials": ["charger"]}
    state = give_cards(begin(duel(charger, UNIT, red_at="C2", blue_at="C4")), "red", "r")
    state, events = play(state, [1] * 5, unit="r", action="charge", path=[parse_label("C3")],
                         target="b")
    assert format_label(state.unit("r").hex) == "C3"
    assert events[2].data["result"]["attack"]["dice"] == 4  # 2 + 2 for the charge
    plain = give_cards(begin(duel(UNIT, UNIT, red_at="C2", blue_at="C4")), "red", "r")
    with pytest.raises(BattleError) as info:
        play(plain, [], unit="r", action="charge", path=[parse_label("C3")], target="b")
    assert info.value.rule == "charger"


def test_a_ranged_unit_shoots_two_hexes_and_a_melee_unit_may_not():
    bows = {**UNIT, "ranged": "1/2"}
    state = give_cards(begin(duel(bows, UNIT, red_at="C2", blue_at="C4")), "red", "r")
    state, events = play(state, [1, 1], unit="r", action="attack", target="b")
    assert events[1].data["result"]["mode"] == "ranged"
    plain = give_cards(begin(duel(UNIT, UNIT, red_at="C2", blue_at="C4")), "red", "r")
    with pytest.raises(BattleError) as info:
        play(plain, [], unit="r", action="attack", target="b")
    assert "attacks adjacent units only" in str(info.value)


def test_a_card_of_a_unit_not_in_hand_or_of_the_enemy_is_refused():
    state = give_cards(begin(duel(UNIT, UNIT)), "red", "r")
    with pytest.raises(BattleError) as info:
        play(state, [], unit="b", action="hold")
    assert "not red's unit" in str(info.value)


# --- the end --------------------------------------------------------------------------------


def test_at_the_last_turn_the_most_quality_left_wins_and_equal_is_a_draw():
    dice = SeededDice(seed="end")
    scenario = duel(UNIT, {**UNIT, "quality": 2}, red_at="A1", blue_at="F8")
    state = ENGINE.start(scenario=scenario, settings={"max_turns": 1}, dice=dice).state
    result = ENGINE.step(state=state, dice=dice, orders=[
        QuadOrder(side="red", kind="draw", take=False),
        QuadOrder(side="blue", kind="draw", take=False),
        QuadOrder(side="red", kind="release"), QuadOrder(side="blue", kind="release")])
    verdict = ENGINE.outcome(result.state)
    assert (verdict.winner, verdict.scores) == ("red", {"red": 3, "blue": 2})
    assert result.events[-1].text == ("red wins at the end of turn 1 with the most quality "
                                      "left (3).")
    even = ENGINE.start(scenario=duel(UNIT, UNIT, red_at="A1", blue_at="F8"),
                        settings={"max_turns": 1}, dice=dice).state
    over = ENGINE.step(state=even, dice=dice, orders=[
        QuadOrder(side="red", kind="draw", take=False),
        QuadOrder(side="blue", kind="draw", take=False),
        QuadOrder(side="red", kind="release"), QuadOrder(side="blue", kind="release")]).state
    assert ENGINE.outcome(over).winner is None
    with pytest.raises(BattleError):
        ENGINE.step(state=over, dice=dice, orders=[QuadOrder(side="red", kind="release")])


# --- a whole battle, scripted ---------------------------------------------------------------


def test_a_scripted_battle_from_deployment_to_victory_matches_its_golden_file():
    state, events = play_out(ENGINE, SCENARIO, "quad-golden", orders_for)
    verdict = ENGINE.outcome(state)
    assert verdict is not None and verdict.winner == "blue"
    check_golden(GOLDEN, verdict, events)


# --- properties -----------------------------------------------------------------------------


def chooser(choices: Any) -> Any:
    """Random legal-looking orders: draw or not, steal or pass, release or the script."""

    def choose(state: QuadBattle) -> list[QuadOrder]:
        side = acting_sides(state)[0]
        if state.step == "draw":
            return [QuadOrder(side=side, kind="draw", take=choices.draw(st.booleans()))]
        if state.step == "steal":
            return [QuadOrder(side=side, kind=choices.draw(st.sampled_from(["pass", "steal"])))]
        if choices.draw(st.integers(0, 4)) == 0:
            return [QuadOrder(side=side, kind="release")]
        return orders_for(state)

    return choose


@settings(max_examples=25, deadline=None)
@given(st.data(), st.text(min_size=1, max_size=8))
def test_a_battle_never_loses_duplicates_or_stacks_units_and_replays_the_same(data, seed):
    choose = chooser(data)
    dice = SeededDice(seed=seed)
    state = ENGINE.start(scenario=SCENARIO, settings={"max_turns": 4}, dice=dice).state
    start_json = ENGINE.state_to_json(state)
    ids = {u.id for u in state.units}
    given_orders = []
    for _ in range(400):
        if ENGINE.outcome(state) is not None:
            break
        orders = choose(state)
        given_orders.append(orders)
        state = ENGINE.step(state=state, orders=orders, dice=dice).state
        alive = [u.id for u in state.units]
        assert len(alive) == len(set(alive))
        assert set(alive) | set(state.eliminated) == ids
        assert not set(alive) & set(state.eliminated)
        assert len({u.hex for u in state.units}) == len(state.units)
        assert all(state.grid.contains(u.hex) and 1 <= u.quality <= u.type.quality
                   for u in state.units)
    # The same start, orders and dice give the same battle.
    replay_dice = SeededDice(seed=seed)
    again = ENGINE.start(scenario=SCENARIO, settings={"max_turns": 4}, dice=replay_dice).state
    assert ENGINE.state_to_json(again) == start_json
    for orders in given_orders:
        again = ENGINE.step(state=again, orders=orders, dice=replay_dice).state
    assert ENGINE.state_to_json(again) == ENGINE.state_to_json(state)


def test_a_side_sees_its_own_hand_the_other_hands_sizes_and_no_draw_pile_order():
    state = begin(SCENARIO, seed="view")
    whole = ENGINE.state_to_json(state)["cards"]["players"]
    names = [p["player"] for p in whole]
    assert names == ["red", "blue"] and all(p["hand"] and p["draw_pile"] for p in whole)
    for side in names:
        seen = ENGINE.view(state, side)["cards"]["players"]
        for full, shown in zip(whole, seen, strict=True):
            assert shown["draw_pile"] == len(full["draw_pile"])
            assert shown["discard"] == full["discard"]
            assert shown["hand"] == (full["hand"] if full["player"] == side
                                     else len(full["hand"]))
    with pytest.raises(BattleError) as caught:
        ENGINE.view(state, "Green")
    assert str(caught.value) == "There is no side 'Green' in this battle."
