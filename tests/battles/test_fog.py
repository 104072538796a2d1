"""Fog in a QUAD battle: a player never learns the cards in another side's hand or the order
of any draw pile, through any GET route of the API, the battle page, the forum, the
notifications or the dice pages: not in the state, not in the log's sentences ("Red draws a
card"), not in the dice that shuffled the decks (the campaign's setup dice, revealed when the
battle ends). The GM sees everything; once the battle is over, so does everyone."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from campaigns.games.battle import services
from campaigns.models import Battle, DiceRoll, Membership, Phase, Thread
from campaigns.services.forum import threads_ensure
from tests.api.test_fog_audit import GET_ROUTES, Audit
from tests.battles.conftest import make_table

pytestmark = pytest.mark.django_db


def _cards(state: dict, side: str, pile: str) -> list[dict]:
    return next(p for p in state["cards"]["players"] if p["player"] == side)[pile]


def _leaks(text: str, cards: list[dict], side: str) -> list[str]:
    found = []
    for card in cards:
        if card["kind"] != "unit":
            continue
        unit, copy = card["unit"], card["copy"]
        for pattern in (rf'"unit":\s*"{unit}",\s*"copy":\s*{copy}\b', rf"{unit} {copy}/3",
                        rf"{unit} \({copy}/3\)"):
            if re.search(pattern, text):
                found.append(pattern)
    if re.search(rf"{side} draws {side.lower()}-", text):
        found.append("draws")
    if f"shuffle {side}" in text:
        found.append("shuffle")
    return found


def _everything(user, campaign, gm) -> dict[str, str]:
    """Every GET route of the API, the battle and forum pages, the notifications."""
    from django.test import Client

    api = APIClient()
    api.force_authenticate(user)
    membership = Membership.objects.get(campaign=campaign, user=user)
    audit = Audit(campaign=campaign, gm=gm, player=membership)
    texts = {}
    for urls in GET_ROUTES.values():
        for url in urls(audit):
            response = api.get(url)
            assert response.status_code in (200, 403, 404), (url, response.status_code)
            texts[url] = response.content.decode()
    web = Client()
    web.force_login(user)
    threads_ensure(campaign=campaign)
    pages = [f"/campaigns/{campaign.pk}/battle/", f"/campaigns/{campaign.pk}/forum/",
             "/notifications/", "/"]
    pages += [f"/campaigns/{campaign.pk}/forum/{t.pk}/" for t in Thread.objects.filter(
        campaign=campaign)]
    pages += [f"/campaigns/{campaign.pk}/dice/{p.pk}/" for p in Phase.objects.filter(
        campaign=campaign)]
    for url in pages:
        response = web.get(url)
        assert response.status_code in (200, 404), (url, response.status_code)
        texts[url] = response.content.decode()
    return texts


def test_no_route_shows_another_sides_hand_or_a_draw_piles_order(fixed_seeds):
    table = make_table("quad")
    campaign = table.campaign
    red, blue = table.players["Red"], table.players["Blue"]
    services.battle_orders(user=red, campaign=campaign, orders=[{"kind": "draw", "take": True}])
    services.battle_orders(user=blue, campaign=campaign, orders=[{"kind": "draw", "take": True}])
    acting = Battle.objects.get(campaign=campaign).window["acting"][0]
    services.battle_orders(user=table.players[acting], campaign=campaign,
                           orders=[{"kind": "release"}])  # no card played: draws two
    state = Battle.objects.get(campaign=campaign).state
    # The decks were shuffled with the setup dice: n - 1 rolls for n cards (Red 11, Blue 10).
    assert DiceRoll.objects.filter(campaign=campaign, phase=None,
                                   purpose__startswith="shuffle ").count() == 10 + 9
    for viewer, other in ((blue, "Red"), (red, "Blue")):
        hidden = _cards(state, other, "hand") + _cards(state, other, "draw_pile")
        texts = _everything(viewer, campaign, table.gm)
        assert {url: _leaks(text, hidden, other) for url, text in texts.items()} == {
            url: [] for url in texts}
        # The audit would see a leak: the viewer's own hand is there, in the game's answer.
        own = _cards(state, "Blue" if other == "Red" else "Red", "hand")
        mine = "Blue" if other == "Red" else "Red"
        assert _leaks(texts[f"/api/v1/campaigns/{campaign.pk}/game/"], own, mine) != []
    gm_text = _everything(table.gm, campaign, table.gm)[f"/campaigns/{campaign.pk}/battle/"]
    assert _leaks(gm_text, _cards(state, "Red", "hand"), "Red") != []


def test_the_fog_lifts_when_the_battle_ends(fixed_seeds):
    table = make_table("quad", settings={"max_turns": 1})
    campaign = table.campaign
    from tests.battles.test_services import _play_to_the_end

    battle = _play_to_the_end(table)
    state = battle.state
    api = APIClient()
    api.force_authenticate(table.players["Blue"])
    answer = api.get(f"/api/v1/campaigns/{campaign.pk}/game/").json()
    assert answer["view"]["state"] == state
    assert answer["view"]["viewer"]["sees_all"] is True
    setup = api.get(f"/api/v1/campaigns/{campaign.pk}/setup-dice/").json()
    assert setup["revealed"] is True and setup["all_match"] is True
    assert any(r["purpose"].startswith("shuffle Red") for r in setup["rolls"])
