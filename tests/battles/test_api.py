"""The API of battles and the one API for every game: a QUAD battle from creation to its
first activation through /api/v1/ only, refusals with their code and field, and Erfworld's
orders given through the same game endpoints."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from campaigns.models import Battle, Phase, ScoutOrder, Unit
from tests.factories import UserFactory, started_campaign_factory

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_quad_battle_through_the_api(fixed_seeds):
    gm, red, blue = UserFactory(), UserFactory(), UserFactory()
    scenarios = client_for(red).get("/api/v1/battles/scenarios/").json()
    assert [s["key"] for s in scenarios] == ["elf_abas_ford", "quad_hill"]
    created = client_for(gm).post("/api/v1/battles/", {
        "system": "quad", "scenario_key": "quad_hill", "settings": {"max_turns": 3},
        "phase_hours": 6}, format="json")
    assert created.status_code == 201
    campaign_id, code = created.json()["id"], created.json()["invite_code"]
    assert created.json()["ruleset_key"] == "quad"
    for user, side in ((red, "Red"), (blue, "Blue")):
        joined = client_for(user).post("/api/v1/battles/join/",
                                       {"invite_code": code, "side": side}, format="json")
        assert (joined.status_code, joined.json()["side"]) == (201, side)
    started = client_for(gm).post(f"/api/v1/campaigns/{campaign_id}/battle/start/", {},
                                  format="json")
    assert started.status_code == 200
    game = started.json()
    assert (game["game"], game["status"], game["acting"], game["orders_allowed"]) == (
        "quad", "running", ["Red", "Blue"], [])
    assert game["waiting_for"] == "Turn 1: each side says whether it draws"
    assert game["phase"]["kind"] == "battle"
    seen = client_for(red).get(f"/api/v1/campaigns/{campaign_id}/game/").json()
    assert seen["orders_allowed"] == ["draw", "policy"]
    hands = {p["player"]: p["hand"] for p in seen["view"]["state"]["cards"]["players"]}
    assert isinstance(hands["Red"], list) and hands["Blue"] == 1
    refused = client_for(red).post(f"/api/v1/campaigns/{campaign_id}/game/orders/",
                                   {"orders": [{"kind": "release"}]}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {
        "code": "turn", "field": "orders[0].kind",
        "detail": "The turn begins with the draw: answer it with a draw order (take true or "
        "false)."}
    after = client_for(red).post(f"/api/v1/campaigns/{campaign_id}/game/orders/",
                                 {"orders": [{"kind": "draw", "take": True}]}, format="json")
    assert after.status_code == 200
    assert (after.json()["acting"], after.json()["orders_allowed"]) == (["Blue"], ["policy"])
    assert after.json()["view"]["log"][-1]["events"][0]["text"] == "Red draws for the turn."
    closed = client_for(gm).post(f"/api/v1/campaigns/{campaign_id}/game/close/",
                                 {"reason": "Blue is away"}, format="json")
    assert closed.status_code == 200
    battle = Battle.objects.get(campaign_id=campaign_id)
    assert battle.entries.order_by("number").last().proxy is True
    assert closed.json()["waiting_for"] == "Turn 1: Red holds the activation"


def test_bad_bodies_are_refused_with_their_field():
    gm = UserFactory()
    client = client_for(gm)
    answer = client.post("/api/v1/battles/", {"system": "chess"}, format="json")
    assert (answer.status_code, answer.json()["field"]) == (400, "system")
    answer = client.post("/api/v1/battles/", {"system": "quad", "scenario": {
        "map": {"cols": 3, "rows": 3}, "sides": [{"name": "a"}]}}, format="json")
    assert answer.json() == {"code": "two_sides", "field": "scenario.sides",
                             "detail": "A battle by forum has exactly two sides "
                             "(scenario.sides)."}
    answer = client.post("/api/v1/battles/join/", {"invite_code": "nope", "side": "Red"},
                         format="json")
    assert (answer.status_code, answer.json()["code"]) == (403, "invalid_invite")


def test_erfworld_orders_through_the_game_api():
    campaign, gm, (chief, player) = started_campaign_factory(players=2)
    client = client_for(player.user)
    game = client.get(f"/api/v1/campaigns/{campaign.pk}/game/").json()
    assert (game["game"], game["orders_allowed"], game["phase"]["kind"]) == (
        "erfworld", ["scout", "done"], "scout")
    assert game["acting"] == [campaign.sides.get(kind="alliance").name]
    assert game["view"]["map"]["cols"] > 0
    scout = Unit.objects.get(owner=player, name="Scout 1")
    answer = client.post(f"/api/v1/campaigns/{campaign.pk}/game/orders/", {"orders": [
        {"kind": "scout", "scout": scout.pk, "directions": ["S", "S"]}, {"kind": "done"}]},
        format="json")
    assert answer.status_code == 200
    order = ScoutOrder.objects.get(scout=scout)
    assert order.directions == ["S", "S"]
    phase = Phase.objects.get(campaign=campaign, status="open")
    assert phase.player_statuses.get(membership=player).done_at is not None
    refused = client.post(f"/api/v1/campaigns/{campaign.pk}/game/orders/", {"orders": [
        {"kind": "move", "stack": 1, "path": ["A2"]}]}, format="json")
    assert refused.json() == {"code": "not_now", "field": "orders[0].kind",
                              "detail": "You may give scout, done now, not 'move'."}
    missing = client.post(f"/api/v1/campaigns/{campaign.pk}/game/orders/", {"orders": [
        {"kind": "scout", "directions": ["S"]}]}, format="json")
    assert missing.json() == {"code": "invalid_input", "field": "orders[0].scout",
                              "detail": "The order needs its 'scout'."}
