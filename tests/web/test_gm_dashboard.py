"""The GM dashboard: exactly my campaigns, their late players and alerts; new campaigns."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.games.erfworld import orders_mark_done
from campaigns.games.erfworld.saved_scenarios import scenario_save
from campaigns.models import Campaign, Membership, Phase, PhaseStatus, Role
from campaigns.services.deadlines import phase_record_failure
from tests.factories import (
    UserFactory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)
from tests.web.test_gm_scenarios import small_scenario

pytestmark = pytest.mark.django_db

DASHBOARD = "/campaigns/gm/"
HTMX = {"HTTP_HX_REQUEST": "true"}


def test_dashboard_url_is_named():
    assert reverse("campaigns:gm-dashboard") == DASHBOARD


def test_anonymous_visitor_is_sent_to_log_in(client):
    response = client.get(DASHBOARD)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={DASHBOARD}"


def test_dashboard_lists_exactly_the_campaigns_i_run(client):
    gm = UserFactory()
    mine = [campaign_factory(gm=gm, name="First"), campaign_factory(gm=gm, name="Second")]
    someone_elses = campaign_factory(name="Not mine")
    player_factory(campaign=someone_elses, user=gm)  # a player there, not its GM
    client.force_login(gm)
    response = client.get(DASHBOARD)
    assert response.status_code == 200
    assert [r["campaign"].pk for r in response.context["rows"]] == [mine[1].pk, mine[0].pk]
    assert "Not mine" not in response.content.decode()


def test_dashboard_shows_the_late_players_of_the_open_phase(client):
    campaign, gm, members = started_campaign_factory(players=3)
    orders_mark_done(user=members[1].user, campaign=campaign)
    now = timezone.now()
    Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).update(
        opened_at=now - timedelta(hours=80), deadline_at=now - timedelta(hours=8))
    client.force_login(gm)
    response = client.get(DASHBOARD)
    phase = response.context["rows"][0]["phase"]
    late = [members[0].user.public_name, members[2].user.public_name]
    assert (phase["turn"], phase["kind"], phase["late_players"]) == (1, "scout", late)
    assert f'<td class="gm-late">{", ".join(late)}</td>' in response.content.decode()


def test_dashboard_shows_no_late_players_before_the_deadline(client):
    campaign, gm, _ = started_campaign_factory(players=2)
    client.force_login(gm)
    response = client.get(DASHBOARD)
    assert response.context["rows"][0]["phase"]["late_players"] == []
    assert '<td class="gm-late">none</td>' in response.content.decode()


def test_dashboard_shows_a_flagged_processing_alert(client, settings):
    settings.DEADLINE_MAX_FAILURES = 2
    campaign, gm, _ = started_campaign_factory(players=1)
    phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    for _ in range(2):
        phase_record_failure(phase_id=phase.pk, error=RuntimeError("mail server down"),
                             now=timezone.now())
    client.force_login(gm)
    response = client.get(DASHBOARD)
    assert ("Deadline processing stopped after 2 failures: RuntimeError: mail server down"
            in response.content.decode())


def test_a_setup_campaign_shows_its_invite_link(client):
    gm = UserFactory()
    campaign = campaign_factory(gm=gm)
    client.force_login(gm)
    response = client.get(DASHBOARD)
    assert response.context["rows"][0]["invite_url"] == (
        f"http://testserver/campaigns/join/{campaign.invite_code}/")


def test_new_campaign_from_a_scenario_file_shows_its_invite_link(client):
    gm = UserFactory()
    client.force_login(gm)
    response = client.post("/campaigns/gm/new/", {"scenario": "broad_way", "name": "Spring"},
                           **HTMX)
    campaign = Campaign.objects.get()
    assert response.status_code == 200
    assert (campaign.name, campaign.scenario_key) == ("Spring", "broad_way")
    assert Membership.objects.get(campaign=campaign).role == Role.GM
    assert (f'value="http://testserver/campaigns/join/{campaign.invite_code}/"'
            in response.content.decode())


def test_a_new_campaign_is_listed_at_once_out_of_band(client):
    gm = UserFactory()
    campaign_factory(gm=gm, name="Autumn")
    client.force_login(gm)
    response = client.post("/campaigns/gm/new/", {"scenario": "broad_way", "name": "Spring"},
                           **HTMX)
    html = response.content.decode()
    oob = html[html.index('<div id="gm-campaigns" hx-swap-oob="true">'):]
    rows = [row.split("</a>")[0].rsplit(">", 1)[1]
            for row in oob.split("<tr data-campaign=")[1:]]
    assert rows == ["Spring", "Autumn"]


def test_new_campaign_from_a_saved_scenario(client):
    gm = UserFactory()
    scenario_save(user=gm, key="little_hill", data=small_scenario("little_hill"))
    client.force_login(gm)
    client.post("/campaigns/gm/new/", {"scenario": "little_hill", "name": ""}, **HTMX)
    campaign = Campaign.objects.get()
    assert (campaign.name, campaign.scenario_key, campaign.map.cols) == (
        "Little Hill", "little_hill", 5)


def test_new_campaign_without_htmx_redirects_to_its_gm_page(client):
    client.force_login(UserFactory())
    response = client.post("/campaigns/gm/new/", {"scenario": "broad_way"})
    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/campaigns/{campaign.pk}/gm/"


def test_new_campaign_from_an_unknown_scenario_is_refused(client):
    client.force_login(UserFactory())
    response = client.post("/campaigns/gm/new/", {"scenario": "atlantis"}, **HTMX)
    assert response.status_code == 422
    assert ("There is no scenario &#x27;atlantis&#x27;; known scenarios: broad_way."
            in response.content.decode())
    assert Campaign.objects.count() == 0


def test_new_campaign_without_a_scenario_is_refused(client):
    client.force_login(UserFactory())
    response = client.post("/campaigns/gm/new/", {"scenario": ""}, **HTMX)
    assert response.status_code == 422
    assert "Choose a scenario." in response.content.decode()
    assert Campaign.objects.count() == 0
