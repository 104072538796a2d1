"""The API's Swagger UI and Redoc in a real browser: they render the schema, and everything the
browser fetches (scripts, styles, fonts, images, the schema) comes from this server; what a
viewer would fetch from elsewhere (Redoc's Redocly logo) the pages' Content-Security-Policy
blocks before it leaves the browser."""

import pytest

from tests.api.test_schema_contents import operations

pytestmark = [pytest.mark.django_db(transaction=True)]


def fetches(page, live_server, url, ready_selector):
    """(what the page fetched from anywhere but this server, what the browser refused to
    fetch with why). blob: URLs are the page's own memory, e.g. Redoc's search worker."""
    fetched, blocked = [], []
    page.on("response", lambda response: fetched.append(response.url))
    page.on("requestfailed", lambda request: blocked.append((request.url, request.failure)))
    page.goto(url)
    page.wait_for_selector(ready_selector)
    page.wait_for_load_state("networkidle")
    ours = (live_server.url + "/", "blob:" + live_server.url + "/")
    return sorted({u for u in fetched if not u.startswith(ours)}), blocked


def test_swagger_ui_renders_every_operation_from_this_server_only(browser_page, live_server):
    elsewhere, blocked = fetches(browser_page, live_server, "/api/docs/", ".opblock")
    assert (elsewhere, blocked, browser_page.locator(".opblock").count(),
            browser_page.errors) == ([], [], len(operations()), [])


def test_redoc_renders_from_this_server_only(browser_page, live_server):
    elsewhere, blocked = fetches(browser_page, live_server, "/api/redoc/", "h1")
    # Redoc writes each operation's summary as an h2 in the page's body.
    assert (elsewhere, blocked, browser_page.locator("h1").first.inner_text(),
            browser_page.locator("[data-section-id^='operation/'] h2").count(),
            browser_page.errors) == (
        [], [("https://cdn.redoc.ly/redoc/logo-mini.svg", "csp")], "warcamp API (1.0.0)",
        len(operations()),
        # The console reports the one refusal too, naming the rule that refused it.
        ["Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg' violates the following "
         "Content Security Policy directive: \"img-src 'self' data: blob:\". "
         "The action has been blocked."])
