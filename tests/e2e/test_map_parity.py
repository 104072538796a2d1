"""The map's controls for what used to be API-only, in Chromium: a siege with its damage odds
and report, mounting (with the rule's refusal) and dismounting, the Chief Warlord sharing the
GM's pop points, and a repair paid with them. At 1280 × 800 and, for the siege, at 375 px."""

from fractions import Fraction

import pytest

from campaigns.games.erfworld import phase_end, pop_points_grant
from campaigns.models import (
    Campaign,
    Event,
    EventKind,
    Fortification,
    Membership,
    Stack,
    Unit,
    UnitType,
)
from rules.erfworld.forts import siege_damage_amount
from tests.e2e.conftest import PHONE
from tests.e2e.helpers import open_map, select_stack
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


def _move_phase(players=1):
    campaign, gm, members = started_campaign_factory(players=players)
    phase_end(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    return campaign, gm, members


def _ram_stack(member, hex_label, count=2):
    """Siege units (Attack 6 each) in `hex_label`: no army of the factory has one."""
    kind = UnitType.objects.create(campaign=member.campaign, side=member.side, owner=member,
                                   name="Ram", hits=6, attack=6, defence=2, move=1,
                                   specials=["siege"], cost=15)
    stack = Stack.objects.create(campaign=member.campaign, side=member.side, hex=hex_label)
    for i in range(count):
        Unit.objects.create(campaign=member.campaign, side=member.side, owner=member,
                            unit_type=kind, name=f"Ram {i + 1}", current_hits=6, stack=stack,
                            position=i, was_commanded=True)
    return stack


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_siege_from_the_panel_shows_the_odds_then_the_report(
        browser_context, login, screenshot, viewport):
    campaign, _, (p1,) = _move_phase()
    rams = _ram_stack(p1, "G6")
    wall = Fortification.objects.get(campaign=campaign, hex="G7", kind="wall", direction="N")
    page = browser_context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(p1.user)
    open_map(page, campaign)
    select_stack(page, rams)
    page.click('[data-key="siege"]')
    odds = page.locator(".siege-odds")
    odds.wait_for()
    # Siege attack 12, CB 1: floor(12 × (2d6 + 8) / 20) is 6 … 12, expected 155/18.
    summary = page.locator(".siege-odds .odds-summary").inner_text()
    target = page.locator(f'[data-key="siege-target-{wall.pk}"]').inner_text()
    screenshot(page, f"siege-odds-{viewport}")
    page.click('[data-key="siege-confirm"]')
    result = page.locator(".map-result")
    result.wait_for()
    event = Event.objects.get(campaign=campaign, kind=EventKind.SIEGE)
    damage = siege_damage_amount(siege_attack=12, cb=Fraction(1),
                                 rn=Fraction(sum(event.payload["roll"]) + 8, 20))
    wall.refresh_from_db()
    screenshot(page, f"siege-report-{viewport}")
    assert (target, summary, result.locator("p").first.inner_text(),
            result.get_by_role("link", name="Open the full report").get_attribute("href"),
            wall.hits, page.errors) == (
        "The N wall of G7 (hits unknown)",
        "Siege attack 12 × CB 1 × RN (2d6 + 8) / 20: expected ≈ 8.6 damage (exactly 155/18). "
        "Its hits are unknown to your side: scout its hex first to know them.",
        f"Siege of the N wall of G7: {damage} hits of damage, 20 → {20 - damage} hits.",
        f"/campaigns/{campaign.pk}/reports/{event.pk}/", 20 - damage, [])
    # Its siege units have struck: the button is disabled and says why.
    select_stack(page, rams)
    assert (page.locator('[data-key="siege"]').is_disabled(),
            page.locator(f"#siege-why-{rams.pk}").inner_text()) == (
        True, "Siege: Every siege unit of this stack has already attacked this turn; each unit "
        "attacks at most once per turn (§3).")


def test_mount_refused_by_the_rule_then_mounted_and_dismounted(browser_page, login, screenshot):
    campaign, _, (p1,) = _move_phase()
    page = browser_page
    stack = Stack.objects.get(campaign=campaign, side__kind="alliance")
    spear = Unit.objects.get(owner=p1, name="Spearman 1")
    scout = Unit.objects.get(owner=p1, name="Scout 1")
    scout2 = Unit.objects.get(owner=p1, name="Scout 2")
    login(p1.user)
    open_map(page, campaign)
    select_stack(page, stack)
    page.click('[data-key="mount"]')
    page.select_option('[data-key="mount-select"]', str(spear.pk))
    # Two scouts (3 + 3 hits) need a mount of 12 hits; a Spearman has 4.
    page.check(f'[data-key="rider-{scout.pk}"]')
    page.check(f'[data-key="rider-{scout2.pk}"]')
    page.click('[data-key="mount-confirm"]')
    refusal = page.locator('[data-error="mount"]')
    refusal.wait_for()
    refused = refusal.inner_text()
    screenshot(page, "mount-refused")
    unchanged = Unit.objects.filter(mount__isnull=False).count()
    # A Spearman (4 hits) cannot carry a Scout (3) either: 6 needed. Make a big mount.
    big = UnitType.objects.create(campaign=campaign, side=p1.side, owner=p1, name="Drake",
                                  hits=8, attack=2, defence=1, move=3, specials=[],
                                  cost=20)
    drake = Unit.objects.create(campaign=campaign, side=p1.side, owner=p1, unit_type=big,
                                name="Drake 1", current_hits=8, stack=stack, position=99,
                                was_commanded=True)
    open_map(page, campaign)
    select_stack(page, stack)
    page.click('[data-key="mount"]')
    page.select_option('[data-key="mount-select"]', str(drake.pk))
    page.check(f'[data-key="rider-{scout.pk}"]')
    page.click('[data-key="mount-confirm"]')
    page.locator(".map-result").filter(has_text="1 rider now rides Drake 1.").wait_for()
    scout.refresh_from_db()
    rides = page.locator(f'[data-stack-panel="{stack.pk}"] .rides').inner_text()
    screenshot(page, "mounted")
    page.click(f'[data-key="dismount-{scout.pk}"]')
    page.locator(".map-result").filter(has_text="Scout 1 dismounted.").wait_for()
    after = Unit.objects.get(pk=scout.pk).mount_id
    assert (refused, unchanged, scout.mount_id, rides.strip(), after, page.errors) == (
        "A mount must have at least twice the riders' starting hits (§2 mounts): riders with "
        "6 hits need a mount of 12 hits or more, this one has 4.",
        0, drake.pk, "rides Drake 1", None, [])


def test_the_chief_warlord_shares_the_pool_and_a_player_repairs(browser_page, login,
                                                                 screenshot):
    campaign, gm, (p1, p2) = _move_phase(players=2)
    pop_points_grant(user=gm, campaign=campaign, points=60)
    tower = Fortification.objects.get(campaign=campaign, hex="D4", kind="tower")
    Fortification.objects.filter(pk=tower.pk).update(owner=p1.side, hits=12)
    page = browser_page
    login(p1.user)
    open_map(page, campaign)
    pool = page.locator("[data-pop-pool]").inner_text()
    page.fill(f'[data-key="share-{p1.pk}"]', "25")
    page.fill(f'[data-key="share-{p2.pk}"]', "30")
    page.click('[data-key="share-confirm"]')
    page.locator(".map-result").filter(has_text="left in the pool").wait_for()
    shared = page.locator(".map-result p").first.inner_text()
    points = page.locator("[data-pop-points]").inner_text()
    screenshot(page, "pool-shared")
    page.fill(f'[data-key="repair-hits-{tower.pk}"]', "5")
    page.click(f'[data-key="repair-{tower.pk}"]')
    page.locator(".map-result").filter(has_text="Repaired").wait_for()
    repaired = page.locator(".map-result p").first.inner_text()
    screenshot(page, "repaired")
    tower.refresh_from_db()
    p1.refresh_from_db()
    p2.refresh_from_db()
    left = Campaign.objects.get(pk=campaign.pk).pop_pool
    assert (pool, shared, points, repaired, tower.hits, p1.pop_points, p2.pop_points, left,
            page.errors) == (
        "You hold 60 pop points granted by the GM. Share them among the alliance's players "
        "(what you keep stays in the pool).",
        f"Shared: {p1.user.public_name} 25, {p2.user.public_name} 30; 5 left in the pool.",
        "Your pop points: 25.",
        "Repaired the tower of D4 by 5 hits for 5 pop points: now 17/20 hits.",
        17, 20, 30, 5, [])
    assert Membership.objects.filter(campaign=campaign, pop_points__gt=0).count() == 2
