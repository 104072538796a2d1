"""Delivery of stored notifications: in-app rows exist at once; email goes through Celery.

`deliver_notifications` runs on commit (never inside the game transaction) and fires the
email task; the task sends each notification in its own small transaction, so a retry after a
failure never sends one twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from celery import current_app
from django.db import transaction
from django.utils import timezone

from campaigns.mail import digest_mail, notification_mail

logger = logging.getLogger(__name__)


def enqueue_after_commit(task_name: str, *args: Any) -> None:
    """Once the transaction commits, hand the task of that name to Celery; the one place
    services enqueue. Tasks are named, not imported: the task modules are entry points that
    call the services, never the other way round. A broker that is down never turns a
    committed action into an error: the failure is logged, and what it was for is picked up
    again (the sweep sends stranded mails, the map cache is built on the next read)."""

    def enqueue() -> None:
        try:
            task = current_app.tasks.get(task_name)
            if task is None:  # not imported yet in this process: Celery's autodiscovery
                current_app.loader.import_default_modules()
                task = current_app.tasks[task_name]
            task.delay(*args)
        except Exception:
            logger.warning("could not enqueue %s%r after commit", task_name, args,
                           exc_info=True)

    transaction.on_commit(enqueue)


def deliver_notifications(notification_ids: Sequence[int]) -> None:
    enqueue_after_commit("campaigns.tasks.send_notification_emails", list(notification_ids))


def stranded_notification_ids(*, older_than_seconds: int = 300, limit: int = 500) -> list[int]:
    """Notifications whose mail was neither sent nor skipped some minutes after they were
    made: their task was lost (a broker outage). The deadline sweep sends them."""
    from campaigns.models import Notification

    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    return list(Notification.objects.filter(emailed_at__isnull=True, email_skipped=False,
                                            created_at__lt=cutoff, user__email_digest=False)
                .order_by("pk").values_list("pk", flat=True)[:limit])


def notifications_send_email(*, notification_ids: Sequence[int]) -> int:
    """Email every notification of the list that its user wants by email; returns how many.

    Each is locked (skipping rows another worker holds), checked, sent and marked in one short
    transaction; an SMTP error propagates so that the task retries the rest with backoff.
    """
    from campaigns.models import Notification

    sent = 0
    for pk in notification_ids:
        with transaction.atomic():
            note = (
                Notification.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("user", "campaign", "event")
                .filter(pk=pk, emailed_at__isnull=True, email_skipped=False)
                .first()
            )
            if note is None:
                continue
            if not note.user.wants_email(note.kind):
                note.email_skipped = True
                note.save(update_fields=["email_skipped"])
                continue
            if note.user.email_digest:
                continue  # it waits for the day's digest (send_email_digests)
            notification_mail(note).send()
            note.emailed_at = timezone.now()
            note.save(update_fields=["emailed_at"])
            sent += 1
    return sent


def send_email_digests() -> int:
    """Once a day: each user who chose the digest gets one mail with every notification not
    yet mailed that they want by mail (the others are marked skipped); returns the mails."""
    from campaigns.models import Notification

    sent = 0
    users = (Notification.objects.filter(emailed_at__isnull=True, email_skipped=False,
                                         user__email_digest=True)
             .values_list("user_id", flat=True).distinct())
    for user_id in list(users):
        with transaction.atomic():
            notes = list(Notification.objects.select_for_update(skip_locked=True, of=("self",))
                         .select_related("user", "campaign", "event")
                         .filter(user_id=user_id, emailed_at__isnull=True, email_skipped=False)
                         .order_by("created_at", "pk"))
            wanted = [n for n in notes if n.user.wants_email(n.kind)]
            unwanted = [n.pk for n in notes if n not in wanted]
            Notification.objects.filter(pk__in=unwanted).update(email_skipped=True)
            if not wanted:
                continue
            digest_mail(wanted[0].user, wanted).send()
            Notification.objects.filter(pk__in=[n.pk for n in wanted]).update(
                emailed_at=timezone.now())
            sent += 1
    return sent
