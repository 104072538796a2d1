"""The campaign forum: threads by audience, posts with mentions, read markers, share tokens,
and the system posts the engine writes for its events."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from accounts.models import NotificationKind, User
from campaigns.errors import (
    CampaignError,
    NotAllowedError,
    RuleViolationError,
    WrongStateError,
)
from campaigns.markup import MARKUPS, escape_markdown, text_outside_quotes
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Event,
    EventKind,
    Membership,
    Mute,
    Notification,
    Post,
    PostMention,
    Role,
    ShareToken,
    Side,
    SideKind,
    Thread,
    ThreadAudience,
    ThreadParticipant,
    ThreadReadMarker,
)
from campaigns.notifications import deliver_notifications
from campaigns.selectors import _membership
from campaigns.selectors.forum import (
    can_read,
    conversation_allowed,
    edit_window,
    participant_ids,
    readers_of,
    write_refusal,
)
from campaigns.services.common import record_event, require_gm

MAX_POST_LENGTH = 20_000
MAX_ACTIVE_TOKENS = 20
# "@name" not preceded by a word character (so e-mail addresses are not mentions).
_MENTION = re.compile(r"(?<![\w@])@([\w.+-]+)")


# --- Threads -----------------------------------------------------------------------------


def threads_ensure(*, campaign: Campaign) -> list[Thread]:
    """The campaign's default threads, created if missing: public, one per side, GM notes.
    Idempotent and safe when two requests create them at once (unique constraints +
    get_or_create)."""
    threads = [Thread.objects.get_or_create(
        campaign=campaign, audience=ThreadAudience.PUBLIC, side=None, is_default=True,
        defaults={"title": "Public thread"})[0]]
    for side in Side.objects.filter(campaign=campaign).order_by("kind"):
        threads.append(Thread.objects.get_or_create(
            campaign=campaign, audience=ThreadAudience.SIDE, side=side, is_default=True,
            defaults={"title": f"{side.name} (side thread)"})[0])
    threads.append(Thread.objects.get_or_create(
        campaign=campaign, audience=ThreadAudience.GM, side=None, is_default=True,
        defaults={"title": "GM notes"})[0])
    return threads


MAX_TITLE_LENGTH = 120
MAX_PARTICIPANTS = 10


def _clean_title(title: str) -> str:
    text = " ".join(title.split())
    if not text:
        raise CampaignError("A thread needs a title.", code="empty_title", field="title")
    if len(text) > MAX_TITLE_LENGTH:
        raise CampaignError(f"A thread's title is at most {MAX_TITLE_LENGTH} characters; this "
                            f"one has {len(text)}.", code="title_too_long", field="title")
    return text


def _audience_side(membership: Membership, audience: str, side_kind: str | None) -> Side | None:
    """The side of a new or moved thread: a player's own side; the GM names one."""
    if audience != ThreadAudience.SIDE:
        if side_kind:
            raise CampaignError("Only a side thread names a side.", code="invalid_field",
                                field="side")
        return None
    if membership.role == Role.GM:
        side = Side.objects.filter(campaign_id=membership.campaign_id, kind=side_kind or "").first()
        if side is None:
            raise CampaignError("Name the side the thread is for: alliance or opposition.",
                                code="invalid_field", field="side")
        return side
    if membership.role != Role.PLAYER or membership.side is None:
        raise NotAllowedError("Only a side's players (and the GM) open threads for a side.",
                              code="not_audience")
    if side_kind and side_kind != membership.side.kind:
        raise NotAllowedError("A player opens threads for their own side only.",
                              code="not_audience")
    return membership.side


def _participants(membership: Membership, names: list[str]) -> list[Membership]:
    """The members of a new private conversation, the opener first; refused (naming the
    rule) when a name is no member or the campaign does not allow such a conversation."""
    wanted = list(dict.fromkeys(n.strip().lstrip("@").lower() for n in names if n.strip()))
    if not wanted:
        raise CampaignError("Name at least one member to talk to.", code="no_participants",
                            field="participants")
    if len(wanted) > MAX_PARTICIPANTS:
        raise CampaignError(f"A conversation has at most {MAX_PARTICIPANTS} other members.",
                            code="too_many_participants", field="participants")
    members = {m.user.username.lower(): m for m in Membership.objects.filter(
        campaign_id=membership.campaign_id).exclude(role=Role.FORMER).select_related("user")}
    unknown = [n for n in wanted if n not in members]
    if unknown:
        raise CampaignError(f"Not a member of this campaign: {', '.join(unknown)}.",
                            code="unknown_participant", field="participants")
    others = [members[n] for n in wanted if members[n].pk != membership.pk]
    if not others:
        raise CampaignError("A conversation needs someone besides you.",
                            code="no_participants", field="participants")
    everyone = [membership, *others]
    if not conversation_allowed(everyone, diplomacy=membership.campaign.diplomacy):
        raise RuleViolationError(
            "Private conversations: a player talks privately with the GM and with players "
            "of their own side; across sides (or with observers) only while the GM allows "
            "diplomacy.", code="no_diplomacy", field="participants")
    return everyone


@transaction.atomic
def thread_create(*, user: User, campaign: Campaign, title: str, audience: str, body: str,
                  markup: str = "markdown", side: str | None = None,
                  participants: list[str] | None = None) -> Thread:
    """A member opens a topic thread with its first post: public (any member), for a side
    (its players and the GM), GM notes (the GM), or a private conversation with named
    members (see `_participants`). Nothing is created when anything is refused."""
    membership = _membership(user=user, campaign=campaign)
    if audience not in ThreadAudience.values:
        raise CampaignError("A thread is public, for a side, GM notes or a private "
                            "conversation.", code="invalid_field", field="audience")
    if membership.role == Role.FORMER:
        raise NotAllowedError("Former players no longer open threads.", code="not_audience")
    if audience == ThreadAudience.GM and membership.role != Role.GM:
        raise NotAllowedError("Only the GM writes GM notes.", code="not_audience")
    clean_title = _clean_title(title)
    thread_side = _audience_side(membership, audience, side)
    members = (_participants(membership, participants or [])
               if audience == ThreadAudience.PRIVATE else [])
    if participants and audience != ThreadAudience.PRIVATE:
        raise CampaignError("Only a private conversation has participants.",
                            code="invalid_field", field="participants")
    text = _clean_body(body)
    written = _clean_markup(markup)
    thread = Thread.objects.create(
        campaign=campaign, audience=audience, side=thread_side, title=clean_title,
        author=user, gm_reads=audience == ThreadAudience.PRIVATE
        and campaign.gm_reads_conversations)
    ThreadParticipant.objects.bulk_create(
        [ThreadParticipant(thread=thread, user_id=m.user_id) for m in members])
    post = Post.objects.create(thread=thread, author=user, body=text, markup=written)
    _notify_new_thread(thread, author=user, skip={u.pk for u in _notify_mentions(
        post, author=user)})
    thread_mark_read(user=user, thread=thread, post_id=post.pk)
    return thread


def _notify_new_thread(thread: Thread, *, author: User, skip: set[int]) -> None:
    """A private conversation's participants learn it was opened (those @mentioned in its
    first post were told already)."""
    if thread.audience != ThreadAudience.PRIVATE:
        return
    link = reverse("campaigns:forum-thread", args=[thread.campaign_id, thread.pk])
    rows = Notification.objects.bulk_create([
        Notification(user=u, campaign_id=thread.campaign_id, kind=NotificationKind.MENTION,
                     message=f"{author.public_name} opened a private conversation with you in "
                     f"{thread.campaign.name}: “{thread.title}”.", link=link)
        for u in readers_of(thread)
        if u.pk != author.pk and u.pk not in skip and u.pk in participant_ids(thread)
    ])
    deliver_notifications([n.pk for n in rows])


@transaction.atomic
def thread_update(*, user: User, thread: Thread, title: str | None = None,
                  pinned: bool | None = None, locked: bool | None = None,
                  audience: str | None = None, side: str | None = None) -> Thread:
    """The GM renames, pins, locks or moves a thread. A move goes between public, a side and
    GM notes; the engine's default threads and private conversations stay where they are
    (moving a conversation would show it to others)."""
    thread = Thread.objects.select_for_update().select_related("campaign").get(pk=thread.pk)
    membership = _membership(user=user, campaign=thread.campaign)
    if not can_read(membership, thread):
        raise NotAllowedError("Only the members of this thread's audience may read it.",
                              code="not_audience")
    if membership.role != Role.GM:
        raise NotAllowedError("Only the GM may rename, pin, lock or move a thread.",
                              code="gm_only")
    fields: list[str] = []
    if title is not None:
        thread.title = _clean_title(title)
        fields.append("title")
    if pinned is not None:
        thread.pinned = bool(pinned)
        fields.append("pinned")
    if locked is not None:
        thread.locked = bool(locked)
        fields.append("locked")
    if audience is not None:
        if audience not in ThreadAudience.values:
            raise CampaignError("A thread moves to public, a side or GM notes.",
                                code="invalid_field", field="audience")
        private = ThreadAudience.PRIVATE in (audience, thread.audience)
        if private and audience != thread.audience:
            raise RuleViolationError("A private conversation is not moved, and no thread is "
                                     "moved into one.", code="private_thread", field="audience")
        new_side = None if private else _audience_side(membership, audience, side)
        if (audience, new_side) != (thread.audience, thread.side):
            if thread.is_default:
                raise RuleViolationError("The campaign's default threads stay where they "
                                         "are: the engine reports there.",
                                         code="default_thread", field="audience")
            thread.audience = audience
            thread.side = new_side
            fields += ["audience", "side"]
    if fields:
        thread.save(update_fields=fields)
    return thread


def _thread(campaign: Campaign, *, side: Side | None) -> Thread:
    for t in threads_ensure(campaign=campaign):
        if side is None and t.audience == ThreadAudience.PUBLIC:
            return t
        if side is not None and t.side_id == side.pk:
            return t
    raise LookupError("threads_ensure always returns the public and side threads")


# --- Posts -------------------------------------------------------------------------------


def _clean_body(body: str) -> str:
    text = body.replace("\r\n", "\n").strip()
    if not text:
        raise CampaignError("A post needs some text.", code="empty_post", field="body")
    if len(text) > MAX_POST_LENGTH:
        raise CampaignError(
            f"A post is at most {MAX_POST_LENGTH} characters; this one has {len(text)}.",
            code="post_too_long", field="body")
    return text


def _clean_markup(markup: str) -> str:
    if markup not in MARKUPS:
        raise CampaignError(f"A post is written in {' or '.join(MARKUPS.values())}; "
                            f"'{markup[:20]}' is neither.", code="invalid_field", field="markup")
    return markup


def _writer(*, user: User, thread: Thread) -> Membership:
    membership = _membership(user=user, campaign=thread.campaign)
    if not can_read(membership, thread):
        raise NotAllowedError(
            "Only the members of this thread's audience may post in it.", code="not_audience")
    refusal = write_refusal(membership, thread)
    if refusal is not None:
        raise RuleViolationError(refusal[1], code=refusal[0])
    return membership


def _notify_mentions(post: Post, *, author: User) -> list[User]:
    """Notify every reader of the thread named with @username in the post (outside quotes and
    code) who was not notified for this post before; returns who was notified now."""
    names = {m.lower().rstrip(".") for run in text_outside_quotes(post.body, post.markup)
             for m in _MENTION.findall(run)}
    if not names:
        return []
    already = set(PostMention.objects.filter(post=post).values_list("user_id", flat=True))
    # Who muted the author is not told of their mentions.
    already |= set(Mute.objects.filter(campaign_id=post.thread.campaign_id, muted=author)
                   .values_list("user_id", flat=True))
    targets = [u for u in readers_of(post.thread)
               if u.username.lower() in names and u.pk != author.pk and u.pk not in already]
    if not targets:
        return []
    PostMention.objects.bulk_create([PostMention(post=post, user=u) for u in targets])
    thread = post.thread
    post_link = (reverse("campaigns:forum-thread", args=[thread.campaign_id, thread.pk])
                 + f"?post={post.pk}#post-{post.pk}")
    rows = Notification.objects.bulk_create([
        Notification(user=u, campaign_id=thread.campaign_id, kind=NotificationKind.MENTION,
                     message=f"{author.public_name} mentioned you in “{thread.title}” of "
                     f"{thread.campaign.name}.", link=post_link)
        for u in targets
    ])
    ids = [n.pk for n in rows]
    deliver_notifications(ids)
    return targets


@transaction.atomic
def post_create(*, user: User, thread: Thread, body: str, markup: str = "markdown") -> Post:
    """A member's post in a thread of their audience, in Markdown or BBCode; @mentions of its
    readers notify them."""
    _writer(user=user, thread=thread)
    text = _clean_body(body)
    post = Post.objects.create(thread=thread, author=user, body=text,
                               markup=_clean_markup(markup))
    _notify_mentions(post, author=user)
    # The author has read their own post.
    thread_mark_read(user=user, thread=thread, post_id=post.pk)
    return post


@transaction.atomic
def post_edit(*, user: User, post: Post, body: str, markup: str | None = None) -> Post:
    """The author edits their post within the edit window; "edited" is shown from then on.
    Mentions added by the edit notify; those already notified are not notified again."""
    post = Post.objects.select_for_update().select_related("thread__campaign").get(pk=post.pk)
    _writer(user=user, thread=post.thread)
    if post.author_id != user.pk:
        raise NotAllowedError("Only its author may edit a post.", code="not_author")
    if post.hidden_at is not None:
        raise RuleViolationError("The GM hid this post: it is no longer edited.",
                                 code="post_hidden")
    minutes = int(edit_window().total_seconds() // 60)
    if timezone.now() - post.created_at > edit_window():
        raise RuleViolationError(
            f"A post may be edited only within {minutes} minutes of posting.",
            code="edit_window_passed")
    text = _clean_body(body)
    written = post.markup if markup is None else _clean_markup(markup)
    if text != post.body or written != post.markup:
        post.body = text
        post.markup = written
        post.edited_at = timezone.now()
        post.save(update_fields=["body", "markup", "edited_at"])
        _notify_mentions(post, author=user)
    return post


# --- Moderation --------------------------------------------------------------------------

MAX_REASON_LENGTH = 300


@transaction.atomic
def post_hide(*, user: User, post: Post, reason: str) -> Post:
    """The GM hides a post, saying why: its readers see the reason in its place, and the
    GM ledger keeps the act and the reason (for the thread's readers)."""
    post = Post.objects.select_for_update().select_related("thread__campaign").get(pk=post.pk)
    thread = post.thread
    require_gm(user=user, campaign=thread.campaign)
    if not can_read(_membership(user=user, campaign=thread.campaign), thread):
        raise NotAllowedError("The GM does not read this conversation.", code="not_audience")
    if post.author_id is None:
        raise RuleViolationError("The engine's posts report events: they are not hidden.",
                                 code="system_post")
    why = " ".join(reason.split())
    if not why:
        raise CampaignError("Say why the post is hidden; its readers see the reason.",
                            code="reason_required", field="reason")
    if len(why) > MAX_REASON_LENGTH:
        raise CampaignError(f"A reason is at most {MAX_REASON_LENGTH} characters.",
                            code="reason_too_long", field="reason")
    if post.hidden_at is not None:
        raise RuleViolationError("This post is hidden already.", code="post_hidden")
    post.hidden_at = timezone.now()
    post.hidden_reason = why
    post.save(update_fields=["hidden_at", "hidden_reason"])
    _moderation_event(post, user=user, kind=EventKind.POST_HIDDEN,
                      summary=f"The GM hid a post by {_author_name(post)} in “{thread.title}”: "
                      f"{why}", reason=why)
    return post


@transaction.atomic
def post_unhide(*, user: User, post: Post) -> Post:
    """The GM shows a hidden post again (also in the ledger)."""
    post = Post.objects.select_for_update().select_related("thread__campaign").get(pk=post.pk)
    require_gm(user=user, campaign=post.thread.campaign)
    if post.hidden_at is None:
        raise RuleViolationError("This post is not hidden.", code="post_not_hidden")
    post.hidden_at = None
    post.hidden_reason = ""
    post.save(update_fields=["hidden_at", "hidden_reason"])
    _moderation_event(post, user=user, kind=EventKind.POST_SHOWN,
                      summary=f"The GM showed again a post by {_author_name(post)} in "
                      f"“{post.thread.title}”.", reason="")
    return post


def _author_name(post: Post) -> str:
    return post.author.public_name if post.author is not None else "Warcamp"


def _moderation_event(post: Post, *, user: User, kind: EventKind, summary: str,
                      reason: str) -> None:
    thread = post.thread
    record_event(campaign=thread.campaign, kind=kind, summary=summary, actor=user,
                 side=thread.side,
                 payload={"thread": thread.pk, "post": post.pk, "reason": reason})


@transaction.atomic
def mute(*, user: User, campaign: Campaign, username: str) -> Mute:
    """The user mutes a member of the campaign: their posts fold, their mentions stop. The
    GM is not muted (their rulings must reach everyone), nor oneself."""
    _membership(user=user, campaign=campaign)
    target = (Membership.objects.select_related("user")
              .filter(campaign=campaign, user__username__iexact=username.strip().lstrip("@"))
              .first())
    if target is None:
        raise CampaignError(f"Not a member of this campaign: {username[:40]}.",
                            code="unknown_member", field="user")
    if target.user_id == user.pk:
        raise RuleViolationError("You cannot mute yourself.", code="mute_self", field="user")
    if target.role == Role.GM:
        raise RuleViolationError("The GM is not muted: their rulings must reach every "
                                 "member.", code="mute_gm", field="user")
    return Mute.objects.get_or_create(campaign=campaign, user=user, muted=target.user)[0]


def unmute(*, user: User, campaign: Campaign, username: str) -> None:
    Mute.objects.filter(campaign=campaign, user=user,
                        muted__username__iexact=username.strip().lstrip("@")).delete()


@transaction.atomic
def side_threads_open(*, user: User, campaign: Campaign, side: str) -> Side:
    """After the end, a side opens its threads (its side threads and topics) to every member:
    the alliance by its Chief Warlord (any of its players when it has none), the opposition by
    the GM, who plays it. Once open they stay open."""
    membership = _membership(user=user, campaign=campaign)
    if campaign.status != CampaignStatus.FINISHED:
        raise WrongStateError("A side's threads open only after the campaign has ended.",
                              code="not_finished")
    target = Side.objects.select_for_update().filter(campaign=campaign, kind=side).first()
    if target is None:
        raise CampaignError("Name a side: alliance or opposition.", code="invalid_field",
                            field="side")
    chief = Membership.objects.filter(campaign=campaign, side=target,
                                      is_chief_warlord=True).exists()
    if target.kind == SideKind.OPPOSITION:
        allowed = membership.role == Role.GM
    else:
        allowed = (membership.role == Role.PLAYER and membership.side_id == target.pk
                   and (membership.is_chief_warlord or not chief))
    if not allowed:
        raise NotAllowedError("A side's threads are opened by its Chief Warlord (the "
                              "opposition's by the GM).", code="not_side_leader")
    if target.threads_opened_at is None:
        target.threads_opened_at = timezone.now()
        target.save(update_fields=["threads_opened_at"])
        post_system_note(campaign, f"{target.name} opened its side threads: every member "
                         "may read them now.")
    return target


def post_system_note(campaign: Campaign, text: str) -> Post:
    """An engine post in the public thread that reports no event (a forum matter)."""
    return Post.objects.create(thread=_thread(campaign, side=None), body=escape_markdown(text))


def thread_mark_read(*, user: User, thread: Thread, post_id: int) -> None:
    """Move the user's read marker forward to `post_id` (never back)."""
    marker, created = ThreadReadMarker.objects.get_or_create(
        thread=thread, user=user, defaults={"last_read_post_id": post_id})
    if not created and marker.last_read_post_id < post_id:
        ThreadReadMarker.objects.filter(pk=marker.pk, last_read_post_id__lt=post_id).update(
            last_read_post_id=post_id, updated_at=timezone.now())


# --- Share tokens ------------------------------------------------------------------------


# How long a new share token works, as offered on the page ("" = until revoked).
SHARE_TOKEN_LIFETIMES = {"30": "30 days", "90": "90 days", "365": "a year", "": "until revoked"}
DEFAULT_SHARE_TOKEN_LIFETIME = "90"  # noqa: S105 (a number of days, not a secret)


def live_share_tokens(*, user: User, campaign: Campaign) -> Any:
    now = timezone.now()
    return ShareToken.objects.filter(campaign=campaign, user=user, revoked_at__isnull=True).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now))


@transaction.atomic
def share_token_create(*, user: User, campaign: Campaign, label: str = "",
                       lifetime: str = DEFAULT_SHARE_TOKEN_LIFETIME) -> ShareToken:
    """A new secret for the user's private feeds and map images of this campaign, working for
    `lifetime` days ("" = until revoked)."""
    _membership(user=user, campaign=campaign)
    label = label.strip()
    if len(label) > 80:
        raise CampaignError("A token's label is at most 80 characters.", code="label_too_long",
                            field="label")
    if lifetime not in SHARE_TOKEN_LIFETIMES:
        raise CampaignError("A token lasts 30 days, 90 days, a year or until revoked.",
                            code="bad_lifetime", field="lifetime")
    if live_share_tokens(user=user, campaign=campaign).count() >= MAX_ACTIVE_TOKENS:
        raise RuleViolationError(
            f"You have {MAX_ACTIVE_TOKENS} active tokens for this campaign; revoke one first.",
            code="too_many_tokens")
    return _share_token_new(campaign_id=campaign.pk, user=user, label=label,
                            lifetime=timedelta(days=int(lifetime)) if lifetime else None)


def _share_token_new(*, campaign_id: int, user: User, label: str,
                     lifetime: timedelta | None) -> ShareToken:
    token = ShareToken.objects.create(campaign_id=campaign_id, user=user, label=label,
                                      token=secrets.token_urlsafe(32))
    if lifetime is not None:  # counted from the stored creation time, exactly
        token.expires_at = token.created_at + lifetime
        token.save(update_fields=["expires_at"])
    return token


@transaction.atomic
def share_token_rotate(*, user: User, token: ShareToken) -> ShareToken:
    """A leaked or expired link replaced: the old token stops at once and a new one with the
    same label and lifetime takes its place (its URLs change; nothing else does)."""
    old = ShareToken.objects.select_for_update().get(pk=token.pk)
    if old.user_id != user.pk:
        raise NotAllowedError("Only its owner may replace a token.", code="not_owner")
    if old.revoked_at is not None:
        raise RuleViolationError("A revoked token cannot be replaced; create a new one.",
                                 code="token_revoked")
    old.revoked_at = timezone.now()
    old.save(update_fields=["revoked_at"])
    return _share_token_new(
        campaign_id=old.campaign_id, user=user, label=old.label,
        lifetime=old.expires_at - old.created_at if old.expires_at is not None else None)


@transaction.atomic
def share_token_revoke(*, user: User, token: ShareToken) -> ShareToken:
    """Revoke one of the user's tokens: every URL carrying it stops working at once."""
    token = ShareToken.objects.select_for_update().get(pk=token.pk)
    if token.user_id != user.pk:
        raise NotAllowedError("Only its owner may revoke a token.", code="not_owner")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


# --- System posts ------------------------------------------------------------------------

# Events the engine reports in the forum. An event with a side goes to that side's thread
# only; fights go to the thread of each side (both fought, both saw them); the rest to the
# public thread.
SYSTEM_POST_KINDS = frozenset({
    EventKind.CAMPAIGN_STARTED, EventKind.PHASE_OPENED, EventKind.PHASE_CLOSED,
    EventKind.DEADLINE_REACHED, EventKind.PHASE_AUTO_CLOSED, EventKind.PHASE_EARLY_CLOSED,
    EventKind.DEADLINE_EXTENDED, EventKind.CAMPAIGN_PAUSED, EventKind.CAMPAIGN_RESUMED,
    EventKind.SCOUT_REPORT, EventKind.COMBAT, EventKind.AMBUSH, EventKind.SIEGE,
    EventKind.FORTIFICATION_CAPTURED, EventKind.POP_POINTS_GRANTED, EventKind.POPS_PLACED,
    EventKind.CAMPAIGN_FINISHED, EventKind.SETTINGS_CHANGED, EventKind.CHIEF_WARLORD_ELECTED,
    EventKind.CHIEF_WARLORD_APPOINTED, EventKind.PLAYER_LEFT, EventKind.SEAT_TAKEN,
    EventKind.STANDING_ORDERS, EventKind.BATTLE_ORDERS,
})
# People joining, leaving, elected: reported with a link to the overview's members.
MEMBER_KINDS = frozenset({EventKind.CHIEF_WARLORD_ELECTED, EventKind.CHIEF_WARLORD_APPOINTED,
                          EventKind.PLAYER_LEFT, EventKind.SEAT_TAKEN,
                          EventKind.STANDING_ORDERS})
FIGHT_KINDS = frozenset({EventKind.COMBAT, EventKind.AMBUSH, EventKind.SIEGE})
REPORT_PAGE_KINDS = frozenset({*FIGHT_KINDS, EventKind.SCOUT_REPORT})


def _url(name: str, args: list[int], fallback: str) -> str:
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return fallback


def event_links(event: Event) -> list[tuple[str, str]]:
    """(label, path) of the pages that report an event in full: a fight's or a scout's report
    page; a phase's dice (commitment at opening, verification and replay at closing); the
    history at the end; any other event of a phase at its own step of the phase's replay;
    the map for the rest (the start, pops appearing between turns)."""
    c = event.campaign_id
    if event.campaign.ruleset_key != "erfworld":
        # A battle of another rule system: everything is on its battle page.
        battle = _url("campaigns:battle", [c], f"/campaigns/{c}/battle/")
        if event.phase_id is not None and event.kind in (EventKind.PHASE_OPENED,
                                                         EventKind.PHASE_CLOSED):
            dice = _url("campaigns:dice", [c, event.phase_id],
                        f"/campaigns/{c}/dice/{event.phase_id}/")
            label = "Dice commitment" if event.kind == EventKind.PHASE_OPENED else "Verify the dice"
            return [("The battle", battle), (label, dice)]
        return [("The battle", battle)]
    if event.kind in REPORT_PAGE_KINDS:
        return [("Full report", _url("campaigns:report", [c, event.pk],
                                     f"/campaigns/{c}/reports/{event.pk}/"))]
    if event.kind == EventKind.CAMPAIGN_FINISHED:
        return [("The fog lifts: after-action report",
                 _url("campaigns:after-action", [c], f"/campaigns/{c}/after-action/")),
                ("History", _url("campaigns:history", [c], f"/campaigns/{c}/history/"))]
    if event.kind in MEMBER_KINDS:
        return [("The overview", _url("campaigns:lobby", [c], f"/campaigns/{c}/"))]
    if event.phase_id is None:
        return [("The map", _url("campaigns:map", [c], f"/campaigns/{c}/map/"))]
    p = event.phase_id
    dice = _url("campaigns:dice", [c, p], f"/campaigns/{c}/dice/{p}/")
    replay = _url("campaigns:replay", [c, p], f"/campaigns/{c}/replay/{p}/")
    if event.kind == EventKind.PHASE_OPENED:
        return [("Dice commitment", dice)]
    if event.kind == EventKind.PHASE_CLOSED:
        return [("Verify the dice", dice), ("Replay the phase", replay)]
    return [("Full report", f"{replay}?event={event.pk}")]


def system_post_body(event: Event) -> str:
    body = escape_markdown(event.summary)
    links = event_links(event)
    if links:
        body += "\n\n" + " · ".join(f"[{label}]({path})" for label, path in links)
    return body


def system_posts_for_event(event: Event) -> list[Post]:
    """Write the engine's post(s) for an event into the right thread(s); once per thread."""
    if event.kind not in SYSTEM_POST_KINDS:
        return []
    campaign = event.campaign
    if event.side_id is not None:
        threads = [_thread(campaign, side=event.side)]
    elif event.kind in FIGHT_KINDS:
        threads = [_thread(campaign, side=s) for s in Side.objects.filter(campaign=campaign)
                   .order_by("kind")]
    else:
        threads = [_thread(campaign, side=None)]
    body = system_post_body(event)
    return [Post.objects.get_or_create(thread=t, event=event, defaults={"body": body})[0]
            for t in threads]


def forum_on_event(event: Event) -> None:
    """The engine's hook (campaigns.services.common.record_event): threads when a campaign is
    created or started, and the system posts of the events the forum reports."""
    if event.kind in (EventKind.CAMPAIGN_CREATED, EventKind.CAMPAIGN_STARTED):
        threads_ensure(campaign=event.campaign)
    system_posts_for_event(event)
