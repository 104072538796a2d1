"""Reads of the campaign forum: which threads a member may read, pages of posts, unread counts.

Audiences: the public thread is for everyone in the campaign (and its Atom feed for anyone),
a side's thread for that side's players and the GM, the GM notes for the GM alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from campaigns.exports.markup import render_post
from campaigns.models import (
    Campaign,
    Event,
    Membership,
    Phase,
    Post,
    Role,
    ShareToken,
    Thread,
    ThreadAudience,
    ThreadReadMarker,
)
from campaigns.selectors import _membership
from campaigns.selectors.dice import viewer_of
from campaigns.selectors.reports import _for_viewer, _rows, _visible_events

POSTS_PER_PAGE = 20


def edit_window() -> timedelta:
    """How long after posting its author may still edit a post."""
    return timedelta(minutes=settings.FORUM_EDIT_MINUTES)


def can_read(membership: Membership | None, thread: Thread) -> bool:
    """Whether a member may read (and so post in) a thread."""
    if membership is None or membership.campaign_id != thread.campaign_id:
        return False
    if membership.role == Role.GM:
        return True
    if thread.audience == ThreadAudience.PUBLIC:
        return True
    if thread.audience == ThreadAudience.SIDE:
        return membership.role == Role.PLAYER and membership.side_id == thread.side_id
    return False


def readers_of(thread: Thread) -> list[User]:
    """Every member who may read the thread."""
    members = Membership.objects.filter(campaign_id=thread.campaign_id).select_related("user")
    return [m.user for m in members if can_read(m, thread)]


def readable_threads(*, user: User, campaign: Campaign) -> list[Thread]:
    membership = _membership(user=user, campaign=campaign)
    threads = Thread.objects.filter(campaign=campaign).select_related("side").order_by("id")
    return [t for t in threads if can_read(membership, t)]


def thread_for(*, user: User, campaign: Campaign, thread_id: int) -> Thread:
    """A thread the member may read; Thread.DoesNotExist for any other (a 404: a player does
    not learn what the other side's thread is called)."""
    membership = _membership(user=user, campaign=campaign)
    thread = Thread.objects.select_related("side", "campaign").get(pk=thread_id,
                                                                   campaign=campaign)
    if not can_read(membership, thread):
        raise Thread.DoesNotExist
    return thread


def post_for(*, user: User, campaign: Campaign, post_id: int) -> Post:
    """A post in a thread the member may read; Post.DoesNotExist otherwise."""
    membership = _membership(user=user, campaign=campaign)
    post = Post.objects.select_related("thread", "author", "event").get(
        pk=post_id, thread__campaign=campaign)
    if not can_read(membership, post.thread):
        raise Post.DoesNotExist
    return post


def _last_read(user: User, thread_ids: list[int]) -> dict[int, int]:
    return dict(
        ThreadReadMarker.objects.filter(user=user, thread_id__in=thread_ids)
        .values_list("thread_id", "last_read_post_id")
    )


def threads_for(*, user: User, campaign: Campaign) -> list[dict[str, Any]]:
    """The threads the member may read, each with its post count, unread count and last post."""
    threads = readable_threads(user=user, campaign=campaign)
    marks = _last_read(user, [t.pk for t in threads])
    rows = []
    for t in threads:
        posts = Post.objects.filter(thread=t)
        last = posts.order_by("-id").values("id", "created_at").first()
        rows.append({
            "id": t.pk,
            "title": t.title,
            "audience": t.audience,
            "side": t.side.kind if t.side is not None else None,
            "posts": posts.count(),
            "unread": posts.filter(id__gt=marks.get(t.pk, 0)).count(),
            "last_post_at": last["created_at"] if last else None,
        })
    return rows


@dataclass(frozen=True)
class PostView:
    """A post as a page, the API and a feed show it."""

    id: int
    thread: int
    author: str | None
    author_id: int | None
    event: int | None
    body: str
    markup: str
    html: str
    created_at: Any
    edited_at: Any
    is_new: bool
    can_edit: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "thread": self.thread, "author": self.author,
            "system": self.author_id is None, "event": self.event, "body": self.body,
            "markup": self.markup, "html": self.html, "created_at": self.created_at,
            "edited_at": self.edited_at,
            "is_new": self.is_new, "can_edit": self.can_edit,
        }


def post_view(post: Post, *, user: User | None, last_read: int = 0) -> PostView:
    now = timezone.now()
    mine = user is not None and post.author_id == getattr(user, "pk", None)
    return PostView(
        id=post.pk, thread=post.thread_id,
        author=post.author.public_name if post.author is not None else None,
        author_id=post.author_id, event=post.event_id, body=post.body, markup=post.markup,
        html=render_post(post.body, post.markup), created_at=post.created_at,
        edited_at=post.edited_at, is_new=post.pk > last_read,
        can_edit=bool(mine and now - post.created_at <= edit_window()),
    )


def thread_posts_page(*, user: User, thread: Thread, page: int | None = None) -> dict[str, Any]:
    """One page of a thread (oldest first); without a page, the page of the first unread post.
    Read markers are not moved here: the view does that through the service."""
    last_read = _last_read(user, [thread.pk]).get(thread.pk, 0)
    posts = Post.objects.filter(thread=thread).select_related("author").order_by("id")
    paginator = Paginator(posts, POSTS_PER_PAGE)
    if page is None:
        before = posts.filter(id__lte=last_read).count()
        page = min(before // POSTS_PER_PAGE + 1, paginator.num_pages)
    current = paginator.get_page(page)
    return {
        "thread": thread,
        "page": current.number,
        "pages": paginator.num_pages,
        "count": paginator.count,
        "has_previous": current.has_previous(),
        "has_next": current.has_next(),
        "posts": [post_view(p, user=user, last_read=last_read) for p in current.object_list],
        "last_read": last_read,
    }


def latest_posts(*, thread: Thread, limit: int = 50) -> list[Post]:
    """The newest posts of a thread, newest first (feeds)."""
    return list(Post.objects.filter(thread=thread).select_related("author")
                .order_by("-id")[:limit])


def token_user(*, campaign: Campaign, token: str) -> User | None:
    """The user behind a live (unrevoked, unexpired) share token of this campaign who is still
    a member."""
    if not token:
        return None
    row = (ShareToken.objects.select_related("user")
           .filter(campaign=campaign, token=token, revoked_at__isnull=True).first())
    if row is None or not row.is_live(timezone.now()):
        return None
    if not Membership.objects.filter(campaign=campaign, user=row.user).exists():
        return None
    return row.user


def share_tokens_for(*, user: User, campaign: Campaign) -> list[ShareToken]:
    _membership(user=user, campaign=campaign)
    return list(ShareToken.objects.filter(campaign=campaign, user=user))


def phase_event_rows(*, user: User, campaign: Campaign, phase: Phase,
                     exclude_kinds: frozenset[str] = frozenset()) -> list[tuple[Event,
                                                                              dict[str, Any]]]:
    """The events of a phase the member may see, oldest first, each with its row as the
    reports selector shows it to them. Events recorded outside any phase (a GM's hit
    adjustment, pops appearing as a turn begins) belong to the phase open when they happened:
    from its opening to the next phase's."""
    viewer = viewer_of(user=user, campaign=campaign)
    after = (Phase.objects.filter(campaign=campaign, opened_at__gt=phase.opened_at)
             .order_by("opened_at").values_list("opened_at", flat=True).first())
    window = Q(phase__isnull=True, created_at__gte=phase.opened_at)
    if after is not None:
        window &= Q(created_at__lt=after)
    events = (_rows(_visible_events(viewer, campaign).filter(Q(phase=phase) | window))
              .exclude(kind__in=exclude_kinds).order_by("created_at", "id"))
    return [(e, row) for e in events if (row := _for_viewer(viewer, campaign, e)) is not None]
