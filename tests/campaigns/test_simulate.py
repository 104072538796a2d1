"""simulate_campaign: three turns of Broad Way through the real services."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def test_three_simulated_turns_have_combats_and_sightings():
    out = StringIO()
    call_command("simulate_campaign", "--turns", "3", "--seed", "7", stdout=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    final = lines[-1]
    assert set(final) == {"turns", "actions", "combats", "sightings", "croaked", "winner",
                          "seconds", "queries"}
    assert final["combats"] > 0 and final["sightings"] > 0
    assert [line["turn"] for line in lines[:-1]] == list(range(1, final["turns"] + 1))
