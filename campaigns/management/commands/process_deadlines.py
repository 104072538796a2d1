"""Run the deadline sweep once (as of --now when given) and print one JSON line per action."""

import json
from datetime import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from campaigns.services.deadlines import sweep


def parse_now(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(
            f"--now must be an ISO-8601 date and time such as 2026-11-21T18:00:00+00:00, "
            f"not {value!r}."
        ) from None
    if timezone.is_naive(moment):
        raise CommandError("--now needs a UTC offset (e.g. +00:00 or Z) so it is unambiguous.")
    return moment


class Command(BaseCommand):
    help = (
        "Handle every due reminder, deadline, hard deadline and early close once, as the "
        "minute-by-minute Celery beat sweep does, and print one JSON line per thing done: "
        '{"campaign", "phase", "event": "reminder|deadline_reached|auto_closed|early_closed", '
        '"user"?}. Safe to run at any time, also next to the running sweep.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--now", type=parse_now, default=None,
            help="process as of this moment (ISO-8601 with offset) instead of the clock",
        )

    def handle(self, *args: object, **options: object) -> None:
        now = options["now"]
        for action in sweep(now=now if isinstance(now, datetime) else None):
            self.stdout.write(json.dumps(action.as_json()))
