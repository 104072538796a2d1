"""Every page fits a 375-px phone without sideways scrolling of the page itself (wide tables
scroll inside their own box) and is shot at 1280 × 800 and at 375 px for a look."""

import pytest

from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.models import Event, EventKind, Phase, Thread, ThreadAudience, Unit
from campaigns.services.forum import share_token_create
from tests.e2e.conftest import DESKTOP, PHONE
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)

PAGES = ["home", "lobby", "map", "reports", "ledger", "scout-report", "dice", "history",
         "history-phase", "forum", "forum-thread", "export-report", "export-turn", "replay",
         "share-tokens", "gm-dashboard", "gm-campaign", "gm-settings", "scenario-editor"]


@pytest.fixture
def campaign_with_history():
    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=["SE", "S"])
    phase_end(user=gm, campaign=campaign)
    share_token_create(user=p1.user, campaign=campaign, label="My feed reader")
    campaign.refresh_from_db()
    return campaign, gm, p1


def _url(name, campaign):
    first = Phase.objects.filter(campaign=campaign).order_by("pk").first()
    scout = Event.objects.filter(campaign=campaign, kind=EventKind.SCOUT_REPORT).first()
    thread = Thread.objects.filter(campaign=campaign, audience=ThreadAudience.PUBLIC).first()
    c = campaign.pk
    return {
        "home": "/", "lobby": f"/campaigns/{c}/", "map": f"/campaigns/{c}/map/",
        "reports": f"/campaigns/{c}/reports/", "ledger": f"/campaigns/{c}/ledger/",
        "scout-report": f"/campaigns/{c}/reports/{scout.pk}/",
        "dice": f"/campaigns/{c}/dice/{first.pk}/",
        "history": f"/campaigns/{c}/history/",
        "history-phase": f"/campaigns/{c}/history/{first.pk}/",
        "forum": f"/campaigns/{c}/forum/",
        "forum-thread": f"/campaigns/{c}/forum/threads/{thread.pk}/",
        "export-report": f"/campaigns/{c}/export/reports/{scout.pk}/",
        "export-turn": f"/campaigns/{c}/export/turns/1/",
        "replay": f"/campaigns/{c}/replay/{first.pk}/",
        "share-tokens": f"/campaigns/{c}/tokens/",
        "gm-dashboard": "/campaigns/gm/", "gm-campaign": f"/campaigns/{c}/gm/",
        "gm-settings": f"/campaigns/{c}/gm/settings/",
        "scenario-editor": "/campaigns/scenarios/new/",
    }[name]


def test_every_page_fits_a_phone(browser, live_server, login, screenshot, campaign_with_history):
    """One campaign for every page (a browser test's database is emptied after each test)."""
    campaign, gm, p1 = campaign_with_history
    found = {}
    for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        for as_gm in (False, True):
            user = gm if as_gm else p1.user
            context = browser.new_context(viewport=viewport, base_url=live_server.url,
                                          is_mobile=label == "phone", has_touch=label == "phone")
            try:
                login(user, context)
                page = context.new_page()
                errors = []
                page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
                for name in PAGES:
                    if as_gm != (name.startswith("gm") or name == "scenario-editor"):
                        continue
                    errors.clear()
                    response = page.goto(_url(name, campaign))
                    page.wait_for_load_state("networkidle")
                    screenshot(page, f"{name}-{label}")
                    found[(name, label)] = (
                        response.status, page.evaluate("document.documentElement.scrollWidth"),
                        list(errors))
            finally:
                context.close()
    assert found == {
        (name, label): (200, viewport["width"], [])
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)) for name in PAGES
    }
