"""The campaign archive: export → import round trip with every phase's dice re-verified, the
refusal of an import whose ids are taken, the command line, and a member's download."""

import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from accounts.models import User
from campaigns import models as m
from campaigns.archive import TABLES, ArchiveError, export_archive, import_archive
from campaigns.selectors.dice import phase_dice_verification, setup_dice_verification
from campaigns.services.forum import post_create, thread_create
from tests.forum.conftest import finish as _finish

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def ended(fought):
    campaign, gm, (p1, p2) = fought
    thread_create(user=p1.user, campaign=campaign, title="Just us", audience="private",
                  participants=[gm.username], body="Privateplan.")
    _finish(campaign, gm)
    return campaign, gm, (p1, p2)


def _rows(campaign_id):
    """Every archived row of the campaign, users by name (ids may differ across servers)."""
    names = dict(User.objects.values_list("pk", "username"))
    out = {}
    for model, scope in TABLES:
        rows = []
        for row in model._default_manager.filter(**scope(campaign_id)).order_by("pk").values():
            for f in model._meta.concrete_fields:
                if f.is_relation and f.related_model is User and row[f.attname] is not None:
                    row[f.attname] = names[row[f.attname]]
            rows.append(row)
        out[model._meta.label] = rows
    return out


def _drop(campaign_id):
    """Everything of the campaign gone, as on a server that never had it: the rows that are
    not archived first, then the archived tables, children first."""
    for model, scope in ((m.Notification, "campaign_id"), (m.Visit, "membership__campaign_id"),
                         (m.DeadlineReminder, "phase__campaign_id"),
                         (m.ShareToken, "campaign_id"), (m.Mute, "campaign_id"),
                         (m.ThreadReadMarker, "thread__campaign_id")):
        model.objects.filter(**{scope: campaign_id}).delete()
    for model, scope in reversed(TABLES):
        rows = model._default_manager.filter(**scope(campaign_id))
        model._default_manager.filter(pk__in=list(rows.values_list("pk", flat=True))
                                      )._raw_delete(using="default")
    connection.check_constraints()


def _verified(campaign, gm):
    phases = m.Phase.objects.filter(campaign=campaign).order_by("opened_at", "id")
    return ([phase_dice_verification(user=gm, campaign=campaign, phase=p)["all_match"]
             for p in phases],
            setup_dice_verification(user=gm, campaign=campaign)["all_match"])


def test_an_archive_restores_into_another_database_and_its_dice_verify(ended, tmp_path):
    campaign, gm, (p1, p2) = ended
    before = _rows(campaign.pk)
    verified = _verified(campaign, gm)
    phases = len(verified[0])
    assert verified == ([True] * phases, True)
    path = tmp_path / "campaign.zip"
    call_command("export_campaign", str(campaign.pk), str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        data = json.loads(archive.read("archive.json"))
    snapshots = m.Phase.objects.filter(campaign=campaign, snapshot__isnull=False)
    assert {f"pictures/phase-{p.pk}.png" for p in snapshots} | {
        "archive.json", "README.txt", "pictures/now.png"} <= names
    assert len([n for n in names if n.startswith("forum/")]) == m.Thread.objects.filter(
        campaign=campaign).count()
    assert (data["format"], data["version"], data["campaign"]) == (
        "warcamp-campaign-archive", 1, campaign.pk)
    # "Another database": the campaign and one of its players are gone before the import.
    pk = campaign.pk
    name = p2.user.username
    _drop(pk)
    User.objects.filter(pk=p2.user_id).delete()
    assert m.Event.objects.filter(campaign_id=pk).count() == 0
    out = io.StringIO()
    call_command("import_campaign", str(path), stdout=out)
    restored = m.Campaign.objects.get(pk=pk)
    connection.check_constraints()  # every foreign key of the restored rows holds
    assert out.getvalue() == f"Restored {restored.name!r} as campaign {pk}.\n"
    after = _rows(pk)
    changed = {table: [{k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
                       for a, b in zip(before[table], after[table], strict=False) if a != b][:2]
               for table in before if before[table] != after[table]}
    assert changed == {}
    recreated = User.objects.get(username=name)
    assert (recreated.has_usable_password(), recreated.pk != p2.user_id) == (False, True)
    assert _verified(restored, gm) == ([True] * phases, True)
    # The sequences moved past the restored ids: a new row gets a fresh id.
    fresh = m.Turn.objects.create(campaign=restored, number=99)
    assert fresh.pk > max(r["id"] for r in before["campaigns.Turn"])


def test_an_import_whose_ids_are_taken_changes_nothing(ended):
    campaign, gm, _ = ended
    raw = export_archive(campaign)
    rows = _rows(campaign.pk)
    users = User.objects.count()
    with pytest.raises(ArchiveError) as caught:
        import_archive(raw)
    assert str(caught.value) == (f"campaigns.Campaign {campaign.pk} already exist in this "
                                 "database: the archive keeps its ids, so it is restored into "
                                 "a database without them.")
    assert (_rows(campaign.pk), User.objects.count()) == (rows, users)


@pytest.mark.parametrize(("raw", "message"), [
    (b"not a zip", "Not a Warcamp campaign archive: File is not a zip file."),
])
def test_what_is_no_archive_is_refused(raw, message):
    with pytest.raises(ArchiveError) as caught:
        import_archive(raw)
    assert str(caught.value) == message


def test_the_command_line_names_its_errors(tmp_path):
    with pytest.raises(CommandError) as caught:
        call_command("import_campaign", str(tmp_path / "missing.zip"))
    assert str(caught.value) == f"No such file: {tmp_path / 'missing.zip'}."
    with pytest.raises(CommandError) as caught:
        call_command("export_campaign", "987654", str(tmp_path / "x.zip"))
    assert str(caught.value) == "No campaign with id 987654."


def test_a_member_downloads_the_archive_of_an_ended_campaign_with_their_threads(fought,
                                                                              client_as):
    campaign, gm, (p1, p2) = fought
    private = thread_create(user=p1.user, campaign=campaign, title="Just us",
                            audience="private", participants=[gm.username],
                            body="Privateplan.")
    post_create(user=p1.user, thread=private, body="More.")
    url = f"/campaigns/{campaign.pk}/archive.zip"
    assert client_as(p2.user).get(url).status_code == 404
    _finish(campaign, gm)
    response = client_as(p2.user).get(url)
    assert (response.status_code, response["Content-Type"],
            response["Content-Disposition"]) == (
        200, "application/zip", f'attachment; filename="warcamp-campaign-{campaign.pk}.zip"')
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        data = json.loads(archive.read("archive.json"))
        names = archive.namelist()
    threads = {t["id"] for t in data["tables"]["campaigns.Thread"]}
    posts = {p["thread_id"] for p in data["tables"]["campaigns.Post"]}
    opposition = m.Thread.objects.get(campaign=campaign, side__kind="opposition",
                                      is_default=True)
    assert (private.pk in threads, opposition.pk in threads, private.pk in posts,
            f"forum/{private.pk}.html" in names) == (False, False, False, False)
    # Every event and roll is in it: the fog has lifted.
    assert len(data["tables"]["campaigns.Event"]) == m.Event.objects.filter(
        campaign=campaign).count()
    mine = client_as(p1.user).get(url)
    with zipfile.ZipFile(io.BytesIO(mine.content)) as archive:
        assert f"forum/{private.pk}.html" in archive.namelist()
        assert "Privateplan." in archive.read(f"forum/{private.pk}.html").decode()
