"""When the campaign ends the fog lifts: every member sees both sides' whole history, every
die's purpose, the after-action report, and the side threads each side chooses to open."""

import pytest
from rest_framework.test import APIClient

from campaigns.errors import NotAllowedError, RuleViolationError, WrongStateError
from campaigns.models import Event, EventKind, Phase, Post, Side, Stack, Unit
from campaigns.selectors import map_state, phase_history
from campaigns.selectors.after_action import after_action
from campaigns.selectors.dice import phase_dice_verification
from campaigns.selectors.forum import can_read
from campaigns.selectors.reports import reports_for
from campaigns.services.forum import post_create, side_threads_open
from tests.forum.conftest import finish as _finish
from tests.forum.conftest import thread_of

pytestmark = [pytest.mark.django_db]


def _hidden_hexes(state):
    return sorted({s["hex"] for s in state["stacks"] if s["side"] == "opposition"})


def test_before_the_end_the_fog_holds(fought, client_as):
    campaign, gm, (p1, _) = fought
    assert "J10" not in _hidden_hexes(map_state(user=p1.user, campaign=campaign))
    assert client_as(p1.user).get(f"/campaigns/{campaign.pk}/after-action/").status_code == 404
    api = APIClient()
    api.force_authenticate(p1.user)
    assert api.get(f"/api/v1/campaigns/{campaign.pk}/after-action/").status_code == 404
    with pytest.raises(WrongStateError):
        side_threads_open(user=p1.user, campaign=campaign, side="alliance")


def test_after_the_end_every_member_sees_both_sides_and_every_dies_purpose(fought):
    campaign, gm, (p1, p2) = fought
    first = Phase.objects.filter(campaign=campaign).order_by("opened_at").first()
    _finish(campaign, gm)
    everything = sorted({s.hex for s in Stack.objects.filter(campaign=campaign,
                                                             side__kind="opposition")})
    assert _hidden_hexes(map_state(user=p2.user, campaign=campaign)) == everything
    opening = phase_history(user=p2.user, phase=first)
    assert _hidden_hexes(opening) == sorted({
        s["hex"] for s in first.snapshot.state["stacks"] if s["side"] == "opposition"})
    dice = phase_dice_verification(user=p2.user, campaign=campaign, phase=first)
    assert [r for r in dice["rolls"] if r["purpose"] == "hidden"] == []
    # Events of the opposition's side are every member's now.
    seen = {e["id"] for e in reports_for(user=p2.user, campaign=campaign)}
    assert seen == set(Event.objects.filter(
        campaign=campaign, kind__in=["combat", "ambush", "siege", "scout_report"])
        .values_list("pk", flat=True))


def test_the_after_action_report(fought, client_as):
    campaign, gm, (p1, p2) = fought
    _finish(campaign, gm)
    report = after_action(user=p2.user, campaign=campaign)
    combat = Event.objects.get(campaign=campaign, kind=EventKind.COMBAT)
    lost = {c["name"] for c in combat.payload["casualties"] if c["croaked"]}
    by_kind = {s["kind"]: s for s in report["sides"]}
    opposition_units = Unit.objects.filter(campaign=campaign, side__kind="opposition")
    assert (report["winner"], by_kind["opposition"]["units"], by_kind["opposition"]["left"],
            set(by_kind["opposition"]["lost"]) | set(by_kind["alliance"]["lost"]),
            dict(by_kind["alliance"]["counts"])["attacks"],
            dict(by_kind["alliance"]["counts"])["scout reports"]) == (
        "alliance", opposition_units.count(),
        opposition_units.filter(current_hits__gt=0).count(), lost, 1, 1)
    alliance_turn1 = next(h for h in report["hidden"] if h["side"] == "The Alliance")
    # The fight both sides saw is no secret; the scouting was the alliance's own.
    assert (alliance_turn1["turn"], "combat" in alliance_turn1["what"],
            "1 × scout report" in alliance_turn1["what"]) == (1, False, True)
    page = client_as(p2.user).get(f"/campaigns/{campaign.pk}/after-action/").content.decode()
    assert "The fog lifts: after-action report" in page
    finished = Event.objects.get(campaign=campaign, kind=EventKind.CAMPAIGN_FINISHED)
    post = Post.objects.get(event=finished)
    assert (f"[The fog lifts: after-action report](/campaigns/{campaign.pk}/after-action/)"
            in post.body)


def test_each_side_opens_its_threads_and_they_stay_read_only_for_the_others(fought,
                                                                          client_as):
    campaign, gm, (chief, p2) = fought
    _finish(campaign, gm)
    opposition = thread_of(campaign, "side", "opposition")
    alliance = thread_of(campaign, "side", "alliance")
    assert can_read(p2, opposition) is False
    for user, side in ((p2.user, "alliance"), (gm, "alliance"), (chief.user, "opposition")):
        with pytest.raises(NotAllowedError) as caught:
            side_threads_open(user=user, campaign=campaign, side=side)
        assert caught.value.code == "not_side_leader"
    side_threads_open(user=gm, campaign=campaign, side="opposition")
    opposition = thread_of(campaign, "side", "opposition")
    assert (can_read(p2, opposition), can_read(chief, alliance)) == (True, True)
    with pytest.raises(RuleViolationError) as caught:
        post_create(user=p2.user, thread=opposition, body="Ha!")
    assert caught.value.code == "read_only"
    page = client_as(p2.user).get(
        f"/campaigns/{campaign.pk}/forum/threads/{opposition.pk}/").content.decode()
    assert "The garrison at J10 holds." in page
    response = client_as(chief.user).post(f"/campaigns/{campaign.pk}/after-action/open-threads/",
                                          {"side": "alliance"})
    assert (response.status_code,
            Side.objects.get(campaign=campaign, kind="alliance").threads_opened_at
            is not None) == (302, True)
    note = Post.objects.filter(thread=thread_of(campaign, "public"), author=None).last()
    assert note.body == "The Alliance opened its side threads: every member may read them now."
