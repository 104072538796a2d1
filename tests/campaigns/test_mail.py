"""Notification mails: a text and an HTML part, the time in the reader's zone, a button to the
exact page, and a one-click unsubscribe (RFC 8058) that stops that kind of mail only."""

import pytest
from django.core import mail
from django.test import Client

from accounts.timefmt import format_local
from campaigns.mail import unsubscribe_token
from campaigns.models import Notification
from campaigns.notifications import notifications_send_email
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db


def a_notification(user, campaign, kind="reminder", message="Turn 1: 2 hours left."):
    return Notification.objects.create(user=user, campaign=campaign, kind=kind, message=message)


def test_a_mail_has_both_parts_the_readers_time_and_a_button_to_the_page():
    campaign, _, (p1,) = started_campaign_factory(players=1)
    p1.user.time_zone = "Asia/Tokyo"
    p1.user.save(update_fields=["time_zone"])
    note = a_notification(p1.user, campaign)
    mail.outbox.clear()
    assert notifications_send_email(notification_ids=[note.pk]) == 1
    [sent] = mail.outbox
    html, kind = sent.alternatives[0]
    token = unsubscribe_token(p1.user, "reminder")
    unsubscribe = f"http://localhost:8000/mail/unsubscribe/{token}/"
    map_url = f"http://localhost:8000/campaigns/{campaign.pk}/map/"
    when = format_local(note.created_at, "Asia/Tokyo")
    assert (sent.subject, kind, sent.extra_headers) == (
        f"[{campaign.name}] Deadline reminder", "text/html",
        {"List-Unsubscribe": f"<{unsubscribe}>",
         "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
    assert sent.body == (
        f"Turn 1: 2 hours left.\n\n{campaign.name} · Deadline reminder · {when}\n\n"
        f"Open the map: {map_url}\n\n--\nYou get this mail because \"Deadline reminder\" mails "
        f"are on for {p1.user.public_name}.\nStop these mails (one click): {unsubscribe}\n"
        "All your mail settings: http://localhost:8000/accounts/profile/\n")
    assert (f'<a href="{map_url}"' in html, ">Open the map</a>" in html, when in html,
            f'<a href="{unsubscribe}">Stop these mails</a>' in html) == (True, True, True, True)


def test_one_click_unsubscribe_stops_that_kind_only():
    campaign, _, (p1,) = started_campaign_factory(players=1)
    token = unsubscribe_token(p1.user, "reminder")
    client = Client(enforce_csrf_checks=True)
    asked = client.get(f"/mail/unsubscribe/{token}/").content.decode()
    # The mail client's one-click POST (RFC 8058): no session, no CSRF token, the link is enough.
    done = client.post(f"/mail/unsubscribe/{token}/",
                       {"List-Unsubscribe": "One-Click"}).content.decode()
    p1.user.refresh_from_db()
    assert ("Stop the “Deadline reminder” mails" in asked,
            "gets no more “Deadline reminder” mails" in done,
            p1.user.wants_email("reminder"), p1.user.wants_email("combat")) == (
        True, True, False, True)
    mail.outbox.clear()
    reminder = a_notification(p1.user, campaign)
    combat = a_notification(p1.user, campaign, kind="combat", message="Your stack fought.")
    assert (notifications_send_email(notification_ids=[reminder.pk, combat.pk]),
            [m.subject for m in mail.outbox]) == (1, [f"[{campaign.name}] Combat involving your units"])


@pytest.mark.parametrize("token", ["nonsense", "eyJ1IjoxLCJrIjoicmVtaW5kZXIifQ:forged:sig"])
def test_a_bad_unsubscribe_link_is_404_and_changes_nothing(client, token):
    _, _, (p1,) = started_campaign_factory(players=1)
    before = dict(p1.user.email_notifications)
    assert client.post(f"/mail/unsubscribe/{token}/").status_code == 404
    p1.user.refresh_from_db()
    assert p1.user.email_notifications == before
