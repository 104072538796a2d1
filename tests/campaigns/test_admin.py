"""The admin lists every campaign model for the GM and never shows an open phase's seed."""

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Phase
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

MODELS = [
    "campaign", "side", "membership", "map", "fortification", "unittype", "stack", "unit",
    "turn", "phase", "playerphasestatus", "scoutorder", "sighting", "diceroll", "event",
    "phasesnapshot", "notification",
]


@pytest.mark.parametrize("model", MODELS)
def test_every_model_has_a_searchable_changelist(admin_client, model):
    started_campaign_factory(players=1)
    response = admin_client.get(reverse(f"admin:campaigns_{model}_changelist"), {"q": "A1"})
    assert response.status_code == 200


def test_the_phase_page_hides_the_seed_of_an_open_phase(admin_client):
    started_campaign_factory(players=1)
    phase = Phase.objects.get()
    response = admin_client.get(reverse("admin:campaigns_phase_change", args=[phase.pk]))
    assert response.status_code == 200
    assert phase.dice_seed not in response.content.decode()
    assert phase.dice_commitment in response.content.decode()


def test_the_end_phase_action_goes_through_the_service(admin_client, django_user_model):
    campaign, gm, _ = started_campaign_factory(players=1)
    gm.is_staff = gm.is_superuser = True
    gm.save()
    admin_client.force_login(gm)
    response = admin_client.post(
        reverse("admin:campaigns_campaign_changelist"),
        {"action": "end_open_phase", "_selected_action": [campaign.pk]},
    )
    assert response.status_code == 302
    assert list(Phase.objects.order_by("pk").values_list("kind", "status")) == [
        ("scout", "closed"), ("move_combat", "open"),
    ]
    assert Campaign.objects.get().version == 1 + 1  # started, then the phase ended
