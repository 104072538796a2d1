"""Turn posts for external forums: one phase as one side saw it, in BBCode and Markdown, with
the moves in one line per stack, the fights as a table, long lists folded, setup left out, and
a map picture whose address works without a login (and only for that one picture)."""

import pytest
from django.test import Client

from campaigns.exports.text import PhasePost, phase_post
from campaigns.games.erfworld import phase_end
from campaigns.games.erfworld.move_combat import stack_attack, stack_move
from campaigns.markup import render_bbcode
from campaigns.models import Event, EventKind, Phase
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put

pytestmark = [pytest.mark.django_db]


def test_a_long_list_is_folded_and_a_fight_is_a_table():
    content = PhasePost(title="Spring — turn 2, alliance move/combat phase",
                        image_url="https://x.example/campaigns/1/map.png?share=abc&width=1000",
                        moves=[f"ann: 2 units, A{i} → B{i}" for i in range(1, 10)],
                        combats=[("ann from D3", "stack in D4", 3, 1, "Spearman 1")],
                        other=["Turn 2's alliance move/combat phase closed."])
    post = phase_post(content)
    moves_bb = "\n".join(f"[*]ann: 2 units, A{i} → B{i}" for i in range(1, 10))
    assert post.bbcode == (
        "[b]Spring — turn 2, alliance move/combat phase[/b]\n\n"
        "[img]https://x.example/campaigns/1/map.png?share=abc&width=1000[/img]\n\n"
        "[b]Moves[/b]\n\n"
        f"[spoiler=Moves: 9]\n[list]\n{moves_bb}\n[/list]\n[/spoiler]\n\n"
        "[b]Fights[/b]\n\n"
        "[table]\n[tr][th]Attacker[/th][th]Defender[/th][th]Hits on defender[/th]"
        "[th]Hits on attacker[/th][th]Croaked[/th][/tr]\n"
        "[tr][td]ann from D3[/td][td]stack in D4[/td][td]3[/td][td]1[/td][td]Spearman 1[/td]"
        "[/tr]\n[/table]\n\n"
        "[b]Also[/b]\n\n[list]\n[*]Turn 2's alliance move/combat phase closed.\n[/list]\n")
    moves_md = "\n".join(f"- ann: 2 units, A{i} → B{i}" for i in range(1, 10))
    assert post.markdown == (
        "**Spring — turn 2, alliance move/combat phase**\n\n"
        "![The map](https://x.example/campaigns/1/map.png?share=abc&width=1000)\n\n"
        "**Moves**\n\n"
        f"<details><summary>Moves: 9</summary>\n\n{moves_md}\n\n</details>\n\n"
        "**Fights**\n\n"
        "| Attacker | Defender | Hits on defender | Hits on attacker | Croaked |\n"
        "|---|---|---|---|---|\n"
        "| ann from D3 | stack in D4 | 3 | 1 | Spearman 1 |\n\n"
        "**Also**\n\n- Turn 2's alliance move/combat phase closed.\n")


def test_bbcode_typed_in_a_summary_does_not_become_markup():
    content = PhasePost(title="[url=https://evil.example]x[/url]", image_url=None,
                        moves=[], combats=[], other=["[img]https://evil.example/x.png[/img]"])
    html = render_bbcode(phase_post(content).bbcode)
    assert ("<img" in html, ">x</a>" in html, "(img)" in html) == (False, False, True)


@pytest.fixture
def played():
    """Turn 1's move/combat phase: player 1 moved a stack A1 → B1 → B2 and attacked D4 from
    D3; then the phase closed."""
    campaign, gm, members = move_phase_campaign(players=2)
    p1 = members[0]
    mover = own_stack(members[1])
    stack_move(user=members[1].user, campaign=campaign, stack=mover, path=["B1", "B2"])
    stack_attack(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "D3"),
                 target=opposition_stack(campaign, "D4"))
    phase = Phase.objects.get(campaign=campaign, status="open")
    phase_end(user=gm, campaign=campaign)
    return campaign, gm, members, phase, mover


def test_a_players_turn_post_and_its_picture_without_a_login(played):
    campaign, gm, (p1, p2), phase, mover = played
    client = Client()
    client.force_login(p1.user)
    url = f"/campaigns/{campaign.pk}/export/phases/{phase.pk}/"
    bbcode = client.get(url + "?format=bbcode").content.decode()
    markdown = client.get(url + "?format=markdown").content.decode()
    combat = Event.objects.get(campaign=campaign, kind=EventKind.COMBAT)
    result = combat.payload["result"]
    croaked = ", ".join(c["name"] for c in combat.payload["casualties"] if c["croaked"]) or "—"
    units = mover.units.count()
    lines = bbcode.split("\n\n")
    assert lines[0] == (f"[b]{campaign.name} — turn 1, alliance move/combat phase[/b]")
    assert lines[2:4] == ["[b]Moves[/b]",
                          f"[list]\n[*]{p2.user.public_name}: {units} units, A1 → B1 → B2\n"
                          "[/list]"]
    assert lines[5].split("\n")[2] == (
        f"[tr][td]{p1.user.public_name} from D3[/td][td]stack in D4[/td]"
        f"[td]{result['hits_on_defender']}[/td][td]{result['hits_on_attacker']}[/td]"
        f"[td]{croaked}[/td][/tr]")
    # Setup and bookkeeping are left out; nothing links to a page that needs a login.
    assert ("Phase opened" not in bbcode, "joined" not in bbcode, "[url" not in bbcode,
            "](/" not in markdown, "/reports/" in markdown) == (True, True, True, True, False)
    image = lines[1].removeprefix("[img]").removesuffix("[/img]")
    assert image.startswith(f"http://testserver/campaigns/{campaign.pk}/map.png?share=")
    anonymous = Client().get(image.removeprefix("http://testserver"))
    assert (anonymous.status_code, anonymous["Content-Type"], anonymous.content[:4]) == (
        200, "image/png", b"\x89PNG")
    forged = image.replace("share=", "share=x")
    assert Client().get(forged.removeprefix("http://testserver")).status_code == 404
    # The picture's address grants that picture only: not the map of the open phase.
    share = image.split("share=")[1].split("&")[0]
    other = Client().get(f"/campaigns/{campaign.pk + 1}/map.png?share={share}")
    assert other.status_code == 404
    parsed = render_bbcode(bbcode)
    assert f'<img src="{image.replace("&", "&amp;")}"' in parsed


def test_the_gm_writes_a_post_for_each_side(played, hidden_names=("Gatekeeper",)):
    campaign, gm, (p1, _), phase, _ = played
    client = Client()
    client.force_login(gm)
    url = f"/campaigns/{campaign.pk}/export/phases/{phase.pk}/"
    alliance = client.get(url + "?side=alliance&format=bbcode").content.decode()
    player = Client()
    player.force_login(p1.user)
    mine = player.get(url + "?format=bbcode").content.decode()
    # The same text as the alliance's own (the picture's address differs only by its viewer).
    assert alliance.split("\n\n")[2:] == mine.split("\n\n")[2:]
    page = client.get(f"/campaigns/{campaign.pk}/forum/").content.decode()
    assert (f'href="/campaigns/{campaign.pk}/export/phases/{phase.pk}/?side=opposition"'
            in page)
