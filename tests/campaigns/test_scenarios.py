"""Scenario files are validated on load; the Broad Way scenario follows rules-erfworld.md §6."""

import copy
import json

import pytest

from campaigns.errors import ScenarioError
from campaigns.games.erfworld.scenarios import SCENARIO_DIR, load_scenario, parse_scenario
from rules.erfworld.types import Terrain
from rules.hexgrid import distance, parse_label


def broad_way_data() -> dict:
    return json.loads((SCENARIO_DIR / "broad_way.json").read_text())


def test_broad_way_loads_with_the_facts_of_section_6():
    s = load_scenario("broad_way")
    assert (s.name, s.ruleset, s.cols, s.rows) == ("The Broad Way", "erfworld", 12, 12)
    assert (s.entry_hex, s.pop_hexes, s.victory_hex) == ("A1", ("B10", "I10"), "J10")
    assert set(s.terrain.values()) | {"open"} == {t.value for t in Terrain}


def test_broad_way_road_joins_a1_to_j10():
    s = load_scenario("broad_way")
    road = {h for h, t in s.terrain.items() if t == "road"}
    # Walk the road from A1: every step to an adjacent road hex reaches J10.
    seen, frontier = {"A1"}, ["A1"]
    while frontier:
        here = parse_label(frontier.pop())
        for label in road - seen:
            if distance(here, parse_label(label)) == 1:
                seen.add(label)
                frontier.append(label)
    assert "J10" in seen


def test_broad_way_j10_has_a_six_sided_wall_a_tower_and_a_garrison():
    s = load_scenario("broad_way")
    j10 = next(f for f in s.fortifications if f.hex == "J10")
    assert (j10.owner, j10.tower, sorted(j10.walls)) == (
        "opposition", 40, ["N", "NE", "NW", "S", "SE", "SW"],
    )
    assert len([f for f in s.fortifications if f.tower is not None]) == 3
    assert [st.hex for st in s.stacks if st.hex == "J10"] == ["J10", "J10"]


@pytest.mark.django_db
def test_unknown_scenario_is_refused_with_the_known_ones():
    with pytest.raises(ScenarioError, match=r"There is no scenario 'nope'; known scenarios: "
                       r"broad_way\."):
        load_scenario("nope")


@pytest.mark.parametrize(
    ("change", "message", "field"),
    [
        (lambda d: d.pop("entry_hex"), "entry_hex: is required.", "entry_hex"),
        (lambda d: d.update(entry_hex="M1"), "entry_hex: hex M1 is not on the 12 × 12 map.",
         "entry_hex"),
        (lambda d: d["map"]["terrain"].update(B2="lava"),
         "map: terrain[B2]: unknown terrain 'lava'; use one of open, road, hills, woods, swamp.",
         "map"),
        (lambda d: d["fortifications"][0].update(walls={"UP": 3}),
         "fortifications[0].walls.UP: a hexside is one of N, NE, SE, S, SW, NW.",
         "fortifications[0].walls.UP"),
        (lambda d: d["opposition"]["unit_types"][0].update(hits=9),
         "opposition.unit_types[0]: Unit type 'Warlord' is a commander with 9 hits; commanders "
         "must have between 3 and 6 hits.", "opposition.unit_types[0]"),
        (lambda d: d["opposition"]["stacks"][0]["units"][0].update(type="Dragon"),
         "opposition.stacks[0].units[0].type: unknown unit type 'Dragon'.",
         "opposition.stacks[0].units[0].type"),
        (lambda d: d["opposition"]["stacks"][0].update(candidates=["G7", "M3"]),
         "opposition.stacks[0].candidates[1]: hex M3 is not on the 12 × 12 map.",
         "opposition.stacks[0].candidates[1]"),
        (lambda d: d["opposition"]["stacks"][0].update(candidates=["G7", "G7"]),
         "opposition.stacks[0].candidates[1]: G7 is already one of the stack's start hexes.",
         "opposition.stacks[0].candidates[1]"),
        (lambda d: d["opposition"]["stacks"][0].update(candidates=["D4"]),
         "opposition.stacks[0].candidates[0]: D4 is already one of the stack's start hexes.",
         "opposition.stacks[0].candidates[0]"),
        (lambda d: d["opposition"]["stacks"][0].update(candidates="G7"),
         "opposition.stacks[0].candidates: must be a list.", "opposition.stacks[0].candidates"),
        (lambda d: d["settings"].update(points_budget=0),
         "settings.points_budget: must be 1 or more, not 0.", "settings.points_budget"),
        (lambda d: d.update(ruleset="quad"),
         "ruleset: a campaign scenario is for erfworld; the quad rules referee single battles "
         "(python -m rules quad battle-start), not campaigns yet.", "ruleset"),
        (lambda d: d.update(ruleset="chess"),
         "ruleset: unknown ruleset 'chess'; known: erfworld, elf_abas, quad, ancient_foes, "
         "grasp.", "ruleset"),
        (lambda d: d.update(colour="red"),
         "colour: unknown field (allowed: key, name, ruleset, description, settings, sides, map, "
         "entry_hex, pop_hexes, victory_hex, fortifications, opposition).", "colour"),
    ],
)
def test_invalid_scenarios_are_refused_naming_the_field(change, message, field):
    data = copy.deepcopy(broad_way_data())
    change(data)
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data)
    assert (str(info.value), info.value.field, info.value.code) == (
        message, field, "invalid_scenario",
    )
