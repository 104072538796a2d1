"""In Chromium, at 1280 × 800 and 375 px: the GM opens the settings from the GM page, is
refused a change of pace without a reason (the sentence next to the field), then moves the
campaign to 21:00 Paris deadlines without weekends, with a reason; a player reads it on the
overview ("from the next phase") and declares an absence with the date pickers."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import Absence, Campaign
from tests.e2e.conftest import PHONE
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_gm_changes_the_pace_and_a_player_declares_an_absence(browser, live_server, login,
                                                                   screenshot, viewport):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    size = PHONE if viewport == "phone" else {"width": 1280, "height": 800}
    gm_context = browser.new_context(viewport=size, base_url=live_server.url)
    player_context = browser.new_context(viewport=size, base_url=live_server.url)
    try:
        login(gm, gm_context)
        page = gm_context.new_page()
        page.goto(f"/campaigns/{campaign.pk}/gm/")
        page.get_by_role("link", name="Settings").click()
        page.get_by_label("Deadline mode").select_option("clock")
        page.get_by_role("button", name="Save the settings").click()
        refused = page.locator("#set-reason-error").inner_text()
        page.get_by_label("Deadline mode").select_option("clock")
        page.get_by_label("Deadline time of day").fill("21:00")
        page.get_by_label("Deadline time zone").select_option("Europe/Paris")
        page.get_by_label("Sat", exact=True).check()
        page.get_by_label("Sun", exact=True).check()
        page.get_by_label("Reason").fill("Evenings suit everyone.")
        page.get_by_role("button", name="Save the settings").click()
        saved = page.locator(".messages").inner_text()
        screenshot(page, f"gm-{viewport}")
        gm_fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

        login(p1.user, player_context)
        player = player_context.new_page()
        player.goto(f"/campaigns/{campaign.pk}/")
        # Open by itself: a change waits for the next phase.
        mode = player.locator('[data-setting="deadline_mode"]').inner_text()
        start = (timezone.now().date() + timedelta(days=2)).isoformat()
        end = (timezone.now().date() + timedelta(days=4)).isoformat()
        player.get_by_label("From").fill(start)
        player.get_by_label("Until").fill(end)
        player.get_by_role("button", name="I will be away").click()
        away = player.locator("[data-away]").first.inner_text()
        screenshot(player, f"player-{viewport}")
        player_fits = player.evaluate(
            "document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        gm_context.close()
        player_context.close()
    pending = Campaign.objects.get(pk=campaign.pk).pending_settings
    assert (refused, saved, pending, mode, away.startswith("away "),
            Absence.objects.filter(membership=p1).count(), gm_fits, player_fits) == (
        "Reason: say why the pace changes; it is posted to every player with the change.",
        "Settings saved; changes of pace apply from the next phase and were posted to the "
        "public thread.",
        {"deadline_mode": "clock", "deadline_zone": "Europe/Paris", "deadline_days_off": [5, 6]},
        "rolling → clock from the next phase", True, 1, True, True)
