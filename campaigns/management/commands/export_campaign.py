"""Write a campaign's archive (a zip: JSON of every event, snapshot and roll, the map pictures,
the forum as HTML) to a file."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.archive import export_archive
from campaigns.models import Campaign


class Command(BaseCommand):
    help = (
        "Write the archive of campaign <id> to <file> (a zip: archive.json with every event, "
        "state snapshot, dice roll and seed, the map and the whole forum; the map picture of "
        "every phase as the GM saw it; each thread as HTML). `import_campaign` restores it on "
        "another server. The open phase's seed is in it: keep the file private until the "
        "campaign has ended."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign_id", type=int)
        parser.add_argument("file", type=Path)

    def handle(self, *args: object, **options: object) -> None:
        campaign_id = options["campaign_id"]
        assert isinstance(campaign_id, int)
        campaign = Campaign.objects.filter(pk=campaign_id).first()
        if campaign is None:
            raise CommandError(f"No campaign with id {campaign_id}.")
        path = options["file"]
        assert isinstance(path, Path)
        path.write_bytes(export_archive(campaign))
        self.stdout.write(f"Wrote the archive of {campaign.name!r} to {path}.")
