"""API tokens: created, regenerated and revoked on the profile page; the key shown once and
stored only as its SHA-256."""

import re

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import api_token_create, api_token_revoke
from accounts.tokens import token_digest
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
    found = re.search(r'id="new-api-token" type="text" readonly size="44" value="([A-Za-z0-9_-]+)"',
                      page)
    return found.group(1) if found else None


# --- services ------------------------------------------------------------------------------


def test_api_token_create_makes_a_working_token():
    user = UserFactory()
    key = api_token_create(user=user)
    row = ApiToken.objects.get(user=user)
    assert (row.digest, row.prefix, len(key), api_status(key)) == (
        token_digest(key), key[:6], 43, 200)


def test_the_database_holds_no_working_key():
    user = UserFactory()
    key = api_token_create(user=user)
    row = ApiToken.objects.get(user=user)
    assert (key in str(ApiToken.objects.values().get()), api_status(row.digest),
            api_status(row.prefix)) == (False, 401, 401)


def test_a_use_is_recorded_on_the_token():
    user = UserFactory()
    key = api_token_create(user=user)
    before = ApiToken.objects.get(user=user).last_used_at
    api_status(key)
    assert (before, ApiToken.objects.get(user=user).last_used_at is not None) == (None, True)


def test_api_token_create_replaces_the_old_token():
    user = UserFactory()
    old = api_token_create(user=user)
    new = api_token_create(user=user)
    assert (ApiToken.objects.filter(user=user).count(), api_status(old), api_status(new)) == (
        1, 401, 200
    )


def test_api_token_revoke_deletes_the_token():
    user = UserFactory()
    key = api_token_create(user=user)
    assert (api_token_revoke(user=user), ApiToken.objects.filter(user=user).count(),
            api_status(key)) == (True, 0, 401)


def test_api_token_revoke_without_a_token_returns_false():
    assert api_token_revoke(user=UserFactory()) is False


def test_api_token_revoke_leaves_other_users_tokens():
    user, other = UserFactory(), UserFactory()
    api_token_create(user=user)
    kept = api_token_create(user=other)
    api_token_revoke(user=user)
    assert list(ApiToken.objects.values_list("digest", flat=True)) == [token_digest(kept)]


# --- the profile page ----------------------------------------------------------------------


def test_the_profile_explains_the_header_and_offers_to_create_a_token():
    page = logged_in(UserFactory()).get("/accounts/profile/").content.decode()
    assert ("<code>Authorization: Token &lt;key&gt;</code>" in page,
            "You have no API token." in page, f'action="{CREATE}"' in page,
            f'action="{REVOKE}"' in page) == (True, True, True, False)


def test_creating_a_token_on_the_profile_redirects_to_the_profile():
    user = UserFactory()
    response = logged_in(user).post(CREATE)
    assert (response.status_code, response["Location"],
            ApiToken.objects.filter(user=user).count()) == (
        302, "/accounts/profile/", 1
    )


def test_the_new_key_is_shown_once():
    user = UserFactory()
    client = logged_in(user)
    client.post(CREATE)
    first = client.get("/accounts/profile/").content.decode()
    second = client.get("/accounts/profile/").content.decode()
    assert (token_digest(shown_key(first)), shown_key(second)) == (
        ApiToken.objects.get(user=user).digest, None)


def test_the_shown_key_authenticates_the_api():
    client = logged_in(UserFactory())
    client.post(CREATE)
    key = shown_key(client.get("/accounts/profile/").content.decode())
    assert api_status(key) == 200


def test_the_profile_shows_when_the_token_was_made_in_the_users_time_zone():
    user = UserFactory(time_zone="Asia/Tokyo")
    api_token_create(user=user)
    page = logged_in(user).get("/accounts/profile/").content.decode()
    local = ApiToken.objects.get(user=user).created_at.astimezone(user.zone)
    assert f"{local:%a} {local.day} {local:%b %Y, %H:%M} JST" in page


def test_a_user_with_a_token_is_offered_regenerate_and_revoke_but_not_the_key():
    user = UserFactory()
    key = api_token_create(user=user)
    page = logged_in(user).get("/accounts/profile/").content.decode()
    assert ("Regenerate token" in page, f'action="{REVOKE}"' in page, key in page,
            f"<code>{key[:6]}…</code>" in page, "never used yet" in page) == (
        True, True, False, True, True
    )


def test_regenerating_on_the_profile_stops_the_old_key():
    user = UserFactory()
    old = api_token_create(user=user)
    client = logged_in(user)
    client.post(CREATE)
    new = shown_key(client.get("/accounts/profile/").content.decode())
    assert (new != old, api_status(old), api_status(new)) == (True, 401, 200)


def test_revoking_on_the_profile_stops_the_key():
    user = UserFactory()
    key = api_token_create(user=user)
    response = logged_in(user).post(REVOKE, follow=True)
    page = response.content.decode()
    assert ("API token revoked: it no longer works." in page, api_status(key),
            ApiToken.objects.filter(user=user).exists()) == (True, 401, False)


def test_revoking_without_a_token_says_so():
    response = logged_in(UserFactory()).post(REVOKE, follow=True)
    assert "You had no API token." in response.content.decode()


@pytest.mark.parametrize("url", [CREATE, REVOKE])
def test_token_actions_refuse_get(url):
    user = UserFactory()
    api_token_create(user=user)
    response = logged_in(user).get(url)
    assert (response.status_code, ApiToken.objects.filter(user=user).count()) == (405, 1)


def test_token_creation_needs_a_login():
    response = Client().post(CREATE)
    assert (response.status_code, response["Location"].startswith("/accounts/login/"),
            ApiToken.objects.count()) == (302, True, 0)


@pytest.mark.parametrize("url", [CREATE, REVOKE])
def test_token_actions_need_the_csrf_token(url):
    user = UserFactory()
    key = api_token_create(user=user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(url)
    assert (response.status_code, ApiToken.objects.get(user=user).digest) == (
        403, token_digest(key))


def test_the_profile_forms_carry_the_csrf_token():
    user = UserFactory()
    api_token_create(user=user)
    page = logged_in(user).get("/accounts/profile/").content.decode()
    # The header's log-out form, the profile form, regenerate and revoke, make a calendar link.
    assert page.count('name="csrfmiddlewaretoken"') == 5


# --- manage.py api_token ------------------------------------------------------------------


def test_the_command_prints_a_new_key_and_the_old_one_stops(capsys):
    user = UserFactory(username="botwright")
    old = api_token_create(user=user)
    call_command("api_token", "BotWright")
    out = capsys.readouterr().out
    key = out.rsplit(": ", 1)[1].strip()
    assert (out.startswith("New API token for botwright (the old one no longer works): "),
            api_status(old), api_status(key)) == (True, 401, 200)


def test_the_command_revokes(capsys):
    user = UserFactory(username="botwright")
    key = api_token_create(user=user)
    call_command("api_token", "botwright", "--revoke")
    assert (capsys.readouterr().out, api_status(key)) == (
        "Revoked the API token of botwright.\n", 401)


def test_the_command_names_an_unknown_user():
    from django.core.management import CommandError

    with pytest.raises(CommandError, match="No user named 'nobody'."):
        call_command("api_token", "nobody")


# --- keys made before tokens were hashed ---------------------------------------------------


def test_the_migration_hashes_the_keys_handed_out_before_and_deletes_them():
    import importlib
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    migration = importlib.import_module("accounts.migrations.0004_api_token_hashed")
    user = UserFactory()
    old_key = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"  # DRF's 40 hex characters
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
                       "created timestamp with time zone NOT NULL, user_id bigint NOT NULL)")
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, now(), %s)", [old_key, user.pk])
        migration.hash_the_old_keys(apps, SimpleNamespace(connection=connection))
        cursor.execute("SELECT count(*) FROM authtoken_token")
        left = cursor.fetchone()[0]
        cursor.execute("DROP TABLE authtoken_token")
    row = ApiToken.objects.get(user=user)
    assert (row.digest, row.prefix, left, api_status(old_key)) == (
        token_digest(old_key), "9944b0", 0, 200)
