"""An ELF ABAS and a QUAD battle by forum in Chromium, through the pages only, from invite to
result: the GM creates the battle from the system's demo scenario (one turn, to keep it
short), one player joins each side through the invite link (one at 1280 × 800, one on a
375-px phone), the GM starts it, and the players give every order on the battle page until
the victory check ends it. ELF ABAS: each side's first activation moves a force to a hex
clicked on the map, then every activation is ended. QUAD: both sides draw, each plays its
first unit card to hold, then releases. The outcome on the page is the engine's, and each
player's page never shows the other side's cards while the battle goes on."""

from __future__ import annotations

from typing import Any

import pytest

from campaigns.models import Battle, Campaign, CampaignStatus, EventKind
from tests.e2e.conftest import DESKTOP, PHONE
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

# The demo scenario, the sides, and ELF ABAS's first move of each side: (force, hex).
DEMOS = {
    "elf_abas": ("elf_abas_ford", "Epping", "Fremont",
                 {"Epping": ("ep-horse", "C3"), "Fremont": ("fr-riders", "G5")}),
    "quad": ("quad_hill", "Red", "Blue", {}),
}


def _page(browser: Any, live_server: Any, login: Any, user: Any, viewport: dict[str, int]
          ) -> Any:
    context = browser.new_context(viewport=viewport, base_url=live_server.url)
    context.set_default_timeout(15_000)
    login(user, context)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def _order(page: Any, kind: str, **selects: str) -> None:
    form = page.locator(f'form[data-order="{kind}"]')
    for name, value in selects.items():
        form.locator(f'[name="{name}"]').select_option(value)
    form.locator(f'button[data-key="order-{kind}"]').click()
    page.wait_for_load_state()
    assert page.locator(".form-error").count() == 0, page.locator(".form-error").all_inner_texts()


@pytest.mark.parametrize("system", ["elf_abas", "quad"])
def test_a_battle_by_forum_from_invite_to_result(system, browser, browser_page, live_server,
                                                 login, screenshot):
    key, first, second, moves = DEMOS[system]
    gm = UserFactory(username=f"gm_{system}")
    players = {first: UserFactory(username=f"p1_{system}"),
               second: UserFactory(username=f"p2_{system}")}

    # The GM creates the battle from the demo scenario, for one turn.
    login(gm)
    gm_page = browser_page
    gm_page.goto("/")
    gm_page.get_by_role("link", name="Run a battle").first.click()
    gm_page.locator(f'input[name="scenario"][value="{key}"]').check()
    gm_page.fill("#battle-turns", "1")
    gm_page.get_by_role("button", name="Create the battle").click()
    campaign = Campaign.objects.get(ruleset_key=system)
    assert gm_page.url.endswith(f"/campaigns/{campaign.pk}/battle/")
    invite = gm_page.locator("input.invite-link").input_value()
    assert invite.endswith(f"/campaigns/join/{campaign.invite_code}/")

    # One player a side joins by the invite link: the first at a desk, the second on a phone.
    pages = {first: _page(browser, live_server, login, players[first], DESKTOP),
             second: _page(browser, live_server, login, players[second], PHONE)}
    for side, page in pages.items():
        page.goto(invite)
        page.locator(f'input[name="side"][value="{side}"]').check()
        page.get_by_role("button", name="Join the battle").click()
        page.wait_for_url(f"**/campaigns/{campaign.pk}/battle/")
        page.get_by_text(f"You joined {side}").wait_for(state="visible")

    gm_page.reload()
    gm_page.locator('button[data-key="start-battle"]').click()
    assert "The battle has started." in gm_page.locator(".messages").inner_text()
    screenshot(gm_page, f"{system}-gm-started")

    played: set[tuple[str, int]] = set()
    moved: set[str] = set()
    battle = Battle.objects.get(campaign=campaign)
    for _ in range(40):
        battle.refresh_from_db()
        campaign.refresh_from_db()
        if campaign.status == CampaignStatus.FINISHED:
            break
        side = battle.window["acting"][0]
        page = pages[side]
        page.goto(f"/campaigns/{campaign.pk}/battle/")
        assert page.locator(".battle-your-turn").is_visible()
        other = second if side == first else first
        text = page.locator(".battle-log").inner_text()
        assert f"{other} draws {other.lower()}-" not in text  # another side's cards stay hidden
        step = battle.state["step"]
        if system == "elf_abas":
            if side not in moved and step == "activation":
                force, target = moves[side]
                form = page.locator('form[data-order="move"]')
                form.locator('[name="force"]').select_option(force)
                form.locator('[name="path"]').focus()
                page.locator(f'g[data-hex="{target}"]').click()
                assert form.locator('[name="path"]').input_value() == target
                screenshot(page, f"{system}-{side}-move")
                form.locator('button[data-key="order-move"]').click()
                page.wait_for_load_state()
                assert page.locator(".form-error").count() == 0
                assert f"{force} moves" in page.locator(".battle-log").inner_text()
                moved.add(side)
                continue
            _order(page, {"activation": "end", "allocate": "allocate",
                          "pursuit": "follow"}[step])
        else:
            if step == "draw":
                _order(page, "draw", take="yes")
            elif step == "steal":
                _order(page, "pass")
            elif (side, battle.state["cards"]["turn"]) not in played and page.locator(
                    'form[data-order="play"] select[name="unit"] option').count():
                played.add((side, battle.state["cards"]["turn"]))
                screenshot(page, f"{system}-{side}-play")
                _order(page, "play", action="hold")
            else:
                _order(page, "release")
    campaign.refresh_from_db()
    battle.refresh_from_db()
    assert campaign.status == CampaignStatus.FINISHED
    assert battle.outcome is not None
    assert campaign.events.filter(kind=EventKind.CAMPAIGN_FINISHED).count() == 1
    for side, page in pages.items():
        page.goto(f"/campaigns/{campaign.pk}/battle/")
        outcome = page.locator(".battle-outcome")
        assert battle.outcome["reason"] in outcome.inner_text()
        heading = (f"{battle.outcome['winner']} wins" if battle.outcome["winner"]
                   else "A draw")
        assert outcome.locator("h2").inner_text() == heading
        assert page.evaluate("document.documentElement.scrollWidth") <= (
            page.viewport_size["width"])
        screenshot(page, f"{system}-{side}-over")
        assert page.errors == []
    assert gm_page.errors == []


def test_an_open_battle_page_says_when_the_battle_moves_on(browser_page, login):
    """A player's page, left open, learns within a minute (its poller; here the poll is fired
    at once) that the other side acted and a new step is open, and links to it rather than
    reloading over an order being written."""
    from campaigns.games.battle import services
    from tests.battles.conftest import make_table

    table = make_table("quad")
    campaign = table.campaign
    login(table.players["Red"])
    page = browser_page
    page.goto(f"/campaigns/{campaign.pk}/battle/")
    notice = page.locator(".battle-moved-on")
    page.locator('form[data-order="draw"] [name="take"]').select_option("no")
    page.locator('[data-battle-step]').dispatch_event("battle-check")
    page.wait_for_timeout(500)
    assert notice.is_hidden()  # nothing moved yet
    for side in ("Red", "Blue"):
        services.battle_orders(user=table.players[side], campaign=campaign,
                               orders=[{"kind": "draw", "take": True}])
    page.locator('[data-battle-step]').dispatch_event("battle-check")
    notice.wait_for(state="visible")
    # The order being written is still there.
    assert page.locator('form[data-order="draw"] [name="take"]').input_value() == "no"
    # The link loads the same address again: wait for that load, not for the old page.
    with page.expect_navigation(wait_until="load"):
        notice.get_by_role("link", name="see the new step").click()
    acting = Battle.objects.get(campaign=campaign).window["acting"]
    mine = page.locator(".battle-your-turn" if acting == ["Red"] else ".battle-waiting")
    mine.wait_for(state="visible")
    assert page.locator(".battle-moved-on").is_hidden()
    assert page.errors == []
