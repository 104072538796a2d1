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


def test_a_digest_user_gets_one_mail_a_day_with_everything_they_want():
    from campaigns.notifications import send_email_digests, stranded_notification_ids

    campaign, _, (p1,) = started_campaign_factory(players=1)
    user = p1.user
    user.email_digest = True
    user.email_notifications = {"combat": False}
    user.save(update_fields=["email_digest", "email_notifications"])
    # What the campaign's setup told the player was mailed already.
    Notification.objects.filter(user=user).update(email_skipped=True)
    mail.outbox.clear()
    first = a_notification(user, campaign, message="Turn 1: 24 hours left.")
    second = a_notification(user, campaign, kind="phase_opened", message="Turn 2 opened.")
    unwanted = a_notification(user, campaign, kind="combat", message="Your stack fought.")
    ids = [first.pk, second.pk, unwanted.pk]
    # Nothing goes out one by one, and the sweep does not take them for stranded mails.
    stranded = stranded_notification_ids(older_than_seconds=-60)
    assert (notifications_send_email(notification_ids=ids), len(mail.outbox),
            [i for i in ids if i in stranded]) == (0, 0, [])
    assert (send_email_digests(), send_email_digests()) == (1, 0)
    [digest] = mail.outbox
    assert (digest.subject, digest.to, "Turn 1: 24 hours left." in digest.body,
            "Turn 2 opened." in digest.body, "Your stack fought." in digest.body,
            f"http://localhost:8000/campaigns/{campaign.pk}/map/" in digest.alternatives[0][0]) == (
        "Warcamp: 2 notifications today", [user.email], True, True, False, True)
    assert sorted(Notification.objects.filter(pk__in=ids).values_list(
        "email_skipped", flat=True)) == [False, False, True]


def test_a_mention_leads_to_the_post_itself():
    from campaigns.models import Thread
    from campaigns.selectors.notifications import notification_centre
    from campaigns.services.forum import post_create, threads_ensure

    campaign, gm, (p1,) = started_campaign_factory(players=1)
    threads_ensure(campaign=campaign)
    thread = Thread.objects.get(campaign=campaign, audience="public")
    post = post_create(user=gm, thread=thread, body=f"Well played @{p1.user.username}.")
    [row] = [r for r in notification_centre(user=p1.user)["rows"] if r["kind"] == "Mention"]
    assert (row["href"], row["link_label"]) == (
        f"/campaigns/{campaign.pk}/forum/threads/{thread.pk}/?post={post.pk}#post-{post.pk}",
        "Open the post")
