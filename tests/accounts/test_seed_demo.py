"""`manage.py seed_demo` creates the demo logins once and can run again safely."""

from io import StringIO

import pytest
from allauth.account.models import EmailAddress
from django.core.management import call_command
from django.urls import reverse

from accounts.models import User

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_seed_demo_is_idempotent():
    assert seed().splitlines()[:5] == [
        "user admin: created", "user gm: created", "user player1: created",
        "user player2: created", "user player3: created",
    ]
    assert seed().splitlines()[:5] == [
        "user admin: exists", "user gm: exists", "user player1: exists", "user player2: exists",
        "user player3: exists",
    ]
    assert User.objects.count() == 5
    assert EmailAddress.objects.filter(verified=True).count() == 5
    # Only the operator's login reaches the Django admin; the GM plays the opposition.
    assert {u.username: (u.is_staff, u.is_superuser) for u in User.objects.all()} == {
        "admin": (True, True), "gm": (False, False), "player1": (False, False),
        "player2": (False, False), "player3": (False, False)}


def test_an_older_demo_gm_loses_staff_when_seeded_again():
    seed()
    User.objects.filter(username="gm").update(is_staff=True, is_superuser=True)
    seed()
    assert User.objects.filter(username="gm", is_staff=False, is_superuser=False).exists()


def test_the_demo_gm_cannot_open_the_admin(client):
    seed()
    client.force_login(User.objects.get(username="gm"))
    response = client.get(reverse("admin:campaigns_phase_changelist"))
    assert (response.status_code, response["Location"].startswith(reverse("admin:login"))) == (
        302, True)


@pytest.mark.parametrize("username", ["admin", "gm", "player1", "player2", "player3"])
def test_demo_login_works_with_mandatory_verification(client, username):
    seed()
    response = client.post(reverse("account_login"), {"login": username, "password": "broadway"})
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
