"""`manage.py simulate_campaign`: play a campaign with bots through the real services."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.simulation import final_line, simulate


class Command(BaseCommand):
    help = ("Play a campaign with simple bots through the real services; one JSON line per "
            "turn and a final JSON line with the totals.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--turns", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--scenario", default="broad-way")
        parser.add_argument("--size", type=int, nargs=2, metavar=("C", "R"))
        parser.add_argument("--stacks", type=int, default=0)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["scenario"].replace("-", "_") != "broad_way":
            raise CommandError("Only the broad-way scenario can be simulated.")
        if options["turns"] < 1:
            raise CommandError("--turns must be 1 or more.")
        size = (options["size"][0], options["size"][1]) if options["size"] else None
        totals = simulate(
            turns=options["turns"], seed=options["seed"], size=size,
            stacks=options["stacks"],
            emit=lambda line: self.stdout.write(json.dumps(line)),
        )
        self.stdout.write(json.dumps(final_line(totals)))
