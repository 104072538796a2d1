"""API tokens: created, regenerated and revoked on the profile page; the key shown once."""

import re

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.services import api_token_create, api_token_revoke
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CREATE = "/accounts/profile/api-token/"
REVOKE = "/accounts/profile/api-token/revoke/"


def api_status(key: str) -> int:
    return APIClient().get("/api/v1/campaigns/", HTTP_AUTHORIZATION=f"Token {key}").status_code


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def shown_key(page: str) -> str | None:
    found = re.search(r'id="new-api-token" type="text" readonly size="44" value="([0-9a-f]+)"',
                      page)
    return found.group(1) if found else None


# --- services ------------------------------------------------------------------------------


def test_api_token_create_makes_a_working_token():
    user = UserFactory()
    token = api_token_create(user=user)
    assert (Token.objects.get(user=user).key, api_status(token.key)) == (token.key, 200)


def test_api_token_create_replaces_the_old_token():
    user = UserFactory()
    old = api_token_create(user=user)
    new = api_token_create(user=user)
    assert (Token.objects.filter(user=user).count(), api_status(old.key), api_status(new.key)) == (
        1, 401, 200
    )


def test_api_token_revoke_deletes_the_token():
    user = UserFactory()
    token = api_token_create(user=user)
    assert (api_token_revoke(user=user), Token.objects.filter(user=user).count(),
            api_status(token.key)) == (True, 0, 401)


def test_api_token_revoke_without_a_token_returns_false():
    assert api_token_revoke(user=UserFactory()) is False


def test_api_token_revoke_leaves_other_users_tokens():
    user, other = UserFactory(), UserFactory()
    api_token_create(user=user)
    kept = api_token_create(user=other)
    api_token_revoke(user=user)
    assert list(Token.objects.values_list("key", flat=True)) == [kept.key]


# --- the profile page ----------------------------------------------------------------------


def test_the_profile_explains_the_header_and_offers_to_create_a_token():
    page = logged_in(UserFactory()).get("/accounts/profile/").content.decode()
    assert ("<code>Authorization: Token &lt;key&gt;</code>" in page,
            "You have no API token." in page, f'action="{CREATE}"' in page,
            f'action="{REVOKE}"' in page) == (True, True, True, False)


def test_creating_a_token_on_the_profile_redirects_to_the_profile():
    user = UserFactory()
    response = logged_in(user).post(CREATE)
    assert (response.status_code, response["Location"], Token.objects.filter(user=user).count()) == (
        302, "/accounts/profile/", 1
    )


def test_the_new_key_is_shown_once():
    user = UserFactory()
    client = logged_in(user)
    client.post(CREATE)
    first = client.get("/accounts/profile/").content.decode()
    second = client.get("/accounts/profile/").content.decode()
    assert (shown_key(first), shown_key(second)) == (Token.objects.get(user=user).key, None)


def test_the_shown_key_authenticates_the_api():
    client = logged_in(UserFactory())
    client.post(CREATE)
    key = shown_key(client.get("/accounts/profile/").content.decode())
    assert api_status(key) == 200


def test_the_profile_shows_when_the_token_was_made_in_the_users_time_zone():
    user = UserFactory(time_zone="Asia/Tokyo")
    token = api_token_create(user=user)
    page = logged_in(user).get("/accounts/profile/").content.decode()
    local = token.created.astimezone(user.zone)
    assert f"{local:%a} {local.day} {local:%b %Y, %H:%M} JST" in page


def test_a_user_with_a_token_is_offered_regenerate_and_revoke_but_not_the_key():
    user = UserFactory()
    token = api_token_create(user=user)
    page = logged_in(user).get("/accounts/profile/").content.decode()
    assert ("Regenerate token" in page, f'action="{REVOKE}"' in page, token.key in page) == (
        True, True, False
    )


def test_regenerating_on_the_profile_stops_the_old_key():
    user = UserFactory()
    old = api_token_create(user=user)
    logged_in(user).post(CREATE)
    new = Token.objects.get(user=user)
    assert (new.key != old.key, api_status(old.key), api_status(new.key)) == (True, 401, 200)


def test_revoking_on_the_profile_stops_the_key():
    user = UserFactory()
    token = api_token_create(user=user)
    response = logged_in(user).post(REVOKE, follow=True)
    page = response.content.decode()
    assert ("API token revoked: it no longer works." in page, api_status(token.key),
            Token.objects.filter(user=user).exists()) == (True, 401, False)


def test_revoking_without_a_token_says_so():
    response = logged_in(UserFactory()).post(REVOKE, follow=True)
    assert "You had no API token." in response.content.decode()


@pytest.mark.parametrize("url", [CREATE, REVOKE])
def test_token_actions_refuse_get(url):
    user = UserFactory()
    api_token_create(user=user)
    response = logged_in(user).get(url)
    assert (response.status_code, Token.objects.filter(user=user).count()) == (405, 1)


def test_token_creation_needs_a_login():
    response = Client().post(CREATE)
    assert (response.status_code, response["Location"].startswith("/accounts/login/"),
            Token.objects.count()) == (302, True, 0)


@pytest.mark.parametrize("url", [CREATE, REVOKE])
def test_token_actions_need_the_csrf_token(url):
    user = UserFactory()
    token = api_token_create(user=user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(url)
    assert (response.status_code, Token.objects.get(user=user).key) == (403, token.key)


def test_the_profile_forms_carry_the_csrf_token():
    user = UserFactory()
    api_token_create(user=user)
    page = logged_in(user).get("/accounts/profile/").content.decode()
    # The header's log-out form, the profile form, regenerate and revoke, make a calendar link.
    assert page.count('name="csrfmiddlewaretoken"') == 5


# --- drf_create_token ----------------------------------------------------------------------


def test_drf_create_token_prints_the_token_made_on_the_profile(capsys):
    user = UserFactory(username="botwright")
    token = api_token_create(user=user)
    call_command("drf_create_token", "botwright")
    assert token.key in capsys.readouterr().out


def test_drf_create_token_reset_replaces_the_profile_token(capsys):
    user = UserFactory(username="botwright")
    old = api_token_create(user=user)
    call_command("drf_create_token", "-r", "botwright")
    new = Token.objects.get(user=user)
    assert (new.key in capsys.readouterr().out, api_status(old.key), api_status(new.key)) == (
        True, 401, 200
    )
