"""Notifications: the list, the unread count, marking read (only one's own)."""

import pytest

from campaigns.models import Notification
from tests.factories import UserFactory, campaign_factory, player_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def gm_with_notifications(count):
    """A GM notified of `count` players joining."""
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    for _ in range(count):
        player_factory(campaign=campaign)
    return gm, campaign


def test_the_list_is_newest_first(client_for):
    gm, campaign = gm_with_notifications(2)
    rows = list(Notification.objects.filter(user=gm).order_by("-created_at", "-pk"))
    response = client_for(gm).get("/api/v1/notifications/")
    assert (response.status_code, [n["id"] for n in response.json()]) == (
        200, [n.pk for n in rows]
    )
    assert response.json()[0] == {
        "id": rows[0].pk, "campaign": campaign.pk, "campaign_name": campaign.name,
        "kind": rows[0].kind, "message": rows[0].message,
        "created_at": rows[0].created_at.isoformat().replace("+00:00", "Z"), "read_at": None,
    }


def test_unread_count_and_mark_read(client_for):
    gm, _ = gm_with_notifications(3)
    client = client_for(gm)
    assert client.get("/api/v1/notifications/unread-count/").json() == {"unread": 3}
    first = Notification.objects.filter(user=gm).order_by("pk").first()
    response = client.post("/api/v1/notifications/mark-read/", {"ids": [first.pk]},
                           format="json")
    assert (response.status_code, response.json()) == (200, {"marked": 1})
    assert client.get("/api/v1/notifications/unread-count/").json() == {"unread": 2}


def test_someone_elses_notifications_are_not_marked(client_for):
    gm, _ = gm_with_notifications(1)
    theirs = Notification.objects.get(user=gm)
    response = client_for(UserFactory()).post("/api/v1/notifications/mark-read/",
                                              {"ids": [theirs.pk]}, format="json")
    assert (response.status_code, response.json()) == (200, {"marked": 0})
    assert Notification.objects.get(pk=theirs.pk).read_at is None


def test_mark_read_needs_a_list_of_ids(client_for):
    response = client_for(UserFactory()).post("/api/v1/notifications/mark-read/",
                                              {"ids": "all"}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "ids")
