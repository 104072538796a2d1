"""POST scenarios/check/ and PUT scenarios/<key>/: the scenario editor's check and save."""

import copy

import pytest

from campaigns.api.views_setup import SMALL_SCENARIO, SMALL_SCENARIO_CHECKED
from campaigns.models import Campaign, SavedScenario
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def scenario(**changes):
    data = copy.deepcopy(SMALL_SCENARIO)
    data.update(changes)
    return data


def test_a_valid_scenario_checks_and_nothing_is_saved(client_for):
    response = client_for(UserFactory()).post("/api/v1/scenarios/check/", scenario(),
                                              format="json")
    assert (response.status_code, response.json(), SavedScenario.objects.count()) == (
        200, SMALL_SCENARIO_CHECKED, 0)


def test_a_bad_scenario_is_400_naming_the_field(client_for):
    bad = scenario(victory_hex="Z99")
    response = client_for(UserFactory()).post("/api/v1/scenarios/check/", bad, format="json")
    body = response.json()
    assert (response.status_code, body["code"], body["field"]) == (
        400, "invalid_scenario", "victory_hex")


def test_a_saved_scenario_is_listed_and_starts_campaigns(client_for):
    client = client_for(UserFactory(username="mapper"))
    response = client.put("/api/v1/scenarios/river_crossing/", scenario(), format="json")
    listed = [s["key"] for s in client.get("/api/v1/scenarios/").json()]
    created = client.post("/api/v1/campaigns/", {"scenario": "river_crossing"}, format="json")
    assert (response.status_code, response.json()) == (200, SMALL_SCENARIO_CHECKED)
    assert ("river_crossing" in listed, created.status_code,
            Campaign.objects.get(pk=created.json()["id"]).name) == (True, 201, "River Crossing")


def test_the_author_replaces_their_scenario(client_for):
    client = client_for(UserFactory())
    client.put("/api/v1/scenarios/river_crossing/", scenario(), format="json")
    response = client.put("/api/v1/scenarios/river_crossing/",
                          scenario(name="River Crossing II"), format="json")
    assert (response.status_code, response.json()["name"],
            SavedScenario.objects.get(key="river_crossing").name) == (
        200, "River Crossing II", "River Crossing II")


def test_another_authors_scenario_is_403_and_unchanged(client_for):
    client_for(UserFactory()).put("/api/v1/scenarios/river_crossing/", scenario(),
                                  format="json")
    response = client_for(UserFactory()).put("/api/v1/scenarios/river_crossing/",
                                             scenario(name="Mine now"), format="json")
    assert (response.status_code, response.json()["code"], response.json()["field"],
            SavedScenario.objects.get(key="river_crossing").name) == (
        403, "not_author", "key", "River Crossing")


def test_a_scenario_files_key_is_400(client_for):
    response = client_for(UserFactory()).put("/api/v1/scenarios/broad_way/",
                                             scenario(key="broad_way"), format="json")
    assert (response.status_code, response.json()["field"], SavedScenario.objects.count()) == (
        400, "key", 0)


def test_the_key_in_the_path_must_be_the_scenarios(client_for):
    response = client_for(UserFactory()).put("/api/v1/scenarios/other_key/", scenario(),
                                             format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_scenario", "field": "key",
        "detail": "key: the scenario says its key is 'river_crossing', but it is saved as "
        "'other_key'."})


def test_a_body_that_is_not_an_object_is_400(client_for):
    response = client_for(UserFactory()).put("/api/v1/scenarios/river_crossing/", [1, 2],
                                             format="json")
    assert (response.status_code, response.json()["field"]) == (400, "scenario")


@pytest.mark.parametrize(("method", "url"), [("post", "/api/v1/scenarios/check/"),
                                             ("put", "/api/v1/scenarios/river_crossing/")])
def test_anonymous_is_401(client_for, method, url):
    response = getattr(client_for(None), method)(url, scenario(), format="json")
    assert (response.status_code, SavedScenario.objects.count()) == (401, 0)
