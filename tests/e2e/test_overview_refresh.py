"""The overview is drawn for one phase: when another phase opens (here the GM ends one in
another window), the phase bar's refresh tells the page, which is read again. Ending a phase
nobody is done with asks first, naming the consequence."""

import pytest

from campaigns.games.erfworld import phase_end
from campaigns.models import Phase, PhaseStatus
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_overview_reads_itself_again_when_another_phase_opens(browser_page, login,
                                                                 screenshot):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    page = browser_page
    login(p1.user)
    page.goto(f"/campaigns/{campaign.pk}/")
    first = page.locator("[data-overview-phase]").get_attribute("data-overview-phase")
    phase_end(user=gm, campaign=campaign)  # the GM, elsewhere
    opened = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
    # The bar refreshes every minute, or when the page says the campaign changed.
    with page.expect_navigation():
        page.evaluate("document.body.dispatchEvent(new CustomEvent('campaign-changed', "
                      "{bubbles: true}))")
    page.locator(f'[data-overview-phase="{opened.pk}"]').wait_for(state="attached")
    screenshot(page, "reloaded")
    assert (first != str(opened.pk), page.locator("#phase-bar-title").inner_text(),
            page.errors) == (True, "Turn 1: Alliance move/combat phase", [])


def test_ending_a_phase_nobody_is_done_with_names_the_consequence(browser_page, login):
    campaign, gm, _ = started_campaign_factory(players=1)
    page = browser_page
    messages = []
    page.on("dialog", lambda d: (messages.append(d.message), d.dismiss()))
    login(gm)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.locator("#phase-bar").get_by_role("button", name="End phase").click()
    page.wait_for_timeout(300)
    assert (messages, Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN).kind) == (
        ["End the alliance scout phase of turn 1 now? Nobody has marked their orders done "
         "yet: the phase closes with the orders given so far."], "scout")
