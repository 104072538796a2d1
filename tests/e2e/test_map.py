"""The campaign map in Chromium: drawing, selection, pan and zoom, and the play tools."""

import math

import pytest

from campaigns.errors import RuleViolationError
from campaigns.games.erfworld import phase_end, pops_buy, scout_order_give
from campaigns.games.erfworld.previews import attack_preview, stack_reachable
from campaigns.models import Map, Membership, ScoutOrder, Stack, Unit, UnitType
from rules.hexgrid import Grid, format_label, parse_label
from tests.e2e.conftest import PHONE
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)

HEX_STEP = math.sqrt(3) * 30  # centre to centre of neighbours (map.js SIZE = 30)


def _open_map(page, campaign):
    page.goto(f"/campaigns/{campaign.pk}/map/")
    page.wait_for_selector("#campaign-map[data-ready='true']")


def _view(page):
    """The map's pan (x, y) and zoom as map.js publishes them on the viewport."""
    vp = page.locator(".map-viewport")
    x, y = (int(v) for v in vp.get_attribute("data-pan").split(","))
    return x, y, float(vp.get_attribute("data-zoom"))


def _own_stack(campaign, hex_label="A1"):
    return Stack.objects.get(campaign=campaign, side__kind="alliance", hex=hex_label)


def _select_stack(page, stack):
    page.locator(f'[data-stack="{stack.pk}"]').click()
    page.wait_for_selector(f'[data-stack-panel="{stack.pk}"]')


@pytest.fixture
def campaign_one_player():
    return started_campaign_factory(players=1)


def test_the_map_draws_one_element_per_hex(browser_page, login, screenshot, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    screenshot(browser_page, "map")
    assert (browser_page.locator("[data-hex]").count(), browser_page.errors) == (144, [])


def test_a_100_by_100_map_draws_10000_hexes(browser_page, login, screenshot, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    Map.objects.filter(campaign=campaign).update(cols=100, rows=100)
    login(p1.user)
    _open_map(browser_page, campaign)
    screenshot(browser_page, "big-map")
    assert (browser_page.locator("[data-hex]").count(), browser_page.errors) == (10_000, [])


def test_neighbours_are_those_of_rules_hexgrid(browser_page, login, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    labels = ["A1", "B1", "F6", "J10", "L12", "K7"]
    grid = Grid(12, 12)
    expected = {lab: [format_label(h) for h in grid.neighbors(parse_label(lab)).values()]
                for lab in labels}
    got = browser_page.evaluate(
        """async (labels) => {
            const m = await import("/static/js/map.js");
            return Object.fromEntries(labels.map((l) => [l, m.hexNeighbours(l, 12, 12)]));
        }""", labels)
    assert got == expected


def test_drawn_neighbours_touch_each_other(browser_page, login, campaign_one_player):
    """Every rules neighbour of a hex is drawn exactly one hex step away (odd-q layout)."""
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    centres = browser_page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('[data-hex]')].map((el) => {
            const b = el.getBBox(); return [el.dataset.hex, [b.x + b.width / 2, b.y + b.height / 2]];
        }))""")
    grid = Grid(12, 12)
    steps = {
        round(math.dist(centres[lab], centres[format_label(n)]), 1)
        for lab in ("A1", "B1", "E5", "F6", "J10", "L12")
        for n in grid.neighbors(parse_label(lab)).values()
    }
    assert steps == {round(HEX_STEP, 1)}


def test_selecting_a_stack_opens_the_panel_with_its_units(
    browser_page, login, screenshot, campaign_one_player
):
    campaign, _, (p1,) = campaign_one_player
    stack = _own_stack(campaign)
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, stack)
    screenshot(browser_page, "panel")
    panel = browser_page.locator(f'[data-stack-panel="{stack.pk}"]')
    headers = panel.locator("thead th").all_inner_texts()
    assert (panel.locator("tbody tr").count(), headers) == (
        13, ["Unit", "Type", "Hits", "Move left", "Attacked", "Commanded"])


def test_the_tooltip_describes_the_hovered_hex(browser_page, login, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    browser_page.locator('[data-hex="E5"]').hover(position={"x": 30, "y": 12})
    assert browser_page.locator(".map-tooltip div").first.inner_text() == "E5: Road"


def test_a_scout_path_is_drawn_and_submitted(browser_page, login, screenshot, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    stack = _own_stack(campaign)
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, stack)
    browser_page.get_by_role("button", name="Plan scout path").first.click()
    for label in ("B1", "B2", "C3"):
        browser_page.locator(f'[data-hex="{label}"]').click(position={"x": 30, "y": 8})
    plan = browser_page.locator(".scout-plan").inner_text()
    steps = browser_page.locator(".scout-step").count()
    screenshot(browser_page, "scout-path")
    browser_page.get_by_role("button", name="Submit order").click()
    browser_page.wait_for_selector(".scout-order")
    order = ScoutOrder.objects.get(scout=scout)
    assert (plan, steps, order.directions, order.inspected_hexes) == (
        "Path: A1 → B1 → B2 → C3 (3 steps left).", 3, ["SE", "S", "SE"], ["B1", "B2", "C3"])


def test_a_scout_step_that_is_not_adjacent_shows_the_rule(
    browser_page, login, campaign_one_player
):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, _own_stack(campaign))
    browser_page.get_by_role("button", name="Plan scout path").first.click()
    browser_page.locator('[data-hex="D4"]').click(position={"x": 30, "y": 8})
    assert browser_page.get_by_role("alert").inner_text() == (
        "D4 is not next to A1: a scout path is a chain of adjacent hexes (§5).")


def test_a_scout_order_is_cancelled(browser_page, login, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    scout_order_give(user=p1.user, campaign=campaign, scout=scout, directions=["SE"])
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, _own_stack(campaign))
    browser_page.get_by_role("button", name="Cancel order").click()
    browser_page.wait_for_selector(".map-result")
    assert ScoutOrder.objects.filter(scout=scout).count() == 0


def test_a_move_shows_its_costs_and_moves_the_stack(
    browser_page, login, screenshot, campaign_one_player
):
    campaign, gm, (p1,) = campaign_one_player
    phase_end(user=gm, campaign=campaign)  # scout phase → move/combat
    stack = _own_stack(campaign)
    reachable = stack_reachable(user=p1.user, campaign=campaign, stack=stack)
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, stack)
    browser_page.get_by_role("button", name="Move…").click()
    browser_page.wait_for_selector(".reach")
    shown = {g.get_attribute("data-reach"): int(g.text_content())
             for g in browser_page.locator(".reach").all()}
    browser_page.locator('[data-hex="B1"]').click(position={"x": 30, "y": 8})
    plan = browser_page.locator(".move-plan").inner_text()
    screenshot(browser_page, "move-preview")
    browser_page.get_by_role("button", name="Confirm move").click()
    browser_page.wait_for_selector(".map-result")
    screenshot(browser_page, "moved")
    stack.refresh_from_db()
    cost = shown["B1"]
    assert (shown, plan, stack.hex) == (
        {r["hex"]: r["cost"] for r in reachable["hexes"]},
        f"Move to B1 along B1: costs {cost} movement point{'' if cost == 1 else 's'}.", "B1")


def test_an_unreachable_destination_shows_why(browser_page, login, campaign_one_player):
    campaign, gm, (p1,) = campaign_one_player
    phase_end(user=gm, campaign=campaign)
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, _own_stack(campaign))
    browser_page.get_by_role("button", name="Move…").click()
    browser_page.wait_for_selector(".reach")
    browser_page.locator('[data-hex="L12"]').click(position={"x": 30, "y": 8})
    assert browser_page.get_by_role("alert").inner_text() == (
        "L12 cannot be reached by this stack now; pick a highlighted hex.")


@pytest.fixture
def enemy_next_door(campaign_one_player):
    """The opposition riders stand in B1, scouted this turn; the move/combat phase is open."""
    campaign, gm, (p1,) = campaign_one_player
    riders = Stack.objects.get(campaign=campaign, side__kind="opposition", hex="C6")
    riders.hex = "B1"
    riders.save(update_fields=["hex"])
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=["SE"])
    phase_end(user=gm, campaign=campaign)
    return campaign, gm, p1, riders


def test_an_attack_preview_shows_the_exact_odds(browser_page, login, screenshot, enemy_next_door):
    campaign, _, p1, riders = enemy_next_door
    stack = _own_stack(campaign)
    odds = attack_preview(user=p1.user, campaign=campaign, stack=stack, target=riders)["odds"]
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, stack)
    browser_page.get_by_role("button", name="Attack…").click()
    browser_page.get_by_role("button", name="Opposition stack in B1 (3 units)").click()
    browser_page.wait_for_selector(".odds")
    screenshot(browser_page, "attack-odds")
    bars = browser_page.locator(".on-defender .odds-p").all_inner_texts()
    croaks = browser_page.locator("table.croak tbody tr td:last-child").all_inner_texts()
    assert (bars, croaks) == (
        [f"{r['p']} ({r['chance'] * 100:.1f}%)" for r in odds["hits_on_defender"]],
        [f"{u['croak']} ({u['croak_chance'] * 100:.1f}%)" for u in odds["units"]],
    )


def test_a_confirmed_attack_shows_the_report_link(
    browser_page, login, screenshot, enemy_next_door
):
    campaign, _, p1, riders = enemy_next_door
    stack = _own_stack(campaign)
    login(p1.user)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, stack)
    browser_page.get_by_role("button", name="Attack…").click()
    browser_page.get_by_role("button", name="Opposition stack in B1 (3 units)").click()
    browser_page.wait_for_selector(".odds")
    browser_page.get_by_role("button", name="Confirm attack").click()
    link = browser_page.get_by_role("link", name="Open the full report")
    link.wait_for()
    screenshot(browser_page, "attack-report")
    assert link.get_attribute("href").startswith(f"/campaigns/{campaign.pk}/reports/")


def test_a_refused_pop_purchase_shows_the_rule_next_to_the_form(
    browser_page, login, campaign_one_player
):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    # No pop points: buying is offered disabled, with the reason beside it.
    disabled = browser_page.get_by_role("button", name="Buy pops…")
    why = browser_page.locator(".pops .disabled-why").first.inner_text()
    assert (disabled.is_disabled(), why) == (
        True, "Buying pops needs at least 7.5 pop points (your cheapest unit type).")
    Membership.objects.filter(pk=p1.pk).update(pop_points=22)
    scout = UnitType.objects.get(owner=p1, name="Scout")
    with pytest.raises(RuleViolationError) as refused:  # two Scouts cost 42.25: refused
        pops_buy(user=p1.user, campaign=campaign, count=2, hex="B10", unit_type=scout)
    _open_map(browser_page, campaign)
    browser_page.get_by_role("button", name="Buy pops…").click()
    browser_page.select_option('[data-key="pops-type"]', str(scout.pk))
    browser_page.fill('[data-key="pops-count"]', "2")
    browser_page.get_by_role("button", name="Buy", exact=True).click()
    alert = browser_page.locator(".pops [role=alert]")
    alert.wait_for()
    assert (alert.inner_text(), Unit.objects.filter(campaign=campaign,
                                                    stack__isnull=True).count()) == (
        refused.value.message, 0)


def test_the_gm_moves_an_opposition_stack_in_the_opposition_phase(
    browser_page, login, screenshot, campaign_one_player
):
    campaign, gm, _ = campaign_one_player
    phase_end(user=gm, campaign=campaign)  # scout → move/combat
    phase_end(user=gm, campaign=campaign)  # move/combat → opposition
    garrison = Stack.objects.get(campaign=campaign, side__kind="opposition", hex="G7")
    reachable = stack_reachable(user=gm, campaign=campaign, stack=garrison)
    login(gm)
    _open_map(browser_page, campaign)
    _select_stack(browser_page, garrison)
    browser_page.get_by_role("button", name="Move…").click()
    browser_page.wait_for_selector(".reach")
    screenshot(browser_page, "gm-move")
    assert browser_page.locator(".reach").count() == len(reachable["hexes"])


def test_a_new_phase_the_map_cannot_fetch_is_said_not_thrown(browser_page, login, campaign_one_player):
    """The session ended while the map was open: the phase bar's news of a new phase gives a
    toast naming the refusal, not an unhandled error (the map keeps what it showed)."""
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    browser_page.context.clear_cookies()
    browser_page.evaluate("document.body.dispatchEvent(new CustomEvent('phase-changed'))")
    toast = browser_page.locator('[data-toast="error"]')
    toast.wait_for()
    assert toast.inner_text() == ("The map could not follow the new phase: Authentication "
                                  "credentials were not provided. Reload the page.")
    assert (browser_page.locator("[data-hex]").count(), browser_page.errors) == (144, [])


def test_keyboard_pans_and_zooms_the_map(browser_page, login, screenshot, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    browser_page.locator(".map-viewport").focus()
    x0, y0, k0 = _view(browser_page)
    browser_page.keyboard.press("ArrowRight")
    browser_page.keyboard.press("ArrowDown")
    x1, y1, _ = _view(browser_page)
    browser_page.keyboard.press("+")
    _, _, k2 = _view(browser_page)
    screenshot(browser_page, "keyboard")
    assert (x1 - x0, y1 - y0, round(k2 / k0, 2)) == (-80, -80, 1.25)


def test_the_hex_cursor_moves_with_the_arrow_keys(browser_page, login, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    browser_page.locator(".map-viewport").focus()
    browser_page.keyboard.press("Tab")
    first = browser_page.evaluate("document.activeElement.dataset.hex")
    browser_page.keyboard.press("ArrowDown")
    browser_page.keyboard.press("ArrowRight")
    second = browser_page.evaluate("document.activeElement.dataset.hex")
    browser_page.keyboard.press("Enter")
    panel = browser_page.locator(".panel-hex h3").inner_text()
    assert (first, second, panel) == ("A1", "B2", "Hex B2")


def test_dragging_and_the_wheel_pan_and_zoom(browser_page, login, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    browser_page.locator(".map-viewport").scroll_into_view_if_needed()
    box = browser_page.locator(".map-viewport").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + 100
    x0, y0, k0 = _view(browser_page)
    browser_page.mouse.move(cx, cy)
    browser_page.mouse.down()
    browser_page.mouse.move(cx + 60, cy + 40, steps=4)
    browser_page.mouse.up()
    x1, y1, _ = _view(browser_page)
    browser_page.mouse.wheel(0, -200)
    browser_page.wait_for_function(f"() => document.querySelector('.map-viewport').dataset.zoom != '{k0}'")
    _, _, k2 = _view(browser_page)
    assert (x1 - x0, y1 - y0, round(k2 / k0, 3)) == (60, 40, round(math.exp(0.3), 3))


def test_on_a_phone_the_map_fits_and_pans_by_touch(browser, live_server, login, screenshot,
                                                   campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    context = browser.new_context(viewport=PHONE, base_url=live_server.url, has_touch=True,
                                  is_mobile=True)
    try:
        login(p1.user, context)
        page = context.new_page()
        _open_map(page, campaign)
        screenshot(page, "phone")
        width = page.evaluate("document.documentElement.scrollWidth")
        page.locator(".map-viewport").scroll_into_view_if_needed()
        box = page.locator(".map-viewport").bounding_box()
        x0, y0, _ = _view(page)
        cdp = context.new_cdp_session(page)
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart",
                                               "touchPoints": [{"x": cx, "y": cy}]})
        for i in range(1, 6):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove",
                                                   "touchPoints": [{"x": cx - 10 * i, "y": cy}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        x1, y1, _ = _view(page)
    finally:
        context.close()
    assert (width, x1 - x0, y1 - y0) == (375, -50, 0)


def test_on_a_phone_a_pinch_zooms_the_map(browser, live_server, login, campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    context = browser.new_context(viewport=PHONE, base_url=live_server.url, has_touch=True,
                                  is_mobile=True)
    try:
        login(p1.user, context)
        page = context.new_page()
        _open_map(page, campaign)
        page.locator(".map-viewport").scroll_into_view_if_needed()
        box = page.locator(".map-viewport").bounding_box()
        _, _, k0 = _view(page)
        cdp = context.new_cdp_session(page)
        cx, cy = box["x"] + box["width"] / 2, box["y"] + 100

        def touch(kind, spread):
            points = [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", 20)
        for spread in (25, 30, 35, 40):
            touch("touchMove", spread)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        _, _, k1 = _view(page)
    finally:
        context.close()
    assert round(k1 / k0, 2) == 2.0


def test_the_gm_sees_every_stack(browser_page, login, campaign_one_player):
    campaign, gm, _ = campaign_one_player
    login(gm)
    _open_map(browser_page, campaign)
    assert browser_page.locator("[data-stack]").count() == Stack.objects.filter(
        campaign=campaign).count()


def test_the_read_only_mode_draws_a_snapshot_without_tools(
    browser_page, login, campaign_one_player
):
    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    _open_map(browser_page, campaign)
    counts = browser_page.evaluate(
        """async () => {
            const m = await import("/static/js/map.js");
            const el = document.createElement("div");
            document.body.append(el);
            const snapshot = {map: {cols: 5, rows: 4, terrain: {A1: "road"}},
                stacks: [{id: 9, hex: "B2", side: "alliance", units: [{name: "U", unit_type: "T",
                current_hits: 3}]}], fortifications: []};
            const map = m.mountMap(el, snapshot, {readOnly: true});
            map.select(9);
            return [el.querySelectorAll("[data-hex]").length,
                    el.querySelectorAll(".map-panel button").length,
                    el.querySelectorAll(".map-panel tbody tr").length];
        }""")
    assert counts == [20, 0, 1]
