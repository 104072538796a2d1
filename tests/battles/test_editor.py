"""The battle scenario editor's server side: what the new battle page tells the editor about
each system, the editor's "Check" (the page's and the API's), which asks the system's engine
and stores nothing, and a form sent back to an "Edit a copy" address keeping what was sent.
(The drawing itself is played in Chromium: tests/e2e/test_battle_editor.py.)"""

from __future__ import annotations

import copy
import json

import pytest
from bs4 import BeautifulSoup
from django.test import Client
from rest_framework.test import APIClient

from campaigns.games.battle.catalogue import battle_scenario
from campaigns.models import Campaign
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CHECK = "/campaigns/battles/new/check/"


def _own(key: str) -> dict:
    return copy.deepcopy(battle_scenario(key).scenario)


def _form(system: str, custom: object, **extra: str) -> dict[str, str]:
    return {"scenario": "", "system": system, "phase_hours": "24", "max_turns": "",
            "name": "", "custom": custom if isinstance(custom, str)
            else json.dumps(custom), **extra}


def test_the_page_tells_the_editor_each_systems_terrain_and_pieces(client):
    client.force_login(UserFactory())
    html = BeautifulSoup(client.get("/campaigns/battles/new/").content, "html.parser")
    config = json.loads(html.select_one("#battle-editor-config").get_text())
    assert sorted(config) == ["elf_abas", "quad"]
    elf, quad = config["elf_abas"], config["quad"]
    assert [t["key"] for t in elf["terrains"]] == ["open", "woods", "hills", "dense_forest",
                                                   "rocky", "village", "deep_water"]
    assert elf["terrains"][3] == {"key": "dense_forest", "label": "dense forest",
                                  "fill": "#5f8f58"}
    assert [(u["key"], u["figures"], u["move"]) for u in elf["units"]] == [
        ("foot", 6, 1), ("missile", 6, 1), ("scout", 4, 1), ("mounted", 6, 3)]
    assert (elf["pieces"], elf["camps"], elf["max_side"]) == ("forces", True, 60)
    assert [t["key"] for t in quad["terrains"]] == ["open", "forest", "slope", "fortified",
                                                    "river"]
    assert (quad["pieces"], quad["camps"], quad["quality"], quad["leader_levels"]) == (
        "units", False, [1, 5], [0, 5])
    assert quad["specials"] == ["amphibious", "charger", "elite", "forester", "green",
                                "steady", "support"]
    editor = html.select_one("#battle-editor")
    assert editor["data-check-url"] == CHECK
    assert editor.has_attr("hidden")  # shown by its script: without it, the JSON box serves


def test_check_says_what_the_engine_would_deploy_and_stores_nothing(client):
    client.force_login(UserFactory())
    scenario = _own("elf_abas_ford")
    answer = client.post(CHECK, _form("elf_abas", scenario))
    assert (answer.status_code, answer.json()) == (200, {
        "ok": True, "system": "elf_abas",
        "summary": "9 forces deployed on a 9 × 7 map, 1 in reserve."})
    answer = client.post(CHECK, _form("quad", _own("quad_hill")))
    assert answer.json()["summary"] == "6 units deployed on a 8 × 6 map."
    assert Campaign.objects.count() == 0


@pytest.mark.parametrize(("system", "change", "path", "message"), [
    ("elf_abas", lambda s: s["sides"][0]["forces"][1].update(hex="K2"),
     "scenario.sides[0].forces[1].hex",
     "scenario.sides[0].forces[1].hex: K2 is not on the 9 × 7 map."),
    ("elf_abas", lambda s: s["sides"][1].update(entry="E1"),
     "scenario.sides[1].entry",
     "scenario.sides[1].entry: an entry point cannot be deep water."),
    ("elf_abas", lambda s: s["sides"][0]["forces"][0].update(figures=7),
     "scenario.sides[0].forces[0].figures",
     "scenario.sides[0].forces[0].figures: must be at most 6."),
    ("quad", lambda s: s["sides"][1]["units"][2]["type"].update(specials=["flying"]),
     "scenario.sides[1].units[2].type.specials[0]",
     None),
    ("quad", lambda s: s["map"].update(cols=61),
     "scenario.map.cols", "scenario.map.cols: must be at most 60."),
])
def test_check_names_the_field_the_engine_refuses(client, system, change, path, message):
    client.force_login(UserFactory())
    scenario = _own("elf_abas_ford" if system == "elf_abas" else "quad_hill")
    change(scenario)
    answer = client.post(CHECK, _form(system, scenario))
    body = answer.json()
    assert (answer.status_code, body["ok"], body["field"], body["path"]) == (
        400, False, "custom", path)
    if message is not None:
        assert body["message"] == message
    else:
        assert body["message"].startswith(f"{path}: ")
    assert Campaign.objects.count() == 0


def test_check_refuses_what_is_not_a_scenario_and_the_forms_own_fields(client):
    client.force_login(UserFactory())
    answer = client.post(CHECK, _form("quad", ""))
    assert (answer.status_code, answer.json()) == (400, {
        "ok": False, "field": "custom", "path": "custom",
        "message": "Draw a scenario (or fill the box) to check it."})
    answer = client.post(CHECK, _form("quad", "{nope"))
    assert answer.json()["message"].startswith("Your scenario is not JSON: Expecting property")
    answer = client.post(CHECK, _form("chess", _own("quad_hill")))
    assert (answer.json()["field"], answer.json()["message"]) == (
        "system", "A battle is played with ELF ABAS, QUAD; not 'chess'.")
    answer = client.post(CHECK, _form("quad", _own("quad_hill"), max_turns="x"))
    assert answer.json()["field"] == "max_turns"
    answer = client.post(CHECK, _form("quad", _own("quad_hill"), max_turns="101"))
    assert (answer.json()["field"], answer.json()["path"]) == ("max_turns", "settings.max_turns")


def test_check_is_a_logged_in_post_with_its_csrf_token():
    scenario = _own("quad_hill")
    anonymous = Client()
    answer = anonymous.post(CHECK, _form("quad", scenario))
    assert (answer.status_code, answer["Location"].split("?")[0]) == (302, "/accounts/login/")
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(UserFactory())
    assert guarded.post(CHECK, _form("quad", scenario)).status_code == 403
    assert guarded.get(CHECK).status_code == 405


def test_a_form_sent_back_to_an_edit_a_copy_address_keeps_what_was_sent(client):
    """The form posts to the address it was drawn at (`?copy=…`): the battle is made from
    the scenario sent, not from a fresh copy of the demo."""
    client.force_login(UserFactory())
    edited = _own("quad_hill")
    edited["sides"][1]["units"].pop()
    response = client.post("/campaigns/battles/new/?copy=quad_hill",
                           _form("quad", edited, scenario="quad_hill"))
    campaign = Campaign.objects.get()
    assert response["Location"] == f"/campaigns/{campaign.pk}/battle/"
    assert campaign.battle.scenario == edited


def test_the_apis_check():
    client = APIClient()
    client.force_authenticate(UserFactory())
    answer = client.post("/api/v1/battles/check/", {"system": "quad", "scenario": {
        "map": {"cols": 4, "rows": 3, "terrain": {"B2": "forest"}},
        "sides": [
            {"name": "Red", "units": [{"id": "r1", "hex": "A1", "type": {
                "name": "Foot", "quality": 3, "speed": 1, "attack": 2, "defense": 2}}]},
            {"name": "Blue", "units": [{"id": "b1", "hex": "D3", "type": {
                "name": "Foot", "quality": 3, "speed": 1, "attack": 2, "defense": 2}}]}]}},
        format="json")
    assert (answer.status_code, answer.json()) == (200, {
        "system": "quad", "summary": "2 units deployed on a 4 × 3 map."})
    scenario = _own("elf_abas_ford")
    scenario["sides"][0]["forces"][0]["unit"] = "cavalry"
    answer = client.post("/api/v1/battles/check/", {"system": "elf_abas",
                                                    "scenario": scenario}, format="json")
    assert (answer.status_code, answer.json()["code"], answer.json()["field"]) == (
        400, "invalid_input", "scenario.sides[0].forces[0].unit")
    answer = client.post("/api/v1/battles/check/", {"system": "elf_abas", "scenario": _own(
        "elf_abas_ford"), "settings": {"max_turns": 0}}, format="json")
    assert answer.json()["field"] == "settings.max_turns"
    assert Campaign.objects.count() == 0
    assert APIClient().post("/api/v1/battles/check/", {"system": "quad", "scenario": {}},
                            format="json").status_code == 401


def test_a_gm_starts_from_one_of_their_own_battles_and_nobody_elses(client):
    from campaigns.games.battle.services import battle_create

    gm, other = UserFactory(), UserFactory()
    edited = _own("quad_hill")
    edited["map"]["rows"] = 7
    mine = battle_create(gm=gm, system="quad", scenario=edited, name="Mine")
    theirs = battle_create(gm=other, system="elf_abas", scenario_key="elf_abas_ford",
                           name="Theirs")
    client.force_login(gm)
    html = BeautifulSoup(client.get("/campaigns/battles/new/").content, "html.parser")
    assert [(a.get_text(), a["href"]) for a in html.select(".be-own a")] == [
        ("Mine", f"?from={mine.pk}")]
    html = BeautifulSoup(client.get(f"/campaigns/battles/new/?from={mine.pk}").content,
                         "html.parser")
    assert json.loads(html.select_one("#battle-custom").get_text()) == edited
    assert html.select_one("#battle-system option[selected]")["value"] == "quad"
    html = BeautifulSoup(client.get(f"/campaigns/battles/new/?from={theirs.pk}").content,
                         "html.parser")
    assert html.select_one("#battle-custom").get_text() == ""


def test_draw_opens_the_editor_on_a_blank_map_of_the_system(client):
    client.force_login(UserFactory())
    html = BeautifulSoup(client.get("/campaigns/battles/new/?draw=quad").content,
                         "html.parser")
    assert html.select_one("#battle-editor")["data-draw"] == "quad"
    assert html.select_one("#battle-system option[selected]")["value"] == "quad"
    assert html.select_one("details").has_attr("open")
    html = BeautifulSoup(client.get("/campaigns/battles/new/?draw=chess").content,
                         "html.parser")
    assert not html.select_one("#battle-editor").has_attr("data-draw")
    dashboard = BeautifulSoup(client.get("/campaigns/gm/").content, "html.parser")
    assert [a["href"] for a in dashboard.select(".gm-battles a[href*='draw=']")] == [
        "/campaigns/battles/new/?draw=elf_abas", "/campaigns/battles/new/?draw=quad"]
