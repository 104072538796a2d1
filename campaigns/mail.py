"""Notification mails: a text and an HTML part, the time in the reader's zone, a button to the
exact page, and a one-click unsubscribe from that kind of mail (a signed link, with the
`List-Unsubscribe` and `List-Unsubscribe-Post` headers of RFC 8058)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import NotificationKind, User
from accounts.timefmt import format_local, zoned_text
from campaigns.selectors.notifications import _link

SALT = "warcamp.mail.unsubscribe"


def unsubscribe_token(user: User, kind: str) -> str:
    """A signed (user, kind): it unsubscribes that user from that kind and nothing else."""
    return signing.dumps({"u": user.pk, "k": kind}, salt=SALT, compress=True)


def read_unsubscribe_token(token: str) -> tuple[int, str] | None:
    try:
        data = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("k") not in NotificationKind.values:
        return None
    return int(data["u"]), str(data["k"])


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def notification_mail(note: Any) -> EmailMultiAlternatives:
    """The mail of one notification, for its user."""
    user: User = note.user
    href, label = _link(note)
    unsubscribe = absolute(reverse("mail-unsubscribe",
                                   args=[unsubscribe_token(user, note.kind)]))
    context = {
        "user": user, "campaign": note.campaign.name, "kind": note.get_kind_display(),
        "message": zoned_text(note.message, user.time_zone),
        "when": format_local(note.created_at, user.time_zone),
        "href": absolute(href), "label": label, "unsubscribe": unsubscribe,
        "settings_url": absolute(reverse("profile")),
    }
    mail = EmailMultiAlternatives(
        subject=f"[{note.campaign.name}] {note.get_kind_display()}",
        body=render_to_string("mail/notification.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL, to=[user.email],
        headers={"List-Unsubscribe": f"<{unsubscribe}>",
                 "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
    mail.attach_alternative(render_to_string("mail/notification.html", context), "text/html")
    return mail


def digest_mail(user: User, notes: list[Any]) -> EmailMultiAlternatives:
    """The day's digest: every notification with its campaign, time and link, oldest first."""
    items = []
    for note in notes:
        href, label = _link(note)
        items.append({"campaign": note.campaign.name, "kind": note.get_kind_display(),
                      "message": zoned_text(note.message, user.time_zone),
                      "href": absolute(href), "label": label,
                      "when": format_local(note.created_at, user.time_zone)})
    context = {"user": user, "items": items, "settings_url": absolute(reverse("profile")),
               "centre": absolute(reverse("notifications"))}
    count = len(items)
    mail = EmailMultiAlternatives(
        subject=f"Warcamp: {count} notification{'s' if count != 1 else ''} today",
        body=render_to_string("mail/digest.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL, to=[user.email])
    mail.attach_alternative(render_to_string("mail/digest.html", context), "text/html")
    return mail
