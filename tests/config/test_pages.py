"""The home page, the login page and static files are served."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_home_page_anonymous(client):
    page = client.get(reverse("home")).content.decode()
    assert '<a href="/accounts/login/">Log in</a>' in page
    assert '<link rel="stylesheet" href="/static/css/site.css">' in page


def test_login_page_uses_the_site_layout(client):
    response = client.get(reverse("account_login"))
    assert response.status_code == 200
    page = response.content.decode()
    assert '<a class="brand" href="/">Warcamp</a>' in page
    assert 'name="csrfmiddlewaretoken"' in page
    assert 'name="login"' in page


def test_logout_is_a_csrf_protected_post(client, django_user_model):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    user = django_user_model.objects.create_user("csrf", "csrf@example.com", "pw-long-enough-1")
    strict.force_login(user)
    assert strict.post(reverse("account_logout")).status_code == 403


def test_static_files_are_served_by_whitenoise(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert b"--accent" in b"".join(response.streaming_content)
