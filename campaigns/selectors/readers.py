"""Who may read a forum thread (the forum's pages and the reports of its moderation ask
here)."""

from __future__ import annotations

from campaigns.models import (
    CampaignStatus,
    Membership,
    Role,
    Thread,
    ThreadAudience,
    ThreadParticipant,
)

__all__ = ["can_read", "participant_ids", "side_threads_open"]


def participant_ids(thread: Thread) -> set[int]:
    """The users in a private conversation (cached on the thread object)."""
    cached: set[int] | None = getattr(thread, "_participant_ids", None)
    if cached is None:
        cached = set(ThreadParticipant.objects.filter(thread=thread)
                     .values_list("user_id", flat=True))
        thread._participant_ids = cached  # type: ignore[attr-defined]
    return cached


def can_read(membership: Membership | None, thread: Thread) -> bool:
    """Whether a member may read a thread (posting asks more: `write_refusal`)."""
    if membership is None or membership.campaign_id != thread.campaign_id:
        return False
    if thread.audience == ThreadAudience.PRIVATE:
        return (membership.user_id in participant_ids(thread)
                or (membership.role == Role.GM and thread.gm_reads))
    if membership.role == Role.GM:
        return True
    if thread.audience == ThreadAudience.PUBLIC:
        return True
    if thread.audience == ThreadAudience.SIDE:
        return (membership.role == Role.PLAYER and membership.side_id == thread.side_id) or \
            side_threads_open(thread)
    return False


def side_threads_open(thread: Thread) -> bool:
    """A side's threads that side opened to every member after the end (the fog lifts)."""
    return (thread.side is not None and thread.side.threads_opened_at is not None
            and thread.campaign.status == CampaignStatus.FINISHED)
