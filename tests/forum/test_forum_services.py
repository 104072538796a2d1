"""The forum's services: threads by audience, system posts, mentions, edit window, markers."""

from datetime import timedelta

import pytest

from accounts.models import NotificationKind
from campaigns.errors import CampaignError, NotAllowedError, RuleViolationError
from campaigns.models import Notification, Post, PostMention, Thread, ThreadAudience
from campaigns.selectors.forum import thread_posts_page, threads_for
from campaigns.services.forum import post_create, post_edit, threads_ensure
from tests.factories import campaign_factory, player_factory

pytestmark = [pytest.mark.django_db]


def test_a_new_campaign_has_its_four_threads():
    campaign = campaign_factory()
    assert sorted(Thread.objects.filter(campaign=campaign).values_list("audience", "title")) == [
        ("gm", "GM notes"),
        ("public", "Public thread"),
        ("side", "The Alliance (side thread)"),
        ("side", "The Broad Way Garrison (side thread)"),
    ]


def test_threads_ensure_creates_missing_threads_once():
    campaign = campaign_factory()
    Thread.objects.filter(campaign=campaign).delete()
    threads_ensure(campaign=campaign)
    threads_ensure(campaign=campaign)
    assert Thread.objects.filter(campaign=campaign).count() == 4


def test_phase_opened_is_posted_in_the_public_thread(started, threads):
    bodies = list(Post.objects.filter(thread=threads["public"], author=None)
                  .values_list("body", flat=True))
    phase = started[0].phases.get()
    # The factory's appointment of the Chief Warlord comes first, with its overview link.
    assert bodies[0].endswith(f"Chief Warlord.\n\n[The overview](/campaigns/{started[0].pk}/)")
    assert bodies[1] == ("The campaign 'The Broad Way' has started; the alliance enters at A1. "
                         "The setup dice are revealed when the campaign ends."
                         f"\n\n[The map](/campaigns/{started[0].pk}/map/)")
    assert bodies[2].endswith(f"[Dice commitment](/campaigns/{started[0].pk}/dice/{phase.pk}/)")


def test_scout_report_goes_to_the_alliance_thread_only(scouted, threads):
    in_threads = {name: Post.objects.filter(thread=t, event__kind="scout_report").count()
                  for name, t in threads.items()}
    assert in_threads == {"public": 0, "alliance": 1, "opposition": 0, "gm": 0}


def test_a_system_post_links_to_its_full_report(scouted, threads):
    post = Post.objects.get(thread=threads["alliance"], event__kind="scout_report")
    assert post.body.endswith(
        f"[Full report](/campaigns/{scouted[0].pk}/reports/{post.event_id}/)")


def test_a_player_posts_in_the_public_and_their_side_thread(started, threads):
    user = started[2][0].user
    post_create(user=user, thread=threads["public"], body="hello all")
    post_create(user=user, thread=threads["alliance"], body="hello allies")
    assert Post.objects.filter(author=user).count() == 2


@pytest.mark.parametrize("name", ["opposition", "gm"])
def test_a_player_may_not_post_outside_their_audience(started, threads, name):
    with pytest.raises(NotAllowedError) as exc:
        post_create(user=started[2][0].user, thread=threads[name], body="peek")
    assert exc.value.code == "not_audience"
    assert Post.objects.filter(author=started[2][0].user).count() == 0


def test_a_player_reads_only_their_audiences_threads(started):
    rows = threads_for(user=started[2][0].user, campaign=started[0])
    assert [r["audience"] for r in rows] == ["public", "side"]
    assert rows[1]["side"] == "alliance"


def test_the_gm_reads_every_thread(started):
    assert len(threads_for(user=started[1], campaign=started[0])) == 4


def test_an_observer_sees_only_the_public_thread(started):
    from campaigns.models import Membership, Role
    from tests.factories import UserFactory

    observer = UserFactory()
    Membership.objects.create(campaign=started[0], user=observer, role=Role.OBSERVER)
    assert [r["audience"] for r in threads_for(user=observer, campaign=started[0])] == [
        ThreadAudience.PUBLIC]


def test_an_empty_post_is_refused(started, threads):
    with pytest.raises(CampaignError) as exc:
        post_create(user=started[2][0].user, thread=threads["public"], body="  \n ")
    assert (exc.value.code, exc.value.field) == ("empty_post", "body")


def test_a_mention_notifies_the_reader_once(started, threads):
    p1, p2 = started[2]
    post = post_create(user=p1.user, thread=threads["alliance"],
                       body=f"@{p2.user.username} look, and again @{p2.user.username}.")
    post_edit(user=p1.user, post=post, body=f"@{p2.user.username} look (edited).")
    mentions = Notification.objects.filter(user=p2.user, kind=NotificationKind.MENTION)
    assert mentions.count() == 1
    assert mentions.get().message == (f"{p1.user.public_name} mentioned you in “The Alliance "
                                      "(side thread)” of The Broad Way.")


def test_a_mention_added_by_an_edit_notifies(started, threads):
    p1, p2 = started[2]
    post = post_create(user=p1.user, thread=threads["public"], body="hi")
    post_edit(user=p1.user, post=post, body=f"hi @{p2.user.username}")
    assert PostMention.objects.filter(post=post, user=p2.user).count() == 1
    assert Notification.objects.filter(user=p2.user, kind="mention").count() == 1


def test_a_mention_of_someone_outside_the_thread_notifies_nobody(started, threads):
    p1 = started[2][0]
    campaign_other = campaign_factory()
    outsider = player_factory(campaign=campaign_other).user
    post_create(user=p1.user, thread=threads["alliance"], body=f"@{outsider.username} hi")
    assert Notification.objects.filter(user=outsider, kind="mention").count() == 0


def test_a_player_mentioning_the_gm_in_the_side_thread_notifies_the_gm(started, threads):
    gm = started[1]
    post_create(user=started[2][0].user, thread=threads["alliance"], body=f"@{gm.username}?")
    assert Notification.objects.filter(user=gm, kind="mention").count() == 1


def test_an_edit_within_the_window_shows_edited(started, threads):
    user = started[2][0].user
    post = post_create(user=user, thread=threads["public"], body="first")
    post_edit(user=user, post=post, body="second")
    post.refresh_from_db()
    assert (post.body, post.edited_at is not None) == ("second", True)


def test_an_edit_after_the_window_is_refused_and_changes_nothing(started, threads):
    user = started[2][0].user
    post = post_create(user=user, thread=threads["public"], body="first")
    Post.objects.filter(pk=post.pk).update(created_at=post.created_at - timedelta(minutes=31))
    with pytest.raises(RuleViolationError) as exc:
        post_edit(user=user, post=post, body="second")
    post.refresh_from_db()
    assert exc.value.code == "edit_window_passed"
    assert (post.body, post.edited_at) == ("first", None)


def test_only_the_author_may_edit(started, threads):
    p1, p2 = started[2]
    post = post_create(user=p1.user, thread=threads["public"], body="mine")
    with pytest.raises(NotAllowedError) as exc:
        post_edit(user=p2.user, post=post, body="yours")
    assert exc.value.code == "not_author"


def test_unread_counts_follow_the_read_marker(started, threads):
    p1, p2 = started[2]
    before = {r["id"]: r["unread"] for r in threads_for(user=p2.user, campaign=started[0])}
    post_create(user=p1.user, thread=threads["alliance"], body="news")
    after = {r["id"]: r["unread"] for r in threads_for(user=p2.user, campaign=started[0])}
    assert after[threads["alliance"].pk] == before[threads["alliance"].pk] + 1


def test_the_author_has_read_their_own_post(started, threads):
    p1 = started[2][0]
    post_create(user=p1.user, thread=threads["alliance"], body="news")
    rows = {r["id"]: r["unread"] for r in threads_for(user=p1.user, campaign=started[0])}
    assert rows[threads["alliance"].pk] == 0


def test_pages_hold_twenty_posts(started, threads):
    user = started[2][0].user
    existing = Post.objects.filter(thread=threads["public"]).count()
    for i in range(41 - existing):
        post_create(user=user, thread=threads["public"], body=f"post {i}")
    page = thread_posts_page(user=user, thread=threads["public"], page=3)
    assert (page["pages"], page["count"], len(page["posts"])) == (3, 41, 1)


def test_quoting_a_post_does_not_mention_its_people_again(started, threads):
    from campaigns.markup import quote_markdown

    p1, p2 = started[2]
    gm = started[1]
    post = post_create(user=p1.user, thread=threads["public"], body=f"@{p2.user.username} go")
    post_create(user=gm, thread=threads["public"],
                body=quote_markdown(p1.user.public_name, post.body) + "Agreed.")
    assert Notification.objects.filter(user=p2.user, kind="mention").count() == 1


def test_a_mention_in_code_notifies_nobody(started, threads):
    p1, p2 = started[2]
    post_create(user=p1.user, thread=threads["public"],
                body=f"Type `@{p2.user.username}` to mention.\n\n    @{p2.user.username}\n")
    assert Notification.objects.filter(user=p2.user, kind="mention").count() == 0


def test_a_mention_in_bold_or_a_list_notifies(started, threads):
    p1, p2 = started[2]
    post_create(user=p1.user, thread=threads["public"], body=f"- **@{p2.user.username}**: hold")
    assert Notification.objects.filter(user=p2.user, kind="mention").count() == 1
