"""The forum pages: threads, posting, preview, edit, and who may see which thread."""

import pytest

from campaigns.models import Post
from campaigns.services.forum import post_create
from tests.factories import UserFactory
from tests.forum.conftest import XSS_PAYLOADS, assert_neutralized

pytestmark = [pytest.mark.django_db]


def test_the_forum_lists_a_players_threads(started, threads, client_as):
    response = client_as(started[2][0].user).get(f"/campaigns/{started[0].pk}/forum/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "The Alliance (side thread)" in html
    assert "Broad Way Garrison (side thread)" not in html
    assert "GM notes" not in html


def test_a_non_member_gets_404_for_the_forum(started, client_as):
    assert client_as(UserFactory()).get(f"/campaigns/{started[0].pk}/forum/").status_code == 404


def test_a_player_gets_404_for_the_other_sides_thread(started, threads, client_as):
    url = f"/campaigns/{started[0].pk}/forum/threads/{threads['opposition'].pk}/"
    assert client_as(started[2][0].user).get(url).status_code == 404


def test_posting_redirects_to_the_new_post(started, threads, client_as):
    url = f"/campaigns/{started[0].pk}/forum/threads/{threads['public'].pk}/"
    response = client_as(started[2][0].user).post(url, {"body": "On to **J10**!"})
    post = Post.objects.get(author=started[2][0].user)
    assert response.status_code == 302
    assert response["Location"] == f"{url}?post={post.pk}#post-{post.pk}"


def test_an_empty_post_shows_the_rule(started, threads, client_as):
    url = f"/campaigns/{started[0].pk}/forum/threads/{threads['public'].pk}/"
    response = client_as(started[2][0].user).post(url, {"body": "   "})
    assert response.status_code == 400
    assert "A post needs some text." in response.content.decode()


def test_xss_payloads_in_posts_are_neutralized_on_the_thread_page(started, threads, client_as):
    user = started[2][0].user
    for payload in XSS_PAYLOADS:
        post_create(user=user, thread=threads["public"], body=payload)
    url = f"/campaigns/{started[0].pk}/forum/threads/{threads['public'].pk}/?page=1"
    response = client_as(user).get(url)
    html = response.content.decode()
    body = html[html.index('id="thread-title"'):html.index('id="reply-title"')]
    assert_neutralized(body)


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_xss_payloads_are_neutralized_in_the_preview(started, client_as, payload):
    response = client_as(started[2][0].user).post(
        f"/campaigns/{started[0].pk}/forum/preview/", {"body": payload})
    assert response.status_code == 200
    assert_neutralized(response.content.decode())


def test_quote_prefills_the_reply_with_the_quoted_post(started, threads, client_as):
    p1, p2 = started[2]
    post = post_create(user=p1.user, thread=threads["public"], body="Hold the road.")
    url = f"/campaigns/{started[0].pk}/forum/threads/{threads['public'].pk}/?quote={post.pk}"
    html = client_as(p2.user).get(url).content.decode()
    assert f"&gt; **{p1.user.public_name}** wrote:\n&gt;\n&gt; Hold the road." in html


def test_an_edited_post_says_edited(started, threads, client_as):
    user = started[2][0].user
    post = post_create(user=user, thread=threads["public"], body="first")
    client = client_as(user)
    edit = f"/campaigns/{started[0].pk}/forum/posts/{post.pk}/edit/"
    assert client.post(edit, {"body": "second"}).status_code == 302
    html = client.get(f"/campaigns/{started[0].pk}/forum/threads/{threads['public'].pk}/"
                      f"?post={post.pk}").content.decode()
    assert "(edited)" in html


def test_viewing_a_thread_marks_it_read(started, threads, client_as):
    p1, p2 = started[2]
    post_create(user=p1.user, thread=threads["alliance"], body="news")
    client = client_as(p2.user)
    client.get(f"/campaigns/{started[0].pk}/forum/threads/{threads['alliance'].pk}/")
    from campaigns.selectors.forum import threads_for

    rows = {r["id"]: r["unread"] for r in threads_for(user=p2.user, campaign=started[0])}
    assert rows[threads["alliance"].pk] == 0


def test_the_edit_page_shows_the_post_in_the_editor(started, threads, client_as):
    user = started[2][0].user
    post = post_create(user=user, thread=threads["public"], body="draft <b>")
    response = client_as(user).get(f"/campaigns/{started[0].pk}/forum/posts/{post.pk}/edit/")
    assert response.status_code == 200
    assert ">draft &lt;b&gt;</textarea>" in response.content.decode()
