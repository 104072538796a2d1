"""Restore a campaign from its archive into this server's database."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.archive import ArchiveError, import_archive


class Command(BaseCommand):
    help = (
        "Restore the campaign archived in <file> (written by export_campaign or downloaded by "
        "a member) into this database, with its ids: refused, changing nothing, when any of "
        "them is taken here. Its members are matched by username; a missing one is created "
        "without a password (they set one with 'forgot password'). Every phase's dice verify "
        "again on the dice pages."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)

    def handle(self, *args: object, **options: object) -> None:
        path = options["file"]
        assert isinstance(path, Path)
        if not path.is_file():
            raise CommandError(f"No such file: {path}.")
        try:
            campaign = import_archive(path.read_bytes())
        except ArchiveError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Restored {campaign.name!r} as campaign {campaign.pk}.")
