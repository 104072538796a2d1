"""The bell in Chromium: a player whose phase opened sees the unread count in the header of
every page, follows the bell to the notifications page, opens one notification's deep link,
comes back and marks everything read; the count leaves the header. At 1280 × 800 and 375 px."""

import pytest

from campaigns.games.erfworld import phase_end
from campaigns.models import Notification
from tests.e2e.conftest import PHONE
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_bell_counts_links_and_clears(browser_context, live_server, login, screenshot,
                                          viewport):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    phase_end(user=gm, campaign=campaign)  # scouting closes: the move/combat phase opens
    unread = Notification.objects.filter(user=p1.user, read_at__isnull=True)
    count = unread.count()
    first = unread.order_by("-created_at", "-pk").first()
    page = browser_context.new_page()
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(p1.user)
    page.goto(f"/campaigns/{campaign.pk}/")
    bell = page.locator("header a.bell")
    shown = (bell.locator(".bell-count").inner_text(), bell.get_attribute("aria-label"))
    bell_box = bell.bounding_box()
    fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(page, f"bell-{viewport}")
    bell.click()
    page.wait_for_url("**/notifications/")
    rows = page.locator("ol.notifications li.notification.unread").count()
    screenshot(page, f"centre-{viewport}")
    target = page.locator(f"li[data-notification='{first.pk}'] a").first
    href = target.get_attribute("href")
    target.click()
    page.wait_for_load_state()
    landed = page.url.removeprefix(live_server.url)
    page.goto("/notifications/")
    page.get_by_role("button", name="Mark all read").click()
    page.wait_for_url("**/notifications/**")
    cleared = (page.locator("header a.bell .bell-count").count(),
               page.locator("header a.bell").get_attribute("aria-label"))
    assert count > 0
    assert (shown, rows, landed == href, fits, bell_box is not None and bell_box["width"] > 0,
            cleared, unread.count()) == (
        (str(count), f"Notifications: {count} unread"), count, True, True, True,
        (0, "Notifications: 0 unread"), 0)
