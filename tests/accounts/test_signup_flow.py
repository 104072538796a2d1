"""Sign-up, email verification, login with username or email, and the profile's time zone."""

import re
import zoneinfo

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def local_suffix(zone: str) -> str:
    """How pages write the zone of "now": abbreviation and UTC offset (e.g. "(EST, -0500)")."""
    local = timezone.now().astimezone(zoneinfo.ZoneInfo(zone))
    return f"({local.tzname()}, {local.strftime('%z')})"


def test_signup_verify_login_and_set_time_zone(client):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "tamsin",
            "email": "tamsin@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    user = User.objects.get(username="tamsin")
    assert user.time_zone == "UTC"

    # Verification is mandatory: logging in before confirming goes back to "verify your email".
    response = client.post(reverse("account_login"), {"login": "tamsin", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    assert "_auth_user_id" not in client.session

    # One mail: allauth does not resend the confirmation within its cooldown.
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["tamsin@example.com"]
    key = re.search(r"/accounts/confirm-email/([^/\s]+)/", mail.outbox[0].body).group(1)
    response = client.post(reverse("account_confirm_email", args=[key]))
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(user.pk)

    client.post(reverse("account_logout"))
    assert "_auth_user_id" not in client.session
    response = client.post(
        reverse("account_login"), {"login": "tamsin@example.com", "password": PASSWORD}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert client.session["_auth_user_id"] == str(user.pk)

    response = client.post(
        reverse("profile"), {"display_name": "Tamsin of Gobwin Knob", "time_zone": "Pacific/Auckland"}
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.display_name == "Tamsin of Gobwin Knob"
    assert user.time_zone == "Pacific/Auckland"
    page = client.get(reverse("profile")).content.decode()
    assert "Profile saved." in page
    assert local_suffix("Pacific/Auckland") in page


def test_profile_rejects_unknown_time_zone_and_changes_nothing(client):
    user = UserFactory(time_zone="Europe/Berlin")
    client.force_login(user)
    response = client.post(reverse("profile"), {"display_name": "X", "time_zone": "Mars/Olympus"})
    assert response.status_code == 200
    assert "Select a valid choice. Mars/Olympus is not one of the available choices." in (
        response.content.decode()
    )
    user.refresh_from_db()
    assert (user.display_name, user.time_zone) == ("", "Europe/Berlin")


def test_profile_requires_login(client):
    response = client.get(reverse("profile"))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('account_login')}?next={reverse('profile')}"


def test_login_with_wrong_password_is_refused(client):
    UserFactory(username="bob")
    response = client.post(reverse("account_login"), {"login": "bob", "password": "nope"})
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
    assert "The username and/or password you specified are not correct." in (
        response.content.decode()
    )


def test_password_change(client):
    user = UserFactory()
    client.force_login(user)
    response = client.post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": "a new long passphrase", "password2": "a new long passphrase"},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("a new long passphrase")


def test_password_reset_sends_a_working_link(client):
    user = UserFactory(email="reset@example.com")
    response = client.post(reverse("account_reset_password"), {"email": "reset@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"(/accounts/password/reset/key/\S+/)", mail.outbox[0].body).group(1)
    response = client.get(link, follow=True)
    form_url = response.redirect_chain[-1][0] if response.redirect_chain else link
    response = client.post(form_url, {"password1": "reset passphrase 42", "password2": "reset passphrase 42"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("reset passphrase 42")


def test_email_is_unique_case_insensitively(client):
    UserFactory(email="same@example.com")
    response = client.post(
        reverse("account_signup"),
        {"username": "other", "email": "SAME@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    # allauth prevents account enumeration: the page looks like a normal sign-up, no account
    # is made, and the address's owner is told by email instead.
    assert response.status_code == 302
    assert response["Location"] == reverse("account_email_verification_sent")
    assert not User.objects.filter(username="other").exists()
    assert [m.to for m in mail.outbox] == [["same@example.com"]]
    assert "already" in mail.outbox[0].body


def test_user_time_zone_is_active_for_the_request(client):
    user = UserFactory(time_zone="America/New_York", display_name="Ansom")
    client.force_login(user)
    page = client.get(reverse("home")).content.decode()
    assert "Signed in as <strong>Ansom</strong>" in page
    assert local_suffix("America/New_York") in page


def test_signup_keeps_the_time_zone_chosen_on_the_form(client):
    from accounts.models import User

    response = client.post("/accounts/signup/", {
        "email": "ines@example.com", "username": "ines", "password1": "a long pass phrase 9",
        "password2": "a long pass phrase 9", "time_zone": "America/Sao_Paulo"})
    assert (response.status_code, User.objects.get(username="ines").time_zone) == (
        302, "America/Sao_Paulo")


def test_the_zone_lists_offer_real_zones_only():
    from accounts.models import selectable_time_zones

    zones = selectable_time_zones()
    assert (zones[0], "Europe/Berlin" in zones, "Factory" in zones, "localtime" in zones,
            "CET" in zones, "US/Pacific" in zones, "Etc/GMT+3" in zones) == (
        "UTC", True, False, False, False, False, False)
