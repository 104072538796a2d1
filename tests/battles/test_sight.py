"""Fog of war the GM chooses for an ELF ABAS battle (`settings.sight`): a side sees the enemy
forces within that many hexes of its forces, its entry point and its camps, and nothing more,
through any GET route: not in the state, not in the log (what it did not see reads "Out of
sight."), not in the events, the forum's system posts, the notifications or the dice pages;
an order naming a force it does not see is refused in the words of one that does not exist.
A force coming into sight is seen where it stands, not the way it came. The GM sees
everything, and so does everyone once the battle is over."""

from __future__ import annotations

import pytest

from campaigns.errors import CampaignError
from campaigns.games.battle import services
from campaigns.games.battle.selectors import battle_view
from campaigns.models import Battle, BattleEntry, DiceRoll, Event, Post
from tests.battles.conftest import make_table
from tests.battles.test_fog import _everything

pytestmark = pytest.mark.django_db

# A long field: each side's forces stand far beyond the other's sight of 5.
FIELD = {
    "map": {"cols": 16, "rows": 5, "terrain": {"H3": "woods"}},
    "sides": [
        {"name": "Epping", "entry": "A3", "supplies": [], "forces": [
            {"id": "ep-foot", "unit": "foot", "hex": "B3"},
            {"id": "ep-horse", "unit": "mounted", "hex": "C2"}]},
        {"name": "Fremont", "entry": "P3", "supplies": [], "forces": [
            {"id": "fm-foot", "unit": "foot", "hex": "O3"},
            {"id": "fm-riders", "unit": "mounted", "hex": "N2"},
            {"id": "fm-reserve", "unit": "foot"}]},
    ],
}
FREMONT = ("fm-foot", "fm-riders", "fm-reserve")


def _act(table, side: str, orders: list[dict]) -> None:
    services.battle_orders(user=table.players[side], campaign=table.campaign, orders=orders)


def _acting(table) -> str:
    return Battle.objects.get(campaign=table.campaign).window["acting"][0]


def _until(table, side: str) -> None:
    """Other sides end their activations until `side` holds the card."""
    for _ in range(8):
        if _acting(table) == side:
            return
        _act(table, _acting(table), [{"kind": "end"}])
    raise AssertionError(f"{side} never held the card")


def _lines(view: dict) -> list[str]:
    return [e["text"] for entry in view["log"] for e in entry["events"]]


def test_a_side_sees_only_what_is_in_its_sight_through_every_route(fixed_seeds):
    table = make_table("elf_abas", scenario=FIELD, settings={"sight": 5})
    campaign, gm = table.campaign, table.gm
    epping, fremont = table.players["Epping"], table.players["Fremont"]

    # Fremont's riders ride three hexes, far out of Epping's sight.
    _until(table, "Fremont")
    _act(table, "Fremont", [{"kind": "move", "force": "fm-riders", "path": ["M2", "L2", "K2"]},
                            {"kind": "end"}])
    entry = BattleEntry.objects.filter(battle__campaign=campaign, side="Fremont").last()
    assert entry.events[0]["text"] == "fm-riders moves N2 → M2 → L2 → K2."
    assert entry.hidden == {"Epping": [0]}

    # Epping's side: no Fremont force anywhere, the move is "Out of sight.".
    seen = battle_view(user=epping, campaign=campaign)
    assert [f["id"] for f in seen["state"]["forces"]] == ["ep-foot", "ep-horse"]
    assert seen["state"]["fog"] == {"sight": 5}
    assert "Out of sight." in _lines(seen)
    texts = _everything(epping, campaign, gm)
    leaks = sorted({(url, force) for url, text in texts.items() for force in FREMONT
                    if force in text})
    assert leaks == []
    # The check reads real pages: Epping's own forces are there.
    assert "ep-horse" in texts[f"/campaigns/{campaign.pk}/battle/"]

    # Fremont's side and the GM read the move itself; every member reads the public event
    # and the forum post without it.
    assert "fm-riders moves N2 → M2 → L2 → K2." in _lines(
        battle_view(user=fremont, campaign=campaign))
    assert "fm-riders moves N2 → M2 → L2 → K2." in _lines(battle_view(user=gm,
                                                                       campaign=campaign))
    moved = Event.objects.filter(campaign=campaign, payload__side="Fremont").last()
    assert moved.summary.startswith("Fremont: Out of sight.")
    assert not any(force in p.body for p in Post.objects.filter(thread__campaign=campaign)
                   for force in FREMONT)
    assert not any(force in r.purpose for r in DiceRoll.objects.filter(campaign=campaign)
                   for force in FREMONT)


def test_a_force_coming_into_sight_is_seen_where_it_stands_not_the_way_it_came(fixed_seeds):
    table = make_table("elf_abas", scenario=FIELD, settings={"sight": 5})
    campaign = table.campaign
    epping = table.players["Epping"]
    _until(table, "Fremont")
    _act(table, "Fremont", [{"kind": "move", "force": "fm-riders", "path": ["M2", "L2", "K2"]},
                            {"kind": "end"}])
    _until(table, "Epping")
    _act(table, "Epping", [{"kind": "move", "force": "ep-horse", "path": ["D2", "E2", "F2"]},
                           {"kind": "end"}])
    # K2 to F2 is five hexes: the riders are in sight now, and Epping's move was seen by
    # Fremont (its horse came into Fremont's sight: its way there is out of sight).
    seen = battle_view(user=epping, campaign=campaign)
    assert {f["id"]: f["hex"] for f in seen["state"]["forces"]} == {
        "ep-foot": "B3", "ep-horse": "F2", "fm-riders": "K2"}
    assert "fm-riders moves N2 → M2 → L2 → K2." not in _lines(seen)
    fremont_view = battle_view(user=table.players["Fremont"], campaign=campaign)
    assert "ep-horse moves C2 → D2 → E2 → F2." not in _lines(fremont_view)
    assert "ep-horse" in {f["id"] for f in fremont_view["state"]["forces"]}
    entry = BattleEntry.objects.filter(battle__campaign=campaign, side="Epping").last()
    assert entry.hidden == {"Fremont": [0]}


def test_an_order_naming_a_force_out_of_sight_is_refused_as_one_that_does_not_exist(
        fixed_seeds):
    table = make_table("elf_abas", scenario=FIELD, settings={"sight": 5})
    _until(table, "Epping")
    entries = BattleEntry.objects.filter(battle__campaign=table.campaign).count()
    refusals = []
    for order in ({"kind": "attack", "force": "ep-horse", "targets": [{"force": "fm-foot"}]},
                  {"kind": "attack", "force": "ep-horse", "targets": [{"force": "nobody"}]},
                  {"kind": "move", "force": "fm-foot", "path": ["N3"]},
                  {"kind": "move", "force": "nobody", "path": ["N3"]}):
        with pytest.raises(CampaignError) as refused:
            _act(table, "Epping", [order])
        refusals.append((refused.value.message.replace("'nobody'", "'fm-foot'"),
                         refused.value.field, refused.value.code))
    assert refusals[0] == refusals[1] == (
        "There is no force 'fm-foot' on the field.", "orders[0].targets[0].force", "forces")
    assert refusals[2] == refusals[3] == (
        "There is no force 'fm-foot' on the field.", "orders[0].force", "forces")
    assert BattleEntry.objects.filter(battle__campaign=table.campaign).count() == entries


def test_without_fog_an_enemy_force_is_named_as_such(fixed_seeds):
    table = make_table("elf_abas", scenario=FIELD)
    _until(table, "Epping")
    with pytest.raises(CampaignError) as refused:
        _act(table, "Epping", [{"kind": "move", "force": "fm-foot", "path": ["N3"]}])
    assert refused.value.message == "fm-foot is not a force of Epping."
    view = battle_view(user=table.players["Epping"], campaign=table.campaign)
    assert "fog" not in view["state"] and view["fog_sight"] is None
    assert len(view["state"]["forces"]) == 5


def test_the_gm_chooses_the_fog_on_the_new_battle_page(client):
    from tests.factories import UserFactory

    client.force_login(UserFactory())
    base = {"scenario": "elf_abas_ford", "phase_hours": "24", "max_turns": "", "name": ""}
    response = client.post("/campaigns/battles/new/", {**base, "sight": "3"})
    assert response.status_code == 400
    assert "settings.sight: must be at least 5." in response.content.decode()
    response = client.post("/campaigns/battles/new/", {**base, "scenario": "quad_hill",
                                                       "sight": "6"})
    assert "Fog of war by sight is a setting of ELF ABAS battles" in response.content.decode()
    response = client.post("/campaigns/battles/new/", {**base, "sight": "6"})
    assert response.status_code == 302
    assert Battle.objects.get().settings == {"max_turns": 6, "sight": 6}


def test_the_battle_page_pales_the_hexes_out_of_the_sides_sight(client, fixed_seeds):
    from bs4 import BeautifulSoup

    from rules.hexgrid import distance, parse_label

    table = make_table("elf_abas", scenario=FIELD, settings={"sight": 5})
    url = f"/campaigns/{table.campaign.pk}/battle/"
    client.force_login(table.players["Epping"])
    html = BeautifulSoup(client.get(url).content, "html.parser")
    fogged = {g["data-hex"] for g in html.select("g.hex.is-fogged")}
    eyes = [parse_label(h) for h in ("B3", "C2", "A3")]  # its forces and its entry point
    every = {g["data-hex"] for g in html.select("g.hex")}
    assert len(every) == 80
    assert fogged == {h for h in every
                      if all(distance(parse_label(h), eye) > 5 for eye in eyes)}
    assert {"G3", "H1"} - fogged == {"G3", "H1"} and {"I3", "P5"} <= fogged
    assert html.select_one(".battle-fog").get_text().startswith(
        "Fog of war: each side sees the enemy forces within 5 hexes")
    client.force_login(table.gm)
    html = BeautifulSoup(client.get(url).content, "html.parser")
    assert html.select("g.hex.is-fogged") == []
    assert html.select_one(".battle-fog").get_text().strip().endswith(
        "You see everything, as its GM.")
