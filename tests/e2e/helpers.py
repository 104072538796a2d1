"""Steps the browser journeys share: designing and buying units, the flash messages, the
phase bar, and the map's hexes, stacks and results."""

from rules.erfworld.units import format_fraction, unit_cost, unit_stats_from_dict


def cost_text(stats):
    return format_fraction(unit_cost(unit_stats_from_dict(stats)))


def click_hex(page, label):
    # Near the top of the hex: the stack badges sit in its lower half.
    page.locator(f'[data-hex="{label}"]').click(position={"x": 30, "y": 8})


def flash(page):
    return page.locator(".messages .message").all_inner_texts()


def phase_bar_says(page, text):
    page.locator(".phase-bar-message").filter(has_text=text).wait_for()
    return page.locator(".phase-bar-message").inner_text()


def design(page, name, stats):
    """Types a unit type into the designer field by field; returns the live cost line."""
    form = page.locator("form.design-form")
    form.get_by_label("Name").fill(name)
    for field in ("hits", "attack", "defence", "move"):
        form.get_by_label(field.capitalize(), exact=True).fill(str(stats[field]))
    for special in stats["specials"]:
        form.get_by_label(special, exact=True).check()
    cost = form.locator(".design-cost")
    cost.filter(has_text=f"Cost: {cost_text(stats)} points").wait_for()
    return cost.inner_text()


def buy(page, type_name, count):
    page.get_by_label(f"How many {type_name} to buy").fill(str(count))
    row = page.locator("table.army tbody tr").filter(
        has=page.get_by_role("rowheader", name=type_name, exact=True))
    row.get_by_role("button", name="Buy").click()
    page.locator(".messages").wait_for()
    return flash(page)


def open_map(page, campaign):
    page.goto(f"/campaigns/{campaign.pk}/map/")
    page.wait_for_selector("#campaign-map[data-ready='true']")


def unfold_panel(page):
    """On a phone the map's panel is a sheet that starts folded: open it as a person would."""
    if page.locator(".map-sheet.folded").count():
        page.click('[data-key="sheet-handle"]')


def select_stack(page, stack):
    """Taps the stack's counter; in a hex with more stacks than counters shown (a phone shows
    two and "+1"), taps the hex and picks the stack in the panel, as a person would."""
    stack.refresh_from_db()
    counter = page.locator(f'[data-stack="{stack.pk}"]')
    if counter.count():
        counter.first.click()
    else:
        click_hex(page, stack.hex)
        page.click(f'[data-key="pick-{stack.pk}"]')
    page.wait_for_selector(f'[data-stack-panel="{stack.pk}"]')
