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


SECRET_LOOKUPS = ["", "__exact", "__iexact", "__contains", "__icontains", "__regex", "__iregex",
                  "__startswith", "__istartswith", "__endswith", "__gt", "__gte", "__lt",
                  "__lte", "__in", "__range", "__isnull"]


@pytest.mark.parametrize("model,path", [
    ("phase", "dice_seed"), ("campaign", "setup_dice_seed"),
    ("diceroll", "phase__dice_seed"), ("scoutorder", "phase__dice_seed"),
    ("sighting", "phase__dice_seed"), ("event", "phase__dice_seed"),
    ("playerphasestatus", "phase__dice_seed"), ("phase", "campaign__setup_dice_seed"),
    ("unit", "campaign__setup_dice_seed"), ("membership", "campaign__setup_dice_seed"),
    ("notification", "campaign__setup_dice_seed"), ("phasesnapshot", "phase__dice_seed"),
])
def test_no_changelist_filters_on_a_seed(admin_client, model, path):
    """A staff user recovered an open phase's seed through `?dice_seed__regex=`: every lookup
    that touches a seed, directly or through a relation, is refused and shows nothing."""
    started_campaign_factory(players=1)
    phase = Phase.objects.get()
    seeds = {phase.dice_seed, Campaign.objects.get().setup_dice_seed}
    url = reverse(f"admin:campaigns_{model}_changelist")
    answers = {}
    for lookup in SECRET_LOOKUPS:
        value = {"__in": "a,b", "__range": "a,b", "__isnull": "False"}.get(lookup, "^[0-9a-f]")
        response = admin_client.get(url, {f"{path}{lookup}": value})
        answers[lookup] = (response.status_code,
                           any(seed in response.content.decode() for seed in seeds))
    assert answers == dict.fromkeys(SECRET_LOOKUPS, (400, False))


def test_the_admin_search_and_sort_never_name_a_seed(admin_client):
    started_campaign_factory(players=1)
    phase = Phase.objects.get()
    response = admin_client.get(reverse("admin:campaigns_phase_changelist"),
                                {"q": phase.dice_seed[:8], "o": "1.2.3.4.5.6.7"})
    assert (response.status_code, phase.dice_seed in response.content.decode(),
            "0 phases" in response.content.decode()) == (200, False, True)
