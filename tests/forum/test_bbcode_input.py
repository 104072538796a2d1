"""Posts written in BBCode (PBF players type it by habit) as well as Markdown: rendered by
the `bbcode` package and sanitized by nh3 like Markdown; on the thread page, the preview,
the API, edits, quotes, @mentions and feeds; every XSS payload (also as BBCode) harmless."""

import pytest

from accounts.models import NotificationKind
from campaigns.errors import CampaignError
from campaigns.markup import render_bbcode, text_outside_quotes
from campaigns.models import Notification, Post
from campaigns.services.forum import post_create, post_edit
from tests.forum.conftest import XSS_PAYLOADS, assert_neutralized

pytestmark = [pytest.mark.django_db]

BB_PAYLOADS = XSS_PAYLOADS + [
    "[url=javascript:alert('b1')]x[/url]",
    "[img]javascript:alert('b2')[/img]",
    "[img]\" onerror=\"alert('b3')[/img]",
    "[url=\"onmouseover=alert('b4')]x[/url]",
    "[quote=\"><script>alert('b5')</script>]q[/quote]",
    "[color=red;background:url(javascript:alert('b6'))]c[/color]",
    "[code]<script>alert('b7')</script>[/code]",
]


@pytest.mark.parametrize(("source", "html"), [
    ("[b]bold[/b] [i]it[/i] [u]under[/u] [s]gone[/s]",
     "<strong>bold</strong> <em>it</em> <u>under</u> <del>gone</del>"),
    ("[url=https://example.org/a]the road[/url]",
     '<a href="https://example.org/a" rel="nofollow noopener noreferrer">the road</a>'),
    ("[img]https://example.org/map.png[/img]", '<img src="https://example.org/map.png" alt="map.png">'),
    ("[quote=ann]Hold the road.[/quote]",
     "<blockquote><p><strong>ann</strong> wrote:</p>Hold the road.</blockquote>"),
    ("[list][*]A1[*]B2[/list]", "<ul><li>A1</li><li>B2</li></ul>"),
    ("[code]<b>x</b>[/code]", "<code>&lt;b&gt;x&lt;/b&gt;</code>"),
    ("[color=red]red[/color] [center]mid[/center]", "red mid"),
    ("[foo]kept[/foo]", "[foo]kept[/foo]"),
    ("line one\nline two", "line one<br>line two"),
])
def test_bbcode_renders_each_tag(source, html):
    assert render_bbcode(source) == html


@pytest.mark.parametrize("payload", BB_PAYLOADS)
def test_bbcode_input_neutralizes_every_payload(payload):
    assert_neutralized(render_bbcode(payload))


def test_mentions_count_outside_bbcode_quotes_and_code():
    runs = text_outside_quotes("hi @ann [quote=bob]@carl[/quote] [code]@dan[/code] @eve",
                               "bbcode")
    assert runs == ["hi @ann ", " ", " @eve"]


def test_a_bbcode_post_on_the_page_in_the_preview_and_quoted(started, threads, client_as):
    campaign, _, (p1, p2) = started
    base = f"/campaigns/{campaign.pk}/forum/threads/{threads['public'].pk}/"
    client = client_as(p1.user)
    response = client.post(base, {"body": "[b]Hold[/b] the road, @" + p2.user.username,
                                  "markup": "bbcode"})
    post = Post.objects.get(thread=threads["public"], author=p1.user)
    page = client.get(base + "?page=1").content.decode()
    preview = client.post(f"/campaigns/{campaign.pk}/forum/preview/",
                          {"body": "[i]soon[/i]", "markup": "bbcode"}).content.decode()
    quoted = client_as(p2.user).get(base + f"?quote={post.pk}").content.decode()
    mentioned = Notification.objects.filter(user=p2.user, kind=NotificationKind.MENTION).count()
    for payload in BB_PAYLOADS:
        client.post(base, {"body": payload, "markup": "bbcode"})
    every = client.get(base + "?page=1").content.decode()
    assert (response.status_code, post.markup, "<strong>Hold</strong> the road" in page,
            "<em>soon</em>" in preview, mentioned) == (302, "bbcode", True, True, 1)
    # The reply to a BBCode post is BBCode too.
    assert (f"[quote={p1.user.public_name}][b]Hold[/b] the road, @{p2.user.username}[/quote]"
            in quoted, '<option value="bbcode" selected>' in quoted) == (True, True)
    assert_neutralized(every[every.index('id="thread-title"'):every.index('id="reply-title"')])


def test_the_api_takes_and_answers_the_markup(started, threads, client_as):
    campaign, _, (p1, _) = started
    url = f"/api/v1/campaigns/{campaign.pk}/threads/{threads['public'].pk}/posts/"
    client = client_as(p1.user)
    made = client.post(url, {"body": "[b]J10[/b]", "markup": "bbcode"},
                       content_type="application/json")
    default = client.post(url, {"body": "**J10**"}, content_type="application/json")
    wrong = client.post(url, {"body": "x", "markup": "html"}, content_type="application/json")
    edit_url = f"/api/v1/campaigns/{campaign.pk}/posts/{made.json()['id']}/"
    kept = client.patch(edit_url, {"body": "[i]J10[/i]"}, content_type="application/json")
    assert ((made.status_code, made.json()["markup"], made.json()["html"]),
            (default.json()["markup"], default.json()["html"]),
            (wrong.status_code, wrong.json()),
            (kept.json()["markup"], kept.json()["html"])) == (
        (201, "bbcode", "<strong>J10</strong>"),
        ("markdown", "<p><strong>J10</strong></p>\n"),
        (400, {"code": "invalid_field", "field": "markup",
               "detail": "A post is written in Markdown or BBCode; 'html' is neither."}),
        ("bbcode", "<em>J10</em>"))
    assert Post.objects.filter(thread=threads["public"], body="x").count() == 0


def test_an_edit_may_change_the_markup_and_a_wrong_one_changes_nothing(started, threads):
    _, _, (p1, _) = started
    post = post_create(user=p1.user, thread=threads["public"], body="**x**")
    with pytest.raises(CampaignError) as caught:
        post_edit(user=p1.user, post=post, body="[b]x[/b]", markup="wiki")
    post.refresh_from_db()
    unchanged = (post.body, post.markup, post.edited_at)
    post_edit(user=p1.user, post=post, body="[b]x[/b]", markup="bbcode")
    post.refresh_from_db()
    assert (caught.value.field, unchanged, post.body, post.markup) == (
        "markup", ("**x**", "markdown", None), "[b]x[/b]", "bbcode")


def test_a_bbcode_post_exports_as_written(started, threads):
    from campaigns.exports.text import post_export

    _, _, (p1, _) = started
    post = post_create(user=p1.user, thread=threads["public"], body="[b]Hold[/b] *J10*",
                       markup="bbcode")
    export = post_export(post=post, base_url="https://warcamp.example")
    when = f"{post.created_at:%Y-%m-%d %H:%M} UTC"
    name = p1.user.public_name
    assert (export.bbcode, export.markdown) == (
        f"[b]{name}[/b] wrote on {when}:\n\n[b]Hold[/b] *J10*\n",
        f"**{name}** wrote on {when}:\n\n\\[b\\]Hold\\[/b\\] \\*J10\\*\n")
