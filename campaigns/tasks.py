"""Celery entry points of the campaigns app: the deadline sweep and notification emails.

Tasks take ids, call a service and own their retries (HackSoft). Deadlines never use a
long ETA/countdown: beat runs the sweep every minute and the database says what is due.
"""

from __future__ import annotations

import logging
from smtplib import SMTPException

from celery import shared_task

from campaigns.notifications import notifications_send_email, stranded_notification_ids
from campaigns.services.deadlines import sweep

logger = logging.getLogger(__name__)


@shared_task(name="campaigns.tasks.sweep_deadlines", acks_late=True, ignore_result=True)
def sweep_deadlines() -> int:
    """Handle every due reminder, deadline, hard deadline and early close; returns the count."""
    actions = sweep()
    for action in actions:
        logger.info("deadline sweep: %s", action.as_json())
    stranded = stranded_notification_ids()
    if stranded:
        # Their task was lost (the broker was down when they were made): send them now.
        logger.info("deadline sweep: %d stranded notification mails", len(stranded))
        notifications_send_email(notification_ids=stranded)
    return len(actions)


@shared_task(
    name="campaigns.tasks.send_notification_emails",
    acks_late=True,
    autoretry_for=(SMTPException, OSError),
    retry_backoff=True,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=8,
)
def send_notification_emails(notification_ids: list[int]) -> int:
    return notifications_send_email(notification_ids=notification_ids)


@shared_task(name="campaigns.tasks.warm_map_cache", ignore_result=True)
def warm_map_cache(campaign_id: int) -> int:
    """After a service changed a campaign: build its map JSON for every side, so the players'
    next views read it from the cache (campaigns/selectors/map_json.py). Only a speed-up: a
    view that comes first builds it itself, and a lost task costs nothing else."""
    from campaigns.selectors.map_json import warm

    return warm(campaign_id)


@shared_task(name="campaigns.tasks.send_email_digests", acks_late=True, ignore_result=True)
def send_email_digests() -> int:
    from campaigns.notifications import send_email_digests as send

    return send()
