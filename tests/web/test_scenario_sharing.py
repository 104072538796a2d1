"""A saved scenario belongs to its author: others neither list it, open it nor make campaigns
from it until the author shares it; shared, every GM may make campaigns from it but still never
open it (its opposition stays unread). An unshared scenario of another author answers exactly
as an unknown key, on pages and in the API."""

import pytest
from rest_framework.test import APIClient

from campaigns.errors import NotAllowedError, ScenarioError
from campaigns.games.erfworld import campaign_create_from_scenario
from campaigns.games.erfworld.saved_scenarios import scenario_save, scenario_share
from campaigns.models import Campaign, SavedScenario
from tests.factories import UserFactory
from tests.web.test_gm_scenarios import small_scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def saved():
    author = UserFactory(username="author")
    scenario_save(user=author, key="little_hill", data=small_scenario())
    return author


def _api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_an_unshared_scenario_is_unknown_to_others(saved, client):
    other = UserFactory()
    with pytest.raises(ScenarioError) as caught:
        campaign_create_from_scenario(gm=other, scenario_key="little_hill")
    unknown_key = ScenarioError
    with pytest.raises(unknown_key) as unknown:
        campaign_create_from_scenario(gm=other, scenario_key="little_fort")
    client.force_login(other)
    dashboard = client.get("/campaigns/gm/").content.decode()
    listed = [row["key"] for row in _api(other).get("/api/v1/scenarios/").json()]
    assert (caught.value.message,
            unknown.value.message.replace("little_fort", "little_hill"),
            "Little Hill" in dashboard, listed, Campaign.objects.count()) == (
        "There is no scenario 'little_hill'; known scenarios: broad_way.",
        "There is no scenario 'little_hill'; known scenarios: broad_way.",
        False, ["broad_way"], 0)


def test_the_author_lists_and_uses_their_own(saved, client):
    client.force_login(saved)
    dashboard = client.get("/campaigns/gm/").content.decode()
    listed = [row["key"] for row in _api(saved).get("/api/v1/scenarios/").json()]
    campaign = campaign_create_from_scenario(gm=saved, scenario_key="little_hill")
    assert ("by you, not shared" in dashboard, "Share with every GM" in dashboard, listed,
            campaign.scenario_key) == (True, True, ["broad_way", "little_hill"], "little_hill")


def test_shared_every_gm_may_use_it_but_not_open_it(saved, client):
    scenario_share(user=saved, key="little_hill", shared=True)
    other = UserFactory()
    campaign = campaign_create_from_scenario(gm=other, scenario_key="little_hill")
    client.force_login(other)
    dashboard = client.get("/campaigns/gm/").content.decode()
    editor = client.get("/campaigns/scenarios/little_hill/edit/")
    listed = [row["key"] for row in _api(other).get("/api/v1/scenarios/").json()]
    assert (campaign.scenario_key, "by author, shared" in dashboard,
            "/campaigns/scenarios/little_hill/edit/" in dashboard, editor.status_code,
            "Guard" in editor.content.decode(), listed) == (
        "little_hill", True, False, 403, False, ["broad_way", "little_hill"])


def test_taking_it_back_keeps_the_campaigns_made_from_it(saved):
    scenario_share(user=saved, key="little_hill", shared=True)
    other = UserFactory()
    campaign = campaign_create_from_scenario(gm=other, scenario_key="little_hill")
    scenario_share(user=saved, key="little_hill", shared=False)
    with pytest.raises(ScenarioError):
        campaign_create_from_scenario(gm=other, scenario_key="little_hill")
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_only_the_author_shares(saved):
    other = UserFactory()
    with pytest.raises(ScenarioError, match="There is no scenario 'little_hill'"):
        scenario_share(user=other, key="little_hill", shared=True)
    scenario_share(user=saved, key="little_hill", shared=True)
    with pytest.raises(NotAllowedError, match="Only its author may share a scenario"):
        scenario_share(user=other, key="little_hill", shared=False)
    assert SavedScenario.objects.get(key="little_hill").shared is True


def test_the_dashboard_button_shares_and_stops(saved, client):
    client.force_login(saved)
    shared = client.post("/campaigns/scenarios/little_hill/share/", {"shared": "1"}, follow=True)
    state_after_share = SavedScenario.objects.get(key="little_hill").shared
    stopped = client.post("/campaigns/scenarios/little_hill/share/", {"shared": "0"},
                          follow=True)
    assert (shared.redirect_chain[-1][0], state_after_share,
            "Little Hill is shared: every GM may make a campaign from it (nobody else may "
            "open it)." in shared.content.decode(), "Stop sharing" in shared.content.decode(),
            SavedScenario.objects.get(key="little_hill").shared,
            "Little Hill is yours alone again; campaigns made from it go on." in
            stopped.content.decode()) == (
        "/campaigns/gm/#scenarios-title", True, True, True, False, True)


def test_another_gms_button_press_changes_nothing(saved, client):
    client.force_login(UserFactory())
    page = client.post("/campaigns/scenarios/little_hill/share/", {"shared": "1"}, follow=True)
    assert ("There is no scenario &#x27;little_hill&#x27;" in page.content.decode(),
            SavedScenario.objects.get(key="little_hill").shared) == (True, False)


def test_the_api_shares_and_answers_others_404_or_403(saved):
    other = UserFactory()
    hidden = _api(other).post("/api/v1/scenarios/little_hill/share/", {"shared": True},
                              format="json")
    unknown = _api(other).post("/api/v1/scenarios/no_such/share/", {"shared": True},
                               format="json")
    mine = _api(saved).post("/api/v1/scenarios/little_hill/share/", {"shared": True},
                            format="json")
    theirs = _api(other).post("/api/v1/scenarios/little_hill/share/", {"shared": False},
                              format="json")
    bad = _api(saved).post("/api/v1/scenarios/little_hill/share/", {"shared": "perhaps"},
                           format="json")
    assert (hidden.status_code, hidden.json()["detail"].split(";")[0],
            unknown.status_code, mine.status_code, mine.json(), theirs.status_code,
            bad.status_code, bad.json()["field"]) == (
        404, "There is no scenario 'little_hill'", 404, 200,
        {"key": "little_hill", "name": "Little Hill", "shared": True}, 403, 400, "shared")
