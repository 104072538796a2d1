"""Reports (combat, ambush, siege, scout) and the event log, as a member may see them.

An event with no side is for everyone in the campaign, one with a side for that side and the
GM. A few events for everyone also record another side's units outside a fight (healing of
both sides, the GM's hit adjustments): a player gets them with only their own side's units,
and every recorded roll passes through the same purpose redaction as the dice page.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User
from campaigns.errors import RuleViolationError
from campaigns.models import Campaign, Event, EventKind, Thread, Unit
from campaigns.selectors.dice import HIDDEN, Viewer, viewer_of
from campaigns.selectors.readers import can_read

REPORT_KINDS = {
    "combat": EventKind.COMBAT,
    "ambush": EventKind.AMBUSH,
    "siege": EventKind.SIEGE,
    "scout": EventKind.SCOUT_REPORT,
}
MAX_EVENTS = 200


def _visible_events(viewer: Viewer, campaign: Campaign) -> QuerySet[Event]:
    events = Event.objects.filter(campaign=campaign)
    if not viewer.is_gm:
        events = events.filter(Q(side__isnull=True) | Q(side_id=viewer.side_id)
                               if viewer.side_id is not None else Q(side__isnull=True))
    return events


def _redacted_rolls(viewer: Viewer, records: Any) -> Any:
    if not isinstance(records, list):
        return records
    return [
        {**r, "purpose": HIDDEN}
        if isinstance(r, dict) and not viewer.sees_purpose(str(r.get("purpose", "")))
        else r
        for r in records
    ]


def _own_unit_ids(viewer: Viewer, campaign: Campaign, ids: list[int]) -> set[int]:
    if viewer.side_id is None:
        return set()
    return set(Unit.objects.filter(campaign=campaign, side_id=viewer.side_id, pk__in=ids)
               .values_list("id", flat=True))


def _reads_thread(viewer: Viewer, thread_id: Any) -> bool:
    """A moderation event is for the readers of the thread it concerns (a private
    conversation's hidden post is nobody else's business)."""
    thread = Thread.objects.filter(pk=thread_id).first() if isinstance(thread_id, int) else None
    return thread is not None and can_read(viewer.membership, thread)


def _for_viewer(viewer: Viewer, campaign: Campaign, event: Event) -> dict[str, Any] | None:
    """The event as the viewer may see it; None when it is about another side's hidden unit."""
    payload = dict(event.payload)
    summary = event.summary
    if event.kind in (EventKind.POST_HIDDEN, EventKind.POST_SHOWN) and not _reads_thread(
            viewer, payload.get("thread")):
        return None
    if not viewer.is_gm:
        for key in ("rolls", "dice"):
            if key in payload:
                payload[key] = _redacted_rolls(viewer, payload[key])
        if event.kind == EventKind.HEALING:
            healed = [h for h in payload.get("healed", []) if isinstance(h, dict)]
            own = _own_unit_ids(viewer, campaign, [h["unit"] for h in healed if "unit" in h])
            payload["healed"] = [h for h in healed if h.get("unit") in own]
            n = len(payload["healed"])
            summary = (f"Healing: {n} of your side's units with partial hits "
                       f"{'is' if n == 1 else 'are'} restored to full." if n
                       else "Healing: no unit of your side had partial hits.")
        elif (event.kind == EventKind.HITS_ADJUSTED and "unit" in payload
              and not _own_unit_ids(viewer, campaign, [payload["unit"]])):
            return None
    return {
        "id": event.pk,
        "kind": event.kind,
        "phase": event.phase_id,
        "turn": event.phase.turn.number if event.phase is not None else None,
        "side": event.side.kind if event.side is not None else None,
        "actor": event.actor.public_name if event.actor is not None else None,
        "created_at": event.created_at,
        "summary": summary,
        "payload": payload,
    }


def _rows(queryset: QuerySet[Event]) -> QuerySet[Event]:
    return queryset.select_related("phase__turn", "side", "actor")


def reports_for(*, user: User, campaign: Campaign, kind: str | None = None,
                limit: int | None = None) -> list[dict[str, Any]]:
    """The combat, ambush, siege and scout reports the user may see, newest first, with
    their whole payload (every factor and die). `kind` is one of REPORT_KINDS or None;
    `limit`: at most so many of the newest."""
    viewer = viewer_of(user=user, campaign=campaign)
    kinds = [REPORT_KINDS[kind]] if kind is not None else list(REPORT_KINDS.values())
    events = _rows(_visible_events(viewer, campaign).filter(kind__in=kinds)).order_by(
        "-created_at", "-id")
    rows = [row for e in (events if limit is None else events[:limit])
            if (row := _for_viewer(viewer, campaign, e)) is not None]
    return rows


def report_detail(*, user: User, campaign: Campaign, event_id: int) -> dict[str, Any]:
    """One report the user may see; Event.DoesNotExist for any other event id."""
    viewer = viewer_of(user=user, campaign=campaign)
    event = _rows(_visible_events(viewer, campaign).filter(
        kind__in=list(REPORT_KINDS.values()))).get(pk=event_id)
    row = _for_viewer(viewer, campaign, event)
    if row is None:
        raise Event.DoesNotExist
    return row


def events_since(
    *, user: User, campaign: Campaign, since: int = 0, limit: int = MAX_EVENTS
) -> dict[str, Any]:
    """The events the user may see after the event `since` (0: from the first), oldest first,
    at most `limit` (1 to 200). `next_since` is the id to ask from next; `more` says whether
    there are more. Event ids are random, so "after" is in the events' order (time, then
    id); a `since` that is not an event the user may see is refused, hidden or absent alike."""
    viewer = viewer_of(user=user, campaign=campaign)
    limit = max(1, min(limit, MAX_EVENTS))
    visible = _visible_events(viewer, campaign)
    after = visible
    if since:
        mark = visible.filter(pk=since).values_list("created_at", flat=True).first()
        if mark is None:
            raise RuleViolationError("Not the id of an event of this campaign you can see.",
                                     code="invalid_field", field="since")
        after = visible.filter(Q(created_at__gt=mark) | Q(created_at=mark, pk__gt=since))
    page = list(_rows(after).order_by("created_at", "id")[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    events = [row for e in page if (row := _for_viewer(viewer, campaign, e)) is not None]
    return {"events": events, "next_since": page[-1].pk if page else since, "more": more}


# The GM's overrules and clock changes every member may read (issue 18's "GM ledger").
LEDGER_KINDS = (
    EventKind.CAMPAIGN_PAUSED, EventKind.CAMPAIGN_RESUMED, EventKind.DEADLINE_EXTENDED,
    EventKind.PHASE_REVERTED, EventKind.HITS_ADJUSTED, EventKind.POP_POINTS_GRANTED,
    EventKind.SETTINGS_CHANGED, EventKind.CHIEF_WARLORD_APPOINTED, EventKind.POST_HIDDEN,
    EventKind.POST_SHOWN,
)


def gm_ledger(*, user: User, campaign: Campaign) -> dict[str, Any]:
    """The GM's actions the user may see, newest first, each pause with how long it lasted
    (or "still paused"), and the total time paused."""
    viewer = viewer_of(user=user, campaign=campaign)
    events = list(_rows(_visible_events(viewer, campaign).filter(kind__in=LEDGER_KINDS))
                  .order_by("created_at", "id"))
    rows: list[dict[str, Any]] = []
    paused_at: dict[str, Any] | None = None
    total = timedelta(0)
    for event in events:
        row = _for_viewer(viewer, campaign, event)
        if row is None:
            continue
        row["reason"] = str(event.payload.get("reason", "") or "")
        if event.kind == EventKind.CAMPAIGN_PAUSED:
            paused_at = row
            row["duration"] = None
        elif event.kind == EventKind.CAMPAIGN_RESUMED and paused_at is not None:
            lasted = event.created_at - paused_at["created_at"]
            paused_at["duration"] = lasted
            total += lasted
            paused_at = None
        rows.append(row)
    if paused_at is not None:
        total += timezone.now() - paused_at["created_at"]
    return {"rows": rows[::-1], "paused_total": total, "paused_now": paused_at is not None}
