"""Seed the demo: a GM account and three players (idempotent)."""

from django.core.management.base import BaseCommand

from accounts.services import user_ensure_demo

DEMO_PASSWORD = "broadway"  # noqa: S105 - documented demo login
DEMO_USERS = [("gm", True), ("player1", False), ("player2", False), ("player3", False)]


class Command(BaseCommand):
    help = (
        "Create the demo logins (gm, player1, player2, player3; password 'broadway') "
        "unless they exist. Safe to run any number of times."
    )

    def handle(self, *args: object, **options: object) -> None:
        for username, is_staff in DEMO_USERS:
            _, created = user_ensure_demo(
                username=username, password=DEMO_PASSWORD, is_staff=is_staff
            )
            state = "created" if created else "exists"
            self.stdout.write(f"user {username}: {state}")
