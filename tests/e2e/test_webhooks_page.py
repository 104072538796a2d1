"""The GM's webhooks page in Chromium, from the GM page's link: a refused URL is explained next
to its field, then a Discord webhook is added and listed with its URL masked. At 1280 × 800
and 375 px."""

import pytest

from tests.e2e.conftest import PHONE
from tests.factories import started_campaign_factory
from webhooks.models import Webhook

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_gm_adds_a_discord_webhook(browser_context, login, screenshot, viewport):
    campaign, gm, _ = started_campaign_factory(players=1)
    page = browser_context.new_page()
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(gm)
    page.goto(f"/campaigns/{campaign.pk}/gm/")
    page.get_by_role("link", name="Webhooks").click()
    page.select_option("select[name=format]", "discord")
    page.fill("input[name=url]", "https://example.org/not-discord")
    page.get_by_role("button", name="Add the webhook").click()
    refused = page.locator("#url-error").inner_text()
    screenshot(page, f"refused-{viewport}")
    page.fill("input[name=url]", "https://discord.com/api/webhooks/42/abcdefgh-wxyz")
    page.fill("input[name=label]", "Table talk")
    page.get_by_role("button", name="Add the webhook").click()
    row = page.locator(".webhook-list tbody tr").first
    row.wait_for()
    screenshot(page, f"added-{viewport}")
    hook = Webhook.objects.get(campaign=campaign)
    fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert (refused, row.locator("th").inner_text(), hook.label, fits) == (
        "A Discord webhook URL is on discord.com or discordapp.com (copy it from the "
        "channel's integration settings).",
        "Table talk\nDiscord · https://discord.com/api/…wxyz", "Table talk", True)
