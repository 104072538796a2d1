"""The GM's overrules in the admin go through the services, with the reason they require."""

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from campaigns.models import Event, Fortification, Stack
from tests.campaigns.engine_setup import move_phase_campaign, own_stack, unit

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def gm_client(client, gm):
    gm.is_staff = gm.is_superuser = True
    gm.save()
    client.force_login(gm)
    return client


def post(client, model, action, pks, **fields):
    response = client.post(reverse(f"admin:campaigns_{model}_changelist"),
                           {"action": action, "_selected_action": pks, **fields})
    assert response.status_code == 302
    # The messages of this request (earlier, unread ones are still in the cookie).
    return [str(m) for m in get_messages(response.wsgi_request)][-1:]


def test_the_revert_action_needs_a_reason_and_calls_the_service(client, unchanged):
    campaign, gm, (p1,) = move_phase_campaign()
    client = gm_client(client, gm)
    Stack.objects.filter(pk=own_stack(p1).pk).update(hex="B2")
    with unchanged(campaign):
        notes = post(client, "campaign", "revert_open_phase", [campaign.pk], reason=" ")
    assert notes == ["The GM gives a reason for every overrule; it is recorded."]
    notes = post(client, "campaign", "revert_open_phase", [campaign.pk], reason="a misclick")
    assert notes == [f"{campaign.name}: reverted to the opening of the open phase."]
    assert own_stack(p1).hex == "A1"
    event = Event.objects.get(kind="phase_reverted")
    assert (event.actor_id, event.payload["reason"]) == (gm.pk, "a misclick")


def test_the_adjust_hits_actions_call_the_services_with_hits_and_reason(client, unchanged):
    campaign, gm, (p1,) = move_phase_campaign()
    client = gm_client(client, gm)
    spear = unit(p1, "Spearman 1")
    with unchanged(campaign):
        notes = post(client, "unit", "adjust_hits", [spear.pk], reason="no hits given")
    assert notes == ["Give the new hits (and a reason) next to the action."]
    notes = post(client, "unit", "adjust_hits", [spear.pk], hits="2", reason="a healer's spell")
    assert notes == ["Spearman 1: hits set to 2."]
    assert unit(p1, "Spearman 1").current_hits == 2
    event = Event.objects.get(kind="hits_adjusted", payload__unit=spear.pk)
    assert (event.payload["before"], event.payload["after"], event.payload["reason"]) == (
        4, 2, "a healer's spell")

    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    with unchanged(campaign):
        notes = post(client, "fortification", "adjust_hits", [tower.pk], hits="21", reason="x")
    assert notes == ["This fortification's hits are between 0 and its starting hits (20)."]
    post(client, "fortification", "adjust_hits", [tower.pk], hits="3", reason="an earthquake")
    tower.refresh_from_db()
    assert tower.hits == 3
    assert Event.objects.get(kind="hits_adjusted", payload__fortification=tower.pk).payload[
        "reason"] == "an earthquake"
