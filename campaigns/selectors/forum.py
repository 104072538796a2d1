"""Reads of the campaign forum: which threads a member may read, pages of posts, unread counts.

Audiences: a public thread is for everyone in the campaign (and the default public thread's
Atom feed for anyone), a side's thread for that side's players and the GM, GM notes for the GM
alone, a private conversation for its participants (and the GM when the campaign's setting
said so when it was opened).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Count, F, Max, Min, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User
from campaigns.markup import render_post
from campaigns.models import (
    Campaign,
    Event,
    Membership,
    Mute,
    Phase,
    Post,
    Role,
    ShareToken,
    Thread,
    ThreadAudience,
    ThreadParticipant,
    ThreadReadMarker,
)
from campaigns.selectors import _membership
from campaigns.selectors.dice import viewer_of
from campaigns.selectors.readers import can_read as can_read
from campaigns.selectors.readers import participant_ids as participant_ids
from campaigns.selectors.readers import side_threads_open as side_threads_open
from campaigns.selectors.reports import _for_viewer, _rows, _visible_events

POSTS_PER_PAGE = 20


def edit_window() -> timedelta:
    """How long after posting its author may still edit a post."""
    return timedelta(minutes=settings.FORUM_EDIT_MINUTES)


def write_refusal(membership: Membership, thread: Thread) -> tuple[str, str] | None:
    """(code, message) when a reader may not post in the thread now, else None: a locked
    thread takes only the GM's posts; a conversation across sides only while the GM allows
    diplomacy; the GM reading a conversation they are not in does not write in it."""
    if thread.locked and membership.role != Role.GM:
        return ("thread_locked", "This thread is locked: only the GM may post in it.")
    if (thread.audience == ThreadAudience.SIDE and membership.role != Role.GM
            and membership.side_id != thread.side_id):
        return ("read_only", "The other side opened this thread for reading after the end; "
                "only its players post in it.")
    if thread.audience != ThreadAudience.PRIVATE:
        return None
    if membership.user_id not in participant_ids(thread):
        return ("not_participant", "Only its participants post in a private conversation.")
    if not thread.campaign.diplomacy and not conversation_allowed(
            list(Membership.objects.filter(campaign_id=thread.campaign_id,
                                           user_id__in=participant_ids(thread))),
            diplomacy=False):
        return ("no_diplomacy", "The GM does not allow diplomacy now: this conversation "
                "across sides is closed until they do.")
    return None


def conversation_allowed(members: list[Membership], *, diplomacy: bool) -> bool:
    """Whether these members may talk privately: the GM with any one member; players of one
    side with each other (and the GM); anyone else (another side, observers) only while the GM
    allows diplomacy."""
    if diplomacy:
        return True
    others = [m for m in members if m.role != Role.GM]
    if len(others) == 1 and len(members) > 1:
        return True  # one member and the GM
    return all(m.role == Role.PLAYER and m.side_id is not None for m in others) and \
        len({m.side_id for m in others}) <= 1


def readers_of(thread: Thread) -> list[User]:
    """Every member who may read the thread."""
    members = Membership.objects.filter(campaign_id=thread.campaign_id).select_related("user")
    return [m.user for m in members if can_read(m, thread)]


def readable_threads(*, user: User, campaign: Campaign) -> list[Thread]:
    membership = _membership(user=user, campaign=campaign)
    threads = list(Thread.objects.filter(campaign=campaign).select_related("side", "campaign"))
    parts: dict[int, set[int]] = {}
    for thread_id, user_id in ThreadParticipant.objects.filter(
            thread__campaign=campaign).values_list("thread_id", "user_id"):
        parts.setdefault(thread_id, set()).add(user_id)
    for t in threads:
        t._participant_ids = parts.get(t.pk, set())  # type: ignore[attr-defined]
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


def threads_for(*, user: User, campaign: Campaign,
                thread_id: int | None = None) -> list[dict[str, Any]]:
    """The threads the member may read (or only `thread_id` of them), pinned first, then the
    most recently active: each with its post count, unread count, first unread post and last
    post; a conversation with its participants' names."""
    threads = {t.pk: t for t in readable_threads(user=user, campaign=campaign)
               if thread_id is None or t.pk == thread_id}
    marker = ThreadReadMarker.objects.filter(thread=OuterRef("pk"), user=user).values(
        "last_read_post_id")[:1]
    unread = Q(posts__id__gt=F("last_read"))
    counts = (Thread.objects.filter(pk__in=threads)
              .annotate(last_read=Coalesce(Subquery(marker), 0))
              .annotate(n=Count("posts"), n_unread=Count("posts", filter=unread),
                        first_unread=Min("posts__id", filter=unread),
                        last_at=Max("posts__created_at"))
              .values("pk", "n", "n_unread", "first_unread", "last_at"))
    names = _participant_names([t for t in threads.values()
                                if t.audience == ThreadAudience.PRIVATE])
    rows = []
    for c in counts:
        t = threads[c["pk"]]
        rows.append({
            "id": t.pk,
            "title": t.title,
            "audience": t.audience,
            "side": t.side.kind if t.side is not None else None,
            "default": t.is_default,
            "pinned": t.pinned,
            "locked": t.locked,
            "participants": names.get(t.pk, []),
            "gm_reads": t.gm_reads,
            "posts": c["n"],
            "unread": c["n_unread"],
            "first_unread": c["first_unread"],
            "last_post_at": c["last_at"],
            "_active": c["last_at"] or t.created_at,
        })
    rows.sort(key=lambda r: r["_active"], reverse=True)
    rows.sort(key=lambda r: not r["pinned"])
    for r in rows:
        del r["_active"]
    return rows


def _participant_names(threads: list[Thread]) -> dict[int, list[str]]:
    names: dict[int, list[str]] = {}
    for p in (ThreadParticipant.objects.filter(thread__in=threads).select_related("user")
              .order_by("user__username")):
        names.setdefault(p.thread_id, []).append(p.user.public_name)
    return names


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
    hidden: bool = False
    hidden_reason: str = ""
    muted: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "thread": self.thread, "author": self.author,
            "system": self.author_id is None, "event": self.event, "body": self.body,
            "markup": self.markup, "html": self.html, "created_at": self.created_at,
            "edited_at": self.edited_at,
            "is_new": self.is_new, "can_edit": self.can_edit,
            "hidden": self.hidden, "hidden_reason": self.hidden_reason, "muted": self.muted,
        }


def post_view(post: Post, *, user: User | None, last_read: int = 0, is_gm: bool = False,
              muted: frozenset[int] = frozenset()) -> PostView:
    """The post for one reader: a post the GM hid keeps only its reason (the GM still reads
    it); a muted author's post is marked so the page can fold it."""
    now = timezone.now()
    mine = user is not None and post.author_id == getattr(user, "pk", None)
    hidden = post.hidden_at is not None
    shown = not hidden or is_gm
    return PostView(
        id=post.pk, thread=post.thread_id,
        author=post.author.public_name if post.author is not None else None,
        author_id=post.author_id, event=post.event_id, body=post.body if shown else "",
        markup=post.markup, html=render_post(post.body, post.markup) if shown else "",
        created_at=post.created_at, edited_at=post.edited_at, is_new=post.pk > last_read,
        can_edit=bool(mine and not hidden and now - post.created_at <= edit_window()),
        hidden=hidden, hidden_reason=post.hidden_reason,
        muted=post.author_id is not None and post.author_id in muted,
    )


def muted_ids(*, user: User, campaign: Campaign) -> frozenset[int]:
    """The authors the user has muted in this campaign."""
    return frozenset(Mute.objects.filter(campaign=campaign, user=user)
                     .values_list("muted_id", flat=True))


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
    gm = Membership.objects.filter(campaign_id=thread.campaign_id, user=user,
                                   role=Role.GM).exists()
    muted = muted_ids(user=user, campaign=thread.campaign)
    return {
        "thread": thread,
        "page": current.number,
        "pages": paginator.num_pages,
        "count": paginator.count,
        "has_previous": current.has_previous(),
        "has_next": current.has_next(),
        "posts": [post_view(p, user=user, last_read=last_read, is_gm=gm, muted=muted)
                  for p in current.object_list],
        "last_read": last_read,
    }


def latest_posts(*, thread: Thread, limit: int = 50) -> list[Post]:
    """The newest posts of a thread, newest first (feeds); those the GM hid are left out."""
    return list(Post.objects.filter(thread=thread, hidden_at__isnull=True).select_related("author")
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


def muted_members(*, user: User, campaign: Campaign) -> list[dict[str, str]]:
    """The members the user muted in this campaign: username and the name shown."""
    _membership(user=user, campaign=campaign)
    return [{"user": m.muted.username, "name": m.muted.public_name}
            for m in Mute.objects.filter(campaign=campaign, user=user).select_related("muted")
            .order_by("muted__username")]


def participant_names(thread: Thread) -> list[str]:
    """A private conversation's members by the names shown (empty for other threads)."""
    if thread.audience != ThreadAudience.PRIVATE:
        return []
    return _participant_names([thread]).get(thread.pk, [])
