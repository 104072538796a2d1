"""The scenario editor in Chromium: a 100 × 100 map drawn, painted, filled and saved."""

import pytest

from campaigns.games.erfworld.scenarios import load_scenario
from campaigns.models import SavedScenario
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_gm_draws_and_saves_a_100_by_100_scenario(browser_page, login, screenshot):
    page = browser_page
    login(UserFactory())
    page.goto("/campaigns/scenarios/new/")
    assert page.locator("#sc-map [data-hex]").count() == 144

    page.fill("#sc-cols", "100")
    page.fill("#sc-rows", "100")
    page.click("#sc-resize")
    assert page.locator("#sc-map [data-hex]").count() == 10_000

    # Paint two hexes of road (the default terrain tool), with the mouse and the keyboard.
    page.locator('[data-hex="C3"]').click()
    page.fill("#sc-goto", "cv100")
    page.click("#sc-goto-apply")
    assert page.get_attribute('[data-hex="CV100"]', "class") == "t-road"

    page.click("#sc-add-type")
    page.fill("#ut-0-name", "Guard")
    page.check('input[name="sc-tool"][value="select"]')
    page.locator('[data-hex="J10"]').click()
    page.click('button[data-act="add-fort"]')
    page.click('button[data-act="add-stack"]')
    page.fill("#hx-s0-u0-count", "4")
    page.locator("#hx-s0-u0-count").dispatch_event("change")
    page.check('input[name="sc-tool"][value="victory"]')
    page.locator('[data-hex="J10"]').click()

    page.fill("#sc-key", "big_plain")
    page.fill("#sc-name", "The Big Plain")
    page.locator("#sc-name").dispatch_event("change")
    page.click("#sc-check")
    page.wait_for_function("() => document.querySelector('#sc-status').textContent !== ''")
    page.fill("#sc-key", "big_plain")
    page.locator("#sc-key").dispatch_event("change")
    page.click("#sc-save")
    page.wait_for_function(
        "() => document.querySelector('#sc-status').textContent.startsWith('Saved')")
    screenshot(page, "saved")

    assert page.errors == []
    assert page.url.endswith("/campaigns/scenarios/big_plain/edit/")
    s = load_scenario("big_plain")
    assert (s.cols, s.rows, s.victory_hex, dict(s.terrain)) == (
        100, 100, "J10", {"C3": "road", "CV100": "road"})
    assert [(st.hex, st.units) for st in s.stacks] == [("J10", (("Guard", 4),))]
    assert SavedScenario.objects.get().name == "The Big Plain"


def test_the_editor_names_the_field_the_server_refuses(browser_page, login):
    page = browser_page
    login(UserFactory())
    page.goto("/campaigns/scenarios/new/")
    page.fill("#sc-key", "no_name")
    page.locator("#sc-key").dispatch_event("change")
    page.click("#sc-save")
    page.wait_for_function("() => document.querySelector('#sc-status').textContent !== ''")
    assert page.text_content("#sc-status") == "name: must be a non-empty string."
    assert page.get_attribute("#sc-name", "aria-invalid") == "true"
    assert SavedScenario.objects.count() == 0


def test_a_scenario_file_opens_in_the_editor_with_its_terrain_and_forts(
    browser_page, login, screenshot
):
    page = browser_page
    login(UserFactory())
    page.goto("/campaigns/scenarios/broad_way/edit/")
    assert page.get_attribute('[data-hex="J10"]', "class") == "t-road"
    assert page.get_attribute('[data-hex="C11"]', "class") == "t-swamp"
    assert page.locator("#sc-marks .sc-wall").count() == 11
    assert page.locator("#sc-marks .sc-tower").count() == 3
    assert page.input_value("#sc-key") == "broad_way_copy"
    screenshot(page, "broad-way-copy")
    assert page.errors == []
