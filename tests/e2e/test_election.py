"""The Chief Warlord election in Chromium: two players vote, one changes their vote, a
player who joins later votes while the election is open, the tally is in the members table
all along, and the GM closes a three-way tie, settled by a setup die that the public thread
reports."""

import pytest

from campaigns.models import Event, Membership
from tests.e2e.helpers import flash
from tests.factories import UserFactory, campaign_factory, player_factory

pytestmark = pytest.mark.django_db(transaction=True)


def _as(page, context, login, user):
    context.clear_cookies()
    login(user)


def _vote(page, campaign, name):
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_label("Vote for").select_option(label=name)
    page.get_by_role("button", name="Vote", exact=True).click()
    return flash(page), page.locator(".lobby-vote p").first.inner_text()


def _tally(page):
    rows = page.locator("table.members tbody tr")
    return {rows.nth(i).locator("th").inner_text().split(" (")[0].strip():
            rows.nth(i).locator("td").nth(3).inner_text()
            for i in range(rows.count())}


def test_votes_change_a_late_joiner_votes_and_the_gm_closes_a_tie(
        browser_context, browser_page, login, screenshot):
    gm = UserFactory(username="umpire")
    campaign = campaign_factory(gm=gm, name="The vote")
    ann = player_factory(campaign=campaign, user=UserFactory(username="ann")).user
    bob = player_factory(campaign=campaign, user=UserFactory(username="bob")).user
    cal = UserFactory(username="cal")
    page = browser_page
    page.on("dialog", lambda d: d.accept())

    _as(page, browser_context, login, ann)
    first = _vote(page, campaign, "ann")
    _as(page, browser_context, login, bob)
    _vote(page, campaign, "ann")
    changed = _vote(page, campaign, "bob")  # bob changes his mind
    tally_two = _tally(page)
    screenshot(page, "01-changed-vote")

    # cal joins by the invite link while the election is open, and votes.
    _as(page, browser_context, login, cal)
    page.goto(f"/campaigns/join/{campaign.invite_code}/")
    page.get_by_role("button", name="Join the alliance").click()
    late = _vote(page, campaign, "cal")
    tally_three = _tally(page)
    screenshot(page, "02-late-joiner-voted")

    # The GM closes the election: a three-way tie, settled by a setup die.
    _as(page, browser_context, login, gm)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.click('[data-key="close-election"]')
    closed = flash(page)
    chief = Membership.objects.get(campaign=campaign, is_chief_warlord=True).user.username
    event = Event.objects.filter(campaign=campaign, summary__startswith="The election is "
                                 "closed").get()
    # Everyone reads how it was settled in the public thread.
    page.goto(f"/campaigns/{campaign.pk}/forum/")
    page.get_by_role("link", name="Public thread").click()
    thread = page.locator("main").inner_text()
    screenshot(page, "03-closed-by-a-die")
    assert (first, changed, tally_two, late, tally_three, closed,
            event.summary in thread, "ann and bob and cal tied with 1 of 3 votes" in event.summary,
            page.errors) == (
        (["You voted for ann as Chief Warlord."],
         "The election is open: 1 of 2 alliance players have voted (the votes are in the "
         "table above). You voted for ann."),
        (["You voted for bob as Chief Warlord."],
         "The election is open: 2 of 2 alliance players have voted (the votes are in the "
         "table above). You voted for bob."),
        {"ann": "1", "bob": "1", "umpire": "—"},
        (["You voted for cal as Chief Warlord."],
         "The election is open: 3 of 3 alliance players have voted (the votes are in the "
         "table above). You voted for cal."),
        {"ann": "1", "bob": "1", "cal": "1", "umpire": "—"},
        [f"The election is closed: {chief} is the Chief Warlord."], True, True, [])
