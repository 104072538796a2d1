"""Who owns what on the map, at 1280 × 800 and 375 px: each counter carries its owner's
initial (and a star when a commander leads it), the panel names the owner ("Your stack",
"ann's stack"), an ally's stack is read-only with the reason, "Your stacks" lists one's
stacks with the move left, and "Show only these on the map" hides the others."""

import pytest

from campaigns.games.erfworld import phase_end
from campaigns.models import Stack
from tests.e2e.conftest import PHONE
from tests.e2e.helpers import open_map, select_stack
from tests.factories import UserFactory, army_factory, campaign_factory, player_factory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_map_says_who_owns_each_stack(browser_page, login, screenshot, viewport):
    from campaigns.games.erfworld import campaign_start, chief_warlord_appoint

    gm = UserFactory(username="umpire")
    campaign = campaign_factory(gm=gm)
    ann = player_factory(campaign=campaign, user=UserFactory(username="ann"))
    bob = player_factory(campaign=campaign, user=UserFactory(username="bob"))
    for m in (ann, bob):
        army_factory(membership=m)
    chief_warlord_appoint(user=gm, campaign=campaign, membership=ann)
    campaign_start(user=gm, campaign=campaign)
    phase_end(user=gm, campaign=campaign)  # move/combat
    mine = Stack.objects.get(units__owner=ann, units__name="Warlord 1")
    theirs = Stack.objects.get(units__owner=bob, units__name="Warlord 1")
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(ann.user)
    open_map(page, campaign)
    marks = {s.pk: (page.locator(f'[data-stack="{s.pk}"] .owner-mark').text_content(),
                    page.locator(f'[data-stack="{s.pk}"] .commander-mark').count())
             for s in (mine, theirs)}
    select_stack(page, theirs)
    title_theirs = page.locator(f'[data-stack-panel="{theirs.pk}"] h3').inner_text()
    why = page.locator(f'[data-read-only="{theirs.pk}"]').inner_text()
    no_move = page.locator(f'[data-stack-panel="{theirs.pk}"] [data-key="move"]').count()
    screenshot(page, f"ally-read-only-{viewport}")
    select_stack(page, mine)
    title_mine = page.locator(f'[data-stack-panel="{mine.pk}"] h3').inner_text()
    listed = page.locator(".my-stacks-list li").all_inner_texts()
    page.check('[data-key="only-mine"]')
    hidden = page.locator(f'[data-stack="{theirs.pk}"]').is_visible()
    screenshot(page, f"only-mine-{viewport}")
    assert (marks, title_theirs, why, no_move, title_mine, listed, hidden, page.errors) == (
        {mine.pk: ("A", 1), theirs.pk: ("B", 1)},
        "bob's stack in A1 (13 units)",
        "bob's stack: only bob gives its orders (the Chief Warlord too, once they are late or "
        "away).", 0, "Your stack in A1 (13 units)",
        ["A1: 13 units, with a commander, move left 1"], False, [])
