"""A finished battle's archive: its members download it like any campaign's, and it restores
into another database with the battle's state and log, which replay from the revealed seeds."""

from __future__ import annotations

import io
import zipfile

import pytest

from campaigns.archive import export_archive, import_archive
from campaigns.models import Battle
from tests.battles.conftest import make_table, replay
from tests.battles.test_services import _play_to_the_end
from tests.forum.test_archive import _drop

pytestmark = pytest.mark.django_db


def test_a_finished_battle_is_archived_and_restored(client, fixed_seeds):
    table = make_table("quad", settings={"max_turns": 1})
    battle = _play_to_the_end(table)
    campaign = table.reload()
    client.force_login(table.players["Blue"])
    response = client.get(f"/campaigns/{campaign.pk}/archive.zip")
    assert response.status_code == 200
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        names = archive.namelist()
    assert "archive.json" in names and not [n for n in names if n.startswith("pictures/")]
    whole = export_archive(campaign)
    state, entries = battle.state, battle.entries.count()
    _drop(campaign.pk)
    assert not Battle.objects.exists()
    restored = import_archive(whole)
    again = Battle.objects.get(campaign=restored)
    assert (again.state, again.entries.count(), again.outcome) == (state, entries,
                                                                   battle.outcome)
    assert replay(again) == state
