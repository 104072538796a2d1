"""Delivery of stored notifications, called on commit by the services.

Today it only logs; the deadlines issue plugs e-mail (through a Celery task fired here)
into this one place. A notification row exists whether or not it was delivered.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

logger = logging.getLogger(__name__)


def deliver_notifications(notification_ids: Sequence[int]) -> None:
    logger.info("notifications to deliver: %s", ", ".join(map(str, notification_ids)))
