"""Topic threads, private conversations and moderation: who may open, read, write, manage;
what a hidden post and a muted author look like; unread markers per thread."""

import pytest
from django.utils.html import escape
from rest_framework.test import APIClient

from campaigns.errors import CampaignError, NotAllowedError, RuleViolationError
from campaigns.models import (
    Event,
    EventKind,
    Membership,
    Mute,
    Notification,
    Post,
    Role,
    Side,
    SideKind,
    Thread,
    ThreadParticipant,
)
from campaigns.selectors.forum import (
    readable_threads,
    thread_posts_page,
    threads_for,
)
from campaigns.selectors.reports import gm_ledger
from campaigns.services.forum import (
    mute,
    post_create,
    post_edit,
    post_hide,
    post_unhide,
    thread_create,
    thread_update,
    unmute,
)
from campaigns.services.settings import campaign_settings_update
from tests.campaigns.conftest import fingerprint
from tests.factories import UserFactory
from tests.forum.conftest import XSS_PAYLOADS

pytestmark = [pytest.mark.django_db]


def _titles(user, campaign):
    return [t.title for t in readable_threads(user=user, campaign=campaign)]


def _opposition_player(campaign):
    """A player on the opposition's side (a campaign where players take both sides)."""
    return Membership.objects.create(
        campaign=campaign, user=UserFactory(), role=Role.PLAYER,
        side=Side.objects.get(campaign=campaign, kind=SideKind.OPPOSITION))


# --- Topic threads -----------------------------------------------------------------------


def test_a_player_opens_a_side_topic_that_only_their_side_and_the_gm_read(started):
    campaign, gm, (p1, p2) = started
    thread = thread_create(user=p1.user, campaign=campaign, title="  Who takes   the ford? ",
                           audience="side", body="I can be at **F7**.")
    outsider_side = _opposition_player(campaign)
    assert (thread.title, thread.audience, thread.side.kind, thread.is_default,
            thread.author_id, list(thread.posts.values_list("body", "author_id"))) == (
        "Who takes the ford?", "side", "alliance", False, p1.user_id,
        [("I can be at **F7**.", p1.user_id)])
    assert ["Who takes the ford?" in _titles(u, campaign)
            for u in (p1.user, p2.user, gm, outsider_side.user)] == [True, True, True, False]


@pytest.mark.parametrize(("who", "values", "error", "code", "field"), [
    ("p1", {"audience": "gm"}, NotAllowedError, "not_audience", None),
    ("p1", {"audience": "side", "side": "opposition"}, NotAllowedError, "not_audience", None),
    ("gm", {"audience": "side"}, CampaignError, "invalid_field", "side"),
    ("p1", {"audience": "public", "side": "alliance"}, CampaignError, "invalid_field", "side"),
    ("p1", {"audience": "everyone"}, CampaignError, "invalid_field", "audience"),
    ("p1", {"title": "   "}, CampaignError, "empty_title", "title"),
    ("p1", {"title": "x" * 121}, CampaignError, "title_too_long", "title"),
    ("p1", {"body": " "}, CampaignError, "empty_post", "body"),
    ("p1", {"participants": ["gm"]}, CampaignError, "invalid_field", "participants"),
])
def test_a_thread_that_breaks_a_rule_is_refused_and_nothing_is_made(started, who, values,
                                                                     error, code, field):
    campaign, gm, (p1, _) = started
    user = gm if who == "gm" else p1.user
    before = fingerprint(campaign.pk)
    args = {"title": "Plans", "audience": "public", "body": "Hello.", **values}
    with pytest.raises(error) as caught:
        thread_create(user=user, campaign=campaign, **args)
    assert (caught.value.code, caught.value.field) == (code, field)
    assert fingerprint(campaign.pk) == before


def test_threads_list_pinned_first_then_by_last_activity_with_unread_counts(started, threads):
    campaign, gm, (p1, p2) = started
    older = thread_create(user=p2.user, campaign=campaign, title="Older", audience="public",
                          body="One.")
    newer = thread_create(user=p2.user, campaign=campaign, title="Newer", audience="public",
                          body="Two.")
    second = post_create(user=p2.user, thread=older, body="Three.")
    thread_update(user=gm, thread=newer, pinned=True)
    rows = {r["title"]: r for r in threads_for(user=p1.user, campaign=campaign)}
    order = [r["title"] for r in threads_for(user=p1.user, campaign=campaign)]
    assert order[:2] == ["Newer", "Older"]
    first = older.posts.order_by("id").first()
    assert (rows["Older"]["unread"], rows["Older"]["first_unread"], rows["Older"]["posts"],
            rows["Newer"]["pinned"], rows["Older"]["pinned"]) == (2, first.pk, 2, True, False)
    page = thread_posts_page(user=p1.user, thread=older)
    assert [p.is_new for p in page["posts"]] == [True, True]
    from campaigns.services.forum import thread_mark_read
    thread_mark_read(user=p1.user, thread=older, post_id=first.pk)
    rows = {r["title"]: r for r in threads_for(user=p1.user, campaign=campaign)}
    assert (rows["Older"]["unread"], rows["Older"]["first_unread"]) == (1, second.pk)


# --- Managing threads --------------------------------------------------------------------


def test_the_gm_renames_pins_and_locks_and_a_locked_thread_takes_only_the_gms_posts(started):
    campaign, gm, (p1, _) = started
    thread = thread_create(user=p1.user, campaign=campaign, title="Table talk",
                           audience="public", body="Hi.")
    thread_update(user=gm, thread=thread, title="Table talk (closed)", pinned=True, locked=True)
    thread.refresh_from_db()
    assert (thread.title, thread.pinned, thread.locked) == ("Table talk (closed)", True, True)
    with pytest.raises(RuleViolationError) as caught:
        post_create(user=p1.user, thread=thread, body="One more?")
    assert (caught.value.code, caught.value.message) == (
        "thread_locked", "This thread is locked: only the GM may post in it.")
    post_create(user=gm, thread=thread, body="Closed.")
    with pytest.raises(NotAllowedError) as caught:
        thread_update(user=p1.user, thread=thread, locked=False)
    assert caught.value.code == "gm_only"


def test_the_gm_moves_a_topic_to_a_side_and_its_readers_change(started):
    campaign, gm, (p1, _) = started
    foe = _opposition_player(campaign)
    thread = thread_create(user=gm, campaign=campaign, title="Rumours", audience="public",
                           body="Heard anything?")
    assert "Rumours" in _titles(foe.user, campaign)
    thread_update(user=gm, thread=thread, audience="side", side="alliance")
    assert ["Rumours" in _titles(u, campaign) for u in (p1.user, foe.user)] == [True, False]
    thread_update(user=gm, thread=thread, audience="gm")
    assert ["Rumours" in _titles(u, campaign) for u in (p1.user, gm)] == [False, True]


def test_default_threads_and_conversations_are_not_moved(started, threads):
    campaign, gm, (p1, p2) = started
    with pytest.raises(RuleViolationError) as caught:
        thread_update(user=gm, thread=threads["public"], audience="gm")
    assert caught.value.code == "default_thread"
    talk = thread_create(user=p1.user, campaign=campaign, title="Us", audience="private",
                         participants=[gm.username], body="A word.")
    with pytest.raises(RuleViolationError) as caught:
        thread_update(user=gm, thread=talk, audience="public")
    assert caught.value.code == "private_thread"
    # Renaming a default thread is fine; naming its own audience again is no move.
    thread_update(user=gm, thread=threads["public"], title="Table", audience="public")
    threads["public"].refresh_from_db()
    assert (threads["public"].title, threads["public"].audience) == ("Table", "public")


# --- Private conversations ---------------------------------------------------------------


def test_a_conversation_between_two_players_is_theirs_alone(started):
    campaign, gm, (p1, p2) = started
    talk = thread_create(user=p1.user, campaign=campaign, title="Flank", audience="private",
                         participants=[f"@{p2.user.username.upper()}"], body="You go left.")
    assert (sorted(ThreadParticipant.objects.filter(thread=talk).values_list("user_id",
                                                                             flat=True)),
            talk.gm_reads) == (sorted([p1.user_id, p2.user_id]), False)
    assert ["Flank" in _titles(u, campaign) for u in (p1.user, p2.user, gm)] == [
        True, True, False]
    note = Notification.objects.get(user=p2.user, message__contains="private conversation")
    assert note.message == (f"{p1.user.public_name} opened a private conversation with you in "
                            f"{campaign.name}: “Flank”.")
    post_create(user=p2.user, thread=talk, body="Agreed.")
    with pytest.raises(NotAllowedError):
        post_create(user=gm, thread=talk, body="I see you.")


def test_the_gm_reads_only_conversations_opened_while_the_setting_was_on(started):
    campaign, gm, (p1, p2) = started
    before = thread_create(user=p1.user, campaign=campaign, title="Before",
                           audience="private", participants=[p2.user.username], body="x")
    campaign_settings_update(user=gm, campaign=campaign,
                             changes={"gm_reads_conversations": True})
    campaign.refresh_from_db()
    after = thread_create(user=p1.user, campaign=campaign, title="After", audience="private",
                          participants=[p2.user.username], body="y")
    assert (before.gm_reads, after.gm_reads) == (False, True)
    assert ["Before" in _titles(gm, campaign), "After" in _titles(gm, campaign)] == [
        False, True]
    # Reading is not writing: the GM is not one of them.
    with pytest.raises(RuleViolationError) as caught:
        post_create(user=gm, thread=after, body="Noted.")
    assert caught.value.code == "not_participant"


def test_across_sides_only_while_the_gm_allows_diplomacy(started):
    campaign, gm, (p1, _) = started
    foe = _opposition_player(campaign)
    observer = Membership.objects.create(campaign=campaign, user=UserFactory(),
                                         role=Role.OBSERVER)
    for other in (foe, observer):
        with pytest.raises(RuleViolationError) as caught:
            thread_create(user=p1.user, campaign=campaign, title="Parley", audience="private",
                          participants=[other.user.username], body="Terms?")
        assert (caught.value.code, caught.value.field) == ("no_diplomacy", "participants")
    campaign_settings_update(user=gm, campaign=campaign, changes={"diplomacy": True})
    campaign.refresh_from_db()
    talk = thread_create(user=p1.user, campaign=campaign, title="Parley", audience="private",
                         participants=[foe.user.username], body="Terms?")
    post_create(user=foe.user, thread=talk, body="Name them.")
    campaign_settings_update(user=gm, campaign=campaign, changes={"diplomacy": False})
    with pytest.raises(RuleViolationError) as caught:
        post_create(user=foe.user, thread=Thread.objects.get(pk=talk.pk), body="Well?")
    assert caught.value.code == "no_diplomacy"


def test_a_player_always_talks_privately_with_the_gm_and_no_one_else_joins(started):
    campaign, gm, (p1, _) = started
    with pytest.raises(CampaignError) as caught:
        thread_create(user=p1.user, campaign=campaign, title="x", audience="private",
                      participants=["nobody-here"], body="x")
    assert (caught.value.code, caught.value.message) == (
        "unknown_participant", "Not a member of this campaign: nobody-here.")
    with pytest.raises(CampaignError) as caught:
        thread_create(user=p1.user, campaign=campaign, title="x", audience="private",
                      participants=[p1.user.username], body="x")
    assert caught.value.code == "no_participants"
    thread_create(user=p1.user, campaign=campaign, title="Rules question",
                         audience="private", participants=[gm.username], body="May I?")
    assert ["Rules question" in _titles(u, campaign) for u in (p1.user, gm)] == [True, True]


# --- Moderation --------------------------------------------------------------------------


def test_a_hidden_post_shows_its_reason_to_readers_and_its_text_to_the_gm(started, threads):
    campaign, gm, (p1, p2) = started
    post = post_create(user=p1.user, thread=threads["alliance"], body="Rude words.")
    post_hide(user=gm, post=post, reason="  Be   civil. ")
    mine = thread_posts_page(user=p2.user, thread=threads["alliance"])["posts"][-1]
    gms = thread_posts_page(user=gm, thread=threads["alliance"])["posts"][-1]
    assert (mine.hidden, mine.hidden_reason, mine.body, mine.html, mine.can_edit) == (
        True, "Be civil.", "", "", False)
    assert (gms.hidden, gms.body, gms.html) == (True, "Rude words.", "<p>Rude words.</p>\n")
    with pytest.raises(RuleViolationError) as caught:
        post_edit(user=p1.user, post=post, body="Sorry.")
    assert caught.value.code == "post_hidden"
    rows = gm_ledger(user=p2.user, campaign=campaign)["rows"]
    assert [(r["kind"], r["reason"]) for r in rows][:1] == [("post_hidden", "Be civil.")]
    post_unhide(user=gm, post=post)
    again = thread_posts_page(user=p2.user, thread=threads["alliance"])["posts"][-1]
    assert (again.hidden, again.body) == (False, "Rude words.")
    assert [r["kind"] for r in gm_ledger(user=p2.user, campaign=campaign)["rows"]][:2] == [
        "post_shown", "post_hidden"]


@pytest.mark.parametrize(("reason", "code"), [("", "reason_required"),
                                              ("x" * 301, "reason_too_long")])
def test_hiding_needs_a_reason_and_only_the_gm_hides(started, threads, reason, code):
    campaign, gm, (p1, p2) = started
    post = post_create(user=p1.user, thread=threads["public"], body="Hm.")
    before = fingerprint(campaign.pk)
    with pytest.raises(CampaignError) as caught:
        post_hide(user=gm, post=post, reason=reason)
    assert (caught.value.code, caught.value.field) == (code, "reason")
    with pytest.raises(NotAllowedError) as caught:
        post_hide(user=p2.user, post=post, reason="I dislike it.")
    assert caught.value.code == "gm_only"
    assert fingerprint(campaign.pk) == before


def test_the_ledger_line_of_a_hidden_conversation_post_is_for_its_readers(started):
    campaign, gm, (p1, p2) = started
    talk = thread_create(user=p1.user, campaign=campaign, title="Secret route",
                         audience="private", participants=[gm.username], body="Via K3.")
    post_hide(user=gm, post=talk.posts.get(), reason="Spoils the scenario.")
    kinds = {u: [r["kind"] for r in gm_ledger(user=u, campaign=campaign)["rows"]]
             for u in (p1.user, p2.user)}
    assert ("post_hidden" in kinds[p1.user], "post_hidden" in kinds[p2.user]) == (True, False)
    client = APIClient()
    client.force_authenticate(p2.user)
    events = client.get(f"/api/v1/campaigns/{campaign.pk}/events/").content.decode()
    assert "Secret route" not in events and "Spoils the scenario" not in events


def test_hidden_posts_leave_feeds_and_exports(started, threads, client_as):
    campaign, gm, (p1, _) = started
    post = post_create(user=p1.user, thread=threads["public"], body="Unkind-words-here.")
    post_hide(user=gm, post=post, reason="Be civil.")
    client = client_as(p1.user)
    feed = client.get(f"/campaigns/{campaign.pk}/feed.atom").content.decode()
    export = client.get(f"/campaigns/{campaign.pk}/export/posts/{post.pk}/")
    page = client.get(f"/campaigns/{campaign.pk}/forum/threads/{threads['public'].pk}/")
    assert ("Unkind-words-here" in feed, export.status_code) == (False, 404)
    html = page.content.decode()
    assert ("Hidden by the GM: Be civil." in html, "Unkind-words-here" in html) == (True, False)


# --- Mutes -------------------------------------------------------------------------------


def test_a_muted_authors_posts_fold_and_their_mentions_stop(started, threads):
    campaign, gm, (p1, p2) = started
    mute(user=p1.user, campaign=campaign, username=p2.user.username.upper())
    post_create(user=p2.user, thread=threads["alliance"], body=f"Hey @{p1.user.username}!")
    post_create(user=gm, thread=threads["alliance"], body=f"@{p1.user.username}, rules.")
    page = thread_posts_page(user=p1.user, thread=threads["alliance"])["posts"]
    assert [(p.author_id, p.muted) for p in page if p.author_id] == [
        (p2.user_id, True), (gm.pk, False)]
    assert Notification.objects.filter(user=p1.user, kind="mention").count() == 1
    unmute(user=p1.user, campaign=campaign, username=p2.user.username)
    assert Mute.objects.filter(user=p1.user).count() == 0


@pytest.mark.parametrize(("target", "code"), [("gm", "mute_gm"), ("self", "mute_self"),
                                              ("nobody", "unknown_member")])
def test_the_gm_oneself_and_strangers_are_not_muted(started, target, code):
    campaign, gm, (p1, _) = started
    name = {"gm": gm.username, "self": p1.user.username, "nobody": "nobody-here"}[target]
    with pytest.raises(CampaignError) as caught:
        mute(user=p1.user, campaign=campaign, username=name)
    assert (caught.value.code, caught.value.field) == (code, "user")


# --- Pages and API -----------------------------------------------------------------------


def test_the_forum_page_opens_a_conversation_and_shows_errors_beside_the_control(started,
                                                                              client_as):
    campaign, gm, (p1, p2) = started
    client = client_as(p1.user)
    url = f"/campaigns/{campaign.pk}/forum/"
    page = client.get(url).content.decode()
    assert (f'value="{p2.user.username}"' in page, f'value="{gm.username}"' in page,
            'value="gm"' in page) == (True, True, False)
    bad = client.post(url, {"title": "Talk", "audience": "private", "body": "Hi"})
    assert bad.status_code == 400
    assert ('<p id="thread-error" class="form-error" role="alert">Name at least one member to '
            "talk to.</p>") in bad.content.decode()
    assert Thread.objects.filter(title="Talk").count() == 0
    good = client.post(url, {"title": "Talk", "audience": "private", "body": "Hi",
                             "participants": [p2.user.username]})
    talk = Thread.objects.get(title="Talk")
    assert (good.status_code, good["Location"]) == (
        302, f"/campaigns/{campaign.pk}/forum/threads/{talk.pk}/")
    side = client.post(url, {"title": "Plans", "audience": "side:alliance", "body": "Go."})
    assert (side.status_code, Thread.objects.get(title="Plans").side.kind) == (302, "alliance")


def test_the_thread_page_has_the_gms_tools_and_hides_with_a_reason(started, threads,
                                                                   client_as):
    campaign, gm, (p1, _) = started
    post = post_create(user=p1.user, thread=threads["public"], body="Hm.")
    base = f"/campaigns/{campaign.pk}/forum/"
    gm_page = client_as(gm).get(f"{base}threads/{threads['public'].pk}/").content.decode()
    player_page = client_as(p1.user).get(f"{base}threads/{threads['public'].pk}/")
    assert ("GM: rename, pin, lock" in gm_page, "Hide the post" in gm_page,
            "GM: rename, pin, lock" in player_page.content.decode()) == (True, True, False)
    refused = client_as(gm).post(f"{base}posts/{post.pk}/hide/", {"reason": " "})
    assert refused.status_code == 400
    assert (f'<p id="hide-error-{post.pk}" class="form-error" role="alert">Say why the post is '
            "hidden; its readers see the reason.</p>") in refused.content.decode()
    done = client_as(gm).post(f"{base}posts/{post.pk}/hide/", {"reason": "Spoiler."})
    post.refresh_from_db()
    assert (done.status_code, post.hidden_reason) == (302, "Spoiler.")
    locked = client_as(gm).post(f"{base}threads/{threads['public'].pk}/manage/",
                                {"action": "lock"})
    page = client_as(p1.user).get(f"{base}threads/{threads['public'].pk}/").content.decode()
    assert (locked.status_code, "This thread is locked: only the GM may post in it." in page,
            '<form id="reply"' in page) == (302, True, False)
    moved = client_as(gm).post(f"{base}threads/{threads['public'].pk}/manage/",
                               {"action": "move", "audience": "gm"})
    assert moved.status_code == 400
    assert ('<p id="manage-error" class="form-error" role="alert">The campaign&#x27;s default '
            "threads stay where they are: the engine reports there.</p>") in \
        moved.content.decode()


def test_a_reply_starts_from_a_report_or_the_map_picture(scouted, threads, client_as):
    campaign, _, (p1, _) = scouted
    report = Event.objects.get(campaign=campaign, kind=EventKind.SCOUT_REPORT)
    url = f"/campaigns/{campaign.pk}/forum/threads/{threads['alliance'].pk}/"
    client = client_as(p1.user)
    page = client.get(f"{url}?quote_report={report.pk}&markup=bbcode").content.decode()
    assert ("[b]Turn 1 · Scout report[/b]\n\nScout report of turn 1: 5 hexes inspected (B1, "
            "B2, C3, D3, D4).") in page
    assert '<option value="bbcode" selected>BBCode</option>' in page
    pic = client.get(f"{url}?quote_map=now&markup=bbcode").content.decode()
    assert (f"[img]http://testserver/campaigns/{campaign.pk}/map.png?width=1000[/img]"
            in pic)
    md = client.get(f"{url}?quote_map=now").content.decode()
    assert f"![The map](http://testserver/campaigns/{campaign.pk}/map.png?width=1000)" in md
    # A report the reader may not see quotes nothing.
    foreign = client.get(f"{url}?quote_report=12345").content.decode()
    assert '<textarea id="post-body" name="body" rows="8" required maxlength="20000" ' \
           'aria-describedby="post-help"></textarea>' in foreign


def test_the_api_opens_and_manages_threads(started):
    campaign, gm, (p1, p2) = started
    api = APIClient()
    api.force_authenticate(p1.user)
    answer = api.post(f"/api/v1/campaigns/{campaign.pk}/threads/",
                      {"title": "Terms", "audience": "private", "body": "[b]Hi[/b]",
                       "markup": "bbcode", "participants": [gm.username]}, format="json")
    data = answer.json()
    assert (answer.status_code, data["title"], data["audience"], data["participants"],
            data["default"], data["posts"], data["unread"], data["gm_reads"]) == (
        201, "Terms", "private", sorted([p1.user.public_name, gm.public_name]), False, 1, 0,
        False)
    post = Post.objects.get(thread_id=data["id"])
    assert (post.markup, post.body) == ("bbcode", "[b]Hi[/b]")
    refused = api.patch(f"/api/v1/campaigns/{campaign.pk}/threads/{data['id']}/",
                        {"pinned": True}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (403, "gm_only")
    gm_api = APIClient()
    gm_api.force_authenticate(gm)
    pinned = gm_api.patch(f"/api/v1/campaigns/{campaign.pk}/threads/{data['id']}/",
                          {"pinned": True, "title": "Terms of parley"}, format="json")
    assert (pinned.status_code, pinned.json()["pinned"], pinned.json()["title"]) == (
        200, True, "Terms of parley")
    other = APIClient()
    other.force_authenticate(p2.user)
    assert other.get(f"/api/v1/campaigns/{campaign.pk}/threads/{data['id']}/posts/"
                     ).status_code == 404
    hidden = gm_api.post(f"/api/v1/campaigns/{campaign.pk}/posts/{post.pk}/hide/",
                         {"reason": "Off topic."}, format="json")
    assert (hidden.status_code, hidden.json()["hidden"], hidden.json()["hidden_reason"]) == (
        200, True, "Off topic.")
    seen = api.get(f"/api/v1/campaigns/{campaign.pk}/threads/{data['id']}/posts/").json()
    assert [(p["hidden"], p["body"], p["html"]) for p in seen["posts"]] == [(True, "", "")]
    muted = other.post(f"/api/v1/campaigns/{campaign.pk}/mutes/", {"user": p1.user.username},
                       format="json")
    listed = other.get(f"/api/v1/campaigns/{campaign.pk}/mutes/").json()
    assert (muted.status_code, listed) == (201, [{"user": p1.user.username}])
    gone = other.delete(f"/api/v1/campaigns/{campaign.pk}/mutes/{p1.user.username}/")
    assert (gone.status_code, other.get(f"/api/v1/campaigns/{campaign.pk}/mutes/").json()) == (
        204, [])


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_thread_titles_and_reasons_are_text(started, threads, client_as, payload):
    campaign, gm, (p1, _) = started
    thread = thread_create(user=p1.user, campaign=campaign, title=payload[:120],
                           audience="public", body="x")
    post = post_create(user=p1.user, thread=thread, body="y")
    post_hide(user=gm, post=post, reason=payload[:300])
    client = client_as(p1.user)
    for url in (f"/campaigns/{campaign.pk}/forum/",
                f"/campaigns/{campaign.pk}/forum/threads/{thread.pk}/"):
        page = client.get(url).content.decode()
        assert escape(payload[:120]) in page
        if any(c in payload for c in "<>\""):
            assert payload[:120] not in page


def test_the_gm_talks_privately_with_an_observer_but_players_do_not_without_diplomacy(started):
    campaign, gm, (p1, _) = started
    observer = Membership.objects.create(campaign=campaign, user=UserFactory(),
                                         role=Role.OBSERVER)
    talk = thread_create(user=gm, campaign=campaign, title="Welcome", audience="private",
                         participants=[observer.user.username], body="Enjoy the show.")
    assert "Welcome" in _titles(observer.user, campaign)
    with pytest.raises(RuleViolationError):
        thread_create(user=gm, campaign=campaign, title="All of us", audience="private",
                      participants=[observer.user.username, p1.user.username], body="Hi.")
    assert talk.gm_reads is False


def test_the_quote_endpoint_gives_only_what_the_reader_may_see(scouted, threads, client_as):
    campaign, gm, (p1, _) = scouted
    report = Event.objects.get(campaign=campaign, kind=EventKind.SCOUT_REPORT)
    base = f"/campaigns/{campaign.pk}/forum/threads/"
    client = client_as(p1.user)
    answer = client.get(f"{base}{threads['alliance'].pk}/quote/?quote_report={report.pk}"
                        "&markup=bbcode")
    assert (answer.status_code, answer["X-Markup"],
            answer.content.decode().startswith("[b]Turn 1 · Scout report[/b]")) == (
        200, "bbcode", True)
    picture = client.get(f"{base}{threads['alliance'].pk}/quote/?quote_map=now")
    assert (picture.content.decode(), picture["X-Markup"]) == (
        f"![The map](http://testserver/campaigns/{campaign.pk}/map.png?width=1000)\n",
        "markdown")
    unseen = client.get(f"{base}{threads['alliance'].pk}/quote/?quote_report=12345")
    assert (unseen.status_code, unseen.content) == (200, b"")
    assert client.get(f"{base}{threads['opposition'].pk}/quote/?quote_map=now"
                      ).status_code == 404
