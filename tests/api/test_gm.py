"""GM controls: extend the deadline, pause, resume."""

import pytest

from campaigns.models import Campaign, Phase
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def url(campaign, tail):
    return f"/api/v1/campaigns/{campaign.pk}/gm/{tail}"


def test_the_gm_extends_the_deadline(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    before = Phase.objects.get(campaign=campaign, status="open")
    response = client_for(gm).post(url(campaign, "extend/"),
                                   {"hours": 24, "reason": "Holiday."}, format="json")
    after = Phase.objects.get(pk=before.pk)
    assert (after.deadline_at - before.deadline_at).total_seconds() == 24 * 3600
    assert (response.status_code, response.json()) == (200, {
        "id": before.pk, "deadline_at": after.deadline_at.isoformat().replace("+00:00", "Z"),
        "extended_hours": 24,
    })


def test_a_player_cannot_extend(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    response = client_for(p1.user).post(url(campaign, "extend/"),
                                        {"hours": 24, "reason": "Please."}, format="json")
    assert (response.status_code, response.json()) == (403, {
        "code": "gm_only", "detail": "Only the Game Master may do this.", "field": None,
    })


def test_an_extension_of_zero_hours_is_400_naming_hours(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    response = client_for(gm).post(url(campaign, "extend/"), {"hours": 0, "reason": "x"},
                                   format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "bad_extension", "detail": "An extension is at least 1 hour.", "field": "hours",
    })


def test_an_extension_without_a_reason_is_400_naming_reason(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    response = client_for(gm).post(url(campaign, "extend/"), {"hours": 2, "reason": " "},
                                   format="json")
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "reason_required", "reason"
    )


def test_pause_and_resume(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    client = client_for(gm)
    paused = client.post(url(campaign, "pause/"), {"reason": "Server move."}, format="json")
    assert (paused.status_code, paused.json()["status"]) == (200, "paused")
    resumed = client.post(url(campaign, "resume/"), {"reason": "Back."}, format="json")
    assert (resumed.status_code, resumed.json()["status"], resumed.json()["paused_at"]) == (
        200, "running", None
    )
    assert Campaign.objects.get(pk=campaign.pk).status == "running"


def test_resuming_a_running_campaign_is_400(client_for):
    campaign, gm, _ = started_campaign_factory(players=1)
    response = client_for(gm).post(url(campaign, "resume/"), {"reason": "x"}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "not_paused")


def test_a_player_cannot_pause(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    response = client_for(p1.user).post(url(campaign, "pause/"), {"reason": "x"}, format="json")
    assert (response.status_code, response.json()["code"]) == (403, "gm_only")
