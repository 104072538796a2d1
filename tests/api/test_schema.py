"""The OpenAPI schema and its two viewers, served by the app itself (no CDN)."""

import re

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = [pytest.mark.django_db]


def test_the_schema_validates_without_warnings(tmp_path):
    # --fail-on-warn raises on any warning, e.g. two components with the same name.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file",
                 str(tmp_path / "schema.yml"))
    assert (tmp_path / "schema.yml").read_text().startswith("openapi: 3.0.3")


def test_the_schema_is_served_anonymously():
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schema = response.json()
    assert (response.status_code, schema["info"]["title"]) == (200, "warcamp API")
    assert "/api/v1/campaigns/{campaign_id}/map/" in schema["paths"]
    assert "/api/schema/" not in schema["paths"]


@pytest.mark.parametrize(("url", "asset"), [
    ("/api/docs/", "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"),
    ("/api/redoc/", "/static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"),
])
def test_the_viewers_load_their_assets_from_this_server(url, asset):
    response = APIClient().get(url)
    page = response.content.decode()
    assert (response.status_code, asset in page) == (200, True)
    assert APIClient().get(asset).status_code == 200


@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_the_viewers_name_no_other_host(url):
    """No address with a host in the page (a link, a script, a font, a preconnect); a
    Content-Security-Policy keeps the viewers' scripts from fetching elsewhere (Redoc's logo),
    and Swagger UI's validator badge (fetched from validator.swagger.io) is off."""
    page = APIClient().get(url).content.decode()
    referenced = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", page)
    assert (re.findall(r"(?:https?:)?//[\w.-]+\.\w", page), [r for r in referenced
                                                          if not r.startswith("/static/")]) == (
        [], [])
    assert ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self';" in page,
            '"validatorUrl": null' in page) == (True, url == "/api/docs/")
