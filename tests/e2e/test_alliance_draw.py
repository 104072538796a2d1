"""The alliance's draw in Chromium: the GM declares an attack on the map and ends the
opposition phase; the player, on a phone, draws from the phase bar; the dice page shows the
draw and re-derives the rolls."""

import time

import pytest

from campaigns.games.erfworld import phase_end
from campaigns.models import Campaign, DiceRoll, Event, EventKind, Phase, Stack
from rules.dice import derive, mix_draw
from tests.e2e.conftest import PHONE
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


def _wait_for_value(locator, seconds=10):
    """The draw field's random offer (polled: the page's CSP refuses evaluated predicates)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = locator.input_value()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("the draw field stayed empty")


def test_the_gm_declares_and_a_player_draws_on_a_phone(browser_page, login, screenshot):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    Campaign.objects.filter(pk=campaign.pk).update(alliance_draw=True)
    phase_end(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    theirs = Stack.objects.filter(campaign=campaign, side__kind="opposition", hex="D4") \
        .order_by("created_seq", "pk").first()
    mine = Stack.objects.get(campaign=campaign, side__kind="alliance")
    mine.hex = "D3"  # next to D4: put there directly, the alliance's moves are not the point
    mine.save(update_fields=["hex"])
    page = browser_page
    page.on("dialog", lambda d: d.accept())
    login(gm)
    page.goto(f"/campaigns/{campaign.pk}/map/")
    page.wait_for_selector("#campaign-map[data-ready='true']")
    page.locator(f'[data-stack="{theirs.pk}"]').click()
    page.get_by_role("button", name="Attack…").click()
    page.get_by_role("button", name="Alliance stack in D3").first.click()
    page.wait_for_selector(".odds")
    page.get_by_role("button", name="Confirm attack").click()
    page.get_by_text("Declared (#1): the attack on the stack in D3 is rolled at the "
                     "alliance's draw").first.wait_for()
    page.locator(".phase-declarations").filter(
        has_text="The stack in D4 attacks the stack in D3.").wait_for()
    assert not DiceRoll.objects.filter(campaign=campaign).exclude(phase=None).filter(
        phase__kind="opposition").exists()
    # The declared stack waits: the panel says why instead of offering orders.
    page.locator(f'[data-read-only="{theirs.pk}"]').filter(
        has_text="Declared for the alliance's draw (#1)").wait_for()
    assert page.locator('[data-key="attack"]').count() == 0
    screenshot(page, "declared")
    page.locator("#phase-bar").get_by_role("button", name="End phase").click()
    page.locator(".phase-bar-message").filter(
        has_text="The opposition's orders are in").wait_for()
    phase = Phase.objects.get(campaign=campaign, status="open")
    assert (phase.kind, phase.awaiting_draw) == ("opposition", True)
    assert page.locator("#phase-bar").get_by_role("button", name="Withdraw").count() == 0

    page.goto("about:blank")  # the map page's polling would otherwise race the change of user
    page.context.clear_cookies()
    login(p1.user)
    page.set_viewport_size(PHONE)
    page.goto(f"/campaigns/{campaign.pk}/")
    field = page.get_by_label("Your draw")
    offered = _wait_for_value(field)
    assert len(offered) == 32 and int(offered, 16) >= 0
    field.fill("the river runs north")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(page, "draw-phone")
    page.get_by_role("button", name="Draw the opposition's dice").click()
    try:
        page.get_by_text("You drew: the opposition").first.wait_for()
    finally:
        screenshot(page, "after-draw")
    phase.refresh_from_db()
    assert (phase.status, phase.alliance_draw) == ("closed", "the river runs north")
    combat = Event.objects.get(campaign=campaign, kind=EventKind.COMBAT, phase=phase)
    rolls = list(DiceRoll.objects.filter(phase=phase).order_by("number"))
    assert [r.value for r in rolls] == [
        derive(mix_draw(phase.dice_seed, "the river runs north"), r.number, r.purpose, r.sides)
        for r in rolls]
    assert [d["number"] for d in combat.payload["dice"]] == [r.number for r in rolls]
    page.goto(f"/campaigns/{campaign.pk}/dice/{phase.pk}/")
    facts = page.locator("[data-draw-facts]").inner_text()
    assert f"drawn by {p1.user.public_name}" in facts
    assert mix_draw(phase.dice_seed, "the river runs north") in facts
    assert f"all {len(rolls)} rolls match" in page.locator(".dice-facts").inner_text()
    screenshot(page, "dice-phone")
    assert page.errors == []
