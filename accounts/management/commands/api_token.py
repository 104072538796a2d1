"""`manage.py api_token <username>`: make a user a new API token and print its key once (the
old token stops working; only a digest is stored, so a lost key cannot be printed again)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import User
from accounts.services import api_token_create, api_token_revoke


class Command(BaseCommand):
    help = ("Make USERNAME a new API token and print its key (shown this once; the old token "
            "stops working). With --revoke, delete the user's token instead.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true",
                            help="delete the user's token instead of making a new one")

    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.filter(username__iexact=options["username"]).first()
        if user is None:
            raise CommandError(f"No user named {options['username']!r}.")
        if options["revoke"]:
            if api_token_revoke(user=user):
                self.stdout.write(f"Revoked the API token of {user.username}.")
            else:
                self.stdout.write(f"{user.username} had no API token.")
            return
        key = api_token_create(user=user)
        self.stdout.write(f"New API token for {user.username} (the old one no longer works): "
                          f"{key}")
