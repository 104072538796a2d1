"""A player leaves in the middle of a campaign and a newcomer takes the seat, in Chromium:
the player leaves from the overview; the Chief Warlord follows the phase bar's link and moves
the open seat's stack; the GM finds the invite link under "Fill the open seats"; a newcomer
on a 375-px phone takes the seat and finds the army on their overview."""

import pytest

from campaigns.games.erfworld import phase_end
from campaigns.models import Event, Membership, Stack, Unit
from tests.e2e.conftest import PHONE
from tests.e2e.helpers import click_hex, flash, select_stack
from tests.factories import UserFactory, started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_player_leaves_and_a_newcomer_takes_the_seat(browser, browser_context, live_server,
                                                       login, screenshot):
    campaign, gm, (chief, leaver) = started_campaign_factory(players=2)
    phase_end(user=gm, campaign=campaign)  # the move/combat phase is open
    stack = Stack.objects.get(units__owner=leaver, units__name="Warlord 1")
    units = set(Unit.objects.filter(owner=leaver, current_hits__gt=0).values_list("pk", flat=True))
    page = browser_context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))

    # The player leaves from the overview (the box must be ticked).
    login(leaver.user)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_label(f"I leave {campaign.name}").check()
    page.click('[data-key="leave"]')
    left = flash(page)
    screenshot(page, "01-left")

    # The Chief Warlord gives the open seat's orders from the phase bar's link.
    browser_context.clear_cookies()
    login(chief.user)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_role("link", name=f"give orders for {leaver.user.public_name}").click()
    page.wait_for_selector("#campaign-map[data-ready='true']")
    select_stack(page, stack)
    page.click('[data-key="move"]')
    page.wait_for_selector(".reach")
    click_hex(page, "B1")
    page.click('[data-key="move-confirm"]')
    page.locator(".map-result").filter(has_text="Moved to B1").wait_for()
    screenshot(page, "02-chief-moved-the-seat")

    # The GM shares the invite link; a newcomer on a phone takes the seat.
    browser_context.clear_cookies()
    login(gm)
    page.goto(f"/campaigns/{campaign.pk}/")
    seats = page.locator("[data-open-seats]").inner_text()
    link = page.locator("#invite-link").input_value()
    screenshot(page, "03-gm-open-seat")
    newcomer = UserFactory(username="newcomer")
    phone = browser.new_context(viewport=PHONE, base_url=live_server.url)
    phone.set_default_timeout(15_000)
    try:
        login(newcomer, phone)
        np = phone.new_page()
        np.goto(link)
        screenshot(np, "04-take-seat-phone")
        np.get_by_role("button", name=f"Take the open seat of {leaver.user.public_name}").click()
        taken = flash(np)
        army = np.locator("table.army tbody th").all_inner_texts()
        screenshot(np, "05-newcomer-army-phone")
    finally:
        phone.close()
    holder = Membership.objects.get(campaign=campaign, user=newcomer)
    event = Event.objects.get(campaign=campaign, kind="seat_taken")
    assert (left, Stack.objects.get(pk=stack.pk).hex, seats,
            set(Unit.objects.filter(owner=holder, current_hits__gt=0)
                .values_list("pk", flat=True)), taken, bool(army), event.payload["seat"],
            page.errors) == (
        [f"You left {campaign.name}. Your seat is open: the Chief Warlord commands your stacks "
         "until someone takes it."], "B1",
        f"Open: {leaver.user.public_name}'s seat. Whoever follows the link can take a seat and "
        "its army (a newcomer gets a full phase).", units,
        [f"You took over a seat in {campaign.name}: its army is yours."], True, leaver.pk, [])
