"""Browser tests: Debian's Chromium driven by Playwright against pytest-django's live server.

Without Chromium the tests are skipped, except under CI=true where a missing browser fails
them. Screenshots go to test-artifacts/ at the top of the repository.
"""

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

# Playwright's sync API keeps an event loop in the test's thread; the ORM calls a test makes
# between browser steps are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("WARCAMP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}


@pytest.fixture(autouse=True)
def no_map_cache(request: pytest.FixtureRequest) -> Iterator[None]:
    """Browser tests arrange their games with plain ORM writes, which the map cache (keyed on
    the state version the services bump) does not see, so they run without it; a test marked
    `map_cache` keeps it (tests/campaigns/test_map_json.py tests the cache itself)."""
    if request.node.get_closest_marker("map_cache"):
        yield
        return
    before = settings.MAP_CACHE_SECONDS
    settings.MAP_CACHE_SECONDS = 0
    yield
    settings.MAP_CACHE_SECONDS = before


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session."""
    if not os.access(CHROMIUM, os.X_OK):
        message = f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {message}", pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def browser_context(browser: Any, live_server: Any) -> Iterator[Any]:
    """A fresh context (cookies, storage) at 1280 × 800 against the live server."""
    context = browser.new_context(viewport=DESKTOP, base_url=live_server.url)
    context.set_default_timeout(15_000)
    yield context
    context.close()


@pytest.fixture
def browser_page(browser_context: Any) -> Any:
    """A page of the desktop context; console errors fail the test that reads them."""
    page = browser_context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    # A script or style the Content-Security-Policy refused is an error of the page too.
    page.on("console", lambda msg: page.errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text else None)
    return page


@pytest.fixture
def login(browser_context: Any, live_server: Any) -> Callable[[Any], None]:
    """`login(user)`: the browser context is logged in as `user` (a real session cookie)."""

    def log_in(user: Any, context: Any = None) -> None:
        client = Client()
        client.force_login(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME]
        (context or browser_context).add_cookies([{
            "name": settings.SESSION_COOKIE_NAME, "value": cookie.value, "url": live_server.url,
        }])

    return log_in


@pytest.fixture
def screenshot(request: pytest.FixtureRequest) -> Callable[[Any, str], Path]:
    """`screenshot(page, step)`: writes test-artifacts/<test name>-<step>.png."""

    def shoot(page: Any, step: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{request.node.name}-{step}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return shoot
