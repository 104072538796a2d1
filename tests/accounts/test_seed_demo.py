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
    assert seed().splitlines()[:4] == [
        "user gm: created", "user player1: created", "user player2: created",
        "user player3: created",
    ]
    assert seed().splitlines()[:4] == [
        "user gm: exists", "user player1: exists", "user player2: exists", "user player3: exists",
    ]
    assert User.objects.count() == 4
    assert EmailAddress.objects.filter(verified=True).count() == 4
    gm = User.objects.get(username="gm")
    assert (gm.is_staff, gm.is_superuser) == (True, True)
    assert not User.objects.get(username="player1").is_staff


@pytest.mark.parametrize("username", ["gm", "player1", "player2", "player3"])
def test_demo_login_works_with_mandatory_verification(client, username):
    seed()
    response = client.post(reverse("account_login"), {"login": username, "password": "broadway"})
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
