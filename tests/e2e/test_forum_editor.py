"""The forum's editor in Chromium: @mention suggestions from the thread's readers (arrows,
Enter), BBCode chosen and previewed, at 1280 × 800 and 375 px."""

import pytest

from campaigns.models import Notification, Post, Thread
from tests.e2e.conftest import PHONE
from tests.factories import UserFactory, army_factory, campaign_factory, player_factory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_mention_is_picked_from_suggestions_and_bbcode_previewed(
        browser_page, login, screenshot, viewport):
    campaign = campaign_factory()
    bob, ann, andy = (player_factory(campaign=campaign, user=UserFactory(username=name))
                      for name in ("bob", "ann", "andy"))
    for m in (bob, ann, andy):
        army_factory(membership=m, ready=False)
    thread = Thread.objects.get(campaign=campaign, audience="public")
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(bob.user)
    page.goto(f"/campaigns/{campaign.pk}/forum/threads/{thread.pk}/")
    body = page.locator("#post-body")
    body.click()
    body.type("Hold the road, @an")
    options = page.locator("#mention-list [role=option]")
    options.first.wait_for()
    offered = options.all_inner_texts()
    body.press("ArrowDown")
    chosen = page.locator("#mention-list [aria-selected=true]").inner_text()
    body.press("Enter")
    body.type("[b]now[/b]")
    page.select_option("#post-markup", "bbcode")
    page.get_by_role("button", name="Preview").click()
    page.locator("#post-preview strong").wait_for()
    preview = page.locator("#post-preview").inner_text()
    screenshot(page, f"editor-{viewport}")
    typed = body.input_value()
    page.get_by_role("button", name="Post", exact=True).click()
    page.wait_for_url("**#post-*")
    post = Post.objects.get(thread=thread, author=bob.user)
    notified = list(Notification.objects.filter(kind="mention").values_list("user__username",
                                                                              flat=True))
    assert (offered, chosen, typed, preview.splitlines()[-1], post.markup, notified,
            page.errors) == (
        ["@andy", "@ann"], "@ann", "Hold the road, @ann [b]now[/b]", "Hold the road, @ann now",
        "bbcode", ["ann"], [])
