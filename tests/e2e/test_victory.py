"""The Broad Way won in Chromium, through the pages only: the GM creates the campaign; rowan
(at 1280 × 800) and ivy (on a 375-px phone) join, design armies with a siege unit and a
flier, buy them and elect rowan Chief Warlord; then three turns:

1. rowan scouts D4, the GM grants pop points, rowan shares them and both buy pops for I10;
   rowan's riders move down the road, fight D4's garrison and capture its tower; his griffon
   flies ahead alone; ivy's stack marches down the road (on her phone). The GM moves the G7
   garrison out through its open side.
2. The pops stand in I10. ivy scouts I9 and J10 (phone), splits her rams, marches two to J8
   and strikes I9's NE wall, and breaches J10's NW wall with the other six (phone). rowan's
   bowmen wipe out I9's garrison, capture I9 and repair its wall with pop points. The griffon
   cannot move (no commander was in its hex) until ivy's captain passes through it: the
   commander relay. rowan's riders walk into the riders hidden in the woods of C6: an ambush;
   they win it and step into the woods. The GM attacks the griffon.
3. ivy scouts J10 and her longbows wipe out its first stack (phone); rowan's bowmen the
   second; ivy's stack walks through the breach into J10, and the overview shows the victory.

The dice are the campaign's own, from seeds the test fixes (the seed generator is replaced,
nothing else); the designs are chosen so that every fight the plan needs is won for any roll,
and every step's numbers are asserted against the stored reports. Screenshots of every step
go to test-artifacts/.

Not in this journey: attacking a tower from inside its hex. Under the rules a side can never
stand in a hex whose tower belongs to the enemy: entering an enemy tower's hex needs it free
of enemy stacks (§2), and occupying it captures it at once (§4). The siege panel's tower case
is covered where its position is constructed (tests/api/test_play_combat.py).
"""

import hashlib
import itertools

import pytest

from campaigns.models import (
    Campaign,
    Event,
    EventKind,
    Fortification,
    Membership,
    Phase,
    PhaseStatus,
    Stack,
    Unit,
)
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.helpers import (
    buy,
    click_hex,
    design,
    flash,
    open_map,
    phase_bar_says,
    select_stack,
    unfold_panel,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

# Design order is stack order at the start: rowan's riders stand in front of his warlord.
ROWAN = [
    ("Rider", {"hits": 5, "attack": 8, "defence": 4, "move": 5, "specials": []}, 7),
    ("Warlord", {"hits": 5, "attack": 5, "defence": 3, "move": 5, "specials": ["commander"]}, 1),
    ("Scout", {"hits": 3, "attack": 2, "defence": 2, "move": 5, "specials": ["scout"]}, 1),
    ("Griffon", {"hits": 12, "attack": 8, "defence": 5, "move": 5, "specials": ["flying"]}, 1),
    ("Bowman", {"hits": 10, "attack": 15, "defence": 0, "move": 2, "specials": ["ranged"]}, 0),
]
IVY = [
    ("Longbow", {"hits": 20, "attack": 30, "defence": 0, "move": 2, "specials": ["ranged"]}, 0),
    ("Seer", {"hits": 3, "attack": 2, "defence": 2, "move": 2, "specials": ["scout", "ranged"]}, 1),
    ("Captain", {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["commander"]}, 1),
    ("Ram", {"hits": 7, "attack": 11, "defence": 0, "move": 2, "specials": ["siege"]}, 2),
]
ROWAN_POPS = [("Bowman", 8), ("Warlord", 1)]
IVY_POPS = [("Longbow", 8), ("Seer", 1), ("Captain", 1), ("Ram", 8)]
GRANT, IVY_SHARE, ROWAN_SHARE = 1650, 1210, 420


@pytest.fixture
def fixed_seeds(monkeypatch):
    """The campaign's seeds come from a counter instead of the system's randomness."""
    import campaigns.games.erfworld.setup
    import campaigns.services.phase_state

    counter = itertools.count()

    def seed():
        return hashlib.sha256(f"broad-way-victory-{next(counter)}".encode()).hexdigest()

    monkeypatch.setattr(campaigns.games.erfworld.setup, "new_seed", seed)
    monkeypatch.setattr(campaigns.services.phase_state, "new_seed", seed)  # each phase's


def _player_page(browser, live_server, login, user, viewport):
    context = browser.new_context(viewport=viewport, base_url=live_server.url)
    context.set_default_timeout(15_000)
    login(user, context)
    page = context.new_page()
    page.on("dialog", lambda d: d.accept())
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return context, page


def _result(page, text):
    """The panel's result line once it says `text`."""
    box = page.locator(".map-result").filter(has_text=text)
    box.wait_for()
    return box.locator("p").first.inner_text()


def _event(campaign, kind, **payload):
    events = [e for e in Event.objects.filter(campaign=campaign, kind=kind).order_by("created_at")
              if all(e.payload.get(k) == v for k, v in payload.items())]
    return events[-1]


def _stack_of(unit_name, owner):
    return Unit.objects.get(owner=owner, name=unit_name).stack


def _move(page, stack, dest, done_text):
    select_stack(page, stack)
    page.click('[data-key="move"]')
    page.wait_for_selector(".reach")
    click_hex(page, dest)
    plan = page.locator(".move-plan").inner_text()
    page.click('[data-key="move-confirm"]')
    return plan, _result(page, done_text)


def _attack(page, stack, target):
    select_stack(page, stack)
    page.click('[data-key="attack"]')
    page.click(f'[data-key="target-{target.pk}"]')
    page.wait_for_selector(".odds")
    summary = page.locator(".odds-summary").inner_text()
    page.click('[data-key="attack-confirm"]')
    return summary, _result(page, "Attacked the stack")


def _siege(page, stack, fort):
    select_stack(page, stack)
    page.click('[data-key="siege"]')
    page.click(f'[data-key="siege-target-{fort.pk}"]')
    summary = page.locator(".siege-odds .odds-summary").inner_text()
    page.click('[data-key="siege-confirm"]')
    return summary, _result(page, "Siege of")


def _split(page, stack, units):
    select_stack(page, stack)
    for unit in units:
        page.check(f'[data-key="split-{unit.pk}"]')
    page.click('[data-key="split"]')
    _result(page, f"Split {len(units)} units into a new stack")
    return Unit.objects.get(pk=units[0].pk).stack


def _scout(page, stack, scout, hexes):
    select_stack(page, stack)
    page.click(f'[data-key="scout-plan-{scout.pk}"]')
    for label in hexes:
        click_hex(page, label)
    plan = page.locator(".scout-plan").inner_text()
    page.click('[data-key="scout-submit"]')
    page.locator(".scout-order").wait_for()
    return plan


def _buy_pops(page, type_name, count, hex_label="I10"):
    unfold_panel(page)
    page.click('[data-key="pops-start"]')
    options = page.locator('[data-key="pops-type"] option').all_inner_texts()
    label = next(o for o in options if o.startswith(f"{type_name} ("))
    page.select_option('[data-key="pops-type"]', label=label)
    page.fill('[data-key="pops-count"]', str(count))
    page.select_option('[data-key="pops-hex"]', hex_label)
    page.click('[data-key="pops-buy"]')
    return _result(page, f"Bought {count} × {type_name}")


def _done(page):
    page.get_by_role("button", name="I'm done").click()
    phase_bar_says(page, "Your orders are marked done.")


def _end_alliance_phase(rowan_page, ivy_page, campaign, next_text):
    for page in (ivy_page, rowan_page):
        open_map(page, campaign)
        _done(page)
    rowan_page.get_by_role("button", name="End phase").click()
    return phase_bar_says(rowan_page, next_text)


def _gm_end_opposition(gm_page, campaign, turn):
    gm_page.goto("/campaigns/gm/")
    gm_page.get_by_role("link", name=campaign.name).click()
    gm_page.get_by_role("button", name=f"End turn {turn}: opposition phase").click()
    gm_page.locator(".gm-success").first.wait_for()
    return gm_page.locator(".gm-success").first.inner_text()


def test_the_broad_way_is_won_in_the_browser(browser, browser_page, live_server, login,
                                             screenshot, fixed_seeds):
    gm_page = browser_page
    gm_page.on("dialog", lambda d: d.accept())
    gm = UserFactory(username="gamemaster")
    rowan = UserFactory(username="rowan")
    ivy = UserFactory(username="ivy")

    # --- The GM creates the campaign (the opposition where the scenario puts it).
    login(gm)
    gm_page.goto("/campaigns/gm/")
    gm_page.get_by_label("Scenario", exact=True).select_option("broad_way")
    gm_page.locator("#new-name").fill("Victory on the Broad Way")
    gm_page.get_by_label("Shuffle the opposition's start hexes").uncheck()
    gm_page.get_by_role("button", name="Create the campaign").click()
    invite = gm_page.get_by_label("Invite link of Victory on the Broad Way").first
    invite.wait_for()
    campaign = Campaign.objects.get(name="Victory on the Broad Way")
    screenshot(gm_page, "01-created")

    rowan_context, rp = _player_page(browser, live_server, login, rowan, DESKTOP)
    ivy_context, ip = _player_page(browser, live_server, login, ivy, PHONE)
    try:
        # --- Both join, design their armies (a siege unit, a flier), buy them, vote.
        for page, army, who in ((rp, ROWAN, "rowan"), (ip, IVY, "ivy")):
            page.goto(invite.input_value())
            page.get_by_role("button", name="Join the alliance").click()
            assert flash(page) == ["You joined the alliance of Victory on the Broad Way."]
            for name, stats, count in army:
                design(page, name, stats)
                page.get_by_role("button", name="Create unit type").click()
                page.locator("table.army").get_by_role("rowheader", name=name).wait_for()
                if count:
                    buy(page, name, count)
            screenshot(page, f"02-army-{who}")
            page.get_by_role("button", name="My army is ready").click()
            assert flash(page) == ["Your army is ready."]
        for page in (rp, ip):
            page.get_by_label("Vote for").select_option(label="rowan")
            page.get_by_role("button", name="Vote").click()
            assert flash(page) == ["You voted for rowan as Chief Warlord."]
        m_rowan = Membership.objects.get(campaign=campaign, user=rowan)
        m_ivy = Membership.objects.get(campaign=campaign, user=ivy)
        gm_page.goto(f"/campaigns/{campaign.pk}/")
        gm_page.get_by_role("button", name="Start the campaign").click()
        assert flash(gm_page) == ["The campaign has started: turn 1's scout phase is open."]
        m_rowan.refresh_from_db()
        assert m_rowan.is_chief_warlord

        # === Turn 1: scout phase. rowan scouts D4.
        riders = _stack_of("Warlord 1", m_rowan)
        rscout = Unit.objects.get(owner=m_rowan, name="Scout 1")
        open_map(rp, campaign)
        plan = _scout(rp, riders, rscout, ["B1", "B2", "C3", "D3", "D4"])
        screenshot(rp, "03-t1-scout")
        assert plan == "Path: A1 → B1 → B2 → C3 → D3 → D4 (2 steps left)."

        # The GM grants pop points; rowan shares them; both buy pops for I10.
        gm_page.goto("/campaigns/gm/")
        gm_page.get_by_role("link", name=campaign.name).click()
        gm_page.get_by_label("Pop points").fill(str(GRANT))
        gm_page.get_by_role("button", name="Grant").click()
        gm_page.locator(".gm-success").filter(has_text="Granted").wait_for()
        open_map(rp, campaign)
        rp.fill(f'[data-key="share-{m_ivy.pk}"]', str(IVY_SHARE))
        rp.fill(f'[data-key="share-{m_rowan.pk}"]', str(ROWAN_SHARE))
        rp.click('[data-key="share-confirm"]')
        shared = _result(rp, "left in the pool")
        assert shared == (f"Shared: rowan {ROWAN_SHARE}, ivy {IVY_SHARE}; "
                          f"{GRANT - IVY_SHARE - ROWAN_SHARE} left in the pool.")
        for type_name, count in ROWAN_POPS:
            assert _buy_pops(rp, type_name, count) == (
                f"Bought {count} × {type_name}; they appear in I10 at the next scout phase.")
        open_map(ip, campaign)
        for type_name, count in IVY_POPS:
            _buy_pops(ip, type_name, count)
        screenshot(ip, "04-t1-pops-bought-phone")
        ended = _end_alliance_phase(rp, ip, campaign, "The phase is closed")
        assert ended == "The phase is closed; turn 1: the alliance move/combat phase is open."

        # === Turn 1: move/combat. The griffon leaves the riders' stack (fliers fly alone).
        griffon = Unit.objects.get(owner=m_rowan, name="Griffon 1")
        open_map(rp, campaign)
        select_stack(rp, riders)
        rp.check(f'[data-key="split-{griffon.pk}"]')
        rp.click('[data-key="split"]')
        _result(rp, "Split 1 unit into a new stack in A1.")
        griffon.refresh_from_db()
        gstack = griffon.stack

        # The riders down the road to D3, attack D4's garrison, step into its tower.
        plan, moved = _move(rp, riders, "D3", "Moved to D3")
        assert (plan, moved) == ("Move to D3 along B1 → B2 → C3 → D3: costs 4 movement points.",
                                 "Moved to D3 for 4 movement points.")
        d4 = Stack.objects.get(campaign=campaign, hex="D4", side__kind="opposition")
        _, attacked = _attack(rp, riders, d4)
        combat = _event(campaign, EventKind.COMBAT, attacker=riders.pk)
        r = combat.payload["result"]
        screenshot(rp, "05-t1-d4-attacked")
        # Every rider has attacked: a second attack could only fail, so it is not offered.
        assert (rp.locator(f'[data-stack-panel="{riders.pk}"] [data-key="attack"]').is_disabled(),
                rp.locator(f"#attack-why-{riders.pk}").inner_text()) == (
            True, "Attack: Every unit of this stack has already attacked this turn; each unit "
            "attacks at most once per turn (§3).")
        assert (attacked, r["winner"], Stack.objects.filter(pk=d4.pk).exists()) == (
            f"Attacked the stack in D4. {r['hits_on_defender']} hits on the defender, "
            f"{r['hits_on_attacker']} hits on the attacker. Winner: attacker.", "attacker",
            False)
        plan, moved = _move(rp, riders, "D4", "Moved to D4")
        screenshot(rp, "06-t1-d4-captured")
        assert (plan, {f.owner.kind for f in Fortification.objects.filter(
            campaign=campaign, hex="D4")}) == (
            "Move to D4 along D4: costs 1 movement point.", {"alliance"})
        plan, moved = _move(rp, gstack, "D3", "Moved to D3")
        assert moved == "Moved to D3 for 4 movement points."

        # ivy's stack marches down the road, on her phone.
        ivy_stack = _stack_of("Captain 1", m_ivy)
        open_map(ip, campaign)
        plan, moved = _move(ip, ivy_stack, "C3", "Moved to C3")
        screenshot(ip, "07-t1-ivy-moved-phone")
        assert (plan, moved) == ("Move to C3 along B1 → B2 → C3: costs 3 movement points. The "
                                 "road bonus gives the extra hex: the whole move is on road "
                                 "(§2).",
                                 "Moved to C3 for 3 movement points.")
        ended = _end_alliance_phase(rp, ip, campaign, "The phase is closed")
        assert ended == "The phase is closed; turn 1: the opposition phase is open."

        # === Turn 1: the opposition phase, played by the GM on the map.
        g7 = Stack.objects.get(campaign=campaign, hex="G7", side__kind="opposition")
        open_map(gm_page, campaign)
        plan, moved = _move(gm_page, g7, "F7", "Moved to F7")
        screenshot(gm_page, "08-t1-gm-moved")
        assert moved == "Moved to F7 for 1 movement point."
        assert _gm_end_opposition(gm_page, campaign, 1) == (
            "Phase ended; now turn 2: Alliance scout phase.")

        # === Turn 2: scout phase. The pops stand in I10; ivy scouts I9 and J10.
        ivy_pops = _stack_of("Longbow 1", m_ivy)
        rowan_pops = _stack_of("Bowman 1", m_rowan)
        seer = Unit.objects.get(owner=m_ivy, name="Seer 2")
        assert (ivy_pops.hex, rowan_pops.hex) == ("I10", "I10")
        open_map(ip, campaign)
        plan = _scout(ip, ivy_pops, seer, ["I9", "J9", "J10"])
        screenshot(ip, "09-t2-scout-phone")
        assert plan == "Path: I10 → I9 → J9 → J10 (0 steps left)."
        _end_alliance_phase(rp, ip, campaign, "The phase is closed")

        # === Turn 2: move/combat. ivy (phone): two rams to J8 against I9's NE wall.
        rams = list(Unit.objects.filter(stack=ivy_pops, name__startswith="Ram")
                    .order_by("position"))
        open_map(ip, campaign)
        ram_b = _split(ip, ivy_pops, rams[:2])
        plan, moved = _move(ip, ram_b, "J8", "Moved to J8")
        assert plan == "Move to J8 along J9 → J8: costs 2 movement points."
        i9_ne = Fortification.objects.get(campaign=campaign, hex="I9", direction="NE")
        _, struck = _siege(ip, ram_b, i9_ne)
        i9_ne.refresh_from_db()
        siege = _event(campaign, EventKind.SIEGE, fortification=i9_ne.pk)
        screenshot(ip, "10-t2-siege-i9-phone")
        assert (struck, siege.payload["hits_after"]) == (
            f"Siege of the NE wall of I9: {siege.payload['damage']} hits of damage, "
            f"15 → {i9_ne.hits} hits." + (" The hexside is breached." if not i9_ne.hits else ""),
            i9_ne.hits)

        # The other six rams breach J10's NW wall from I10 (phone).
        ram_a = _split(ip, ivy_pops, rams[2:])
        j10_nw = Fortification.objects.get(campaign=campaign, hex="J10", direction="NW")
        odds, struck = _siege(ip, ram_a, j10_nw)
        siege = _event(campaign, EventKind.SIEGE, fortification=j10_nw.pk)
        screenshot(ip, "11-t2-breach-j10-phone")
        assert (odds.endswith("Chance it breaches the hexside (hits as seen T2): 100.0 %."),
                struck) == (True, f"Siege of the NW wall of J10: {siege.payload['damage']} hits "
                            "of damage, 30 → 0 hits. The hexside is breached.")

        # rowan's bowmen wipe out I9's garrison, capture I9, and repair its NE wall.
        i9 = Stack.objects.get(campaign=campaign, hex="I9", side__kind="opposition")
        open_map(rp, campaign)
        _, attacked = _attack(rp, rowan_pops, i9)
        assert Stack.objects.filter(pk=i9.pk).exists() is False
        plan, moved = _move(rp, rowan_pops, "I9", "Moved to I9")
        assert {f.owner.kind for f in Fortification.objects.filter(campaign=campaign,
                                                                    hex="I9")} == {"alliance"}
        missing = 15 - i9_ne.hits
        rp.fill(f'[data-key="repair-hits-{i9_ne.pk}"]', str(missing))
        rp.click(f'[data-key="repair-{i9_ne.pk}"]')
        repaired = _result(rp, "Repaired")
        screenshot(rp, "12-t2-i9-repaired")
        i9_ne.refresh_from_db()
        assert (repaired, i9_ne.hits) == (
            f"Repaired the wall NE of I9 by {missing} hits for {missing} pop points: "
            "now 15/15 hits.", 15)

        # The commander relay: the griffon alone in D3 may not move (its Move… is disabled
        # with the rule), until ivy's captain passes through D3 on her way down the road.
        select_stack(rp, gstack)
        refused = rp.locator(f"#move-why-{gstack.pk}").inner_text()
        disabled = rp.locator(f'[data-stack-panel="{gstack.pk}"] [data-key="move"]').is_disabled()
        screenshot(rp, "13-t2-griffon-not-commanded")
        plan, moved = _move(ip, ivy_stack, "E5", "Moved to E5")
        assert (disabled, refused, plan) == (
            True, "Move: Griffon 1 may not move this turn: no commander of its side has been in "
            "its hex (§2 command).", "Move to E5 along D3 → D4 → E5: costs 3 movement points. The road "
            "bonus gives the extra hex: the whole move is on road (§2).")
        open_map(rp, campaign)
        plan, moved = _move(rp, gstack, "F6", "Moved to F6")
        screenshot(rp, "14-t2-griffon-relayed")
        assert moved == "Moved to F6 for 4 movement points."

        # The ambush: the riders head for the woods of C6, where the garrison's riders hide.
        c6 = Stack.objects.get(campaign=campaign, hex="C6", side__kind="opposition")
        plan, moved = _move(rp, riders, "C6", "Ambushed")
        ambush = _event(campaign, EventKind.AMBUSH)
        screenshot(rp, "15-t2-ambushed")
        assert (plan, moved, ambush.payload["result"]["winner"],
                Stack.objects.filter(pk=c6.pk).exists()) == (
            "Move to C6 along D5 → C6: costs 5 movement points.",
            "Ambushed from C6: the stack stopped in D5 after 1 movement point; see the combat "
            "report.", "defender", False)
        # Having fought, the riders may still step into one adjacent hex: the woods.
        plan, moved = _move(rp, riders, "C6", "Moved to C6")
        screenshot(rp, "16-t2-into-the-woods")
        assert moved == "Moved to C6 for 4 movement points."
        _end_alliance_phase(rp, ip, campaign, "The phase is closed")

        # === Turn 2: the opposition phase. The GM's garrison from G7 attacks the griffon.
        f7 = Stack.objects.get(pk=g7.pk)
        open_map(gm_page, campaign)
        _, attacked = _attack(gm_page, f7, gstack)
        screenshot(gm_page, "17-t2-gm-attacks")
        assert attacked.startswith("Attacked the stack in F6.")
        assert _gm_end_opposition(gm_page, campaign, 2) == (
            "Phase ended; now turn 3: Alliance scout phase.")

        # === Turn 3: ivy scouts J10 again; the assault.
        open_map(ip, campaign)
        _scout(ip, ivy_pops, seer, ["J10"])
        _end_alliance_phase(rp, ip, campaign, "The phase is closed")
        j10 = list(Stack.objects.filter(campaign=campaign, hex="J10").order_by("created_seq", "pk"))
        open_map(ip, campaign)
        odds, attacked = _attack(ip, ivy_pops, j10[0])
        screenshot(ip, "18-t3-j10-first-stack-phone")
        assert (odds.endswith("Attacker wins 100 %, defender wins 0 %."),
                Stack.objects.filter(pk=j10[0].pk).exists()) == (True, False)
        open_map(rp, campaign)
        _move(rp, rowan_pops, "I10", "Moved to I10")
        _attack(rp, rowan_pops, j10[1])
        assert Stack.objects.filter(campaign=campaign, hex="J10").exists() is False
        screenshot(rp, "19-t3-j10-empty")
        open_map(ip, campaign)
        plan, moved = _move(ip, ivy_pops, "J10", "Moved to J10")
        screenshot(ip, "20-t3-into-j10-phone")

        # --- The victory, on the overview.
        for page, who in ((rp, "rowan"), (ip, "ivy"), (gm_page, "gm")):
            page.goto(f"/campaigns/{campaign.pk}/")
            page.locator("#victory-title").wait_for()
            screenshot(page, f"21-victory-{who}")
        campaign.refresh_from_db()
        assert (campaign.status, campaign.winner, rp.locator("#victory-title").inner_text(),
                Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN).exists(),
                rp.errors, ip.errors, gm_page.errors) == (
            "finished", "alliance",
            "Victory: The Alliance wins: it holds the fortification of J10. The campaign is "
            "finished; its setup dice are revealed.", False, [], [], [])
    finally:
        rowan_context.close()
        ivy_context.close()
