"""The GM ledger: every member reads the GM's overrules with their reasons, each pause with
how long it lasted, and nothing about another side's hidden units."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.games.erfworld.gm_tools import unit_adjust_hits
from campaigns.models import Event, EventKind, Unit
from campaigns.selectors.reports import gm_ledger
from campaigns.services.deadlines import campaign_pause, campaign_resume, deadline_extend
from campaigns.templatetags.campaign_time import duration_text, span_text
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def test_span_text_reads_like_the_countdown():
    assert [span_text(s) for s in (0, 59, 3600, 90061, -5)] == [
        "0 min", "0 min", "1 h 0 min", "1 d 1 h 1 min", "0 min"]
    assert duration_text(timedelta(hours=26, minutes=5)) == "1 d 2 h 5 min"


def test_pauses_extensions_and_hit_changes_with_reasons_and_durations(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    deadline_extend(user=gm, campaign=campaign, hours=12, reason="A player is ill.")
    campaign_pause(user=gm, campaign=campaign, reason="Holiday week.")
    campaign_resume(user=gm, campaign=campaign, reason="Back.")
    resumed = Event.objects.get(kind=EventKind.CAMPAIGN_RESUMED)
    # The pause lasted 50 hours: the resume is dated then (later events follow it).
    Event.objects.filter(pk=resumed.pk).update(created_at=resumed.created_at
                                               + timedelta(hours=50))
    hidden = Unit.objects.filter(campaign=campaign, side__kind="opposition").first()
    unit_adjust_hits(user=gm, unit=hidden, hits=1, reason="Typo.")
    own = Unit.objects.filter(owner=p1).first()
    unit_adjust_hits(user=gm, unit=own, hits=1, reason="Plague.")
    mine = gm_ledger(user=p1.user, campaign=campaign)
    gms = gm_ledger(user=gm, campaign=campaign)
    client.force_login(p1.user)
    page = client.get(f"/campaigns/{campaign.pk}/ledger/").content.decode()
    assert ([(r["kind"], r["reason"]) for r in mine["rows"]],
            [r["duration"] for r in mine["rows"] if r["kind"] == "campaign_paused"],
            len(gms["rows"]), mine["paused_now"], hidden.name in page,
            "<td>Holiday week.</td>" in page, "<td>2 d 2 h 0 min</td>" in page) == (
        [("hits_adjusted", "Plague."), ("campaign_resumed", "Back."),
         ("campaign_paused", "Holiday week."), ("deadline_extended", "A player is ill."),
         ("chief_warlord_appointed", "")],
        [mine["rows"][2]["duration"]], 6, False, False, True, True)
    assert timedelta(hours=49, minutes=59) < mine["rows"][2]["duration"] < timedelta(hours=50,
                                                                                      minutes=1)


def test_a_pause_under_way_counts_until_now():
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    campaign_pause(user=gm, campaign=campaign, reason="Wait.")
    Event.objects.filter(kind=EventKind.CAMPAIGN_PAUSED).update(
        created_at=timezone.now() - timedelta(hours=3))
    ledger = gm_ledger(user=p1.user, campaign=campaign)
    pause = next(r for r in ledger["rows"] if r["kind"] == "campaign_paused")
    assert (ledger["paused_now"], pause["duration"],
            timedelta(hours=3) <= ledger["paused_total"] < timedelta(hours=3, minutes=1)) == (
        True, None, True)
