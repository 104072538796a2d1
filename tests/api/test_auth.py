"""Authentication: tokens (`Authorization: Token <key>`), sessions, and anonymous refusal."""

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.services import api_token_create
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def test_anonymous_is_401_with_the_error_body():
    response = APIClient().get("/api/v1/campaigns/")
    assert (response.status_code, response.json(), response["WWW-Authenticate"]) == (
        401,
        {"code": "not_authenticated", "detail": "Authentication credentials were not provided.",
         "field": None},
        "Token",
    )


def test_a_token_authenticates():
    user = UserFactory()
    token = api_token_create(user=user)
    response = APIClient().get("/api/v1/campaigns/", HTTP_AUTHORIZATION=f"Token {token}")
    assert (response.status_code, response.json()) == (200, [])


def test_a_wrong_token_is_401():
    response = APIClient().get("/api/v1/campaigns/", HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert (response.status_code, response.json()) == (
        401, {"code": "authentication_failed", "detail": "Invalid token.", "field": None}
    )


def test_the_api_token_command_makes_a_working_token(capsys):
    UserFactory(username="botmaker")
    call_command("api_token", "botmaker")
    key = capsys.readouterr().out.rsplit(": ", 1)[1].strip()
    response = APIClient().get("/api/v1/notifications/unread-count/",
                               HTTP_AUTHORIZATION=f"Token {key}")
    assert (response.status_code, response.json()) == (200, {"unread": 0})


def test_a_browser_session_authenticates():
    client = APIClient()
    client.force_login(UserFactory())
    assert client.get("/api/v1/campaigns/").status_code == 200


def test_a_session_post_without_csrf_token_is_refused():
    user = UserFactory()
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post("/api/v1/notifications/mark-read/", {"ids": []}, format="json")
    assert (response.status_code, response.json()["code"]) == (403, "permission_denied")
