"""The whole journey of a campaign in Chromium, through the pages only: the GM creates a
campaign from Broad Way and invites; a player joins, designs an army with the live cost,
buys units, votes; the GM starts; a scout path is drawn and submitted; the Chief Warlord
ends the phase; the sighting appears; a move with its cost preview; an attack with its
odds; the report; the GM ends the opposition phase. One screenshot per step.

The database is read only to learn what to expect (ids for locators, the rules' own
answers for the exact assertions); every change is made by clicking and typing.
"""

from decimal import ROUND_HALF_UP, Decimal

import pytest

from accounts.timefmt import format_local
from campaigns.games.erfworld.previews import attack_preview, stack_reachable
from campaigns.models import (
    Campaign,
    Event,
    EventKind,
    Fortification,
    Membership,
    Phase,
    PhaseKind,
    PhaseStatus,
    ScoutOrder,
    Stack,
    Unit,
)
from rules.erfworld.units import (
    ArmyEntry,
    army_cost,
    format_fraction,
    unit_stats_from_dict,
    validate_unit_type,
)
from tests.e2e.conftest import DESKTOP
from tests.e2e.helpers import buy, click_hex, cost_text, design, flash, phase_bar_says
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

# The player's army: (name, stats, how many to buy). A commander and riders of Move 3 reach
# D3 next to the garrison's D4 tower in one move along the road (A1 → B1 → B2 → C3 → D3);
# the scout (Move 4, so 6 hexes) looks into D4 first.
ARMY = [
    ("Warlord", {"hits": 5, "attack": 5, "defence": 3, "move": 3, "specials": ["commander"]}, 1),
    ("Scout", {"hits": 3, "attack": 2, "defence": 2, "move": 4, "specials": ["scout"]}, 1),
    ("Rider", {"hits": 4, "attack": 5, "defence": 2, "move": 3, "specials": []}, 6),
]
SCOUT_PATH = ["B1", "B2", "C3", "D3", "D4"]
PLAYER_ZONE = "Asia/Tokyo"


def _one_decimal(value):
    """As JavaScript's toFixed(1) writes a number: the exact binary value, a tie rounded up."""
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _percent(value):
    return f"{_one_decimal(value * 100).removesuffix('.0')} %"


def test_the_whole_journey(browser, browser_page, live_server, login, screenshot):
    gm_page = browser_page
    dialogs = []
    gm_page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    gm = UserFactory(username="gamemaster")
    player = UserFactory(username="rowan", time_zone=PLAYER_ZONE)

    # --- 1. The GM creates a campaign from Broad Way on the GM dashboard and gets its link.
    login(gm)
    gm_page.goto("/")
    gm_page.get_by_role("link", name="GM dashboard").click()
    gm_page.get_by_label("Scenario", exact=True).select_option("broad_way")
    gm_page.locator("#new-name").fill("Down the Broad Way")
    # The opposition as the scenario places it, so that the journey knows where D4's stack is.
    gm_page.get_by_label("Shuffle the opposition's start hexes").uncheck()
    gm_page.get_by_role("button", name="Create the campaign").click()
    invite = gm_page.get_by_label("Invite link of Down the Broad Way").first
    invite.wait_for()
    screenshot(gm_page, "01-gm-created")
    campaign = Campaign.objects.get(name="Down the Broad Way")
    invite_url = invite.input_value()
    assert invite_url == f"{live_server.url}/campaigns/join/{campaign.invite_code}/"

    # --- 2. The player follows the invite link and joins.
    player_context = browser.new_context(viewport=DESKTOP, base_url=live_server.url)
    player_context.set_default_timeout(15_000)
    try:
        page = player_context.new_page()
        page.on("dialog", lambda d: d.accept())
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        login(player, player_context)
        page.goto(invite_url)
        screenshot(page, "02-invite")
        page.get_by_role("button", name="Join the alliance").click()
        assert flash(page) == ["You joined the alliance of Down the Broad Way."]

        # --- 3. The army designer: a broken rule as it is typed, then the live cost.
        warlord_stats = ARMY[0][1]
        form = page.locator("form.design-form")
        form.get_by_label("Name").fill("Warlord")
        form.get_by_label("Hits", exact=True).fill("5")
        form.get_by_label("Attack", exact=True).fill("5")
        form.get_by_label("Defence", exact=True).fill("6")
        form.get_by_label("Move", exact=True).fill("3")
        broken = unit_stats_from_dict({**warlord_stats, "defence": 6, "specials": []})
        errors = page.locator(".design-errors li")
        errors.filter(has_text="defence 6").wait_for()
        shown_errors = errors.all_inner_texts()
        screenshot(page, "03-designer-rule-error")
        assert shown_errors == validate_unit_type(broken, name="Warlord")

        cost_line = design(page, "Warlord", warlord_stats)
        screenshot(page, "04-designer-live-cost")
        movement_class = unit_stats_from_dict(warlord_stats).movement_class.value
        assert cost_line == (f"Cost: {cost_text(warlord_stats)} points per unit · "
                             f"class: {movement_class}")
        page.get_by_role("button", name="Create unit type").click()
        assert flash(page) == [f"Unit type 'Warlord' designed ({cost_text(warlord_stats)} "
                                "points each)."]
        bought = buy(page, "Warlord", 1)
        warlord = Unit.objects.get(campaign=campaign, owner__user=player, name="Warlord 1")
        assert bought == [f"Bought 1 × Warlord. Warlord 1 rolled commander level "
                          f"{warlord.commander_level}."]
        levels = page.locator("table.army tbody tr").first.locator("td").nth(8).inner_text()
        assert levels == f"Warlord 1 (level {warlord.commander_level})"

        for name, stats, count in ARMY[1:]:
            design(page, name, stats)
            page.get_by_role("button", name="Create unit type").click()
            page.locator("table.army").get_by_role("rowheader", name=name).wait_for()
            buy(page, name, count)
        spent = army_cost([ArmyEntry(name=n, stats=unit_stats_from_dict(s), count=c)
                           for n, s, c in ARMY])
        budget_line = page.locator(".army-budget").inner_text()
        screenshot(page, "05-army-bought")
        assert budget_line.startswith(
            f"Spent {format_fraction(spent)} of 500 points; {format_fraction(500 - spent)} left.")

        # --- 4. Army ready and the Chief Warlord vote (open until the GM starts).
        page.get_by_role("button", name="My army is ready").click()
        assert flash(page) == ["Your army is ready."]
        page.get_by_label("Vote for").select_option(label="rowan")
        page.get_by_role("button", name="Vote").click()
        vote_text = page.locator(".lobby-vote p").first.inner_text()
        screenshot(page, "06-voted")
        assert (flash(page), vote_text) == (
            ["You voted for rowan as Chief Warlord."],
            "The election is open: 1 of 1 alliance players have voted (the votes are in the "
            "table above). You voted for rowan.")

        # --- 5. The GM starts the campaign from the overview: the start closes the election.
        gm_page.goto(f"/campaigns/{campaign.pk}/")
        gm_page.get_by_role("button", name="Start the campaign").click()
        phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
        screenshot(gm_page, "07-started")
        assert dialogs == [
            "Start Down the Broad Way now? Armies and unit types are fixed from then on, the "
            "election closes (the most votes win, a tie goes to a die), and turn 1's scout "
            "phase opens with its deadline."]
        assert (flash(gm_page), phase.kind, phase.turn.number,
                Membership.objects.get(campaign=campaign, role="player").is_chief_warlord) == (
            ["The campaign has started: turn 1's scout phase is open."], PhaseKind.SCOUT, 1,
            True)

        # --- 6. Home: the phase, the deadline in the player's zone, what to do now.
        page.goto("/")
        card = page.locator(".campaign-card").filter(has_text="Down the Broad Way")
        deadline_text = card.locator(".countdown time").inner_text()
        todo = card.locator(".todo li").all_inner_texts()
        screenshot(page, "08-home")
        assert (deadline_text, todo) == (
            format_local(phase.deadline_at, PLAYER_ZONE),
            ["Give your scout orders and mark them done.",
             ])

        # --- 7. A scout path drawn on the map and submitted.
        card.get_by_role("link", name="Down the Broad Way").click()
        page.get_by_role("link", name="Map").click()
        page.wait_for_selector("#campaign-map[data-ready='true']")
        stack = Stack.objects.get(campaign=campaign, side__kind="alliance")
        scout = Unit.objects.get(campaign=campaign, owner__user=player, name="Scout 1")
        page.locator(f'[data-stack="{stack.pk}"]').click()
        page.get_by_role("button", name="Plan scout path").click()
        for label in SCOUT_PATH:
            click_hex(page, label)
        plan = page.locator(".scout-plan").inner_text()
        screenshot(page, "09-scout-path")
        page.get_by_role("button", name="Submit order").click()
        page.locator(".scout-order").wait_for()
        order = ScoutOrder.objects.get(scout=scout)
        assert (plan, order.directions, order.inspected_hexes) == (
            "Path: A1 → B1 → B2 → C3 → D3 → D4 (1 step left).",
            ["SE", "S", "SE", "SE", "S"], SCOUT_PATH)

        # --- 8. The Chief Warlord marks done and ends the phase from the phase bar.
        page.get_by_role("button", name="I'm done").click()
        phase_bar_says(page, "Your orders are marked done.")
        page.get_by_role("button", name="End phase").click()
        ended = phase_bar_says(page, "The phase is closed")
        assert ended == "The phase is closed; turn 1: the alliance move/combat phase is open."

        # --- 9. The sighting appears on the map without a reload: the garrison in D4, seen
        # this turn (its hex not dimmed), with its unit count.
        seen = page.locator('.badge.seen[data-at="D4"]')
        seen.wait_for()
        garrison = Stack.objects.get(campaign=campaign, side__kind="opposition", hex="D4")
        turn_mark = [t.text_content() for t in page.locator(".sighting-turn").all()]
        d4_class = page.locator('[data-hex="D4"]').get_attribute("class")
        tower_hits = page.locator('.tower[data-at="D4"] text').text_content()
        screenshot(page, "10-sighting")
        assert (seen.text_content(), turn_mark, d4_class, tower_hits) == (
            str(garrison.units.count()), ["T1"] * len(SCOUT_PATH), "hex t-road",
            str(Fortification.objects.get(campaign=campaign, hex="D4").hits))

        # --- 10. A move with its cost preview.
        campaign.refresh_from_db()
        reachable = stack_reachable(user=player, campaign=campaign, stack=stack)
        page.locator(f'[data-stack="{stack.pk}"]').click()
        page.get_by_role("button", name="Move…").click()
        page.wait_for_selector(".reach")
        shown = {g.get_attribute("data-reach"): int(g.text_content())
                 for g in page.locator(".reach").all()}
        click_hex(page, "D3")
        move_plan = page.locator(".move-plan").inner_text()
        screenshot(page, "11-move-preview")
        page.get_by_role("button", name="Confirm move").click()
        page.locator(".map-result").wait_for()
        moved = page.locator(".map-result").inner_text()
        stack.refresh_from_db()
        assert (shown, move_plan, moved, stack.hex) == (
            {r["hex"]: r["cost"] for r in reachable["hexes"]},
            "Move to D3 along B1 → B2 → C3 → D3: costs 4 movement points. The road bonus "
            "gives the extra hex: the whole move is on road (§2).",
            "Moved to D3 for 4 movement points.", "D3")

        # --- 11. An attack with its exact odds.
        odds = attack_preview(user=player, campaign=campaign, stack=stack,
                              target=garrison)["odds"]
        page.get_by_role("button", name="Attack…").click()
        page.get_by_role("button", name="Opposition stack in D4 (5 units)").click()
        page.wait_for_selector(".odds")
        bars = page.locator(".on-defender .odds-p").all_inner_texts()
        croaks = page.locator("table.croak tbody tr td:last-child").all_inner_texts()
        summary = page.locator(".odds-summary").inner_text()
        screenshot(page, "12-attack-odds")
        win = odds["winner"]
        neither = win["none"]["value"] if "none" in win else 0
        assert (bars, croaks, summary) == (
            [f"{r['p']} ({r['chance'] * 100:.1f}%)" for r in odds["hits_on_defender"]],
            [f"{u['croak']} ({u['croak_chance'] * 100:.1f}%)" for u in odds["units"]],
            # Numbers for people: decimals and percentages.
            f"Expected ≈ {_one_decimal(odds['expected_hits_on_defender']['value'])} hits on "
            f"the defender, ≈ {_one_decimal(odds['expected_hits_on_attacker']['value'])} on the "
            "attacker. "
            f"Attacker wins {_percent(win['attacker']['value'])}, defender wins "
            f"{_percent(win['defender']['value'])}"
            + (f", neither {_percent(neither)}." if neither > 0 else "."),
        )
        page.get_by_role("button", name="Confirm attack").click()
        report_link = page.get_by_role("link", name="Open the full report")
        report_link.wait_for()
        combat = Event.objects.get(campaign=campaign, kind=EventKind.COMBAT)
        result = combat.payload["result"]
        outcome = page.locator(".map-result p").first.inner_text()
        screenshot(page, "13-attack-done")
        assert outcome == (
            f"Attacked the stack in D4. {result['hits_on_defender']} hits on the defender, "
            f"{result['hits_on_attacker']} hits on the attacker. Winner: {result['winner']}.")

        # --- 12. The combat report: every factor and every die.
        report_link.click()
        page.locator("#report-title").wait_for()
        title = page.locator("#report-title").inner_text()
        dice_rows = page.locator("table.dice tbody tr").count()
        sides = page.locator(".report-side h3").all_inner_texts()
        screenshot(page, "14-report")
        assert (title, page.locator(".report-summary").inner_text(), dice_rows, sides) == (
            "Turn 1: Combat report", combat.summary, len(combat.payload["dice"]),
            [f"Attacker: rolled {' + '.join(map(str, result['attacker']['roll']))}",
             f"Defender: rolled {' + '.join(map(str, result['defender']['roll']))}"])

        # --- 13. The Chief Warlord ends the move/combat phase; the GM ends the opposition's.
        page.get_by_role("button", name="I'm done").click()
        phase_bar_says(page, "Your orders are marked done.")
        page.get_by_role("button", name="End phase").click()
        assert phase_bar_says(page, "The phase is closed") == (
            "The phase is closed; turn 1: the opposition phase is open.")

        gm_page.goto("/campaigns/gm/")
        gm_page.get_by_role("link", name="Down the Broad Way").click()
        opposition = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
        gm_page.get_by_role("button", name="End turn 1: opposition phase").click()
        gm_page.locator(".gm-success").first.wait_for()
        screenshot(gm_page, "15-gm-ended-opposition")
        new_phase = Phase.objects.get(campaign=campaign, status=PhaseStatus.OPEN)
        opposition.refresh_from_db()
        assert (opposition.kind, opposition.status, new_phase.turn.number, new_phase.kind,
                gm_page.locator(".gm-success").first.inner_text(), page.errors,
                gm_page.errors) == (
            PhaseKind.OPPOSITION, PhaseStatus.CLOSED, 2, PhaseKind.SCOUT,
            "Phase ended; now turn 2: Alliance scout phase.", [], [])
    finally:
        player_context.close()
