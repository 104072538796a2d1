"""The alliance's draw through the API and the pages: a declared attack, the GM's list, the
draw, the verifier re-deriving the mixed rolls, and the phase bar's controls."""

import pytest
from django.urls import reverse

from campaigns.models import Declaration, DiceRoll, Event, Phase
from rules.dice import derive, mix_draw
from tests.campaigns.engine_setup import SEED, open_phase
from tests.campaigns.test_alliance_draw import opposition_phase

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

DRAW = "a3f09c1e the river runs north"


def api(name, campaign, **kwargs):
    return reverse(f"api:{name}", kwargs={"campaign_id": campaign.pk, **kwargs})


def test_the_api_declares_lists_draws_and_verifies(client_for):
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    gm_api, player_api = client_for(gm), client_for(p1.user)
    answer = gm_api.post(api("stack-attack", campaign, stack_id=theirs.pk),
                         {"target": mine.pk}, format="json")
    body = answer.json()
    assert (answer.status_code, body["declared"], body["report"]["seq"],
            body["report"]["kind"]) == (200, True, 1, "attack")
    (declared,) = Declaration.objects.filter(phase=open_phase(campaign))
    listed = gm_api.get(api("declarations", campaign))
    assert (listed.status_code, listed.json()) == (200, {
        "phase": open_phase(campaign).pk, "alliance_draw": True, "awaiting_draw": False,
        "declarations": [{"id": declared.pk, "seq": 1, "kind": "attack", "status": "pending",
                          "stack": theirs.pk, "target": mine.pk, "fortification": None,
                          "text": "The stack in D4 attacks the stack in D3.",
                          "void_reason": ""}]})
    refused = player_api.get(api("declarations", campaign))
    assert (refused.status_code, refused.json()["code"]) == (403, "gm_only")
    phase = open_phase(campaign)
    ended = gm_api.post(api("gm-end-phase", campaign),
                        {"expected_phase": phase.pk, "reason": ""}, format="json")
    assert (ended.status_code, ended.json()["id"], ended.json()["awaiting_draw"]) == (
        200, phase.pk, True)
    assert player_api.get(api("map", campaign)).json()["phase"]["awaiting_draw"] is True
    too_long = player_api.post(api("phase-draw", campaign),
                               {"expected_phase": phase.pk, "draw": "x" * 201}, format="json")
    assert (too_long.status_code, too_long.json()["field"]) == (400, "draw")
    drawn = player_api.post(api("phase-draw", campaign),
                            {"expected_phase": phase.pk, "draw": DRAW}, format="json")
    assert (drawn.status_code, drawn.json()["kind"], drawn.json()["turn"]) == (200, "scout", 2)
    again = player_api.post(api("phase-draw", campaign),
                            {"expected_phase": phase.pk, "draw": DRAW}, format="json")
    assert (again.status_code, again.json()["code"]) == (400, "no_draw_waiting")
    dice = player_api.get(api("phase-dice", campaign, phase_id=phase.pk)).json()
    phase.refresh_from_db()
    rolls = DiceRoll.objects.filter(phase=phase).order_by("number")
    assert dice["all_match"] is True and len(dice["rolls"]) == rolls.count() > 0
    assert {k: v for k, v in dice["draw"].items() if k not in ("asked_at", "drawn_at")} == {
        "text": DRAW, "by": p1.user.public_name, "by_server": False, "first_roll": 1,
        "mixed_seed": mix_draw(SEED, DRAW)}
    assert [r["expected"] for r in dice["rolls"]] == [
        derive(mix_draw(SEED, DRAW), r.number, r.purpose, r.sides) for r in rolls]
    # A forged record would show: a roll not derived from the mixed seed fails the check.
    first = rolls[0]
    DiceRoll.objects.filter(pk=first.pk).update(value=first.value % first.sides + 1)
    forged = player_api.get(api("phase-dice", campaign, phase_id=phase.pk)).json()
    assert (forged["all_match"], forged["rolls"][0]["matches"]) == (False, False)


def test_the_withdraw_route_takes_back_a_declaration(client_for):
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    client_for(gm).post(api("stack-attack", campaign, stack_id=theirs.pk),
                        {"target": mine.pk}, format="json")
    declared = Declaration.objects.get(phase=open_phase(campaign))
    url = api("declaration-withdraw", campaign, declaration_id=declared.pk)
    refused = client_for(p1.user).post(url)
    assert (refused.status_code, refused.json()["code"]) == (403, "gm_only")
    assert client_for(gm).post(url).status_code == 204
    assert not Declaration.objects.filter(pk=declared.pk).exists()
    assert Event.objects.get(kind="declaration_withdrawn").side.kind == "opposition"


def test_the_phase_bar_offers_the_draw_to_the_alliance_and_the_list_to_the_gm(client):
    campaign, gm, (p1,), mine, theirs = opposition_phase()
    from campaigns.games.erfworld.move_combat import stack_attack

    stack_attack(user=gm, campaign=campaign, stack=theirs, target=mine)
    bar = reverse("campaigns:phase-bar", args=[campaign.pk])
    client.force_login(gm)
    page = client.get(bar).content.decode()
    assert "Declared for the alliance's draw (1)" in page
    assert "The stack in D4 attacks the stack in D3." in page and "Withdraw" in page
    client.force_login(p1.user)
    page = client.get(bar).content.decode()
    assert "D4 attacks" not in page and "data-random-draw" not in page
    phase = open_phase(campaign)
    client.force_login(gm)
    client.post(reverse("campaigns:phase-end", args=[campaign.pk]), {"phase": phase.pk})
    page = client.get(bar).content.decode()
    assert "data-random-draw" not in page and "Withdraw" not in page
    client.force_login(p1.user)
    page = client.get(bar).content.decode()
    assert "data-random-draw" in page and "1 combat declared" in page
    answer = client.post(reverse("campaigns:phase-draw", args=[campaign.pk]),
                         {"phase": phase.pk, "draw": DRAW}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    assert "You drew: the opposition&#x27;s combats are resolved" in answer.content.decode()
    assert Phase.objects.get(pk=phase.pk).alliance_draw == DRAW
    dice_page = client.get(reverse("campaigns:dice", args=[campaign.pk, phase.pk]))
    text = dice_page.content.decode()
    assert f"drawn by {p1.user.public_name}" in text and mix_draw(SEED, DRAW) in text
