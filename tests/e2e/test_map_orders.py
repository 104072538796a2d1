"""The map's other orders in Chromium: split, merge and reorder; editing a scout path; a
directed target and a ranged withdraw in the attack panel; a Chief Warlord giving orders for
a late player from the phase bar's link; a commander leading an attack, sent to the back."""

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.games.erfworld import phase_end, scout_order_give
from campaigns.games.erfworld.previews import attack_preview
from campaigns.models import Event, EventKind, Phase, PhaseStatus, ScoutOrder, Stack, Unit
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


def _open_map(page, campaign, query=""):
    page.goto(f"/campaigns/{campaign.pk}/map/{query}")
    page.wait_for_selector("#campaign-map[data-ready='true']")


def _select(page, stack):
    page.locator(f'[data-stack="{stack.pk}"]').click()
    page.wait_for_selector(f'[data-stack-panel="{stack.pk}"]')


def _unit_names(page, stack):
    rows = page.locator(f'[data-stack-panel="{stack.pk}"] table.units tbody th')
    return [name.strip() for name in rows.all_inner_texts()]


@pytest.fixture
def move_phase():
    """One player; the move/combat phase of turn 1 is open."""
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    phase_end(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    return campaign, gm, p1


@pytest.mark.map_cache  # arranged by services only: the cache stays on
def test_split_merge_and_reorder_from_the_panel(browser_page, login, screenshot, move_phase):
    campaign, _, p1 = move_phase
    page = browser_page
    stack = Stack.objects.get(campaign=campaign, side__kind="alliance")
    scouts = list(Unit.objects.filter(stack=stack, name__startswith="Scout").order_by("name"))
    login(p1.user)
    _open_map(page, campaign)
    _select(page, stack)
    for scout in scouts:
        page.get_by_label(f"Split off {scout.name}").check()
    page.get_by_role("button", name="Split off ticked units").click()
    page.locator(".map-result").filter(has_text="Split 2 units").wait_for()
    new_stack = Stack.objects.exclude(pk=stack.pk).get(campaign=campaign, side__kind="alliance")
    split_units = sorted(new_stack.units.values_list("name", flat=True))
    screenshot(page, "split")

    page.get_by_role("button", name="Move Scout 2 down").wait_for()
    before = _unit_names(page, new_stack)
    page.get_by_role("button", name="Move Scout 1 down").click()
    page.locator(".map-result").filter(has_text="order is changed").wait_for()
    after = _unit_names(page, new_stack)
    stored = list(new_stack.units.order_by("position").values_list("name", flat=True))

    page.get_by_role("button", name="Merge stack in A1 (11 units) into this").click()
    page.locator(".map-result").filter(has_text="Merged the stacks in A1").wait_for()
    screenshot(page, "merged")
    assert (split_units, before, after, stored,
            Stack.objects.filter(campaign=campaign, side__kind="alliance").count(),
            page.errors) == (
        ["Scout 1", "Scout 2"], ["Scout 1", "Scout 2"], ["Scout 2", "Scout 1"],
        ["Scout 2", "Scout 1"], 1, [])


def test_a_scout_path_is_edited(browser_page, login, screenshot):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    scout_order_give(user=p1.user, campaign=campaign, scout=scout, directions=["SE", "S"])
    page = browser_page
    login(p1.user)
    _open_map(page, campaign)
    _select(page, Stack.objects.get(campaign=campaign, side__kind="alliance"))
    page.get_by_role("button", name="Edit path").first.click()
    plan_before = page.locator(".scout-plan").inner_text()
    page.get_by_role("button", name="Undo last step").click()
    page.locator('[data-hex="C2"]').click(position={"x": 30, "y": 8})
    plan_after = page.locator(".scout-plan").inner_text()
    screenshot(page, "scout-edit")
    page.get_by_role("button", name="Submit order").click()
    page.locator(".scout-order").first.wait_for()
    order = ScoutOrder.objects.get(scout=scout)
    assert (plan_before, plan_after, order.directions, order.inspected_hexes) == (
        "Path: A1 → B1 → B2 (4 steps left).", "Path: A1 → B1 → C2 (4 steps left).",
        ["SE", "SE"], ["B1", "C2"])


def test_a_directed_target_changes_the_odds_shown(browser_page, login, screenshot):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    riders = Stack.objects.get(campaign=campaign, side__kind="opposition", hex="C6")
    riders.hex = "B1"  # next to the alliance: only the opposition phase could move them there
    riders.save(update_fields=["hex"])
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"), directions=["SE"])
    phase_end(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    stack = Stack.objects.get(campaign=campaign, side__kind="alliance")
    target = riders.units.order_by("position").last()
    odds = attack_preview(user=p1.user, campaign=campaign, stack=stack, target=riders,
                          directed_at=target)["odds"]
    page = browser_page
    login(p1.user)
    _open_map(page, campaign)
    _select(page, stack)
    page.get_by_role("button", name="Attack…").click()
    page.get_by_role("button", name="Opposition stack in B1 (3 units)").click()
    page.wait_for_selector(".odds")
    page.get_by_label("Directed target (led by a commander)").select_option(str(target.pk))
    expected = [f"{r['p']} ({r['chance'] * 100:.1f}%)" for r in odds["hits_on_defender"]]
    page.wait_for_function(
        "(first) => document.querySelector('.on-defender .odds-p')?.textContent === first",
        arg=expected[0])
    bars = page.locator(".on-defender .odds-p").all_inner_texts()
    screenshot(page, "directed")
    assert bars == expected


def test_a_ranged_stack_may_withdraw(browser_page, login, screenshot):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    # The GM's archers of G7 next to the alliance's stack in the opposition phase: the GM
    # attacks at range from the god-view map and withdraws.
    phase_end(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    archers = Stack.objects.get(campaign=campaign, side__kind="opposition", hex="D4")
    alliance = Stack.objects.get(campaign=campaign, side__kind="alliance")
    alliance.hex = "D3"  # next to D4: put there directly, the alliance's moves are not the point
    alliance.save(update_fields=["hex"])
    ranged = Stack.objects.create(campaign=campaign, side=archers.side, hex="D4")
    archers.units.filter(unit_type__name="Archer").update(stack=ranged)
    odds = attack_preview(user=gm, campaign=campaign, stack=ranged, target=alliance,
                          withdraw=True)["odds"]
    page = browser_page
    login(gm)
    _open_map(page, campaign)
    page.locator(f'[data-stack="{ranged.pk}"]').click()
    page.get_by_role("button", name="Attack…").click()
    page.get_by_role("button", name="Alliance stack in D3 (13 units)").click()
    page.wait_for_selector(".odds")
    page.get_by_label("Withdraw after the ranged strike").check()
    expected = [f"{r['p']} ({r['chance'] * 100:.1f}%)" for r in odds["hits_on_attacker"]]
    page.wait_for_function(
        "(n) => document.querySelectorAll('.on-attacker .odds-p').length === n",
        arg=len(expected))
    bars = page.locator(".on-attacker .odds-p").all_inner_texts()
    screenshot(page, "withdraw")
    page.get_by_role("button", name="Confirm attack").click()
    page.get_by_role("link", name="Open the full report").wait_for()
    combat = Event.objects.get(campaign=campaign, kind=EventKind.COMBAT)
    assert (bars, combat.payload["withdrew"]) == (expected, True)


def test_the_chief_warlord_moves_a_late_players_stack(browser_page, login, screenshot):
    campaign, gm, (chief, late) = started_campaign_factory(players=2)
    phase_end(user=gm, campaign=campaign)
    # The deadline has passed: waiting 72 hours is what a browser test cannot do.
    now = timezone.now()
    Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).update(
        opened_at=now - timedelta(hours=73), deadline_at=now - timedelta(hours=1))
    stack = Stack.objects.filter(campaign=campaign, units__owner=late).distinct().get()
    page = browser_page
    page.on("dialog", lambda d: d.accept())
    login(chief.user)
    _open_map(page, campaign)
    page.get_by_role("link", name=f"give orders for {late.user.public_name}").click()
    page.wait_for_selector("#campaign-map[data-ready='true']")
    banner = page.locator(".map-acting-for").inner_text()
    _select(page, stack)
    page.get_by_role("button", name="Move…").click()
    page.wait_for_selector(".reach")
    page.locator('[data-hex="B1"]').click(position={"x": 30, "y": 8})
    page.get_by_role("button", name="Confirm move").click()
    page.locator(".map-result").wait_for()
    screenshot(page, "acting-for")
    stack.refresh_from_db()
    move = Event.objects.get(campaign=campaign, kind=EventKind.STACK_MOVED)
    assert (banner.startswith(f"You are giving orders for {late.user.public_name}, who is "
                              "late"), stack.hex, move.payload["proxied_by"], page.errors) == (
        True, "B1", chief.pk, [])


@pytest.mark.map_cache  # arranged by services only: the cache stays on
def test_the_map_follows_a_phase_ended_by_someone_else(browser_page, login, screenshot):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    scout_order_give(user=p1.user, campaign=campaign, scout=scout, directions=["SE"])
    page = browser_page
    login(p1.user)
    _open_map(page, campaign)
    stack = Stack.objects.get(campaign=campaign, side__kind="alliance")
    _select(page, stack)
    before = page.locator(".scout-order").all_inner_texts()
    # The GM plays on elsewhere: the scout, move/combat and opposition phases close.
    for _ in range(3):
        phase_end(user=gm, campaign=campaign)
        campaign.refresh_from_db()
    # The phase bar's refresh (every 60 s; any change on the page asks for it at once).
    page.evaluate("document.body.dispatchEvent(new CustomEvent('campaign-changed'))")
    page.locator(".phase-bar-title").filter(has_text="Turn 2").wait_for()
    page.wait_for_function("() => window.campaignMap.model.phase.turn === 2")
    _select(page, stack)
    after = (page.locator(".scout-order").count(),
             page.get_by_role("button", name="Plan scout path").count())
    screenshot(page, "turn-2")
    assert (before, after, page.errors) == (["Ordered to inspect B1."], (0, 2), [])


def test_a_commander_leading_an_attack_is_warned_of_and_sent_to_the_back(
        browser_page, login, screenshot, move_phase):
    campaign, _, p1 = move_phase
    page = browser_page
    stack = Stack.objects.get(campaign=campaign, side__kind="alliance")
    Stack.objects.filter(pk=stack.pk).update(hex="D3")
    first = Unit.objects.filter(stack=stack).order_by("position").first()
    login(p1.user)
    _open_map(page, campaign)
    _select(page, stack)
    page.click('[data-key="attack"]')
    warning = page.locator('[data-warning="lead"]')
    warning.wait_for()
    warned = warning.inner_text()
    screenshot(page, "commander-leads")
    page.click(f'[data-key="back-{first.pk}"]')
    moved = page.locator(".map-result").filter(has_text="is now last").inner_text()
    last = list(Unit.objects.filter(stack=stack).order_by("position"))[-1]
    page.click('[data-key="attack"]')
    # (D4 is not scouted: the panel says there is nothing known to attack.)
    page.locator('[data-error="attack"]').wait_for()
    lead = Unit.objects.filter(stack=stack).order_by("position").first()
    assert (warned, moved.strip(), last.pk, page.locator('[data-warning="lead"]').inner_text(),
            page.errors) == (
        f"{first.name} (a commander) leads this stack: the defender's hits fall on it first. "
        "Send it to the back (⤓ in the units table) before attacking?",
        f"{first.name} is now last in the stack: it takes hits last.", first.pk,
        # The next in line is a scout, valuable too.
        f"{lead.name} (a scout) leads this stack: the defender's hits fall on it first. "
        "Send it to the back (⤓ in the units table) before attacking?", [])
