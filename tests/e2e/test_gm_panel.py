"""The GM's campaign page in Chromium: the panel follows a phase ended from the phase bar."""

import pytest

from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_panel_follows_the_phase_bar(browser_page, login, screenshot):
    campaign, gm, _ = started_campaign_factory(players=1)
    page = browser_page
    page.on("dialog", lambda d: d.accept())
    login(gm)
    page.goto(f"/campaigns/{campaign.pk}/gm/")
    before = page.locator(".gm-summary dd").nth(1).inner_text()
    page.locator("#phase-bar").get_by_role("button", name="End phase").click()
    page.get_by_role("button", name="End turn 1: alliance move/combat phase").wait_for()
    after = page.locator(".gm-summary dd").nth(1).inner_text()
    screenshot(page, "after")
    assert (before, after, page.errors) == (
        "Turn 1: Alliance scout phase", "Turn 1: Alliance move/combat phase", [])
