"""A map that reads like a wargame, at 1280 × 800 and 375 px: the page's full width, counters
readable at the default zoom (count, owner, commander), towers that never cover a counter,
labels that scale and hide, roads as lines, terrain patterns that read in greyscale and for a
deuteranope, arrows on move and scout paths, stacks that cannot move marked, toasts near the
map, the phone's panel as a sheet under the map, and the minimap of a map bigger than the
viewport."""

import io
import itertools

import pytest
from PIL import Image, ImageStat

from campaigns.exports.mapimage import TERRAIN_COLOURS as PICTURE_COLOURS
from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.models import Map, Stack, Unit
from rules.hexgrid import Grid, format_label, offset_to_hex, parse_label
from tests.e2e.conftest import PHONE
from tests.e2e.helpers import click_hex, open_map, select_stack
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)

# Boxes of every counter and every tower in screen pixels, by hex.
BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
                        return [r.left, r.top, r.right, r.bottom]; };
  const out = {};
  for (const el of document.querySelectorAll(".badge.stack, .tower")) {
    const hex = el.dataset.at;
    out[hex] = out[hex] || { counters: [], towers: [] };
    out[hex][el.classList.contains("tower") ? "towers" : "counters"].push(box(el));
  }
  return out;
}"""

# The deuteranopia simulation of Machado, Oliveira and Fernandes (2009), severity 1.
DEUTERANOPIA = ("0.367322 0.860646 -0.227968 0 0  0.280085 0.672501 0.047413 0 0  "
                "-0.011820 0.042940 0.968881 0 0  0 0 0 1 0")


def _overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.fixture
def campaign_one_player():
    return started_campaign_factory(players=1)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_counters_read_at_the_default_zoom_and_towers_never_cover_them(
        browser_page, login, screenshot, campaign_one_player, viewport):
    campaign, gm, (p1,) = campaign_one_player
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(gm)  # the god view: every garrison under its tower
    open_map(page, campaign)
    screenshot(page, f"counters-{viewport}")
    width = page.evaluate("window.innerWidth")
    shell = page.locator(".map-shell").bounding_box()
    count_px = page.evaluate("""() => Math.min(...[...document.querySelectorAll(
        ".badge.stack text.count")].map((t) => t.getBoundingClientRect().height))""")
    label_px = page.evaluate("""() => Math.min(...[...document.querySelectorAll(
        ".labels text")].map((t) => t.getBoundingClientRect().height))""")
    boxes = page.evaluate(BOXES)
    covered = sorted(hex for hex, b in boxes.items()
                     if any(_overlaps(t, c) for t in b["towers"] for c in b["counters"]))
    with_both = sorted(hex for hex, b in boxes.items() if b["towers"] and b["counters"])
    # Zoomed right out, the labels are too small to read and are left out.
    for _ in range(12):
        page.get_by_role("button", name="Zoom out").click()
    page.locator(".labels text").first.wait_for(state="detached", timeout=3000)
    labels_far = page.locator(".labels text").count()
    assert (shell["width"] >= width - 40, count_px >= 10, label_px >= 7, covered, len(with_both) >= 3,
            labels_far, page.errors) == (True, True, True, [], True, 0, [])


def test_roads_are_lines_and_the_terrain_reads_in_greyscale_and_for_a_deuteranope(
        browser_page, login, screenshot, campaign_one_player):
    campaign, gm, _ = campaign_one_player
    page = browser_page
    login(gm)
    open_map(page, campaign)
    terrain = Map.objects.get(campaign=campaign).terrain
    grid = Grid(12, 12)
    roads = {hex for hex, t in terrain.items() if t == "road"}
    pairs = {tuple(sorted((hex, format_label(n)))) for hex in roads
             for n in grid.neighbors(parse_label(hex)).values() if format_label(n) in roads}
    drawn = page.evaluate("""() => (document.querySelector('.roads .road')
        .getAttribute('d').match(/M/g) || []).length""")
    road_fill = page.evaluate("""(hex) => getComputedStyle(
        document.querySelector(`[data-hex="${hex}"]`)).fill""", sorted(roads)[0])
    # A hex of each terrain with nothing drawn on it, to read its pattern on the screen.
    busy = set(Stack.objects.filter(campaign=campaign).values_list("hex", flat=True))
    busy |= set(campaign.fortifications.values_list("hex", flat=True))
    sample = {}
    for col, row in itertools.product(range(12), range(1, 13)):
        label = format_label(offset_to_hex(col=col, row=row))
        kind = terrain.get(label, "open")
        if label not in busy and kind != "road" and kind not in sample:
            sample[kind] = label
    signatures = {}
    for name, css in (("greyscale", "grayscale(1)"), ("deuteranopia", "url(#simulate)")):
        page.evaluate("""([css, matrix]) => {
            let svg = document.getElementById("simulate-box");
            if (!svg) {
              svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
              svg.id = "simulate-box";
              svg.setAttribute("width", "0");
              svg.setAttribute("height", "0");
              svg.innerHTML = `<filter id="simulate"><feColorMatrix type="matrix" values="${matrix}"/></filter>`;
              document.body.append(svg);
            }
            document.documentElement.style.filter = css;
        }""", [css, DEUTERANOPIA])
        shot = Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("L")
        scroll = page.evaluate("[window.scrollX, window.scrollY]")
        screenshot(page, f"terrain-{name}")
        signatures[name] = {}
        for kind, label in sample.items():
            box = page.locator(f'[data-hex="{label}"]').bounding_box()
            cx = box["x"] + scroll[0] + box["width"] / 2
            cy = box["y"] + scroll[1] + box["height"] / 2
            patch = shot.crop((int(cx - 9), int(cy - 4), int(cx + 9), int(cy + 14)))
            stat = ImageStat.Stat(patch)
            signatures[name][kind] = (stat.mean[0], stat.stddev[0])
    # Every two terrains differ on the screen in brightness or in texture, in both simulations.
    alike = [(name, a, b) for name, sig in signatures.items()
             for a, b in itertools.combinations(sorted(sig), 2)
             if abs(sig[a][0] - sig[b][0]) < 12 and abs(sig[a][1] - sig[b][1]) < 6]
    textured = {kind for kind, (_, std) in signatures["greyscale"].items() if std >= 6}
    assert (drawn, road_fill, alike, textured, page.errors) == (
        len(pairs), 'url("#wc-t-road") rgb(228, 235, 200)', [], set(sample) - {"open"}, [])
    assert len(sample) >= 4


def test_paths_are_arrows_and_a_stack_that_cannot_move_is_marked(
        browser_page, login, screenshot, campaign_one_player):
    campaign, gm, (p1,) = campaign_one_player
    page = browser_page
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    order = scout_order_give(user=p1.user, campaign=campaign, scout=scout, directions=["SE", "SE"])
    login(p1.user)
    open_map(page, campaign)
    planned = page.locator(f'polyline.scout-path.planned[data-scout-order="{scout.pk}"]')
    scout_arrow = (planned.count(), planned.evaluate("(el) => getComputedStyle(el).markerEnd"),
                   len(planned.get_attribute("points").split()))
    phase_end(user=gm, campaign=campaign)  # move/combat
    home = Stack.objects.get(campaign=campaign, side__kind="alliance", hex="A1")
    # A constructed position: three spearmen that no commander has been with this turn.
    spears = list(home.units.filter(name__startswith="Spearman").order_by("position")[:3])
    stuck = Stack.objects.create(campaign=campaign, side=home.side, hex="A2")
    Unit.objects.filter(pk__in=[u.pk for u in spears]).update(stack=stuck, was_commanded=False)
    open_map(page, campaign)
    marks = (page.locator(f'[data-stack="{stuck.pk}"] .no-command').count(),
             page.locator(f'[data-stack="{home.pk}"] .no-command').count())
    select_stack(page, home)
    page.click('[data-key="move"]')
    page.wait_for_selector(".reach")
    click_hex(page, "B2")
    move = page.locator("polyline.move-path")
    move.wait_for()
    move_arrow = move.evaluate("(el) => getComputedStyle(el).markerEnd")
    screenshot(page, "arrows")
    assert (scout_arrow, marks, move_arrow, page.errors) == (
        (1, 'url("#wc-arrow-scout")', 1 + len(order.inspected_hexes)), (1, 0),
        'url("#wc-arrow-move")', [])


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_results_and_refusals_appear_as_toasts_on_the_map(
        browser_page, login, screenshot, campaign_one_player, viewport):
    campaign, gm, (p1,) = campaign_one_player
    phase_end(user=gm, campaign=campaign)  # move/combat
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    home = Stack.objects.get(campaign=campaign, side__kind="alliance", hex="A1")
    login(p1.user)
    open_map(page, campaign)
    select_stack(page, home)
    page.click('[data-key="move"]')
    page.wait_for_selector(".reach")
    click_hex(page, "A4")
    refusal = page.locator(".map-toast.error")
    refusal.wait_for()
    inside = page.evaluate("""() => {
        const t = document.querySelector(".map-toast.error").getBoundingClientRect();
        const v = document.querySelector(".map-viewport").getBoundingClientRect();
        return t.left >= v.left && t.right <= v.right && t.top >= v.top && t.bottom <= v.bottom;
    }""")
    screenshot(page, f"toast-refusal-{viewport}")
    refused_text = refusal.inner_text()
    page.keyboard.press("Escape")
    # To the back: the panel stays where it was scrolled to.
    last = home.units.order_by("position").first()
    back = page.locator(f'[data-key="back-{last.pk}"]')
    back.scroll_into_view_if_needed()
    before = page.evaluate("document.querySelector('.map-panel').scrollTop")
    back.click()
    done = page.locator(".map-toast.result")
    done.wait_for()
    after = page.evaluate("document.querySelector('.map-panel').scrollTop")
    screenshot(page, f"toast-result-{viewport}")
    assert (refused_text, inside, done.inner_text(), after == before, page.errors) == (
        "A4 cannot be reached by this stack now; pick a highlighted hex.", True,
        f"{last.name} is now last in the stack: it takes hits last.", True, [])


def test_on_a_phone_the_panel_is_a_sheet_under_the_map(browser_page, login, screenshot,
                                                       campaign_one_player):
    campaign, _, (p1,) = campaign_one_player
    page = browser_page
    page.set_viewport_size(PHONE)
    home = Stack.objects.get(campaign=campaign, side__kind="alliance", hex="A1")
    login(p1.user)
    open_map(page, campaign)
    folded = (page.locator(".map-sheet.folded").count(), page.locator(".map-panel").is_visible())
    page.evaluate("document.querySelector('.map-body').scrollIntoView()")
    screenshot(page, "sheet-folded")
    select_stack(page, home)
    geometry = page.evaluate("""() => {
        const v = document.querySelector(".map-viewport").getBoundingClientRect();
        const s = document.querySelector(".map-sheet").getBoundingClientRect();
        const table = document.querySelector("table.units");
        return { apart: v.bottom <= s.top + 1, onScreen: s.bottom <= window.innerHeight + 1,
                 mapTall: v.height >= 200, tableFits: table.scrollWidth <= table.parentElement.clientWidth };
    }""")
    screenshot(page, "sheet-open")
    # A scout path is planned by tapping hexes: the page does not scroll between map and panel.
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    page.click(f'[data-key="scout-plan-{scout.pk}"]')
    y0 = page.evaluate("window.scrollY")
    for label in ("B1", "B2"):
        click_hex(page, label)
    plan = page.locator(".scout-plan").inner_text()
    y1 = page.evaluate("window.scrollY")
    page.click('[data-key="sheet-handle"]')
    folded_again = page.locator(".map-panel").is_visible()
    assert (folded, geometry, plan, y1 == y0, folded_again, page.errors) == (
        (1, False), {"apart": True, "onScreen": True, "mapTall": True, "tableFits": True},
        "Path: A1 → B1 → B2 (4 steps left).", True, False, [])


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_map_bigger_than_the_viewport_has_a_minimap(browser_page, login, screenshot,
                                                     campaign_one_player, viewport):
    campaign, _, (p1,) = campaign_one_player
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(p1.user)
    open_map(page, campaign)
    small = (page.locator("[data-minimap]").is_visible(),
             page.locator('[data-key="minimap-toggle"]').is_visible())
    Map.objects.filter(campaign=campaign).update(cols=40, rows=40)
    open_map(page, campaign)
    toggle = page.locator('[data-key="minimap-toggle"]')
    shown_at_first = page.locator("[data-minimap]").is_visible()
    if not shown_at_first:
        toggle.click()
    mini = page.locator("[data-minimap]")
    mini.wait_for()
    frame = page.locator(".minimap-frame").bounding_box()
    canvas = page.locator(".minimap-canvas").bounding_box()
    pan_before = page.locator(".map-viewport").get_attribute("data-pan")
    # A click in the minimap's lower right corner brings that corner of the map into view,
    # its edges at the viewport's.
    page.mouse.click(canvas["x"] + canvas["width"] - 4, canvas["y"] + canvas["height"] - 4)
    x, y = (int(v) for v in page.locator(".map-viewport").get_attribute("data-pan").split(","))
    k = float(page.locator(".map-viewport").get_attribute("data-zoom"))
    w, h = page.evaluate("""() => { const v = document.querySelector(".map-viewport");
                                    return [v.clientWidth, v.clientHeight]; }""")
    # map.js's size of a 40 x 40 map: 60 + 39 x 45 wide, 40 x 51.96 + 25.98 high.
    corner = (abs(x + 1815 * k - w) <= 2, abs(y + 2104.38 * k - h) <= 2)
    screenshot(page, f"minimap-{viewport}")
    toggle.click()
    hidden_after = mini.is_hidden()
    assert (small, shown_at_first, frame["width"] < canvas["width"], pan_before != f"{x},{y}",
            corner, hidden_after, page.errors) == (
        (False, False), viewport == "desktop", True, True, (True, True), True, [])


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_phase_bar_says_paused_waiting_and_done_can_be_taken_back(
        browser_page, login, screenshot, viewport):
    from campaigns.services.deadlines import campaign_pause, campaign_resume

    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(p1.user)
    # "I'm done", then taken back, on the map page itself.
    open_map(page, campaign)
    page.get_by_role("button", name="I'm done").click()
    page.locator('[data-key="phase-undone"]').click()
    page.get_by_role("button", name="I'm done").wait_for()
    undone = page.locator(".phase-players").inner_text()
    campaign_pause(user=gm, campaign=campaign, reason="Snowed in.")
    open_map(page, campaign)
    paused = page.locator(".phase-paused").inner_text()
    countdowns = page.locator("[data-countdown]").count()
    screenshot(page, f"paused-{viewport}")
    campaign_resume(user=gm, campaign=campaign, reason="Back.")
    phase_end(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)  # the opposition phase
    open_map(page, campaign)
    waiting = page.locator(".phase-waiting").first.inner_text()
    screenshot(page, f"opposition-{viewport}")
    assert (undone.split("\n")[0], paused, countdowns, waiting, page.errors) == (
        f"{p1.user.public_name} (Chief Warlord): not done yet",
        "Paused by the GM: Snowed in. The clock is stopped; the phase will have 2 d 23 h 59 min "
        "left when the GM resumes.", 0,
        "Waiting for the GM (opposition phase): the opposition moves and fights; your turn "
        "comes next.", [])


def test_a_click_on_a_wall_selects_its_hex(browser_page, login, campaign_one_player):
    campaign, gm, _ = campaign_one_player
    page = browser_page
    login(gm)
    open_map(page, campaign)
    wall = page.locator("line.wall").first
    box = wall.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    heading = page.locator(".map-panel h3").first.inner_text()
    # The hexside lies between two hexes: either may take the click, never nothing.
    wall_hexes = {f.hex for f in campaign.fortifications.filter(kind="wall")}
    assert heading.startswith("Hex ") and page.errors == []
    assert heading.removeprefix("Hex ") in wall_hexes | {
        format_label(n) for h in wall_hexes for n in Grid(12, 12).neighbors(parse_label(h)).values()}


def test_the_map_benchmark_draws_the_same_terrain_patterns(browser_page, login,
                                                           campaign_one_player):
    """tests/bench/bench_map_page.py's static SVG (the baseline) copies map.js's patterns."""
    from tests.bench.terrain import pattern_defs

    campaign, _, (p1,) = campaign_one_player
    login(p1.user)
    open_map(browser_page, campaign)
    defs = browser_page.evaluate(
        'async () => (await import("/static/js/map.js")).patternDefs()')
    colours = browser_page.evaluate(
        'async () => (await import("/static/js/map.js")).TERRAIN_COLOURS')
    # The map pictures for forums (campaigns/exports/mapimage.py) use the same colours.
    assert (defs, colours) == (pattern_defs(), PICTURE_COLOURS)
