"""The battle scenario editor of the "new battle" page, in Chromium: a GM draws an ELF ABAS
scenario from a blank map at a desk (terrain painted by click and by drag, pieces placed for
both sides, a camp and an entry point set with the map tools, a force added in reserve), has
a refused field shown next to its control, and creates the battle; on a 375-px phone a GM
edits a copy of the QUAD demo. What the battle stores is exactly what was drawn."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Battle, Campaign
from tests.e2e.conftest import PHONE
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _hex(page: Any, label: str) -> Any:
    return page.locator(f'#be-map [data-hex="{label}"]')


def _tool(page: Any, tool: str) -> None:
    page.locator(f'input[name="be-tool"][value="{tool}"]').check()


def test_a_gm_draws_an_elf_abas_scenario_and_creates_the_battle(browser_page, login,
                                                                 screenshot):
    login(UserFactory(username="drawer"))
    page = browser_page
    page.goto("/campaigns/battles/new/")
    page.get_by_text("Or draw your own scenario").click()
    page.select_option("#battle-system", "elf_abas")
    # The JSON box is folded away while the editor draws it.
    assert not page.locator("#battle-custom").is_visible()
    page.get_by_role("button", name="Start a blank map").click()
    page.fill("#be-cols", "6")
    page.fill("#be-rows", "5")
    page.get_by_role("button", name="Set size").click()
    assert _hex(page, "F5").count() == 1 and _hex(page, "G1").count() == 0

    # Terrain: a click paints one hex, a drag paints every hex it passes over.
    page.select_option("#be-terrain", "woods")
    _hex(page, "C3").click()
    page.select_option("#be-terrain", "village")
    start, end = _hex(page, "D2").bounding_box(), _hex(page, "D4").bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
    page.mouse.up()

    # Pieces: two Red forces and one Blue; the second Red force is made missile with four
    # figures and a Leader; Blue gets a force in reserve.
    _tool(page, "piece")
    _hex(page, "B2").click()
    _hex(page, "B4").click()
    page.select_option("#be-side", label="Blue")
    _hex(page, "E3").click()
    assert page.locator("#be-hover").inner_text() == "blue-1 placed at E3 for Blue."
    red2 = page.locator('[data-path="sides[0].forces[1]"]')
    red2.locator("select").select_option("missile")
    red2.get_by_label("Figures").fill("4")
    red2.get_by_label("Leader").check()
    page.locator('[data-path="sides[1]"]').get_by_role(
        "button", name="Add a force in reserve").click()
    # A camp and an entry point, with the map's tools, for Blue.
    _tool(page, "camp")
    _hex(page, "F5").click()
    _tool(page, "entry")
    _hex(page, "F2").click()
    page.locator('[data-path="sides[0]"]').get_by_label("Name").fill("Epping")
    assert "Epping" in page.locator("#be-side").inner_text()

    # A hex off the map is refused next to the force's hex field, and the box is unchanged
    # by the check.
    red1_hex = page.locator('[data-path="sides[0].forces[0].hex"]')
    red1_hex.fill("Q9")
    page.get_by_role("button", name="Check").click()
    error = page.locator('[data-path="sides[0].forces[0]"] .be-error')
    error.wait_for()
    assert error.inner_text() == "scenario.sides[0].forces[0].hex: Q9 is not on the 6 × 5 map."
    assert red1_hex.get_attribute("aria-invalid") == "true"
    screenshot(page, "refused")
    red1_hex.fill("B2")
    assert page.locator(".be-error").count() == 0
    page.get_by_role("button", name="Check").click()
    status = page.locator("#be-status")
    status.filter(has_text="Ready").wait_for()
    assert status.inner_text() == ("Ready: 3 forces deployed on a 6 × 5 map, 1 in reserve.")
    screenshot(page, "drawn")

    # Undo takes back the last change: a piece placed by mistake.
    _tool(page, "piece")
    _hex(page, "A1").click()
    assert page.locator("#be-map .piece").count() == 4
    page.get_by_role("button", name="Undo").click()
    assert page.locator("#be-map .piece").count() == 3
    assert page.locator('[data-path="sides[1].forces[2]"]').count() == 0

    page.fill("#battle-name", "The drawn field")
    page.fill("#battle-sight", "5")  # fog of war: each side sees 5 hexes around its eyes
    page.get_by_role("button", name="Create the battle").click()
    page.wait_for_url("**/battle/")
    battle = Battle.objects.get(campaign__name="The drawn field")
    assert (battle.system, battle.settings) == ("elf_abas", {"sight": 5})
    assert battle.scenario == {
        "map": {"cols": 6, "rows": 5,
                "terrain": {"C3": "woods", "D2": "village", "D3": "village", "D4": "village"}},
        "sides": [
            {"name": "Epping", "entry": "A4", "supplies": [], "forces": [
                {"id": "red-1", "hex": "B2", "unit": "foot"},
                {"id": "red-2", "hex": "B4", "unit": "missile", "figures": 4, "leader": True}]},
            {"name": "Blue", "entry": "F2", "supplies": ["F5"], "forces": [
                {"id": "blue-1", "hex": "E3", "unit": "foot"},
                {"id": "blue-2", "hex": None, "unit": "foot"}]},
        ]}
    assert page.errors == []


def test_a_gm_edits_a_copy_of_the_quad_demo_on_a_phone(browser, live_server, login,
                                                        screenshot):
    context = browser.new_context(viewport=PHONE, base_url=live_server.url)
    context.set_default_timeout(15_000)
    login(UserFactory(username="phone_gm"), context)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto("/campaigns/battles/new/?copy=quad_hill")
    # The copy is drawn: the demo's six units on their hexes.
    assert page.locator("#be-map .piece").count() == 6
    assert _hex(page, "H3").locator(".piece-label").text_content() == "Guard Q5"
    guard = page.locator('[data-path="sides[1].units[0]"]')
    guard.get_by_label("Quality").fill("9")
    page.get_by_role("button", name="Check").click()
    error = guard.locator(".be-error")
    error.wait_for()
    assert "scenario.sides[1].units[0].type.quality" in error.inner_text()
    screenshot(page, "refused")
    guard.get_by_label("Quality").fill("4")
    guard.get_by_label("charger").check()
    # The eraser takes Blue's scouts off H2.
    _tool(page, "erase")
    _hex(page, "H2").click()
    assert page.locator("#be-hover").inner_text() == "blue-scouts removed from H2."
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.get_by_role("button", name="Check").click()
    page.locator("#be-status").filter(has_text="Ready").wait_for()
    assert page.locator("#be-status").inner_text() == "Ready: 5 units deployed on a 8 × 6 map."
    screenshot(page, "ready")
    page.get_by_role("button", name="Create the battle").click()
    page.wait_for_url("**/battle/")
    campaign = Campaign.objects.get(ruleset_key="quad")
    scenario = Battle.objects.get(campaign=campaign).scenario
    blue = scenario["sides"][1]
    assert [u["id"] for u in blue["units"]] == ["blue-guard", "blue-levy"]
    assert blue["units"][0]["type"] == {"name": "Guard", "quality": 4, "speed": 1, "attack": 3,
                                        "defense": 3, "specials": ["charger", "elite"]}
    assert blue["policy"] == {"strike_back": "others_first"}  # kept though not drawn
    assert errors == []
    context.close()


def test_a_box_that_is_not_json_comes_back_open_with_its_error(browser_page, login):
    login(UserFactory(username="typist"))
    page = browser_page
    page.goto("/campaigns/battles/new/?draw=quad")
    page.get_by_text("The scenario as JSON").click()
    page.fill("#battle-custom", "{nope")
    assert page.locator("#be-box-error").inner_text().startswith(
        "The box does not hold a scenario the editor can draw")
    page.get_by_role("button", name="Create the battle").click()
    page.wait_for_load_state()
    error = page.locator("#custom-error")
    error.wait_for()
    assert error.inner_text().startswith("Your scenario is not JSON: Expecting property name")
    assert page.locator("#battle-custom").input_value() == "{nope"
    assert Campaign.objects.count() == 0
    assert page.errors == []
