"""Knowledge on the map, in Chromium: the hex panel lists the units a side sighted, each stack
with the turn it was seen, and a fortification's hits as last witnessed ("seen T1"), the same
as the map's marker; after a fight the panel shows the enemy stack as it stands. At 1280 × 800
and 375 px."""

import pytest

from campaigns.games.erfworld import stack_attack, stack_split
from campaigns.models import Unit
from tests.api.play_setup import scouted_move_phase
from tests.campaigns.engine_setup import opposition_stack, own_stack, put, unit
from tests.e2e.conftest import PHONE

pytestmark = pytest.mark.django_db(transaction=True)


def _open_hex(page, campaign, label):
    page.goto(f"/campaigns/{campaign.pk}/map/")
    page.wait_for_selector("#campaign-map[data-ready='true']")
    page.locator(f'[data-hex="{label}"]').click(position={"x": 30, "y": 8})
    page.locator(".panel-hex h3", has_text=f"Hex {label}").wait_for()
    return page.locator(".panel-hex .hex-facts li").all_inner_texts()


def _units(stack):
    return ", ".join(f"{u.name} ({u.unit_type.name}, {u.current_hits} hits)"
                     for u in Unit.objects.filter(stack=stack, current_hits__gt=0)
                     .select_related("unit_type").order_by("position", "pk"))


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_panel_lists_the_sighted_units_and_the_towers_seen_hits(
        browser_context, login, screenshot, viewport):
    campaign, _, (p1,) = scouted_move_phase()
    d4 = opposition_stack(campaign, "D4")
    page = browser_context.new_page()
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(p1.user)
    facts = _open_hex(page, campaign, "D4")
    screenshot(page, f"sighted-d4-{viewport}")
    tower = page.locator('.tower[data-at="D4"] text').text_content()
    panel_lines = page.locator(".map-panel").inner_text().splitlines()
    assert (facts, tower, "null" in panel_lines) == ([
        "Tower of the opposition: 20/20 hits (seen T1)",
        f"Opposition stack, seen T1: {_units(d4)}",
    ], "20", False)


def test_after_a_fight_the_panel_shows_the_enemy_stack_as_it_stands(
        browser_page, login, screenshot):
    campaign, _, (p1,) = scouted_move_phase()
    d4 = opposition_stack(campaign, "D4")
    scout = put(stack_split(user=p1.user, campaign=campaign, stack=own_stack(p1),
                            units=[unit(p1, "Scout 2")]), "D3")
    stack_attack(user=p1.user, campaign=campaign, stack=scout, target=d4)
    login(p1.user)
    facts = _open_hex(browser_page, campaign, "D4")
    screenshot(browser_page, "fought-d4")
    # Scout 2 fought the garrison: the panel tells the units and hits it has after the fight.
    assert facts == ["Tower of the opposition: 20/20 hits (seen T1)",
                     f"Opposition stack, seen T1: {_units(d4)}"]
