"""Topic threads and conversations in Chromium, at 1280 × 800 and 375 px: a player opens a
private conversation with an ally from the forum page, the ally answers, the GM (who may not
read it) does not see it; the GM pins and locks a public topic and hides a post with a reason,
and the player reads the reason and no reply form."""

import pytest

from campaigns.models import Post, Thread
from campaigns.services.forum import post_create, thread_create
from tests.e2e.conftest import PHONE
from tests.factories import started_campaign_factory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_conversation_is_opened_and_a_topic_moderated_in_the_browser(
        browser_page, login, screenshot, viewport):
    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(p1.user)
    page.goto(f"/campaigns/{campaign.pk}/forum/")
    page.locator("details.new-thread summary").click()
    page.fill("#thread-title", "Flank at the ford")
    page.check("input[name=audience][value=private]")
    page.check(f"input[name=participants][value={p2.user.username}]")
    page.fill("#post-body", "You go left, I go right.")
    screenshot(page, f"new-conversation-{viewport}")
    page.get_by_role("button", name="Open the thread").click()
    page.wait_for_url("**/forum/threads/*/")
    heading = page.locator("#thread-title").inner_text()
    note = page.locator(".thread-participants-line").inner_text()
    talk = Thread.objects.get(title="Flank at the ford")

    # "Start from" the map picture keeps what was typed.
    page.locator("#post-body").fill("Look at this:")
    page.get_by_role("button", name="Insert the map picture").click()
    for _ in range(50):
        if "[img]" in page.locator("#post-body").input_value() or "![The map]" in \
                page.locator("#post-body").input_value():
            break
        page.wait_for_timeout(100)
    typed = page.locator("#post-body").input_value()

    topic = thread_create(user=p2.user, campaign=campaign, title="Table talk",
                          audience="public", body="Anyone for a rematch?")
    rude = post_create(user=p2.user, thread=topic, body="You all roll badly.")
    login(gm)
    page.goto(f"/campaigns/{campaign.pk}/forum/")
    gm_titles = page.locator(".forum-threads tbody a").all_inner_texts()
    page.goto(f"/campaigns/{campaign.pk}/forum/threads/{topic.pk}/")
    page.locator("details.thread-tools summary").click()
    page.get_by_role("button", name="Pin to the top").click()
    page.wait_for_load_state()
    page.locator("details.thread-tools summary").click()
    page.get_by_role("button", name="Lock (only you post)").click()
    page.wait_for_load_state()
    post = page.locator(f"#post-{rude.pk}")
    post.locator("details.post-hide summary").click()
    post.locator("input[name=reason]").fill("Be kind to the dice.")
    post.get_by_role("button", name="Hide the post").click()
    page.wait_for_url(f"**#post-{rude.pk}")
    screenshot(page, f"gm-moderates-{viewport}")

    login(p1.user)
    page.goto(f"/campaigns/{campaign.pk}/forum/")
    first_row = page.locator(".forum-threads tbody tr").first.inner_text()
    page.goto(f"/campaigns/{campaign.pk}/forum/threads/{topic.pk}/")
    hidden = page.locator(f"#post-{rude.pk} .post-hidden-note").inner_text()
    reply_forms = page.locator("#reply").count()
    locked_note = page.locator(".form-note").inner_text()
    screenshot(page, f"player-reads-{viewport}")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert (heading, note, list(Post.objects.filter(thread=talk).values_list("body", flat=True)),
            "Flank at the ford" in gm_titles, first_row.split("\n")[0].split("\t")[0],
            hidden, reply_forms, locked_note, page.errors) == (
        "Flank at the ford", f"With {', '.join(sorted([p1.user.public_name, p2.user.public_name]))}.",
        ["You go left, I go right."], False, "Pinned Locked Table talk",
        "Hidden by the GM: Be kind to the dice.", 0,
        "This thread is locked: only the GM may post in it.", [])
    assert width <= (PHONE["width"] if viewport == "phone" else 1280)
    assert typed == (f"Look at this:\n![The map]({page.url.split('/campaigns/')[0]}"
                     f"/campaigns/{campaign.pk}/map.png?width=1000)\n")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_fog_lifts_page_and_a_turn_post_fit_and_read(browser_page, login, screenshot,
                                                          viewport):
    from campaigns.games.erfworld import phase_end
    from campaigns.games.erfworld.engine import check_victory
    from campaigns.models import Fortification, Phase, Side

    campaign, gm, (p1, p2) = started_campaign_factory(players=2)
    phase_end(user=gm, campaign=campaign)
    first = Phase.objects.filter(campaign=campaign).order_by("opened_at").first()
    Fortification.objects.filter(campaign=campaign, hex=campaign.victory_hex).update(
        owner=Side.objects.get(campaign=campaign, kind="alliance"))
    check_victory(campaign=campaign, phase=None, actor=gm)
    page = browser_page
    if viewport == "phone":
        page.set_viewport_size(PHONE)
    login(p1.user)
    page.goto(f"/campaigns/{campaign.pk}/after-action/")
    heading = page.locator("#aar-title").inner_text()
    screenshot(page, f"after-action-{viewport}")
    wide = page.evaluate("document.documentElement.scrollWidth")
    page.get_by_role("button", name="Open our threads to everyone").click()
    page.wait_for_load_state()
    opened = page.locator("text=open to everyone.").count()
    page.goto(f"/campaigns/{campaign.pk}/export/phases/{first.pk}/")
    bbcode = page.locator("#export-bbcode").input_value()
    screenshot(page, f"turn-post-{viewport}")
    assert (heading, opened, bbcode.startswith(f"[b]{campaign.name} — turn 1, alliance scout "
                                               "phase[/b]"), page.errors) == (
        "The fog lifts: after-action report", 1, True, [])
    assert wide <= (PHONE["width"] if viewport == "phone" else 1280)
