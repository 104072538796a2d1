"""The campaign archive: one zip with every row of a campaign's game (events, state snapshots,
dice rolls and seeds, the map, a battle's state and log, and the forum) as JSON, the map
picture of every phase and the forum as HTML. `export_archive` writes it (the download of a
finished campaign's members, and `manage.py export_campaign`); `import_archive` restores it
into another database (`manage.py import_campaign`), where the dice of every phase verify
again.

The rows keep their ids, so everything that names an id (event payloads, snapshots, dice
purposes) stays true; an import refuses, changing nothing, when an id is taken in the target
database. Users are matched by username (a missing one is created without a password, so it
cannot log in until its person resets it); personal rows (notifications, reminders sent, read
markers, mutes, share tokens, webhooks, visits) are not archived.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, models, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import User
from campaigns import models as m
from campaigns.exports.mapimage import map_picture, render_png
from campaigns.selectors.forum import can_read, post_view

FORMAT = "warcamp-campaign-archive"
VERSION = 1

# Every archived table and how its rows belong to the campaign, in an order that inserts
# parents first (the foreign keys are checked at commit anyway).
TABLES: list[tuple[type[models.Model], Callable[[int], dict[str, Any]]]] = [
    (m.Campaign, lambda c: {"pk": c}),
    (m.Map, lambda c: {"campaign_id": c}),
    (m.Side, lambda c: {"campaign_id": c}),
    (m.Membership, lambda c: {"campaign_id": c}),
    (m.UnitType, lambda c: {"campaign_id": c}),
    (m.Fortification, lambda c: {"campaign_id": c}),
    (m.Stack, lambda c: {"campaign_id": c}),
    (m.Unit, lambda c: {"campaign_id": c}),
    (m.Turn, lambda c: {"campaign_id": c}),
    (m.Phase, lambda c: {"campaign_id": c}),
    (m.PlayerPhaseStatus, lambda c: {"phase__campaign_id": c}),
    (m.ScoutOrder, lambda c: {"phase__campaign_id": c}),
    (m.Sighting, lambda c: {"campaign_id": c}),
    (m.DiceRoll, lambda c: {"campaign_id": c}),
    (m.Event, lambda c: {"campaign_id": c}),
    (m.Declaration, lambda c: {"campaign_id": c}),
    (m.PhaseSnapshot, lambda c: {"phase__campaign_id": c}),
    (m.Battle, lambda c: {"campaign_id": c}),
    (m.BattleEntry, lambda c: {"battle__campaign_id": c}),
    (m.Notice, lambda c: {"campaign_id": c}),
    (m.Absence, lambda c: {"membership__campaign_id": c}),
    (m.Thread, lambda c: {"campaign_id": c}),
    (m.ThreadParticipant, lambda c: {"thread__campaign_id": c}),
    (m.Post, lambda c: {"thread__campaign_id": c}),
    (m.PostMention, lambda c: {"post__thread__campaign_id": c}),
]
_FORUM = (m.Thread, m.ThreadParticipant, m.Post, m.PostMention)


class _Encoder(DjangoJSONEncoder):
    """Django's encoder, but times to the microsecond (it cuts them to milliseconds, and the
    events' order is their time)."""

    def default(self, o: Any) -> Any:
        if isinstance(o, datetime):
            return o.isoformat()
        return super().default(o)


class ArchiveError(ValueError):
    """An archive that cannot be imported; the message says why. Nothing was changed."""


def _label(model: type[models.Model]) -> str:
    return model._meta.label


def _user_fields(model: type[models.Model]) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields
            if f.is_relation and f.related_model is User]


def archive_data(campaign: m.Campaign, *, reader: User | None = None) -> dict[str, Any]:
    """Every archived row of the campaign. With a `reader`, the forum holds only the threads
    they may read (the members' download); without one, all of it (the operator's)."""
    readable: set[int] | None = None
    if reader is not None:
        membership = m.Membership.objects.get(campaign=campaign, user=reader)
        readable = {t.pk for t in m.Thread.objects.filter(campaign=campaign)
                    .select_related("side", "campaign") if can_read(membership, t)}
    tables: dict[str, list[dict[str, Any]]] = {}
    user_ids: set[int] = set()
    for model, scope in TABLES:
        rows = list(model._default_manager.filter(**scope(campaign.pk)).order_by("pk").values())
        if readable is not None and model in _FORUM:
            key = {m.Thread: "id", m.ThreadParticipant: "thread_id", m.Post: "thread_id"}.get(
                model)
            if key is not None:
                rows = [r for r in rows if r[key] in readable]
            else:
                posts = {r["id"] for r in tables[_label(m.Post)]}
                rows = [r for r in rows if r["post_id"] in posts]
        for name in _user_fields(model):
            user_ids |= {r[name] for r in rows if r[name] is not None}
        tables[_label(model)] = rows
    users = [{"id": u.pk, "username": u.username, "display_name": getattr(u, "display_name", "")}
             for u in User.objects.filter(pk__in=user_ids).order_by("pk")]
    return {"format": FORMAT, "version": VERSION, "campaign": campaign.pk,
            "name": campaign.name, "exported_at": timezone.now(), "users": users,
            "tables": tables}


def export_archive(campaign: m.Campaign, *, reader: User | None = None) -> bytes:
    """The zip: archive.json, pictures/phase-<id>.png (every phase's opening as `reader`, or
    the GM, sees it, and the map at the end), forum/<thread id>.html, README.txt."""
    data = archive_data(campaign, reader=reader)
    viewer = reader or m.Membership.objects.get(campaign=campaign, role=m.Role.GM).user
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive.json", json.dumps(data, cls=_Encoder, indent=1))
        for phase in (m.Phase.objects.filter(campaign=campaign, snapshot__isnull=False)
                      .select_related("turn", "snapshot").order_by("opened_at", "id")):
            picture = map_picture(viewer=viewer, campaign=campaign, phase=phase)
            archive.writestr(f"pictures/phase-{phase.pk}.png", render_png(picture, 1000))
        if campaign.ruleset_key == "erfworld":
            # (A battle of another system has its state and log in archive.json alone.)
            archive.writestr("pictures/now.png", render_png(
                map_picture(viewer=viewer, campaign=campaign, phase=None), 1000))
        thread_ids = {r["id"] for r in data["tables"][_label(m.Thread)]}
        for thread in m.Thread.objects.filter(pk__in=thread_ids).order_by("created_at", "id"):
            posts = [post_view(p, user=viewer, is_gm=True) for p in
                     m.Post.objects.filter(thread=thread).select_related("author")
                     .order_by("id")]
            archive.writestr(f"forum/{thread.pk}.html", render_to_string(
                "campaigns/archive_thread.html", {"campaign": campaign, "thread": thread,
                                                  "posts": posts}))
        archive.writestr("README.txt", (
            f"Warcamp campaign archive: {campaign.name}\n\n"
            "archive.json  every event, state snapshot, dice roll and seed, the map and the "
            "forum\npictures/     the map at the opening of every phase, and at the end\n"
            "forum/        each thread as HTML\n\n"
            "Restore it on a Warcamp server with: manage.py import_campaign <this file>\n"))
    return out.getvalue()


def _read(raw: bytes) -> dict[str, Any]:
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            data = json.loads(archive.read("archive.json"))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ArchiveError(f"Not a Warcamp campaign archive: {exc}.") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError("Not a Warcamp campaign archive (no archive.json of that format).")
    if data.get("version") != VERSION:
        raise ArchiveError(f"Archive version {data.get('version')!r}: this server reads "
                           f"version {VERSION}.")
    return data


def _users(data: dict[str, Any]) -> dict[int, int]:
    """The archive's user ids → this database's: by username, created when missing (without
    a usable password)."""
    mapping = {}
    for row in data["users"]:
        user = User.objects.filter(username=row["username"]).first()
        if user is None:
            user = User(username=row["username"], display_name=row.get("display_name") or "")
            user.set_unusable_password()
            user.save()
        mapping[int(row["id"])] = user.pk
    return mapping


@transaction.atomic
def import_archive(raw: bytes) -> m.Campaign:
    """Restore an archive into this database; ArchiveError (nothing changed) when it is no
    archive, of another version, or any of its ids is taken here."""
    data = _read(raw)
    tables = data.get("tables") or {}
    for model, _ in TABLES:
        ids = [row["id"] for row in tables.get(_label(model), [])]
        taken = list(model._default_manager.filter(pk__in=ids).values_list("pk", flat=True)[:5])
        if taken:
            raise ArchiveError(f"{_label(model)} {', '.join(map(str, taken))} already exist "
                               "in this database: the archive keeps its ids, so it is restored "
                               "into a database without them.")
    users = _users(data)
    for model, _ in TABLES:
        user_fields = set(_user_fields(model))
        objects = []
        for row in tables.get(_label(model), []):
            values = {}
            for f in model._meta.concrete_fields:
                value = row.get(f.attname)
                if f.attname in user_fields and value is not None:
                    value = users[int(value)]
                values[f.attname] = f.to_python(value) if value is not None else None
            objects.append(model(**values))
        model._default_manager.bulk_create(objects)
        # Creation sets "auto_now(_add)" times to now: put the archived ones back.
        stamped = [f for f in model._meta.concrete_fields
                   if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)]
        if objects and stamped:
            for obj, row in zip(objects, tables[_label(model)], strict=True):
                for f in stamped:
                    setattr(obj, f.attname, f.to_python(row.get(f.attname)))
            model._default_manager.bulk_update(objects, [f.name for f in stamped])
    # Explicit ids leave the tables' sequences behind: set them past the highest id.
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [t for t, _ in TABLES]):
            cursor.execute(sql)
    return m.Campaign.objects.get(pk=data["campaign"])
