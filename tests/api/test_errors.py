"""The exception handler: one body {"code", "detail", "field"} with the right status."""

import pytest
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from rest_framework import exceptions
from rest_framework.test import APIClient

from campaigns.api.errors import api_exception_handler
from campaigns.errors import CampaignError, NotAllowedError, RuleViolationError, WrongStateError
from tests.factories import UserFactory, campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def handled(exc):
    response = api_exception_handler(exc, {})
    return response.status_code, response.data


def test_a_campaign_error_is_400_with_code_detail_and_field():
    exc = RuleViolationError("An extension is at least 1 hour.", code="bad_extension",
                             field="hours")
    assert handled(exc) == (400, {"code": "bad_extension",
                                  "detail": "An extension is at least 1 hour.", "field": "hours"})


def test_a_wrong_state_error_is_400_without_a_field():
    assert handled(WrongStateError("The campaign has no open phase.", code="no_open_phase")) == (
        400, {"code": "no_open_phase", "detail": "The campaign has no open phase.", "field": None}
    )


def test_a_plain_campaign_error_keeps_its_default_code():
    assert handled(CampaignError("No.")) == (
        400, {"code": "campaign_error", "detail": "No.", "field": None}
    )


def test_not_allowed_is_403_with_the_same_body():
    exc = NotAllowedError("Only the Game Master may do this.", code="gm_only")
    assert handled(exc) == (
        403, {"code": "gm_only", "detail": "Only the Game Master may do this.", "field": None}
    )


def test_not_a_member_is_404_so_membership_does_not_leak():
    exc = NotAllowedError("ann is not a member of the campaign 'Broad Way'.", code="not_member")
    assert handled(exc) == (404, {"code": "not_found", "detail": "Not found.", "field": None})


def test_http404_is_404():
    assert handled(Http404("No Campaign matches the given query.")) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None}
    )


def test_object_does_not_exist_is_404():
    assert handled(ObjectDoesNotExist("Unit matching query does not exist.")) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None}
    )


def test_a_validation_error_names_its_first_field():
    exc = exceptions.ValidationError({"hours": ["A valid integer is required."]})
    assert handled(exc) == (
        400, {"code": "invalid", "detail": "A valid integer is required.", "field": "hours"}
    )


def test_a_missing_field_has_the_code_required():
    exc = exceptions.ValidationError({"reason": [exceptions.ErrorDetail(
        "This field is required.", code="required")]})
    assert handled(exc) == (
        400, {"code": "required", "detail": "This field is required.", "field": "reason"}
    )


def test_other_drf_errors_get_the_same_body():
    assert handled(exceptions.NotAuthenticated()) == (401, {
        "code": "not_authenticated",
        "detail": "Authentication credentials were not provided.", "field": None,
    })


def test_an_unknown_campaign_and_someone_elses_campaign_answer_the_same_404(client_for):
    others = campaign_factory()
    client = client_for(UserFactory())
    unknown = client.get(f"/api/v1/campaigns/{others.pk + 1000}/map/")
    not_mine = client.get(f"/api/v1/campaigns/{others.pk}/map/")
    assert (unknown.status_code, unknown.json()) == (not_mine.status_code, not_mine.json()) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None}
    )


def test_malformed_json_is_400_parse_error(client_for):
    response = client_for(UserFactory()).post(
        "/api/v1/campaigns/join/", data="{", content_type="application/json"
    )
    assert (response.status_code, response.json()["code"], response.json()["field"]) == (
        400, "parse_error", None
    )


def test_too_many_form_fields_is_400_with_the_error_body():
    user = UserFactory()
    client = APIClient()
    client.force_authenticate(user)
    body = "&".join(["ids=1"] * 1001)  # Django's DATA_UPLOAD_MAX_NUMBER_FIELDS is 1000
    response = client.post("/api/v1/notifications/mark-read/", body,
                           content_type="application/x-www-form-urlencoded")
    assert (response.status_code, response.json()) == (400, {
        "code": "request_too_large",
        "detail": "The number of GET/POST parameters exceeded "
                  "settings.DATA_UPLOAD_MAX_NUMBER_FIELDS.",
        "field": None,
    })


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_api_path_is_404_with_the_error_body(method):
    response = getattr(APIClient(enforce_csrf_checks=True), method)("/api/v1/campaigns/abc/")
    assert (response.status_code, response.json()) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None}
    )


def test_an_unexpected_error_is_a_json_500_and_logged(caplog):
    status, body = handled(RuntimeError("boom"))
    assert (status, body, [r.message for r in caplog.records]) == (
        500, {"code": "server_error", "field": None, "detail": "The server failed to answer "
              "this request; nothing was changed. Try again later."},
        ["API request failed: boom"])


def test_a_number_the_database_cannot_store_is_400():
    from django.db import DataError

    assert handled(DataError("integer out of range")) == (400, {
        "code": "out_of_range", "field": None, "detail": "A number in the request is out of "
        "range."})


def test_huge_numbers_in_requests_are_400_never_a_server_error():
    from campaigns.services.forum import threads_ensure
    from tests.factories import started_campaign_factory

    campaign, gm, (player,) = started_campaign_factory(players=1)
    thread = threads_ensure(campaign=campaign)[0]
    gm_client, player_client = APIClient(), APIClient()
    gm_client.force_authenticate(gm)
    player_client.force_authenticate(player.user)
    base = f"/api/v1/campaigns/{campaign.pk}/"
    grant = gm_client.post(base + "gm/pop-points/", {"points": 2 ** 63}, format="json")
    marker = player_client.post(base + f"threads/{thread.pk}/read/", {"post": 2 ** 63},
                                format="json")
    unit = player_client.post(base + "mount/", {"riders": [2 ** 63], "mount": None},
                              format="json")
    assert [(r.status_code, r.json()["code"]) for r in (grant, marker, unit)] == [
        (400, "max_value"), (400, "out_of_range"), (404, "not_found")]
