"""Every page and read of the site answers a battle campaign of another rule system: its own
page, a redirect to the battle page (Erfworld's map, reports, history, GM page…), or a 404
(Erfworld's map pictures and tools), never a server error, for the GM and a player alike."""

from __future__ import annotations

import pytest
from django.urls import URLResolver, get_resolver

from campaigns.models import Phase
from tests.battles.conftest import make_table

SKIPPED = ("<int:thread_id>", "<int:post_id>", "<int:event_id>", "<int:token_id>", "<int:unit",
           "<int:type", "<int:absence", "<int:declaration", "<int:order", "<slug", "<int:hook",
           "<int:stack", "<str:", "<int:turn_number>", "<int:fort_id>")
# Erfworld's pages that send a member of a battle to its battle page.
REDIRECTED = {"", "map/", "reports/", "history/", "ledger/", "history/{phase}/", "gm/",
              "gm/settings/", "replay/", "replay/{phase}/", "after-action/"}


def _patterns(patterns, prefix=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _patterns(p.url_patterns, prefix + str(p.pattern))
        else:
            yield prefix + str(p.pattern)


def _campaign_urls(campaign_id: int, phase_id: int) -> list[tuple[str, str]]:
    urls = []
    for pattern in _patterns(get_resolver().url_patterns):
        if "<int:campaign_id>" not in pattern or any(x in pattern for x in SKIPPED):
            continue
        tail = pattern.split("<int:campaign_id>/", 1)[-1] if "<int:campaign_id>/" in pattern \
            else ""
        url = "/" + pattern.replace("<int:campaign_id>", str(campaign_id)).replace(
            "<int:phase_id>", str(phase_id))
        urls.append((url, tail.replace("<int:phase_id>", "{phase}")))
    return urls


@pytest.mark.django_db
@pytest.mark.parametrize("system", ["elf_abas", "quad"])
def test_every_campaign_page_answers_a_battle_without_an_error(client, system):
    table = make_table(system)
    campaign = table.campaign
    phase = Phase.objects.filter(campaign=campaign).first()
    urls = _campaign_urls(campaign.pk, phase.pk)
    assert len(urls) > 60
    battle_url = f"/campaigns/{campaign.pk}/battle/"
    for user in (table.gm, *table.players.values()):
        client.force_login(user)
        for url, tail in urls:
            response = client.get(url)
            assert response.status_code in (200, 302, 403, 404, 405), (url, response.status_code)
            if not url.startswith("/api/") and tail in REDIRECTED:
                assert response.status_code == 302, url
                assert response["Location"] == battle_url, url
    assert client.get(f"/campaigns/{campaign.pk}/map.png").status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/map/tools/").status_code == 404
