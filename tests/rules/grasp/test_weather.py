"""GRASP's weather (rules/grasp/weather.py and the battle's setting `weather`): the table read
row by row, the throw on a side's maximum pips, the wind and what it does to command, fire
and moves, environmental terrain, harder terrain, doubled fatigue losses, the strikes, perfect
conditions, and the weather's JSON form."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from rules.dice import FixedDice
from rules.grasp.battle import ENGINE, GraspBattle
from rules.grasp.combat import Level
from rules.grasp.dielevels import DieLevel
from rules.grasp.terrain import TerrainClass
from rules.grasp.weather import TABLE, WIND, Weather, move_factor, range_factor, scaled
from rules.hexgrid import Direction, distance, parse_label
from rules.jsonio import InputError
from rules.plane import Point, Vec
from tests.rules.battles import check_json_form
from tests.rules.grasp.battle_script import ARCHERS, FOOT, KNIGHTS
from tests.rules.grasp.test_battle import (
    EAST,
    GENERAL,
    LOW_TECH,
    WEST,
    act,
    begin,
    cmd,
    refused,
    unit,
    where,
)


def texts(events: list[Any]) -> list[str]:
    return [e.text for e in events]


def start_events(rolls: list[int], **conf: Any) -> list[str]:
    scen = {"map": {"cols": 12, "rows": 8},
            "sides": [{"name": "West", "edge": "W", "units": WEST},
                      {"name": "East", "edge": "E", "units": EAST}]}
    dice = FixedDice(rolls)
    events = ENGINE.start(scenario=scen, settings=conf, dice=dice).events
    assert dice.remaining == 0
    return texts(list(events))


def weathered(rolls: list[int], west: list[dict[str, Any]] | None = None,
              east: list[dict[str, Any]] | None = None, **kw: Any) -> GraspBattle:
    return begin(west or WEST, east or EAST, rolls, weather=True, **kw)


# --- the table --------------------------------------------------------------------------------


@pytest.mark.parametrize(("total", "kind", "turns", "strike", "harden"), [
    (2, "fair", None, None, None),
    (3, "environment", 2, None, None),
    (4, "environment", 1, None, None),
    (5, "wind", 1, None, None),
    (6, "wind", 2, None, None),
    (7, "wind", 3, None, None),
    (8, "harder", 1, None, TerrainClass.LIGHT),
    (9, "harder", 1, None, TerrainClass.DIFFICULT),
    (10, "double", 0, None, None),
    (11, "strike", 1, DieLevel.D4, None),
    (12, "catastrophe", 2, DieLevel.D6, None),
])
def test_the_weather_table_is_read_as_eleven_rows_for_2d6(total, kind, turns, strike, harden):
    row = TABLE[total]
    assert (row.kind, row.turns, row.strike, row.harden) == (kind, turns, strike, harden)


def test_the_wind_column_reads_differences_one_to_five_then_none():
    assert WIND[0] == "no wind"
    assert [WIND[d] for d in range(1, 6)] == [
        "½ command and fire range (unless advanced command or a +Tech range)",
        "½ move for flyers and swimmers moving against the wind, +½ moving with it",
        "½ move for flyers and tunnellers", "½ move on the ground",
        "¼ command and fire range"]


def wind(n: int) -> Weather:
    return Weather(total=6, wind=n, blowing="S", side="West", thrown=1, until=2)


@pytest.mark.parametrize(("winds", "advanced", "factor"), [
    ([1], False, Fraction(1, 2)), ([1], True, Fraction(1)), ([5], False, Fraction(1, 4)),
    ([5], True, Fraction(1, 4)), ([1, 5], False, Fraction(1, 8)), ([2, 3, 4], False, 1),
    ([], False, 1),
])
def test_the_wind_cuts_command_and_fire_ranges(winds, advanced, factor):
    assert range_factor([wind(n) for n in winds], advanced=advanced) == factor


@pytest.mark.parametrize(("n", "level", "way", "factor"), [
    (2, Level.NEAR_FLYING, -1, Fraction(1, 2)), (2, Level.DISTANT_FLYING, 1, Fraction(3, 2)),
    (2, Level.NEAR_FLYING, 0, 1), (2, Level.SURFACE, -1, 1), (2, Level.NEAR_BELOW, -1, 1),
    (3, Level.MEDIUM_FLYING, 0, Fraction(1, 2)), (3, Level.NEAR_BELOW, 0, Fraction(1, 2)),
    (3, Level.SURFACE, 0, 1), (4, Level.SURFACE, 1, Fraction(1, 2)),
    (4, Level.NEAR_FLYING, 0, 1), (1, Level.SURFACE, 0, 1), (5, Level.NEAR_FLYING, -1, 1),
])
def test_the_wind_cuts_or_speeds_moves_by_level_and_way(n, level, way, factor):
    assert move_factor([wind(n)], level=level, way=way) == factor


@pytest.mark.parametrize(("n", "level", "way", "factor"), [
    (2, Level.NEAR_BELOW, -1, Fraction(1, 2)), (2, Level.DISTANT_BELOW, 1, Fraction(3, 2)),
    (3, Level.NEAR_BELOW, 0, 1), (3, Level.NEAR_FLYING, 0, Fraction(1, 2)),
    (4, Level.SURFACE, 0, Fraction(1, 2)),
])
def test_below_the_surface_a_swimmer_feels_the_wind_as_flyers_do_not_as_tunnellers(
        n, level, way, factor):
    assert move_factor([wind(n)], level=level, way=way, swimmer=True) == factor


@pytest.mark.parametrize(("value", "factor", "out"), [
    (8, Fraction(1, 2), 4), (3, Fraction(1, 2), 1), (1, Fraction(1, 4), 1),
    (0, Fraction(1, 2), 0), (3, Fraction(3, 2), 4), (6, Fraction(1), 6),
])
def test_a_cut_range_or_move_rounds_down_and_never_below_1_mu(value, factor, out):
    assert scaled(value, factor) == out


def test_which_way_a_unit_goes_against_the_wind_on_both_boards():
    state = weathered([1, 1])
    hexes = state.field
    assert [hexes.wind_way(d, "S") for d in Direction] == [-1, -1, 1, 1, 1, -1]
    assert [hexes.wind_way(d, "W") for d in Direction] == [0, -1, -1, 0, 1, 1]
    plane = begin_continuous([1, 1]).field
    assert [plane.wind_way(Vec(Fraction(x), Fraction(y)), "N")
            for x, y in ((0, 1), (1, -1), (1, 0))] == [1, -1, 0]


# --- the throw --------------------------------------------------------------------------------


def test_without_the_setting_maximum_pips_throw_no_weather():
    assert start_events([6, 2]) == [
        "4 units deployed on a 12 × 8 map (1 MU a hex).", "Turn 1.", "West rolls 6 pips.",
        "East rolls 2 pips.", "Phasing order: West, East."]


def test_a_side_that_rolls_its_maximum_pips_throws_2d6_for_the_weather_and_a_d4_for_the_wind():
    assert start_events([6, 2, 3, 4, 1], weather=True)[-1] == (
        "West rolled its maximum pips and throws the weather: 3 + 4 = 7, the wind alone, for "
        "3 turns. The wind (1) blows from the north: ½ command and fire range (unless advanced "
        "command or a +Tech range).")
    # Both at their maximum: each throws, in phasing order; equal dice bring no wind.
    assert start_events([6, 6, 3, 3, 6, 5, 3], weather=True)[-2:] == [
        "West rolled its maximum pips and throws the weather: 3 + 3 = 6, the wind alone, for "
        "2 turns. No wind.",
        "East rolled its maximum pips and throws the weather: 6 + 5 = 11, all units in "
        "difficult terrain are struck at d4, for 1 turn. The wind (1) blows from the south: "
        "½ command and fire range (unless advanced command or a +Tech range)."]
    state = weathered([6, 2, 3, 4, 1])
    assert state.weather == (Weather(total=7, wind=1, blowing="S", side="West", thrown=1,
                                     until=3),)


def test_the_weather_ends_after_its_turns():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)]
    state = weathered([6, 2, 1, 5, 2], west)  # 6: 2 turns, the wind (4) from the east
    state, _ = act(state, [2, 2], cmd("West", "marker", unit="w-foot", to="H4"),
                   cmd("West", "done"), cmd("East", "done"), cmd("West", "done"),
                   cmd("East", "done"), cmd("West", "done"), cmd("East", "done"))
    assert (state.turn, len(state.weather)) == (2, 1)
    state, events = act(state, [2, 2], *[cmd(s, "done") for s in ("West", "East") * 3])
    assert state.turn == 3 and state.weather == ()
    assert "The weather West threw on turn 1 (the wind alone, for 2 turns) ends." in texts(
        events)


# --- the wind -----------------------------------------------------------------------------------


def test_a_half_wind_cuts_a_low_tech_command_span_but_not_a_high_tech_one():
    far = [unit("w-foot", "H4", FOOT)]
    low = weathered([6, 2, 3, 4, 1], [unit("w-general", "B4", LOW_TECH), *far])
    assert distance(parse_label("B4"), parse_label("H4")) == 6
    state, _ = act(low, [], cmd("West", "marker", unit="w-foot", to="I4"))
    assert state.side("West").pips == 4  # beyond the span cut to 4 MU: 2 pips
    high = weathered([6, 2, 3, 4, 1], [unit("w-general", "B4", GENERAL), *far])
    state, _ = act(high, [], cmd("West", "marker", unit="w-foot", to="I4"))
    assert state.side("West").pips == 5


def test_a_half_wind_cuts_fire_range_unless_the_range_is_plus_tech():
    bows = {**ARCHERS, "specials": ["all_round"]}
    west = [unit("w-general", "B1", GENERAL), unit("w-bows", "C4", bows)]
    east = [unit("e-general", "K1", GENERAL, "NW"), unit("e-foot", "G4", FOOT, "NW")]
    state = to_fire_step(weathered([6, 2, 3, 4, 1], west, east))
    error = refused(state, cmd("West", "fire", unit="w-bows", target="e-foot"))
    assert str(error) == "w-bows cannot fire at e-foot: it is 4 MU away, beyond its range of 3 MU."
    plus = {**bows, "fire_range": ">2d6"}
    state = to_fire_step(weathered([6, 2, 3, 4, 1], [west[0], unit("w-bows", "C4", plus)],
                                   east))
    state, events = act(state, [5, 3], cmd("West", "fire", unit="w-bows", target="e-foot"))
    assert texts(events)[0].startswith("w-bows fires at e-foot")


def to_fire_step(state: GraspBattle) -> GraspBattle:
    state, _ = act(state, [], *[cmd(s, "done") for s in state.phasing])
    assert state.step == "fire"
    return state


def test_a_ground_wind_halves_moves_on_the_ground():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)]
    state = weathered([6, 2, 1, 5, 2], west)  # difference 4: ½ move on the ground
    state, events = act(state, [], cmd("West", "marker", unit="w-foot", to="H4"),
                        cmd("West", "done"), cmd("East", "done"))
    # 3 MU halved, rounded down: 1 hex of the way
    assert (where(state, "w-foot"), distance(parse_label("C4"), state.unit("w-foot").pos)) == (
        "D3", 1)
    calm, _ = act(begin(west, EAST, [6, 2]), [], cmd("West", "marker", unit="w-foot", to="H4"),
                  cmd("West", "done"), cmd("East", "done"))
    assert where(calm, "w-foot") == "F3"


# --- the events ---------------------------------------------------------------------------------

ENV_WEST = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)]
ENV_EAST = [unit("e-general", "K1", GENERAL, "NW"), unit("e-foot", "I6", FOOT, "NW")]
ENV_ROLLS = [6, 2, 1, 3, 4, 4]  # 4: environmental terrain for 1 turn, wind 2 from the west, SE


def test_environmental_terrain_is_placed_by_its_side_in_its_quarter_next_to_hard_going():
    state = weathered(ENV_ROLLS, ENV_WEST, ENV_EAST, terrain={"J6": "difficult"})
    assert state.weather[0].sector == "SE"
    for place, message in (
            (["C6"], "The environmental terrain lies in the SE quarter its die gave."),
            (["H6", "H7", "I7", "I8", "H8"], "Environmental terrain covers at most 4 MU²."),
            (["G7"], "Environmental terrain is placed next to difficult or impassable going.")):
        error = refused(state, cmd("West", "environment", place=place))
        assert (error.rule, error.field, str(error)) == ("weather", "orders[0].place", message)
    error = refused(state, cmd("East", "environment", place=["I7"]))
    assert str(error) == "East does not act now: West phases in the command step."
    state, events = act(state, [5, 2], cmd("West", "environment", place=["I6", "I7"]))
    assert texts(events) == [
        "West places environmental terrain at I6, I7: difficult going until the end of turn 1.",
        "Caught in environmental terrain: the environmental terrain engages e-foot: attacker: "
        "the environmental terrain d6 rolled [5] kept 5 = 5 → total 5; defender: e-foot d6 "
        "rolled [2] kept 2 = 2 → total 2; the environmental terrain wins and doubles its "
        "opponent; e-foot: fatigue d6 → d4; e-foot recoils 1 MU.",
        "e-foot recoils to J6."]  # straight back from its front (it faces NW)
    assert state.field.going(parse_label("I7")) is TerrainClass.DIFFICULT
    error = refused(state, cmd("West", "environment", place=["H7"]))
    assert str(error) == ("West has no environmental terrain to place: it comes with a weather "
                          "throw of 3 or 4 by the side.")
    check_json_form(ENGINE, state, [cmd("West", "done")])
    # Its one turn over, it goes; the difficult going it lay beside stays.
    state, events = act(state, [2, 2], cmd("West", "marker", unit="w-foot", to="D4"),
                        *[cmd(s, "done") for s in ("West", "East") * 3])
    assert state.turn == 2 and state.weather == ()
    assert state.field.going(parse_label("I7")) is TerrainClass.GOOD
    assert state.field.going(parse_label("J6")) is TerrainClass.DIFFICULT


def test_environmental_terrain_not_placed_passes_when_its_side_is_done_but_its_wind_holds():
    state = weathered(ENV_ROLLS, ENV_WEST, ENV_EAST, terrain={"J6": "difficult"})
    state, events = act(state, [], cmd("West", "done"))
    assert texts(events) == ["West reserves 6 pips.",
                             "West placed no environmental terrain: the event passes."]
    assert (state.weather[0].wind, state.weather[0].sector) == (2, "")
    error = refused(state, cmd("East", "environment", place=["I7"]))
    assert error.rule == "weather"


def test_a_random_light_or_difficult_piece_becomes_one_level_more_severe():
    light = {"C6": "light", "C7": "light", "H6": "light"}
    state = weathered([6, 2, 4, 4, 2], terrain=light)  # 8, no wind; the d2 picks piece 2
    assert state.field.going(parse_label("H6")) is TerrainClass.DIFFICULT
    assert state.field.going(parse_label("C6")) is TerrainClass.LIGHT
    assert state.weather[0].until == 1
    hard = {"C6": "difficult", "C7": "difficult"}
    scen_events = texts(list(ENGINE.start(scenario={
        "map": {"cols": 12, "rows": 8, "terrain": hard},
        "sides": [{"name": "West", "edge": "W", "units": WEST},
                  {"name": "East", "edge": "E", "units": EAST}]},
        settings={"weather": True}, dice=FixedDice([6, 2, 3, 6, 4])).events))
    assert scen_events[-2:] == [
        "West rolled its maximum pips and throws the weather: 3 + 6 = 9, a random difficult "
        "terrain piece becomes impassable. The wind (3) blows from the west: ½ move for flyers "
        "and tunnellers.",
        "The difficult terrain at C6 (piece 1 of 1) becomes impassable."]
    none = weathered([6, 2, 4, 4])
    assert none.field.pieces_of(TerrainClass.LIGHT) == []


def test_double_fatigue_on_losses_until_a_side_rolls_its_maximum_pips_again():
    west = [unit("w-general", "B4", GENERAL), unit("w-knights", "E4", KNIGHTS)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "F4", FOOT, "NW")]
    state = weathered([6, 2, 5, 5], west, east)  # 10, no wind
    state, _ = act(state, [], cmd("West", "marker", unit="w-general", to="B5"),
                   *[cmd(s, "done") for s in ("West", "East") * 2])
    state, events = act(state, [6, 6, 6, 2], cmd("West", "fight", unit="w-knights",
                                                 target="e-foot"))
    assert texts(events)[1:] == [
        "The weather doubles e-foot's fatigue loss: 1 more, down to none.",
        "e-foot recoils to G5."]
    assert state.unit("e-foot").fatigue is None
    # Turn 2: nobody rolls a maximum, it holds.
    state, _ = act(state, [2, 1], cmd("West", "done"), cmd("East", "done"))
    assert [w.total for w in state.weather] == [10]
    state, _ = act(state, [], cmd("West", "marker", unit="w-general", to="B4"),
                   cmd("East", "pass"), *[cmd(s, "done") for s in ("West", "East") * 2],
                   cmd("West", "done"))
    # Turn 3: East rolls its maximum: the doubling ends, and East throws anew.
    state, events = act(state, [2, 6, 3, 4, 2], cmd("East", "done"))
    assert texts(events)[-2:] == [
        "The weather West threw on turn 1 (double all fatigue on losses, until a side rolls its "
        "maximum pips) ends.",
        "East rolled its maximum pips and throws the weather: 3 + 4 = 7, the wind alone, for 3 "
        "turns. The wind (1) blows from the east: ½ command and fire range (unless advanced "
        "command or a +Tech range)."]
    assert [w.total for w in state.weather] == [7]


def test_units_in_difficult_going_are_struck_at_d4():
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "J4", FOOT, "NW")]
    state = weathered([6, 2, 5, 6, 1, 4, 1], east=east, terrain={"J4": "difficult"})
    assert state.unit("e-foot").fatigue == DieLevel.D4
    assert [u.fatigue for u in state.units if u.id != "e-foot"] == [DieLevel.D6] * 3
    assert state.weather[0].until == 1


CATASTROPHE = [6, 2, 6, 6, 1, 6, 6, 2, 1, 6, 1, 6]  # 12; the strikes at w-general … e-foot


def test_a_catastrophe_strikes_every_unit_at_d6_then_again_next_turn():
    state, events = act_start(CATASTROPHE)
    assert texts(events)[5:] == [
        "West rolled its maximum pips and throws the weather: 6 + 6 = 12, a catastrophic event: "
        "all units are struck at d6, for 2 turns. No wind.",
        "The weather strikes: the weather (d6) engages w-general: attacker: the weather (d6) d6 "
        "rolled [1] kept 1 = 1 → total 1; defender: w-general d6 rolled [6] kept 6 = 6 → total "
        "6; w-general wins and doubles its opponent.",
        "The weather strikes: the weather (d6) engages w-foot: attacker: the weather (d6) d6 "
        "rolled [6] kept 6 = 6 → total 6; defender: w-foot d6 rolled [2] kept 2 = 2 → total 2; "
        "the weather (d6) wins and doubles its opponent; w-foot: fatigue d6 → d4; w-foot "
        "recoils 1 MU.",
        "w-foot recoils to B3.",  # straight back from its front (it faces SE)
        "The weather strikes: the weather (d6) engages e-general: attacker: the weather (d6) d6 "
        "rolled [1] kept 1 = 1 → total 1; defender: e-general d6 rolled [6] kept 6 = 6 → total "
        "6; e-general wins and doubles its opponent.",
        "The weather strikes: the weather (d6) engages e-foot: attacker: the weather (d6) d6 "
        "rolled [1] kept 1 = 1 → total 1; defender: e-foot d6 rolled [6] kept 6 = 6 → total 6; "
        "e-foot wins and doubles its opponent."]
    state, _ = act(state, [], cmd("West", "marker", unit="w-general", to="B5"),
                   *[cmd(s, "done") for s in ("West", "East") * 3][:-1])
    state, events = act(state, [3, 2, 1, 6, 1, 6, 1, 6, 1, 6], cmd("East", "done"))
    assert sum(t.startswith("The weather strikes") for t in texts(events)) == 4
    assert state.turn == 2 and [w.until for w in state.weather] == [2]
    state, events = act(state, [3, 2], cmd("West", "marker", unit="w-general", to="B4"),
                        cmd("East", "pass"), *[cmd(s, "done") for s in ("West", "East") * 3])
    assert state.turn == 3 and state.weather == ()
    assert not any(t.startswith("The weather strikes") for t in texts(events))


def test_on_the_continuous_board_a_unit_the_weather_beats_recoils_straight_back():
    state = begin_continuous([6, 2, 6, 6, 6, 1, 1, 6, 1, 6, 1, 6])
    assert (state.unit("w-general").pos, state.unit("w-general").fatigue) == (
        Point(Fraction(1), Fraction(8)), DieLevel.D4)
    assert state.unit("w-foot").pos == Point(Fraction(4), Fraction(8))


def act_start(rolls: list[int]) -> tuple[GraspBattle, list[Any]]:
    scen = {"map": {"cols": 12, "rows": 8},
            "sides": [{"name": "West", "edge": "W", "units": WEST},
                      {"name": "East", "edge": "E", "units": EAST}]}
    dice = FixedDice(rolls)
    result = ENGINE.start(scenario=scen, settings={"weather": True}, dice=dice)
    assert dice.remaining == 0
    return result.state, list(result.events)


def test_perfect_conditions_give_one_unit_a_side_a_turn_a_fatigue_die():
    west = [unit("w-general", "B4", GENERAL), unit("w-foot", "C4", FOOT)]
    east = [unit("e-general", "K4", GENERAL, "NW"), unit("e-foot", "D4", FOOT, "NW")]
    state = weathered([6, 2, 1, 1, 3], west, east)  # 2, no wind; 1d6 = 3 turns
    assert state.weather[0].until == 3
    error = refused(state, cmd("West", "recover", unit="w-foot"))
    assert str(error) == ("w-foot is in close combat: the fatigue bonus goes to a unit that "
                          "is not.")
    error = refused(state, cmd("West", "recover", unit="w-general"))
    assert str(error) == "w-general has its full fatigue die (d6)."
    tired = replace(state, units=tuple(replace(u, fatigue=None) if u.id == "w-general" else u
                                       for u in state.units))
    tired, events = act(tired, [], cmd("West", "recover", unit="w-general"))
    assert texts(events) == ["Perfect conditions: w-general gains a fatigue die level, none → d4."]
    error = refused(tired, cmd("West", "recover", unit="w-general"))
    assert str(error) == "West has given its one unit this turn +1 fatigue."
    calm = begin(west, east, [6, 2])
    error = refused(calm, cmd("West", "recover", unit="w-general"))
    assert str(error) == "Only perfect conditions (a weather throw of 2) give a unit +1 fatigue."


# --- the continuous board and the JSON form ---------------------------------------------------


def begin_continuous(rolls: list[int], terrain: list[dict[str, Any]] | None = None
                     ) -> GraspBattle:
    scen = {"map": {"width": 24, "height": 16, "terrain": terrain or []},
            "sides": [{"name": "West", "edge": "W", "units": [
                unit("w-general", [2, 8], GENERAL, [1, 0]), unit("w-foot", [4, 8], FOOT, [1, 0])]},
                {"name": "East", "edge": "E", "units": [
                    unit("e-general", [22, 8], GENERAL, [-1, 0]),
                    unit("e-foot", [18, 3], FOOT, [-1, 0])]}]}
    return ENGINE.start(scenario=scen, settings={"board": "continuous", "weather": True},
                        dice=FixedDice(rolls)).state


def test_environmental_terrain_on_the_continuous_board_is_a_polygon_of_at_most_4_mu2():
    rock = [{"going": "impassable", "polygon": [[14, 2], [16, 2], [16, 4], [14, 4]]}]
    state = begin_continuous(ENV_ROLLS, rock)
    for place, message in (
            ([[16, 2], [19, 2], [19, 4], [16, 4]], "Environmental terrain covers at most 4 MU²."),
            ([[20, 2], [22, 2], [22, 4], [20, 4]],
             "Environmental terrain is placed next to difficult or impassable going.")):
        assert str(refused(state, cmd("West", "environment", place=place))) == message
    square = [[16, 2], [18, 2], [18, 4], [16, 4]]
    state, events = act(state, [1, 4], cmd("West", "environment", place=square))
    assert texts(events)[0] == ("West places environmental terrain at (16, 2), (18, 2), (18, 4), "
                                "(16, 4): difficult going until the end of turn 1.")
    assert state.field.going(Point(Fraction(17), Fraction(3))) is TerrainClass.DIFFICULT
    check_json_form(ENGINE, state, [cmd("West", "done")])


def test_a_state_with_bad_weather_is_refused():
    state = weathered([6, 2, 3, 4, 1])
    data = ENGINE.state_to_json(state)
    data["weather"][0]["total"] = 13
    with pytest.raises(InputError) as caught:
        ENGINE.state_from_json(data)
    assert caught.value.field == "state.weather[0].total"
