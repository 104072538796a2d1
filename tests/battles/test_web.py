"""The battle pages: each system's order forms into the engine's orders, a refusal shown next
to the control that caused it (status 400, nothing changed), creating a battle with its
errors at their fields, joining a side, the GM's proxy, extension and pause."""

from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup

from campaigns.games.battle.catalogue import battle_scenario
from campaigns.models import Battle, BattleEntry, Campaign, Membership, Phase
from tests.battles.conftest import make_table
from tests.campaigns.conftest import fingerprint
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def page(response) -> BeautifulSoup:
    return BeautifulSoup(response.content, "html.parser")


def test_an_elf_abas_attack_form_declares_the_engines_attack(client, fixed_seeds):
    scenario = json.loads(json.dumps(battle_scenario("elf_abas_ford").scenario))
    scenario["sides"][0]["forces"][0]["hex"] = "F4"  # Epping's foot next to Fremont's
    table = make_table("elf_abas", scenario=scenario)
    campaign = table.campaign
    client.force_login(table.players["Fremont"])
    url = f"/campaigns/{campaign.pk}/battle/"
    html = page(client.get(url))
    assert [f["data-order"] for f in html.select("form.battle-order")] == ["move", "attack",
                                                                            "end"]
    # The scenario's order.
    assert [o["value"] for o in html.select("#attack-force option")] == [
        "fr-foot", "fr-pikes", "fr-bows", "fr-riders", "fr-reserve"]
    response = client.post(f"{url}orders/", {"kind": "attack", "force": "fr-foot",
                                              "target": "ep-foot", "dice": ""})
    assert response.status_code == 302
    entry = BattleEntry.objects.filter(battle__campaign=campaign).order_by("number").last()
    assert entry.orders == [{"kind": "attack", "force": "fr-foot", "side": "Fremont",
                             "targets": [{"force": "ep-foot"}]}]
    assert entry.events[0]["text"] == ("fr-foot declares an attack: 8D on ep-foot at F4 (6D (6 "
                                       "foot figures) + 2D (Hero) = 8D).")


def test_a_refused_order_is_shown_next_to_its_control_and_changes_nothing(client,
                                                                         fixed_seeds):
    table = make_table("elf_abas")
    campaign = table.campaign
    client.force_login(table.players["Fremont"])
    before = fingerprint(campaign.pk)
    response = client.post(f"/campaigns/{campaign.pk}/battle/orders/",
                           {"kind": "move", "force": "fr-riders", "path": "A1"})
    assert response.status_code == 400
    assert fingerprint(campaign.pk) == before
    html = page(response)
    path = html.select_one("#move-path")
    assert (path["aria-invalid"], path["value"]) == ("true", "A1")
    assert html.select_one("#move-path-error").get_text() == (
        "A1 is not next to G6: a move goes hex by hex.")
    assert html.select_one('#move-force option[selected]')["value"] == "fr-riders"
    response = client.post(f"/campaigns/{campaign.pk}/battle/orders/",
                           {"kind": "move", "force": "", "path": "G5"})
    assert page(response).select_one("#move-force-error").get_text() == (
        "Force: choose or write one.")
    # An order the page does not offer now is refused above the orders.
    response = client.post(f"/campaigns/{campaign.pk}/battle/orders/", {"kind": "allocate"})
    assert page(response).select_one(".battle-refused").get_text() == (
        "Fremont holds the activation: it moves, attacks or ends it.")
    assert fingerprint(campaign.pk) == before


def test_quad_forms_play_a_card_in_hand_and_set_the_policy(client, fixed_seeds):
    table = make_table("quad")
    campaign = table.campaign
    red = table.players["Red"]
    client.force_login(red)
    url = f"/campaigns/{campaign.pk}/battle/"
    client.post(f"{url}orders/", {"kind": "draw", "take": "no"})
    client.post(f"{url}orders/", {"kind": "policy", "block": "fall_back_first",
                                  "strike_back": "others_first"})
    state = Battle.objects.get(campaign=campaign).state
    assert state["sides"][0]["policy"] == {"block": "fall_back_first",
                                           "strike_back": "others_first"}
    assert state["draw_answers"] == [{"side": "Red", "take": False}]
    client.force_login(table.players["Blue"])
    client.post(f"{url}orders/", {"kind": "draw", "take": "yes"})
    battle = Battle.objects.get(campaign=campaign)
    side = battle.window["acting"][0]
    client.force_login(table.players[side])
    html = page(client.get(url))
    hand = {c["unit"] for c in next(p for p in battle.state["cards"]["players"]
                                    if p["player"] == side)["hand"] if c["kind"] == "unit"}
    assert {o["value"] for o in html.select("#play-unit option")} == hand
    assert len(html.select(".battle-hand li")) == len(next(
        p for p in battle.state["cards"]["players"] if p["player"] == side)["hand"])
    unit = sorted(hand)[0]
    response = client.post(f"{url}orders/", {"kind": "play", "unit": unit, "action": "hold",
                                             "path": "", "target": "", "ranged": ""})
    assert response.status_code == 302
    entry = BattleEntry.objects.filter(battle=battle).order_by("number").last()
    assert entry.orders == [{"kind": "play", "unit": unit, "action": "hold", "side": side}]


def test_a_new_battle_from_the_page_and_its_errors_at_their_fields(client):
    gm = UserFactory()
    client.force_login(gm)
    html = page(client.get("/campaigns/battles/new/?scenario=quad_hill"))
    assert html.select_one('input[name="scenario"][checked]')["value"] == "quad_hill"
    response = client.post("/campaigns/battles/new/", {"scenario": "quad_hill",
                                                       "max_turns": "two",
                                                       "phase_hours": "24"})
    assert response.status_code == 400
    assert "Turns: a whole number" in page(response).select_one(
        ".form-error:not([hidden])").get_text()
    own = json.loads(json.dumps(battle_scenario("quad_hill").scenario))
    own["sides"][1]["units"][0]["hex"] = "A2"
    response = client.post("/campaigns/battles/new/", {
        "scenario": "quad_hill", "system": "quad", "custom": json.dumps(own),
        "phase_hours": "24"})
    assert response.status_code == 400
    html = page(response)
    assert html.select_one("#battle-custom")["aria-invalid"] == "true"
    assert html.select_one("#custom-error").get_text() == (
        "scenario.sides[1].units[0].hex: A2 already holds a unit (one per hex).")
    response = client.post("/campaigns/battles/new/", {"scenario": "quad_hill", "system": "quad",
                                                       "custom": "{nope", "phase_hours": "24"})
    assert page(response).select_one("#custom-error").get_text().startswith(
        "Your scenario is not JSON: Expecting property name")
    assert Campaign.objects.count() == 0
    response = client.post("/campaigns/battles/new/", {"scenario": "elf_abas_ford",
                                                       "name": "Ford", "max_turns": "2",
                                                       "phase_hours": "48"})
    campaign = Campaign.objects.get()
    assert response["Location"] == f"/campaigns/{campaign.pk}/battle/"
    assert (campaign.name, campaign.phase_hours, campaign.battle.settings) == (
        "Ford", 48, {"max_turns": 2})


def test_a_demo_scenario_is_copied_into_the_box_to_edit(client):
    client.force_login(UserFactory())
    html = page(client.get("/campaigns/battles/new/?copy=elf_abas_ford"))
    assert json.loads(html.select_one("#battle-custom").get_text()) == battle_scenario(
        "elf_abas_ford").scenario
    assert html.select_one("#battle-system option[selected]")["value"] == "elf_abas"
    edited = battle_scenario("elf_abas_ford").scenario | {"map": {"cols": 9, "rows": 8}}
    response = client.post("/campaigns/battles/new/", {
        "scenario": "elf_abas_ford", "system": "elf_abas", "custom": json.dumps(edited),
        "phase_hours": "24", "name": "Open field"})
    campaign = Campaign.objects.get()
    assert response["Location"] == f"/campaigns/{campaign.pk}/battle/"
    assert (campaign.scenario_key, campaign.battle.scenario["map"]) == ("", {"cols": 9,
                                                                            "rows": 8})


def test_joining_by_the_invite_link_chooses_a_side(client):
    table = make_table("elf_abas", start=False)
    campaign = table.campaign
    newcomer = UserFactory()
    client.force_login(newcomer)
    url = f"/campaigns/join/{campaign.invite_code}/"
    html = page(client.get(url))
    assert [i["value"] for i in html.select('input[name="side"]')] == ["Epping", "Fremont"]
    assert "epping_elf_abas" in html.get_text()
    response = client.post(url, {})
    assert response.status_code == 400
    assert page(response).select_one(".form-error").get_text() == (
        "Choose a side of this battle: Epping or Fremont.")
    response = client.post(url, {"side": "Fremont"})
    assert response["Location"] == f"/campaigns/{campaign.pk}/battle/"
    assert Membership.objects.get(user=newcomer).side.name == "Fremont"
    assert client.get(url)["Location"] == f"/campaigns/{campaign.pk}/battle/"
    client.force_login(UserFactory())
    assert client.get(f"/campaigns/{campaign.pk}/battle/").status_code == 404


def test_the_gm_extends_pauses_and_resumes_from_the_battle_page(client, fixed_seeds):
    table = make_table("elf_abas")
    campaign = table.campaign
    phase = Phase.objects.get(campaign=campaign, status="open")
    client.force_login(table.gm)
    url = f"/campaigns/{campaign.pk}/battle/"
    response = client.post(f"{url}extend/", {"hours": "6", "reason": ""})
    assert response.status_code == 400
    assert page(response).select_one(".battle-gm .form-error").get_text() == (
        "Give a reason: GM decisions are recorded with why.")
    client.post(f"{url}extend/", {"hours": "6", "reason": "holiday"})
    deadline = phase.deadline_at
    phase.refresh_from_db()
    assert (phase.deadline_at - deadline).total_seconds() == 6 * 3600
    client.post(f"{url}pause/", {"reason": "server move"})
    campaign.refresh_from_db()
    assert campaign.status == "paused"
    assert "Paused by the GM" in page(client.get(url)).get_text()
    client.post(f"{url}pause/", {"reason": "back"})
    campaign.refresh_from_db()
    assert campaign.status == "running"
    client.force_login(table.players["Epping"])
    response = client.post(f"{url}proxy/", {"reason": "x"})
    assert response.status_code == 403


def test_a_quad_side_not_acting_is_told_whom_it_waits_for_beside_its_policy(client,
                                                                           fixed_seeds):
    table = make_table("quad")
    campaign = table.campaign
    from campaigns.games.battle import services

    for side in ("Red", "Blue"):
        services.battle_orders(user=table.players[side], campaign=campaign,
                               orders=[{"kind": "draw", "take": True}])
    acting = Battle.objects.get(campaign=campaign).window["acting"]
    assert len(acting) == 1
    idle = "Blue" if acting == ["Red"] else "Red"
    client.force_login(table.players[idle])
    html = page(client.get(f"/campaigns/{campaign.pk}/battle/"))
    assert html.select_one(".battle-waiting").get_text() == (
        f"Waiting for {acting[0]} to give their orders: you are told when it is your turn.")
    assert [f["data-order"] for f in html.select("form.battle-order")] == ["policy"]
    assert html.select_one(".battle-your-turn") is None
    client.force_login(table.players[acting[0]])
    html = page(client.get(f"/campaigns/{campaign.pk}/battle/"))
    assert html.select_one(".battle-waiting") is None
    assert html.select_one(".battle-your-turn") is not None
