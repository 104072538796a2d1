"""The notification centre: the bell's unread count, the list with its links and filters, and
marking one or all read (the pages of POST /api/v1/notifications/mark-read/)."""

import pytest
from django.urls import reverse

from accounts.models import NotificationKind
from campaigns.models import Event, EventKind, Notification
from tests.factories import UserFactory, started_campaign_factory

pytestmark = pytest.mark.django_db


def _note(user, campaign, message, kind=NotificationKind.GENERAL, event=None):
    return Notification.objects.create(user=user, campaign=campaign, message=message,
                                       kind=kind, event=event)


def test_the_notification_centre_needs_a_login(client):
    response = client.get(reverse("notifications"))
    assert (response.status_code, response["Location"]) == (
        302, f"{reverse('account_login')}?next={reverse('notifications')}")


def test_the_bell_shows_the_unread_count_on_every_page(client):
    campaign, _, (player,) = started_campaign_factory(players=1)
    before = Notification.objects.filter(user=player.user, read_at__isnull=True).count()
    _note(player.user, campaign, "One")
    _note(player.user, campaign, "Two")
    client.force_login(player.user)
    page = client.get(reverse("home")).content.decode()
    assert (f'<span class="bell-count" data-unread="{before + 2}">{before + 2}</span>'
            in page)


def test_the_list_links_each_notification_where_it_leads(client):
    campaign, _, (player,) = started_campaign_factory(players=1)
    Notification.objects.filter(user=player.user).delete()
    combat = Event.objects.create(campaign=campaign, kind=EventKind.COMBAT, summary="A fight")
    _note(player.user, campaign, "A fight", NotificationKind.COMBAT, combat)
    _note(player.user, campaign, "Your turn", NotificationKind.PHASE_OPENED)
    _note(player.user, campaign, "You were mentioned", NotificationKind.MENTION)
    _note(player.user, campaign, "News")
    client.force_login(player.user)
    page = client.get(reverse("notifications")).content.decode()
    report = reverse("campaigns:report", args=[campaign.pk, combat.pk])
    assert f'<a href="{report}">Open the report</a>' in page
    assert f'<a href="{reverse("campaigns:map", args=[campaign.pk])}">Open the map</a>' in page
    assert (f'<a href="{reverse("campaigns:forum", args=[campaign.pk])}">Open the forum</a>'
            in page)
    assert (f'<a href="{reverse("campaigns:lobby", args=[campaign.pk])}">Open the campaign</a>'
            in page)
    assert "<strong>4</strong> unread." in page


def test_marking_one_read_changes_only_that_one_of_mine(client):
    campaign, _, (player,) = started_campaign_factory(players=1)
    Notification.objects.filter(user=player.user).delete()
    mine = _note(player.user, campaign, "Mine")
    other = _note(player.user, campaign, "Other")
    stranger = UserFactory()
    theirs = _note(stranger, campaign, "Theirs")
    client.force_login(player.user)
    response = client.post(reverse("notifications-read"), {"id": mine.pk, "back": "unread=1"})
    assert (response.status_code, response["Location"]) == (
        302, reverse("notifications") + "?unread=1")
    # Another user's id is ignored (nothing of theirs changes).
    client.post(reverse("notifications-read"), {"id": theirs.pk})
    read = {n.message: n.read_at is None
            for n in Notification.objects.filter(pk__in=[mine.pk, other.pk, theirs.pk])}
    assert read == {"Mine": False, "Other": True, "Theirs": True}


def test_mark_all_read_of_one_campaign_leaves_the_others(client):
    first, _, (player,) = started_campaign_factory(players=1)
    second, _, (player2,) = started_campaign_factory(players=1)
    Notification.objects.all().delete()
    _note(player.user, first, "First")
    # The same user in a second campaign (a membership is needed for the filter list).
    player2.user = player.user
    player2.save(update_fields=["user"])
    _note(player.user, second, "Second")
    client.force_login(player.user)
    client.post(reverse("notifications-read"), {"all": "1", "campaign": first.pk})
    assert {n.message: n.read_at is None for n in Notification.objects.all()} == {
        "First": False, "Second": True}
    page = client.get(reverse("notifications") + f"?campaign={second.pk}").content.decode()
    assert "<p>Second</p>" in page and "<p>First</p>" not in page
    unread = client.get(reverse("notifications") + "?unread=1").content.decode()
    assert "<p>Second</p>" in unread and "<p>First</p>" not in unread
    client.post(reverse("notifications-read"), {"all": "1"})
    assert Notification.objects.filter(read_at__isnull=True).count() == 0


def test_mark_read_needs_a_post(client):
    client.force_login(UserFactory())
    assert client.get(reverse("notifications-read")).status_code == 405
