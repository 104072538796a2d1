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
from campaigns.markup import escape_markdown, markdown_to_bbcode
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


# --- Turn posts: one phase, as one side saw it, ready to paste into another forum ----------

# Before the first phase nothing is news; these are left out of a turn post too.
_SETUP_KINDS = frozenset({
    EventKind.CAMPAIGN_CREATED, EventKind.PLAYER_JOINED, EventKind.UNIT_TYPE_CREATED,
    EventKind.UNIT_TYPE_UPDATED, EventKind.UNIT_TYPE_DELETED, EventKind.UNITS_BOUGHT,
    EventKind.ARMY_READY, EventKind.ARMY_NOT_READY, EventKind.CHIEF_WARLORD_VOTE,
    EventKind.CHIEF_WARLORD_TIE, EventKind.CAMPAIGN_STARTED, EventKind.PHASE_OPENED,
    EventKind.POST_HIDDEN, EventKind.POST_SHOWN, EventKind.ABSENCE,
})
# A list longer than this is folded ([spoiler] in BBCode, <details> in Markdown).
SPOILER_AFTER = 8


@dataclass(frozen=True)
class PhasePost:
    """What a turn post says, before it is written in either markup."""

    title: str
    image_url: str | None
    moves: list[str]
    combats: list[tuple[str, str, int, int, str]]  # attacker, defender, hits each way, croaked
    other: list[str]


def _move_lines(rows: list[tuple[Event, dict[str, Any]]]) -> list[str]:
    """One line per stack: who, from where through where to where, all its moves joined."""
    by_stack: dict[Any, dict[str, Any]] = {}
    for event, row in rows:
        payload = row["payload"]
        if event.kind != EventKind.STACK_MOVED or not payload.get("path"):
            continue
        key = payload.get("stack")
        line = by_stack.setdefault(key, {"who": event.actor.public_name if event.actor else
                                         "The GM", "hexes": [], "cost": 0,
                                         "units": len(payload.get("units") or [])})
        path = [str(h) for h in payload["path"]]
        # A path starts where the stack stood: a later move goes on from the last hex.
        line["hexes"] += path[1:] if line["hexes"] and path[0] == line["hexes"][-1] else path
        line["cost"] += int(payload.get("cost") or 0)
        if payload.get("ambushed_from"):
            line["ambushed"] = payload["ambushed_from"]
    lines = []
    for line in by_stack.values():
        units = f"{line['units']} unit{'s' if line['units'] != 1 else ''}"
        text = f"{line['who']}: {units}, {' → '.join(str(h) for h in line['hexes'])}"
        if line.get("ambushed"):
            text += f" (ambushed from {line['ambushed']})"
        lines.append(text)
    return lines


def _combat_rows(rows: list[tuple[Event, dict[str, Any]]]) -> list[tuple[str, str, int, int,
                                                                           str]]:
    table = []
    for event, row in rows:
        if event.kind not in (EventKind.COMBAT, EventKind.AMBUSH):
            continue
        payload = row["payload"]
        result = payload.get("result") or {}
        croaked = [str(c.get("name")) for c in payload.get("casualties") or []
                   if isinstance(c, dict) and c.get("croaked")]
        if event.kind == EventKind.AMBUSH:
            attacker = f"ambush from {payload.get('hex')}"
            defender = f"stack stopped in {payload.get('stopped_in')}"
        else:
            attacker = f"{event.actor.public_name if event.actor else 'The GM'} from " \
                       f"{payload.get('from')}"
            defender = f"stack in {payload.get('hex')}"
        table.append((attacker, defender, int(result.get("hits_on_defender") or 0),
                      int(result.get("hits_on_attacker") or 0), ", ".join(croaked) or "—"))
    return table


def phase_post_content(*, user: User, campaign: Campaign, phase: Phase,
                       image_url: str | None) -> PhasePost:
    """A phase as `user` saw it: the moves (one line per stack), the fights as a table, the
    rest as lines; setup and bookkeeping left out."""
    rows = phase_event_rows(user=user, campaign=campaign, phase=phase,
                            exclude_kinds=_QUIET_KINDS | _SETUP_KINDS)
    moves = _move_lines(rows)
    combats = _combat_rows(rows)
    other = [row["summary"] for event, row in rows
             if event.kind not in (EventKind.STACK_MOVED, EventKind.COMBAT, EventKind.AMBUSH)]
    title = f"{campaign.name} — turn {phase.turn.number}, {phase.get_kind_display().lower()}"
    return PhasePost(title=title, image_url=image_url, moves=moves, combats=combats,
                     other=other)


def _bb(text: str) -> str:
    return text.replace("[", "(").replace("]", ")")


def _bb_list(items: list[str], label: str) -> str:
    body = "[list]\n" + "\n".join(f"[*]{_bb(i)}" for i in items) + "\n[/list]"
    if len(items) > SPOILER_AFTER:
        return f"[spoiler={label}: {len(items)}]\n{body}\n[/spoiler]"
    return body


def _md_list(items: list[str], label: str) -> str:
    body = "\n".join(f"- {escape_markdown(i)}" for i in items)
    if len(items) > SPOILER_AFTER:
        return (f"<details><summary>{escape_markdown(label)}: {len(items)}</summary>\n\n{body}"
                "\n\n</details>")
    return body


def phase_post(content: PhasePost) -> Export:
    """The turn post in BBCode and in Markdown: title, the map picture, moves, fights, the
    rest. No link needs a login (the picture's address is a share URL)."""
    bb = [f"[b]{_bb(content.title)}[/b]"]
    md = [f"**{escape_markdown(content.title)}**"]
    if content.image_url:
        bb.append(f"[img]{content.image_url}[/img]")
        md.append(f"![The map]({content.image_url})")
    if content.moves:
        bb += ["[b]Moves[/b]", _bb_list(content.moves, "Moves")]
        md += ["**Moves**", _md_list(content.moves, "Moves")]
    if content.combats:
        head = ("Attacker", "Defender", "Hits on defender", "Hits on attacker", "Croaked")
        bb.append("[b]Fights[/b]")
        table = "[table]\n[tr]" + "".join(f"[th]{h}[/th]" for h in head) + "[/tr]\n" + \
            "\n".join("[tr]" + "".join(f"[td]{_bb(str(c))}[/td]" for c in row) + "[/tr]"
                      for row in content.combats) + "\n[/table]"
        bb.append(table if len(content.combats) <= SPOILER_AFTER
                  else f"[spoiler=Fights: {len(content.combats)}]\n{table}\n[/spoiler]")
        md += ["**Fights**", "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n"
               + "\n".join("| " + " | ".join(escape_markdown(str(c)).replace("|", "\\|")
                                             for c in row) + " |"
                           for row in content.combats)]
    if content.other:
        bb += ["[b]Also[/b]", _bb_list(content.other, "Also")]
        md += ["**Also**", _md_list(content.other, "Also")]
    if not (content.moves or content.combats or content.other):
        bb.append("Nothing happened that this side saw.")
        md.append("Nothing happened that this side saw.")
    return Export(title=content.title, markdown="\n\n".join(md) + "\n",
                  bbcode_as_written="\n\n".join(bb) + "\n")
