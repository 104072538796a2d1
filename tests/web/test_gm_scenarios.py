"""The scenario editor: saved scenarios round-trip through load_scenario, errors name the field."""

import json

import pytest

from campaigns.errors import ScenarioError
from campaigns.games.erfworld import campaign_create_from_scenario
from campaigns.games.erfworld.saved_scenarios import scenario_save
from campaigns.games.erfworld.scenarios import load_scenario, scenario_keys
from campaigns.models import SavedScenario
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

SAVE = "/campaigns/scenarios/save/"
CHECK = "/campaigns/scenarios/check/"


def small_scenario(key: str = "little_hill", *, cols: int = 5, rows: int = 4) -> dict:
    """A valid scenario as the editor sends it: a hill fort held by two stacks."""
    return {
        "key": key,
        "name": "Little Hill",
        "ruleset": "erfworld",
        "description": "A fort on a hill.",
        "settings": {"phase_hours": 48, "terrain_known_to_all": True},
        "sides": {"alliance": "The Alliance", "opposition": "The Hill Guard"},
        "map": {"cols": cols, "rows": rows, "terrain": {"A1": "road", "B2": "hills"}},
        "entry_hex": "A1",
        "pop_hexes": ["A2"],
        "victory_hex": "B2",
        "fortifications": [{"hex": "B2", "owner": "opposition", "tower": 20,
                            "walls": {"N": 10}}],
        "opposition": {
            "unit_types": [
                {"name": "Guard", "hits": 4, "attack": 4, "defence": 3, "move": 1,
                 "specials": []},
            ],
            "stacks": [{"hex": "B2", "units": [{"type": "Guard", "count": 3}]}],
        },
    }


def post_json(client, url: str, data: dict):
    return client.post(url, json.dumps(data), content_type="application/json")


@pytest.fixture
def author(client):
    user = UserFactory()
    client.force_login(user)
    return user


def test_a_saved_scenario_loads_like_a_scenario_file():
    scenario_save(user=UserFactory(), key="little_hill", data=small_scenario())
    s = load_scenario("little_hill")
    assert (s.name, s.cols, s.rows, s.entry_hex, s.victory_hex, s.pop_hexes) == (
        "Little Hill", 5, 4, "A1", "B2", ("A2",))
    assert [(st.hex, st.units) for st in s.stacks] == [("B2", (("Guard", 3),))]


def test_saved_scenarios_are_listed_with_the_files():
    scenario_save(user=UserFactory(), key="little_hill", data=small_scenario())
    assert scenario_keys() == ["broad_way", "little_hill"]


def test_a_campaign_is_created_from_a_saved_scenario():
    author = UserFactory()
    scenario_save(user=author, key="little_hill", data=small_scenario())
    campaign = campaign_create_from_scenario(gm=author, scenario_key="little_hill")
    assert (campaign.name, campaign.entry_hex, campaign.phase_hours) == ("Little Hill", "A1", 48)
    assert (campaign.map.cols, campaign.map.rows, campaign.map.terrain) == (
        5, 4, {"A1": "road", "B2": "hills"})
    assert sorted(campaign.fortifications.values_list("kind", "direction", "hits")) == [
        ("tower", "", 20), ("wall", "N", 10)]
    assert sorted(campaign.units.values_list("name", flat=True)) == [
        "Guard 1", "Guard 2", "Guard 3"]


def test_an_invalid_saved_scenario_is_refused_on_load():
    data = small_scenario()
    data["victory_hex"] = "Z9"
    SavedScenario.objects.create(key="little_hill", name="Little Hill", data=data)
    with pytest.raises(ScenarioError, match=r"^victory_hex: hex Z9 is not on the 5 × 4 map\.$"):
        load_scenario("little_hill")


def test_the_save_view_saves_and_answers_the_edit_url(client, author):
    response = post_json(client, SAVE, small_scenario())
    assert response.status_code == 200
    assert response.json() == {
        "ok": True, "key": "little_hill",
        "detail": "Saved the scenario 'Little Hill' as 'little_hill'.",
        "edit_url": "/campaigns/scenarios/little_hill/edit/",
    }
    saved = SavedScenario.objects.get()
    assert (saved.author, saved.data) == (author, small_scenario())


def test_the_author_saves_a_new_version_under_the_same_key(client, author):
    post_json(client, SAVE, small_scenario())
    changed = small_scenario()
    changed["name"] = "Little Hill II"
    post_json(client, SAVE, changed)
    assert list(SavedScenario.objects.values_list("key", "name")) == [
        ("little_hill", "Little Hill II")]


def test_someone_elses_scenario_key_is_refused(client, author):
    scenario_save(user=UserFactory(), key="little_hill", data=small_scenario())
    changed = small_scenario()
    changed["name"] = "Taken over"
    response = post_json(client, SAVE, changed)
    assert response.status_code == 403
    assert response.json()["field"] == "key"
    assert SavedScenario.objects.get().name == "Little Hill"


def test_a_scenario_file_key_is_refused(client, author):
    response = post_json(client, SAVE, small_scenario("broad_way"))
    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid_scenario", "field": "key",
        "detail": "key: 'broad_way' is the key of a scenario file; choose another key.",
    }
    assert SavedScenario.objects.count() == 0


def test_anonymous_visitor_cannot_save(client):
    response = post_json(client, SAVE, small_scenario())
    assert response.status_code == 302
    assert SavedScenario.objects.count() == 0


def _set(path, value):
    def change(d):
        *head, last = path
        target = d
        for k in head:
            target = target[k]
        target[last] = value
    return change


@pytest.mark.parametrize(
    ("change", "field", "detail"),
    [
        (_set(["name"], ""), "name", "name: must be a non-empty string."),
        (_set(["key"], "Hill"), "key", "key: 'Hill' must be lowercase letters, digits and _."),
        (_set(["entry_hex"], "F1"), "entry_hex", "entry_hex: hex F1 is not on the 5 × 4 map."),
        (_set(["pop_hexes"], ["A1", "a2"]), "pop_hexes[1]",
         "pop_hexes[1]: Column letters must be uppercase in hex label 'a2'."),
        (_set(["map", "terrain", "C3"], "lava"), "map",
         "map: terrain[C3]: unknown terrain 'lava'; use one of open, road, hills, woods, swamp."),
        (_set(["map", "cols"], 0), "map.cols", "map.cols: must be 1 or more, not 0."),
        (_set(["settings", "phase_hours"], 0), "settings.phase_hours",
         "settings.phase_hours: must be 1 or more, not 0."),
        (_set(["fortifications"], [{"hex": "C3", "owner": "opposition"}]), "fortifications[0]",
         "fortifications[0]: the fortification in C3 needs a tower or walls."),
        (_set(["opposition", "stacks", 0, "units", 0, "type"], "Dragon"),
         "opposition.stacks[0].units[0].type",
         "opposition.stacks[0].units[0].type: unknown unit type 'Dragon'."),
    ],
    ids=["name", "key", "entry", "pop", "terrain", "cols", "setting", "fort", "stack-type"],
)
def test_a_bad_scenario_is_refused_naming_the_field(client, author, change, field, detail):
    data = small_scenario()
    change(data)
    response = post_json(client, SAVE, data)
    assert response.status_code == 400
    assert (response.json()["field"], response.json()["detail"]) == (field, detail)
    assert SavedScenario.objects.count() == 0


def test_a_unit_type_against_the_rules_is_refused_by_the_rules_engine(client, author):
    data = small_scenario()
    data["opposition"]["unit_types"][0]["hits"] = 0
    response = post_json(client, SAVE, data)
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_scenario", "field": "opposition.unit_types[0]",
        "detail": "opposition.unit_types[0]: Unit type 'Guard' has 0 hits; a unit needs at "
        "least 1 hit. Unit type 'Guard' has defence 3; defence may not be higher than hits (0).",
    })
    assert SavedScenario.objects.count() == 0


def test_the_key_in_the_data_must_be_the_saved_key():
    with pytest.raises(ScenarioError, match=r"^key: the scenario says its key is 'a', but it is "
                       r"saved as 'b'\.$"):
        scenario_save(user=UserFactory(), key="b", data=small_scenario("a"))
    assert SavedScenario.objects.count() == 0


def test_a_100_by_100_map_is_accepted(client, author):
    data = small_scenario(cols=100, rows=100)
    data["map"]["terrain"]["CV100"] = "swamp"
    response = post_json(client, SAVE, data)
    assert response.status_code == 200
    assert (load_scenario("little_hill").cols, load_scenario("little_hill").rows) == (100, 100)


@pytest.mark.parametrize(("cols", "rows", "field", "detail"), [
    (101, 100, "map.cols", "map.cols: a map has at most 100 cols, not 101."),
    (100, 101, "map.rows", "map.rows: a map has at most 100 rows, not 101."),
])
def test_a_map_over_100_hexes_a_side_is_refused(client, author, cols, rows, field, detail):
    response = post_json(client, SAVE, small_scenario(cols=cols, rows=rows))
    assert response.status_code == 400
    assert (response.json()["field"], response.json()["detail"]) == (field, detail)
    assert SavedScenario.objects.count() == 0


def test_a_body_that_is_not_json_is_refused(client, author):
    response = client.post(SAVE, "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"] == "The scenario must be sent as JSON."


def test_check_validates_without_saving(client, author):
    response = post_json(client, CHECK, small_scenario())
    assert response.json() == {"ok": True,
                               "detail": "Little Hill is a valid scenario (5 × 4)."}
    assert SavedScenario.objects.count() == 0


def test_check_reports_the_field(client, author):
    data = small_scenario()
    data["victory_hex"] = "E5"
    response = post_json(client, CHECK, data)
    assert (response.status_code, response.json()["field"]) == (400, "victory_hex")


# --- editor pages ------------------------------------------------------------------------


def test_anonymous_visitor_is_sent_to_log_in_from_the_editor(client):
    response = client.get("/campaigns/scenarios/new/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/campaigns/scenarios/new/"


def test_the_new_scenario_page_starts_from_a_blank_12_by_12_map(client, author):
    response = client.get("/campaigns/scenarios/new/")
    assert response.status_code == 200
    assert response.context["scenario"]["map"] == {"cols": 12, "rows": 12, "terrain": {}}
    body = response.content.decode()
    assert '<script id="scenario-data" type="application/json">' in body
    assert 'src="/static/js/scenario_editor.js"' in body
    assert response.context["editor_config"]["terrains"] == [
        "open", "road", "hills", "woods", "swamp"]


def test_the_author_edits_a_saved_scenario(client, author):
    scenario_save(user=author, key="little_hill", data=small_scenario())
    response = client.get("/campaigns/scenarios/little_hill/edit/")
    assert response.status_code == 200
    assert (response.context["scenario"], response.context["editing"]) == (
        small_scenario(), "little_hill")


def test_another_users_saved_scenario_cannot_be_edited(client, author):
    scenario_save(user=UserFactory(), key="little_hill", data=small_scenario())
    assert client.get("/campaigns/scenarios/little_hill/edit/").status_code == 403


def test_a_scenario_file_opens_as_a_copy_under_a_new_key(client, author):
    response = client.get("/campaigns/scenarios/broad_way/edit/")
    data = response.context["scenario"]
    assert (data["key"], data["name"], response.context["copy_of"]) == (
        "broad_way_copy", "The Broad Way (copy)", "broad_way")


def test_an_unknown_scenario_has_no_editor_page(client, author):
    assert client.get("/campaigns/scenarios/atlantis/edit/").status_code == 404
