"""A whole ELF ABAS battle (rules/elf_abas/battle.py): deployment and reserves, the activation
cards, what one card lets a side do, every attack on a hex resolved together, line of sight,
the defender's choice of who takes the Casualties, pursuit and Panic as moves, rest and refit,
the victory check, the JSON form, the source's examples on the map, properties, and a
scripted battle stored as a golden file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle import BattleError
from rules.dice import FixedDice, SeededDice
from rules.elf_abas.battle import (
    ENGINE,
    ElfBattle,
    ElfOrder,
    Target,
    acting_sides,
    line_of_sight,
)
from rules.elf_abas.effects import Member
from rules.hexgrid import format_label, parse_label
from rules.jsonio import InputError
from tests.rules.battles import check_golden, check_json_form, play_out
from tests.rules.elf_abas.battle_script import SCENARIO, orders_for

GOLDEN = Path(__file__).parent / "golden" / "battle.json"


def scenario(red: list[dict[str, Any]], blue: list[dict[str, Any]], *,
             terrain: dict[str, str] | None = None, red_entry: str = "A3",
             blue_entry: str = "H3", red_supplies: tuple[str, ...] = (),
             blue_supplies: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"map": {"cols": 8, "rows": 6, "terrain": terrain or {}},
            "sides": [{"name": "red", "entry": red_entry, "supplies": list(red_supplies),
                       "forces": red},
                      {"name": "blue", "entry": blue_entry, "supplies": list(blue_supplies),
                       "forces": blue}]}


def begin(scen: dict[str, Any], **conf: Any) -> ElfBattle:
    """Started; the turn's cards fixed to red, blue, red, blue (the draw has its own test)."""
    state = ENGINE.start(scenario=scen, settings=conf, dice=SeededDice(seed="t")).state
    return replace(state, order=("red", "blue", "red", "blue"), card=0)


def cmd(side: str, kind: str, **kw: Any) -> ElfOrder:
    if "path" in kw:
        kw["path"] = tuple(parse_label(h) for h in kw["path"])
    if "into" in kw:
        kw["into"] = parse_label(kw["into"])
    if "targets" in kw:
        kw["targets"] = tuple(Target(force=t[0], dice=t[1]) if isinstance(t, tuple)
                              else Target(force=t) for t in kw["targets"])
    return ElfOrder(side=side, kind=kind, **kw)  # type: ignore[arg-type]


def act(state: ElfBattle, rolls: list[int], *orders: ElfOrder) -> tuple[ElfBattle, list[Any]]:
    dice = FixedDice(rolls)
    result = ENGINE.step(state=state, orders=list(orders), dice=dice)
    assert dice.remaining == 0
    return result.state, list(result.events)


def force(state: ElfBattle, force_id: str) -> Any:
    return state.find(force_id)


def where(state: ElfBattle, force_id: str) -> str:
    h = force(state, force_id).hex
    return format_label(h) if h is not None else "reserve"


def refused(state: ElfBattle, *orders: ElfOrder) -> BattleError:
    with pytest.raises(BattleError) as caught:
        ENGINE.step(state=state, orders=list(orders), dice=FixedDice([]))
    return caught.value


FOOT = {"unit": "foot"}


# --- deployment, the cards and the JSON form ------------------------------------------------


def test_start_deploys_keeps_reserves_and_draws_the_turns_cards():
    dice = FixedDice([4, 3, 2, 6])  # no swap while mixing; the D6 moves 2 cards to the bottom
    result = ENGINE.start(scenario=scenario(
        [{"id": "r", **FOOT, "hex": "C3"}, {"id": "r2", **FOOT}],
        [{"id": "b", **FOOT, "hex": "F3"}]), settings={}, dice=dice)
    state = result.state
    assert [e.kind for e in result.events] == ["deployed", "turn"]
    assert result.events[0].text == "2 forces deployed on a 8 × 6 map, 1 in reserve."
    assert (state.turn, state.order, acting_sides(state)) == (
        1, ("blue", "blue", "red", "red"), ("blue",))
    assert [r.value for r in result.events[1].rolls] == [4, 3, 2, 6]
    assert where(state, "r2") == "reserve"


@pytest.mark.parametrize(("change", "field", "message"), [
    (lambda s: s["sides"][1]["forces"][0].update(hex="C3"), "scenario.sides",
     "C3 holds two forces: one force a hex (a Unit with up to one Leader and one Hero)."),
    (lambda s: s["map"]["terrain"].update(C3="village") or s["sides"][0]["forces"][0].update(
        unit="mounted"), "scenario.sides", "r cannot stand in village at C3."),
    (lambda s: s["sides"][0]["forces"][0].update(hex="Z9"), "scenario.sides[0].forces[0].hex",
     "Z9 is not on the 8 × 6 map."),
    (lambda s: s["map"]["terrain"].update(A3="deep_water"), "scenario.sides[0].entry",
     "an entry point cannot be deep water."),
    (lambda s: s["sides"].pop(), "scenario.sides", "needs at least two sides."),
    (lambda s: s["sides"][0]["forces"][0].update(figures=7), "scenario.sides[0].forces[0].figures",
     "must be at most 6."),
])
def test_a_bad_scenario_is_refused_naming_the_field(change, field, message):
    scen = scenario([{"id": "r", **FOOT, "hex": "C3"}], [{"id": "b", **FOOT, "hex": "F3"}])
    change(scen)
    with pytest.raises(InputError) as caught:
        ENGINE.start(scenario=scen, settings={}, dice=SeededDice(seed="x"))
    assert (caught.value.field, caught.value.message) == (field, message)


def test_the_state_survives_its_json_form_and_replays_identically():
    dice = SeededDice(seed="json")
    state = ENGINE.start(scenario=SCENARIO, settings={}, dice=dice).state
    for _ in range(12):
        state = ENGINE.step(state=state, orders=orders_for(state), dice=dice).state
    check_json_form(ENGINE, state, orders_for(state))


def test_an_order_from_a_side_that_does_not_act_is_refused_and_changes_nothing():
    state = begin(scenario([{"id": "r", **FOOT, "hex": "C3"}], [{"id": "b", **FOOT,
                                                                  "hex": "F3"}]))
    error = refused(state, cmd("red", "end"), cmd("red", "end"))
    assert (error.field, error.rule, str(error)) == (
        "orders[1]", "turn", "red does not act now: blue holds card 2 of 4.")
    assert acting_sides(state) == ("red",) and state.card == 0


# --- what one card lets a side do: moves ----------------------------------------------------


def test_source_example_e_the_cavalry_moves_attacks_and_moves_back_two():
    state = begin(scenario([{"id": "horse", "unit": "mounted", "hex": "C3"}],
                           [{"id": "line", **FOOT, "hex": "E3"}]))
    state, events = act(state, [1, 2, 3, 4, 5, 5],
                        cmd("red", "move", force="horse", path=["D3"]),
                        cmd("red", "attack", force="horse", targets=["line"]),
                        cmd("red", "move", force="horse", path=["C3", "B3"]),
                        cmd("red", "end"))
    assert where(state, "horse") == "B3"
    assert [e.kind for e in events] == ["move", "declare", "move", "end", "attack", "card"]
    assert events[1].text == ("horse declares an attack: 6D on line at E3 (6D (6 mounted "
                              "figures) = 6D).")
    assert events[4].text == ("Attack on line: horse 6D: 1, 2, 3, 4, 5, 5; 0 sixes, 0 effects. "
                              "line: 6 foot.")


def test_a_fourth_hex_or_a_second_attack_in_one_activation_is_refused():
    state = begin(scenario([{"id": "horse", "unit": "mounted", "hex": "C3"}],
                           [{"id": "line", **FOOT, "hex": "E3"}]))
    error = refused(state, cmd("red", "move", force="horse", path=["D3"]),
                    cmd("red", "attack", force="horse", targets=["line"]),
                    cmd("red", "move", force="horse", path=["C3", "B3", "A3"]))
    assert (error.field, error.rule, str(error)) == (
        "orders[2].path", "movement", "'horse' may move 3 hexes, not 4.")
    error = refused(state, cmd("red", "attack", force="horse", targets=["line"]))
    assert "line is 2 hexes away" in str(error)
    state, _ = act(state, [], cmd("red", "move", force="horse", path=["D3"]),
                   cmd("red", "attack", force="horse", targets=["line"]))
    error = refused(state, cmd("red", "attack", force="horse", targets=["line"]))
    assert str(error) == ("A force attacks once per activation (it may split its dice "
                          "between targets).")


def test_a_scout_moves_two_without_attacking_or_one_and_attacks():
    state = begin(scenario([{"id": "scouts", "unit": "scout", "hex": "B3"}],
                           [{"id": "b", **FOOT, "hex": "E3"}]))
    moved, _ = act(state, [], cmd("red", "move", force="scouts", path=["C3", "D3"]))
    assert where(moved, "scouts") == "D3"
    error = refused(moved, cmd("red", "attack", force="scouts", targets=["b"]))
    assert str(error) == ("'scouts' may move 1 hex, not 2 (a Scout that attacks moves 1; it "
                          "moves 2 only by giving up its attack).")


def test_terrain_and_other_forces_stop_a_move_with_the_rule_named():
    state = begin(scenario([{"id": "horse", "unit": "mounted", "hex": "C3"},
                            {"id": "r2", **FOOT, "hex": "C4"}],
                           [{"id": "b", **FOOT, "hex": "E3"}],
                           terrain={"D3": "village", "D2": "deep_water"}))
    cases = [(["D3"], "Mounted Units cannot enter built-up or dense terrain (village at D3)."),
             (["D2"], "No force enters deep water (D2)."),
             (["C4", "D4"], "C4 holds r2: only a lone Leader or Hero joins a friendly force "
                            "lacking one, and nobody moves through another force."),
             (["E3"], "E3 is not next to C3: a move goes hex by hex.")]
    for path, message in cases:
        error = refused(state, cmd("red", "move", force="horse", path=path))
        assert (error.rule, str(error)) == ("movement", message)
    error = refused(state, cmd("red", "move", force="b", path=["F3"]))
    assert str(error) == "b is not a force of red."


def test_a_reserve_comes_on_at_its_entry_point_and_a_lone_leader_joins_a_unit():
    state = begin(scenario([{"id": "fresh", **FOOT, "figures": 4},
                            {"id": "chief", "leader": True, "hex": "B3"},
                            {"id": "line", **FOOT, "hex": "B4", "fatigue": 1}],
                           [{"id": "b", **FOOT, "hex": "G3"}]))
    error = refused(state, cmd("red", "move", force="fresh", path=["A4"]))
    assert (error.rule, error.field, str(error)) == (
        "entry", "orders[0].path[0]",
        "fresh is in reserve: it comes on at red's entry point A3, not A4.")
    state, events = act(state, [], cmd("red", "move", force="fresh", path=["A3"]),
                        cmd("red", "move", force="chief", path=["B4"]))
    assert where(state, "fresh") == "A3"
    assert events[0].text == "fresh moves A3 (from reserve)."
    assert events[1].text == "chief moves B3 → B4 and joins line (6 foot + Leader; Fatigue 1)."
    line = force(state, "line").force
    assert (line.leader, line.fatigue, state.joined) == (True, 1, (("chief", "line"),))
    assert [f.id for f in state.forces] == ["fresh", "line", "b"]


def test_an_occupied_entry_point_keeps_the_reserve_off():
    state = begin(scenario([{"id": "fresh", **FOOT}, {"id": "r", **FOOT, "hex": "A3"}],
                           [{"id": "b", **FOOT, "hex": "G3"}]))
    error = refused(state, cmd("red", "move", force="fresh", path=["A3"]))
    assert str(error) == "The entry point A3 is occupied; fresh cannot come on this activation."


# --- attacks: the source's examples on the map ----------------------------------------------


def test_source_example_a_fatigue_then_a_casualty_and_spent():
    state = begin(scenario([{"id": "mine", **FOOT, "figures": 5, "hex": "C3"}],
                           [{"id": "yours", **FOOT, "hex": "D3"}]))
    state, events = act(state, [2, 2, 3, 4, 6, 5, 3],
                        cmd("red", "attack", force="mine", targets=["yours"]), cmd("red", "end"))
    assert force(state, "yours").force.fatigue == 1
    assert events[2].text == (
        "Attack on yours: mine 5D: 2, 2, 3, 4, 6; 1 six, 1 effect (Fate 5, die 3: fatigue "
        "(normal): applied (−1 to Movement and −1D to attacks until rested off)). yours: "
        "6 foot; Fatigue 1.")
    assert [r.value for r in events[2].rolls] == [2, 2, 3, 4, 6, 5, 3]
    state, events = act(state, [1, 1, 3, 6, 6, 1, 6, 6, 2],
                        cmd("blue", "attack", force="yours", targets=["mine"]), cmd("blue", "end"))
    assert events[0].text == ("yours declares an attack: 5D on mine at C3 (6D (6 foot figures) "
                              "− 1D (1 Fatigue) = 5D).")
    mine = force(state, "mine").force
    assert (mine.figures, mine.spent) == (4, True)
    error = refused(state, cmd("red", "attack", force="mine", targets=["yours"]))
    assert str(error) == "'mine' is Spent and cannot attack."
    error = refused(state, cmd("red", "move", force="mine", path=["B3", "A3"]))
    assert str(error) == "'mine' may move 1 hex, not 2."


def test_every_attack_on_a_hex_is_resolved_together():
    state = begin(scenario([{"id": "r1", **FOOT, "hex": "C3"}, {"id": "r2", **FOOT, "hex": "C4"}],
                           [{"id": "b", **FOOT, "hex": "D3"}]))
    state, events = act(state, [6, 1, 1, 1, 1, 1, 6, 1, 1, 1, 1, 1, 1, 3, 1, 4],
                        cmd("red", "attack", force="r1", targets=["b"]),
                        cmd("red", "attack", force="r2", targets=["b"]),
                        cmd("red", "end"))
    assert [e.kind for e in events] == ["declare", "declare", "end", "attack", "card"]
    assert events[3].text.startswith("Attack on b: r1 6D: 6, 1, 1, 1, 1, 1; r2 6D: 6, 1, 1, 1, "
                                     "1, 1; 2 sixes, 2 effects")
    assert force(state, "b").force.fatigue == 2


def test_a_force_spreads_its_dice_over_targets_within_what_it_has():
    state = begin(scenario([{"id": "bows", "unit": "missile", "hex": "C3"}],
                           [{"id": "near", **FOOT, "hex": "D3"}, {"id": "far", **FOOT,
                                                                   "hex": "C5"}]))
    error = refused(state, cmd("red", "attack", force="bows", targets=[("near", 3), ("far", 3)]))
    assert str(error) == "bows spreads 6D, more than the 5D it has at its best target."
    error = refused(state, cmd("red", "attack", force="bows", targets=[("near", None),
                                                                    ("far", 2)]))
    assert str(error) == ("A force that spreads its attack gives the dice it puts on each "
                          "target.")
    error = refused(state, cmd("red", "attack", force="bows", targets=[("far", 5)]))
    assert str(error) == ("bows has 4D against far (6D (6 missile figures) − 2D (2 hexes to "
                          "the target) = 4D), so it cannot put 5D on it.")
    state, events = act(state, [1, 2, 3, 4, 5],
                        cmd("red", "attack", force="bows", targets=[("near", 3), ("far", 2)]),
                        cmd("red", "end"))
    assert [e.kind for e in events] == ["declare", "end", "attack", "attack", "card"]
    assert events[2].text.startswith("Attack on near: bows 3D: 1, 2, 3;")
    assert events[3].text.startswith("Attack on far: bows 2D: 4, 5;")


# --- line of sight --------------------------------------------------------------------------


def _sight(red: list[dict[str, Any]], blue: list[dict[str, Any]],
           terrain: dict[str, str] | None = None) -> tuple[str, str]:
    state = begin(scenario(red, blue, terrain=terrain))
    return line_of_sight(state, force(state, "bows"), force(state, "target"))


BOWS = {"id": "bows", "unit": "missile", "hex": "B2"}
TARGET = {"id": "target", **FOOT, "hex": "B5"}


@pytest.mark.parametrize(("red", "blue", "terrain", "sight"), [
    ([], [], None, ("clear", "clear")),
    ([{"id": "friend", **FOOT, "hex": "B3"}], [], None, ("clear", "clear")),
    ([{"id": "friend", **FOOT, "hex": "B4"}], [], None,
     ("blocked", "friend at B4 is not nearer the shooter than the target")),
    ([], [{"id": "screen", **FOOT, "hex": "B3"}], None,
     ("blocked", "the enemy's screen stands between at B3")),
    ([], [], {"B3": "village"}, ("blocked", "village at B3 blocks the view")),
    ([], [], {"B4": "woods"}, ("partial", "partly blocked: woods at B4 mask the view")),
])
def test_line_of_sight_over_friends_enemies_and_terrain(red, blue, terrain, sight):
    assert _sight([BOWS, *red], [TARGET, *blue], terrain) == sight


def test_a_line_along_a_hex_edge_blocked_on_one_side_is_partly_blocked():
    # B2 → D2 runs along the edge between C2 and C3.
    target = {"id": "target", **FOOT, "hex": "D2"}
    assert _sight([BOWS], [target, {"id": "screen", **FOOT, "hex": "C3"}]) == (
        "partial", "partly blocked: the enemy's screen stands between at C3 on one side of "
                   "the line")
    assert _sight([BOWS], [target, {"id": "s1", **FOOT, "hex": "C3"},
                           {"id": "s2", **FOOT, "hex": "C2"}])[0] == "blocked"
    state = begin(scenario([BOWS], [target, {"id": "screen", **FOOT, "hex": "C3"}]))
    state, events = act(state, [1, 2, 3],
                        cmd("red", "attack", force="bows", targets=["target"]), cmd("red", "end"))
    assert events[0].text == (
        "bows declares an attack: 3D on target at D2 (6D (6 missile figures) − 2D (2 hexes to "
        "the target) − 1D (line of sight partly blocked) = 3D; partly blocked: the enemy's "
        "screen stands between at C3 on one side of the line).")


def test_fire_through_a_blocked_line_or_melee_at_range_is_refused():
    state = begin(scenario([BOWS, {"id": "friend", **FOOT, "hex": "B4"}], [TARGET]))
    error = refused(state, cmd("red", "attack", force="bows", targets=["target"]))
    assert (error.rule, error.field, str(error)) == (
        "line of sight", "orders[0].targets[0].force",
        "bows cannot see target: friend at B4 is not nearer the shooter than the target.")


# --- the defender's choice, retreats, pursuit, Panic ----------------------------------------


def _example_f(blue: dict[str, Any]) -> ElfBattle:
    """Example F: Scouts move one and attack a force that has nowhere to go (it stands on
    its own entry point): 4D 6, 6, 6, 2 and three Retreats, which become Casualties."""
    state = begin(scenario([{"id": "scouts", "unit": "scout", "hex": "F3"}],
                           [{"id": "yours", **FOOT, "hex": "H3", **blue}]))
    state, events = act(state, [6, 6, 6, 2, 1, 1, 2, 2, 4, 1],
                        cmd("red", "move", force="scouts", path=["G3"]),
                        cmd("red", "attack", force="scouts", targets=["yours"]),
                        cmd("red", "end"))
    assert events[-1].kind == "attack" and state.step == "allocate"
    return state


def test_source_example_f_the_defender_chooses_the_leader_or_three_figures():
    state = _example_f({"leader": True})
    assert acting_sides(state) == ("blue",)
    assert state.pending is not None and state.pending.choices == (Member.UNIT, Member.LEADER)
    lost_leader, events = act(state, [], cmd("blue", "allocate", to=Member.LEADER))
    yours = force(lost_leader, "yours").force
    assert (yours.figures, yours.leader) == (6, False)
    assert events[0].text == (
        "blue gives the Casualties to the leader: yours: 6 foot (3 Casualties: the terrain "
        "shrugs 0, the leader shrugs 2; lost: the Leader).")
    lost_figures, _ = act(state, [], cmd("blue", "allocate", to=Member.UNIT))
    yours = force(lost_figures, "yours").force
    assert (yours.figures, yours.leader) == (3, True)
    error = refused(state, cmd("blue", "allocate", to=Member.HERO))
    assert (error.field, str(error)) == (
        "orders[0].to", "The Casualties go to one of unit, leader of yours, not the hero.")
    error = refused(state, cmd("red", "end"))
    assert str(error) == "red does not act now: blue chooses who in yours takes the Casualties."


def test_source_example_f_with_a_hero_the_default_shrugs_it_all_off():
    state = _example_f({"leader": True, "hero": True})
    state, _ = act(state, [], cmd("blue", "allocate"))
    yours = force(state, "yours").force
    assert (yours.figures, yours.leader, yours.hero) == (6, True, True)


def test_a_choice_that_changes_nothing_is_not_asked():
    state = begin(scenario([{"id": "r", **FOOT, "hex": "C3"}],
                           [{"id": "b", **FOOT, "hex": "D3"}]))
    state, events = act(state, [6, 1, 1, 1, 1, 1, 1, 5],
                        cmd("red", "attack", force="r", targets=["b"]), cmd("red", "end"))
    assert state.step == "activation" and force(state, "b").force.figures == 5


def test_a_retreat_with_pursuit_lets_one_attacking_unit_follow():
    state = begin(scenario([{"id": "r", **FOOT, "hex": "C3"}, {"id": "r2", **FOOT, "hex": "C4"}],
                           [{"id": "b", **FOOT, "hex": "D3"}]))
    state, events = act(state, [6, 1, 1, 1, 1, 1, 6, 3],
                        cmd("red", "attack", force="r", targets=["b"]), cmd("red", "end"))
    assert where(state, "b") == "E4"  # one hex along the line to its entry point H3
    assert events[-1].text.endswith("b: 6 foot; retreats D3 → E4.")
    assert (state.step, acting_sides(state)) == ("pursuit", ("red",))
    error = refused(state, cmd("red", "follow", force="r", into="E3"))
    assert (error.rule, str(error)) == (
        "pursuit", "r follows into a hex b left (D3) next to it that it may enter; it can "
        "enter D3.")
    followed, events = act(state, [], cmd("red", "follow", force="r2"))
    assert (where(followed, "r2"), followed.step, acting_sides(followed)) == (
        "D3", "activation", ("blue",))
    assert events[0].text == "r2 follows b into D3."
    declined, events = act(state, [], cmd("red", "follow"))
    assert (where(declined, "r"), events[0].text) == ("C3", "red does not follow b.")


def test_a_panic_takes_the_adjacent_friends_along_unless_a_leader_steadies_them():
    state = begin(scenario([{"id": "r", **FOOT, "hex": "C3"}],
                           [{"id": "b", **FOOT, "hex": "D3"},
                            {"id": "friend", **FOOT, "hex": "D4"},
                            {"id": "steady", **FOOT, "hex": "D2", "leader": True}]))
    state, events = act(state, [6, 1, 1, 1, 1, 1, 6, 4],
                        cmd("red", "attack", force="r", targets=["b"]), cmd("red", "end"))
    assert [where(state, f) for f in ("b", "friend", "steady")] == ["E4", "E5", "D2"]
    texts = [e.text for e in events if e.kind == "effect"]
    assert texts == ["Panic: friend retreats with it D4 → E5.",
                     "Panic: steady stands (cancelled by the attached Leader; 6 foot + "
                     "Leader)."]


def test_a_panicked_friend_with_nowhere_to_go_takes_a_casualty_instead():
    # The cornered friend's only hexes nearer its entry point (E2, E3) are deep water.
    state = begin(scenario([{"id": "r", **FOOT, "hex": "C3"}],
                           [{"id": "b", **FOOT, "hex": "D3"},
                            {"id": "cornered", **FOOT, "hex": "D2", "figures": 2}],
                           terrain={"E2": "deep_water", "E3": "deep_water"}))
    state, events = act(state, [6, 1, 1, 1, 1, 1, 6, 4],
                        cmd("red", "attack", force="r", targets=["b"]), cmd("red", "end"))
    assert (where(state, "b"), where(state, "cornered")) == ("E4", "D2")
    assert force(state, "cornered").force.figures == 1
    assert "Panic: cornered stands (cannot retreat, so a Casualty; 1 foot)." in [
        e.text for e in events]


# --- rest, refit, the end -------------------------------------------------------------------


def test_at_the_turns_end_idle_forces_rest_and_a_spent_force_at_its_camp_refits():
    state = begin(scenario([{"id": "tired", **FOOT, "hex": "B2", "fatigue": 2},
                            {"id": "busy", "unit": "scout", "hex": "B5", "fatigue": 1},
                            {"id": "spent", **FOOT, "hex": "A2", "spent": True},
                            {"id": "lost", **FOOT, "hex": "C5", "spent": True}],
                           [{"id": "b", **FOOT, "hex": "G3"}], red_supplies=("A1",)))
    state, events = act(state, [4, 3, 2, 6],
                        cmd("red", "move", force="busy", path=["C6"]), cmd("red", "end"),
                        cmd("blue", "end"), cmd("red", "end"), cmd("blue", "end"))
    assert [(force(state, f).force.fatigue, force(state, f).force.spent)
            for f in ("tired", "busy", "spent", "lost")] == [
        (1, False), (1, False), (0, False), (0, True)]
    assert [e.text for e in events if e.kind == "rest"] == [
        "tired rests off a Fatigue (1 left).",
        "spent refits from its supplies and is no longer Spent."]
    assert (state.turn, state.card) == (2, 0)


def test_the_last_enemy_eliminated_ends_the_battle_at_once():
    state = begin(scenario([{"id": "r", **FOOT, "hex": "C3"}],
                           [{"id": "b", **FOOT, "hex": "D3", "figures": 1}]))
    state, events = act(state, [6, 1, 1, 1, 1, 1, 1, 5],
                        cmd("red", "attack", force="r", targets=["b"]), cmd("red", "end"))
    verdict = ENGINE.outcome(state)
    assert (verdict.winner, verdict.scores) == ("red", {"red": 6, "blue": 0})
    assert events[-1].text == "red wins: no enemy force is left."
    assert state.eliminated == ("b",)
    error = refused(state, cmd("red", "end"))
    assert (error.rule, str(error)) == ("victory", "The battle is over.")


def test_after_the_last_turn_the_most_figures_win_and_equal_is_a_draw():
    ends = (cmd("red", "end"), cmd("blue", "end"), cmd("red", "end"), cmd("blue", "end"))
    state = begin(scenario([{"id": "r", **FOOT, "hex": "A1"}],
                           [{"id": "b", **FOOT, "hex": "H6", "figures": 5}]), max_turns=1)
    state, events = act(state, [], *ends)
    assert ENGINE.outcome(state).scores == {"red": 6, "blue": 5}
    assert events[-1].text == "red wins at the end of turn 1 with the most figures left (6)."
    even = begin(scenario([{"id": "r", **FOOT, "hex": "A1"}],
                          [{"id": "b", **FOOT, "hex": "H6"}]), max_turns=1)
    even, events = act(even, [], *ends)
    assert ENGINE.outcome(even).winner is None
    assert events[-1].text == "A draw at the end of turn 1: red and blue have 6 figures left each."


# --- a whole battle, scripted ---------------------------------------------------------------


def test_a_scripted_battle_from_deployment_to_victory_matches_its_golden_file():
    state, events = play_out(ENGINE, SCENARIO, "elf-10", orders_for)
    verdict = ENGINE.outcome(state)
    assert verdict is not None and verdict.winner == "Fremont"
    assert {"allocate", "follow", "effect", "rest", "victory"} <= {e["kind"] for e in events}
    check_golden(GOLDEN, verdict, events)


# --- properties -----------------------------------------------------------------------------


def chooser(choices: Any) -> Any:
    """The script, with random allocations, declined pursuits and idle activations."""

    def choose(state: ElfBattle) -> list[ElfOrder]:
        side = acting_sides(state)[0]
        if state.step == "allocate":
            assert state.pending is not None
            to = choices.draw(st.sampled_from([None, *state.pending.choices]))
            return [ElfOrder(side=side, kind="allocate", to=to)]
        if state.step == "pursuit" and choices.draw(st.booleans()):
            return [ElfOrder(side=side, kind="follow")]
        if state.step == "activation" and choices.draw(st.integers(0, 5)) == 0:
            return [ElfOrder(side=side, kind="end")]
        return orders_for(state)

    return choose


def _figures(state: ElfBattle) -> int:
    return sum(f.force.total_figures for f in state.forces)


@settings(max_examples=20, deadline=None)
@given(st.data(), st.text(min_size=1, max_size=8))
def test_a_battle_never_loses_duplicates_stacks_or_walks_through_forces(data, seed):
    choose = chooser(data)
    dice = SeededDice(seed=seed)
    conf = {"max_turns": 3}
    state = ENGINE.start(scenario=SCENARIO, settings=conf, dice=dice).state
    start_json = ENGINE.state_to_json(state)
    ids = {f.id for f in state.forces}
    given_orders = []
    for _ in range(400):
        if ENGINE.outcome(state) is not None:
            break
        orders = choose(state)
        given_orders.append(orders)
        before = state
        for order in orders:  # one at a time: each move is checked against its own moment
            if order.kind == "move":
                # Every hex of the path is free as the move begins (a join ends on its host).
                taken = {f.hex for f in state.forces if f.id != order.force}
                assert not set(order.path[:-1]) & taken
            state = ENGINE.step(state=state, orders=[order], dice=dice).state
        alive = [f.id for f in state.forces]
        merged = {f for f, _ in state.joined}
        assert len(alive) == len(set(alive))
        assert set(alive) | set(state.eliminated) | merged == ids
        assert not set(alive) & (set(state.eliminated) | merged)
        placed = [f.hex for f in state.forces if f.hex is not None]
        assert len(placed) == len(set(placed))
        assert all(state.grid.contains(h) for h in placed)
        assert _figures(state) <= _figures(before)
    replay_dice = SeededDice(seed=seed)
    again = ENGINE.start(scenario=SCENARIO, settings=conf, dice=replay_dice).state
    assert ENGINE.state_to_json(again) == start_json
    for orders in given_orders:
        again = ENGINE.step(state=again, orders=orders, dice=replay_dice).state
    assert ENGINE.state_to_json(again) == ENGINE.state_to_json(state)
