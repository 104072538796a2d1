"""Reports, posts and whole-turn summaries as Markdown and BBCode for external forums.

Every export is built as Markdown from what the viewer may see (the reports selector's
visibility and redaction), then converted to BBCode by the same converter, so both say the
same thing. Links are made absolute with the site's base URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from accounts.models import User
from campaigns.exports.markup import escape_markdown, markdown_to_bbcode
from campaigns.models import Campaign, Event, EventKind, Phase, Post, Turn
from campaigns.selectors.dice import viewer_of
from campaigns.selectors.forum import phase_event_rows
from campaigns.selectors.reports import _for_viewer, _rows, _visible_events
from campaigns.services.forum import event_links

# Kinds left out of a turn summary: bookkeeping nobody on a forum needs.
_QUIET_KINDS = frozenset({
    EventKind.SCOUT_ORDER_GIVEN, EventKind.SCOUT_ORDER_CANCELLED, EventKind.ORDERS_DONE,
    EventKind.STACK_REORDERED, EventKind.REMINDER, EventKind.PROCESSING_FLAGGED,
})


@dataclass(frozen=True)
class Export:
    """One thing exported: a title and its text in both forum markups."""

    title: str
    markdown: str
    # A text written in BBCode in the first place (a BBCode post) is exported as written.
    bbcode_as_written: str | None = None

    @property
    def bbcode(self) -> str:
        if self.bbcode_as_written is not None:
            return self.bbcode_as_written
        return markdown_to_bbcode(self.markdown)


def absolutize(markdown: str, base_url: str) -> str:
    """Site-relative link targets ("](/campaigns/…)") made absolute for another site."""
    return re.sub(r"\]\(/", f"]({base_url.rstrip('/')}/", markdown)


def _explanation(payload: dict[str, Any]) -> list[str]:
    explanation = payload.get("explanation")
    if isinstance(explanation, str):
        return [explanation]
    if isinstance(explanation, list):
        return [str(line) for line in explanation]
    return []


def _sightings(payload: dict[str, Any]) -> str:
    """A scout report's hexes as a list: terrain, and each stack seen with its units."""
    items = []
    for hex_seen in payload.get("sightings") or []:
        if not isinstance(hex_seen, dict):
            continue
        stacks = [
            f"{s.get('side')}: " + ", ".join(
                f"{u.get('name')} ({u.get('unit_type')}, {u.get('current_hits')} hits)"
                for u in s.get("units", []))
            for s in hex_seen.get("stacks", []) if isinstance(s, dict)
        ]
        what = "; ".join(stacks) if stacks else "no stack"
        label = f"{hex_seen.get('hex')} ({hex_seen.get('terrain')})"
        items.append(f"- {escape_markdown(label)}: {escape_markdown(what)}")
    return "\n".join(items)


def _event_title(row: dict[str, Any]) -> str:
    kind = EventKind(row["kind"]).label
    return f"Turn {row['turn']} · {kind}" if row["turn"] is not None else str(kind)


def _links_markdown(event: Event, base_url: str) -> str:
    links = event_links(event)
    return " · ".join(f"[{escape_markdown(label)}]({base_url.rstrip('/')}{path})"
                      for label, path in links)


def report_export(*, user: User, campaign: Campaign, event_id: int, base_url: str) -> Export:
    """An event the user may see, in full: summary, every line of its explanation, links.
    Event.DoesNotExist for any event the user may not see."""
    viewer = viewer_of(user=user, campaign=campaign)
    event = _rows(_visible_events(viewer, campaign)).get(pk=event_id)
    row = _for_viewer(viewer, campaign, event)
    if row is None:
        raise Event.DoesNotExist
    title = _event_title(row)
    parts = [f"**{escape_markdown(title)}**", escape_markdown(row["summary"])]
    lines = _explanation(row["payload"])
    if lines:
        parts.append("\n".join(f"    {line}" for line in lines))
    seen = _sightings(row["payload"])
    if seen:
        parts.append(seen)
    links = _links_markdown(event, base_url)
    if links:
        parts.append(links)
    return Export(title=title, markdown="\n\n".join(parts) + "\n")


def post_export(*, post: Post, base_url: str) -> Export:
    """A post (already checked readable by the caller) with its author and time."""
    author = post.author.public_name if post.author is not None else "Warcamp"
    when = f"{post.created_at:%Y-%m-%d %H:%M} UTC"
    title = f"Post by {author}"
    head = f"**{escape_markdown(author)}** wrote on {when}:"
    if post.markup == "bbcode":
        # Its Markdown shows the BBCode as typed; its BBCode is the post itself.
        bb_head = markdown_to_bbcode(head).rstrip("\n")
        return Export(title=title, markdown=f"{head}\n\n{escape_markdown(post.body)}\n",
                      bbcode_as_written=f"{bb_head}\n\n{post.body}\n")
    return Export(title=title,
                  markdown=f"{head}\n\n{absolutize(post.body, base_url)}\n")


def turn_export(*, user: User, campaign: Campaign, turn_number: int, base_url: str) -> Export:
    """Everything of one turn the user may see, phase by phase (with what happened between
    phases in the phase open at the time): each event's summary with a link to its full
    report. Turn.DoesNotExist for a turn the campaign has not reached."""
    viewer_of(user=user, campaign=campaign)  # NotAllowedError for a non-member
    turn = Turn.objects.get(campaign=campaign, number=turn_number)
    title = f"{campaign.name} — turn {turn.number}"
    parts = [f"**{escape_markdown(title)}**"]
    for phase in Phase.objects.filter(turn=turn).order_by("opened_at", "id"):
        items = []
        for event, row in phase_event_rows(user=user, campaign=campaign, phase=phase,
                                           exclude_kinds=_QUIET_KINDS):
            line = f"- {escape_markdown(row['summary'])}"
            links = _links_markdown(event, base_url)
            items.append(f"{line} ({links})" if links else line)
        status = "open" if phase.closed_at is None else "closed"
        parts.append(f"**{escape_markdown(phase.get_kind_display())}** ({status})")
        parts.append("\n".join(items) if items else "Nothing to report.")
    return Export(title=title, markdown="\n\n".join(parts) + "\n")
