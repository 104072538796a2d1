"""Calendar feeds, read back with the `icalendar` library: the private feed lists every open
phase's deadline of the user's campaigns with a stable UID, follows an extension (same UID,
higher SEQUENCE) and a pause (tentative, the time left), stays right across a change to
daylight-saving time, and dies with its token (an unknown and a revoked token look the same)."""

import zoneinfo
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar

from calendars.models import CalendarToken
from calendars.services import calendar_token_create, calendar_token_revoke
from campaigns.models import Phase, PhaseStatus
from campaigns.services.deadlines import campaign_pause, campaign_resume, deadline_extend
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def events(client, url):
    response = client.get(url)
    assert (response.status_code, response["Content-Type"]) == (200,
                                                                "text/calendar; charset=utf-8")
    return list(Calendar.from_ical(response.content).walk("VEVENT"))


def feed_of(user):
    return f"/calendar/{calendar_token_create(user=user)}.ics"


def test_the_private_feed_lists_each_open_phase_deadline(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    other, _, _ = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    [event] = events(client, feed_of(p1.user))
    assert (str(event["uid"]), event.decoded("dtstart"), str(event["summary"]),
            int(event["sequence"]), str(event["status"]), str(event["url"])) == (
        f"phase-{phase.pk}@localhost", phase.deadline_at.replace(microsecond=0),
        f"{campaign.name}: turn 1, Alliance scout phase deadline", phase.version, "CONFIRMED",
        f"http://localhost:8000/campaigns/{campaign.pk}/")
    # The other campaign's open phase is not in p1's feed (one event only, above).
    assert Phase.objects.filter(campaign=other, status=PhaseStatus.OPEN).count() == 1


def test_an_extension_moves_the_same_event(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    url = feed_of(p1.user)
    [before] = events(client, url)
    deadline_extend(user=gm, campaign=campaign, hours=24, reason="a holiday")
    [after] = events(client, url)
    assert (str(after["uid"]) == str(before["uid"]),
            after.decoded("dtstart") - before.decoded("dtstart"),
            int(after["sequence"]) > int(before["sequence"])) == (True, timedelta(hours=24), True)


def test_a_pause_makes_the_deadline_tentative_with_the_time_left(client, monkeypatch):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    now = phase.deadline_at - timedelta(hours=10)
    monkeypatch.setattr(timezone, "now", lambda: now)
    campaign_pause(user=gm, campaign=campaign, reason="a holiday")
    url = feed_of(p1.user)
    [paused] = events(client, url)
    assert (str(paused["status"]), str(paused["summary"]).startswith("Paused: "),
            paused.decoded("dtstart"), "with 10 h 00 min left" in str(paused["description"])) == (
        "TENTATIVE", True, (now + timedelta(hours=10)).replace(microsecond=0), True)
    later = now + timedelta(days=2)
    monkeypatch.setattr(timezone, "now", lambda: later)
    campaign.refresh_from_db()
    campaign_resume(user=gm, campaign=campaign, reason="back")
    [resumed] = events(client, url)
    assert (str(resumed["status"]), resumed.decoded("dtstart")) == (
        "CONFIRMED", (later + timedelta(hours=10)).replace(microsecond=0))


def test_a_deadline_across_a_change_to_summer_time_is_the_same_instant(client):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    # 72 hours after 01:00 on 27 March 2027 in Berlin, across the clocks going forward.
    deadline = datetime(2027, 3, 30, 0, 0, tzinfo=UTC)
    Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).update(deadline_at=deadline)
    [event] = events(client, feed_of(p1.user))
    start = event.decoded("dtstart")
    assert (start, start.astimezone(berlin).hour, event["dtstart"].to_ical()) == (
        deadline, 2, b"20270330T000000Z")


def test_a_revoked_or_unknown_token_is_404_alike(client):
    _, _, (p1,) = started_campaign_factory(players=1)
    url = feed_of(p1.user)
    calendar_token_revoke(user=p1.user)
    gone, unknown = client.get(url), client.get("/calendar/not-a-token.ics")
    assert (gone.status_code, unknown.status_code, gone.content == unknown.content) == (
        404, 404, True)


def test_tokens_are_stored_hashed_and_a_new_one_replaces_the_old(client):
    _, _, (p1,) = started_campaign_factory(players=1)
    first = calendar_token_create(user=p1.user)
    second = calendar_token_create(user=p1.user)
    digests = set(CalendarToken.objects.values_list("digest", flat=True))
    assert (first in digests, second in digests, len(digests),
            client.get(f"/calendar/{first}.ics").status_code,
            client.get(f"/calendar/{second}.ics").status_code) == (False, False, 2, 404, 200)


def test_the_profile_makes_and_removes_the_link(client):
    _, _, (p1,) = started_campaign_factory(players=1)
    client.force_login(p1.user)
    page = client.post(reverse("calendar-token-create"), follow=True).content.decode()
    start = page.index('id="new-calendar-url" type="text" readonly value="') + 50
    url = page[start:page.index('"', start)]
    assert (url.startswith("http://testserver/calendar/"), client.get(url).status_code) == (
        True, 200)
    again = client.get(reverse("profile")).content.decode()
    assert url not in again
    client.post(reverse("calendar-token-revoke"))
    assert client.get(url).status_code == 404


def test_a_campaigns_public_feed_needs_no_login(client):
    campaign, _, _ = started_campaign_factory(players=1)
    [event] = events(client, reverse("campaign-calendar", args=[campaign.pk]))
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    assert event.decoded("dtstart") == phase.deadline_at.replace(microsecond=0)
