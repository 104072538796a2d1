"""The engine writes its times into stored text in UTC ("open until 2026-11-28 22:09 UTC");
every reader gets them in their own zone, with the offset: pages, engine posts, exports and
mails alike."""


import pytest
from django.core import mail
from django.urls import reverse

from accounts.timefmt import format_local, zoned_text
from campaigns.games.erfworld import phase_end
from campaigns.models import Event, EventKind, Notification, Post
from campaigns.notifications import notifications_send_email
from tests.factories import started_campaign_factory


def test_each_engine_time_in_the_text_is_given_in_the_zone():
    text = ("Extended to 2026-07-01 12:00 UTC (was 2026-11-28 22:09 UTC). UTC stays UTC; "
            "so does 2026-11-28 22:09 without its zone.")
    assert zoned_text(text, "Europe/Berlin") == (
        "Extended to Wed 1 Jul 2026, 14:00 CEST (UTC+02:00) (was Sat 28 Nov 2026, 23:09 CET "
        "(UTC+01:00)). UTC stays UTC; so does 2026-11-28 22:09 without its zone.")
    assert zoned_text("until 2026-11-28 22:09 UTC.", "UTC") == (
        "until Sat 28 Nov 2026, 22:09 UTC (UTC+00:00).")


@pytest.fixture
def berlin_phase(db):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    p1.user.time_zone = "Europe/Berlin"
    p1.user.save(update_fields=["time_zone"])
    phase_end(user=gm, campaign=campaign)  # the move/combat phase opens, its deadline in UTC
    event = Event.objects.filter(campaign=campaign, kind=EventKind.PHASE_OPENED).latest("created_at")
    deadline = event.phase.deadline_at.replace(second=0, microsecond=0)
    return campaign, p1, event, f"{deadline:%Y-%m-%d %H:%M} UTC", format_local(
        deadline, "Europe/Berlin")


def test_pages_give_the_engines_times_in_the_readers_zone(client, berlin_phase):
    campaign, p1, event, utc, berlin = berlin_phase
    client.force_login(p1.user)
    pages = {
        "notifications": client.get(reverse("notifications")),
        "home": client.get(reverse("home")),
        "forum": client.get(reverse("campaigns:forum-thread", args=[
            campaign.pk, Post.objects.filter(event=event).first().thread_id])),
    }
    assert {name: (page.status_code, berlin in page.content.decode(),
                   utc in page.content.decode()) for name, page in pages.items()} == dict.fromkeys(pages, (200, True, False))


def test_an_export_gives_the_exporters_zone(client, berlin_phase):
    campaign, p1, event, utc, berlin = berlin_phase
    client.force_login(p1.user)
    text = client.get(reverse("campaigns:export-report", args=[campaign.pk, event.pk]),
                      {"format": "markdown"}).content.decode()
    assert (berlin in text, utc in text) == (True, False)


def test_a_mail_gives_the_readers_zone(berlin_phase):
    campaign, p1, event, utc, berlin = berlin_phase
    note = Notification.objects.get(user=p1.user, event=event)
    mail.outbox.clear()
    assert notifications_send_email(notification_ids=[note.pk]) == 1
    [sent] = mail.outbox
    html = sent.alternatives[0][0]
    assert (berlin in sent.body, utc in sent.body, berlin in html, utc in html) == (
        True, False, True, False)
