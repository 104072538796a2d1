"""Reports (GET campaigns/<id>/reports/, …/reports/<event>/) and the event log
(GET campaigns/<id>/events/?since=N), with the side visibility of events."""

import pytest

from campaigns.games.erfworld import phase_end
from campaigns.games.erfworld.move_combat import stack_attack
from campaigns.models import Event, Phase, Unit
from tests.campaigns.engine_setup import move_phase_campaign, opposition_stack, own_stack, put
from tests.factories import UserFactory, started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]


def url(campaign, tail):
    return f"/api/v1/campaigns/{campaign.pk}/{tail}"


def fought():
    """Turn 1: a scout report (alliance only), then p1's attack on D4 (for everyone)."""
    campaign, gm, (p1,) = move_phase_campaign()
    combat = stack_attack(user=p1.user, campaign=campaign, stack=put(own_stack(p1), "D3"),
                          target=opposition_stack(campaign, "D4"))
    return campaign, gm, p1, combat


def opposition_report(campaign):
    """A scout report of the opposition: for the GM only."""
    return Event.objects.create(
        campaign=campaign, side=campaign.sides.get(kind="opposition"), kind="scout_report",
        summary="The garrison's scouts saw A1.", payload={"turn": 1, "sightings": []},
        phase=Phase.objects.get(campaign=campaign, status="open"))


def iso(moment):
    return moment.isoformat().replace("+00:00", "Z")


# --- Reports ---------------------------------------------------------------------------------


def test_a_player_gets_the_reports_of_their_side_and_everyones_newest_first(client_for):
    campaign, _, p1, combat = fought()
    opposition_report(campaign)
    scout = Event.objects.get(campaign=campaign, kind="scout_report", side__kind="alliance")
    response = client_for(p1.user).get(url(campaign, "reports/"))
    assert (response.status_code, [(r["id"], r["kind"], r["side"]) for r in response.json()]) == (
        200, [(combat.pk, "combat", None), (scout.pk, "scout_report", "alliance")])


def test_a_combat_report_carries_its_whole_payload(client_for):
    campaign, _, p1, combat = fought()
    response = client_for(p1.user).get(url(campaign, f"reports/{combat.pk}/"))
    assert (response.status_code, response.json()) == (200, {
        "id": combat.pk, "kind": "combat", "phase": combat.phase_id, "turn": 1, "side": None,
        "actor": p1.user.public_name, "created_at": iso(combat.created_at),
        "summary": combat.summary, "payload": combat.payload,
    })
    assert [d["value"] for d in response.json()["payload"]["dice"]] == [4, 6, 1, 2]


def test_reports_of_one_kind(client_for):
    campaign, _, p1, combat = fought()
    response = client_for(p1.user).get(url(campaign, "reports/"), {"kind": "combat"})
    assert (response.status_code, [r["id"] for r in response.json()]) == (200, [combat.pk])


def test_an_unknown_kind_is_400_naming_kind(client_for):
    campaign, _, p1, _ = fought()
    response = client_for(p1.user).get(url(campaign, "reports/"), {"kind": "duel"})
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_field", "detail": "kind is one of combat, ambush, siege, scout, not "
        "'duel'.", "field": "kind",
    })


def test_another_sides_report_is_404_for_a_player(client_for):
    campaign, _, p1, _ = fought()
    theirs = opposition_report(campaign)
    response = client_for(p1.user).get(url(campaign, f"reports/{theirs.pk}/"))
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_the_gm_sees_every_sides_reports(client_for):
    campaign, gm, _, _ = fought()
    theirs = opposition_report(campaign)
    response = client_for(gm).get(url(campaign, f"reports/{theirs.pk}/"))
    assert (response.status_code, response.json()["side"]) == (200, "opposition")


def test_an_event_that_is_not_a_report_is_404_as_a_report(client_for):
    campaign, _, p1, _ = fought()
    opened = Event.objects.filter(campaign=campaign, kind="phase_opened").first()
    response = client_for(p1.user).get(url(campaign, f"reports/{opened.pk}/"))
    assert response.status_code == 404


def test_a_report_of_another_campaign_is_404(client_for):
    campaign, _, p1, _ = fought()
    _other, _, _, elsewhere = fought()
    response = client_for(p1.user).get(url(campaign, f"reports/{elsewhere.pk}/"))
    assert response.status_code == 404


def test_an_outsider_gets_404_for_the_reports(client_for):
    campaign, _, _, combat = fought()
    outsider = client_for(UserFactory())
    assert (outsider.get(url(campaign, "reports/")).status_code,
            outsider.get(url(campaign, f"reports/{combat.pk}/")).status_code) == (404, 404)


def test_anonymous_gets_401_for_the_reports(client_for):
    campaign, _, _, combat = fought()
    assert (client_for().get(url(campaign, "reports/")).status_code,
            client_for().get(url(campaign, f"reports/{combat.pk}/")).status_code) == (401, 401)


# --- Events since N --------------------------------------------------------------------------


def test_events_after_an_id_oldest_first(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    started = Event.objects.get(campaign=campaign, kind="campaign_started")
    response = client_for(p1.user).get(url(campaign, "events/"), {"since": started.pk})
    opened = Event.objects.get(campaign=campaign, kind="phase_opened")
    assert (response.status_code, response.json()) == (200, {
        "events": [{"id": opened.pk, "kind": "phase_opened", "phase": opened.phase_id,
                    "turn": 1, "side": None, "actor": opened.actor.public_name,
                    "created_at": iso(opened.created_at), "summary": opened.summary,
                    "payload": opened.payload}],
        "next_since": opened.pk, "more": False,
    })


def test_events_are_paged_by_limit(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    ids = list(Event.objects.filter(campaign=campaign).order_by("created_at", "id")
               .values_list("id", flat=True))
    client = client_for(p1.user)
    first = client.get(url(campaign, "events/"), {"limit": 3}).json()
    second = client.get(url(campaign, "events/"),
                        {"since": first["next_since"], "limit": 3}).json()
    assert ([e["id"] for e in first["events"]], first["next_since"], first["more"]) == (
        ids[:3], ids[2], True)
    assert [e["id"] for e in second["events"]] == ids[3:6]


def test_with_nothing_new_next_since_stays(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    last = Event.objects.filter(campaign=campaign).last()
    response = client_for(p1.user).get(url(campaign, "events/"), {"since": last.pk})
    assert response.json() == {"events": [], "next_since": last.pk, "more": False}


def test_a_player_never_gets_another_sides_events(client_for):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    theirs = opposition_report(campaign)
    player_ids = [e["id"] for e in client_for(p1.user).get(url(campaign, "events/")).json()
                  ["events"]]
    gm_ids = [e["id"] for e in client_for(gm).get(url(campaign, "events/")).json()["events"]]
    assert (theirs.pk in player_ids, theirs.pk in gm_ids) == (False, True)


def test_the_opposition_commanders_creation_rolls_are_hidden_from_players(client_for):
    campaign, gm, (p1,) = started_campaign_factory(players=1)
    created = Event.objects.get(campaign=campaign, kind="campaign_created")
    player = client_for(p1.user).get(url(campaign, "events/")).json()["events"][0]
    gm_view = client_for(gm).get(url(campaign, "events/")).json()["events"][0]
    assert [r["purpose"] for r in player["payload"]["rolls"]] == ["hidden", "hidden"]
    assert gm_view["payload"] == created.payload


def test_healing_shows_a_player_only_their_sides_units(client_for):
    campaign, gm, (p1,) = move_phase_campaign()
    ours = Unit.objects.get(owner=p1, name="Spearman 1")
    theirs = Unit.objects.filter(campaign=campaign, side__kind="opposition").first()
    Unit.objects.filter(pk__in=[ours.pk, theirs.pk]).update(current_hits=1)
    phase_end(user=gm, campaign=campaign)
    healing = Event.objects.get(campaign=campaign, kind="healing")
    events = [e for e in client_for(p1.user).get(url(campaign, "events/"),
                                                 {"limit": 200}).json()["events"]
              if e["id"] == healing.pk]
    assert (events[0]["summary"], events[0]["payload"]) == (
        "Healing: 1 of your side's units with partial hits is restored to full.",
        {"healed": [{"unit": ours.pk, "name": "Spearman 1", "restored": 3}]})
    assert len(healing.payload["healed"]) == 2


def test_a_since_the_player_cannot_see_is_refused_like_an_absent_one(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    theirs = opposition_report(campaign)
    client = client_for(p1.user)
    answers = [client.get(url(campaign, "events/"), {"since": since}).json()
               for since in (theirs.pk, 1)]
    assert answers == [{"code": "invalid_field", "field": "since",
                        "detail": "Not the id of an event of this campaign you can see."}] * 2


def test_event_ids_are_not_a_sequence(client_for):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    ids = list(Event.objects.filter(campaign=campaign).values_list("id", flat=True))
    # Random ids below 2^53: ordered by time, they neither rise nor come in steps of one.
    assert (all(0 < i < 2**53 for i in ids), ids == sorted(ids),
            any(b - a == 1 for a, b in zip(ids, ids[1:], strict=False))) == (True, False, False)


@pytest.mark.parametrize(("params", "field", "detail"), [
    ({"limit": 201}, "limit", "limit is a whole number from 1 to 200, not '201'."),
    ({"limit": 0}, "limit", "limit is a whole number from 1 to 200, not '0'."),
    ({"since": -1}, "since", "since is a whole number from 0 to 9223372036854775807, not '-1'."),
    ({"since": "x"}, "since", "since is a whole number from 0 to 9223372036854775807, not 'x'."),
])
def test_a_bad_since_or_limit_is_400_naming_it(client_for, params, field, detail):
    campaign, _, (p1,) = started_campaign_factory(players=1)
    response = client_for(p1.user).get(url(campaign, "events/"), params)
    assert (response.status_code, response.json()) == (400, {
        "code": "invalid_field", "detail": detail, "field": field,
    })


def test_an_outsider_gets_404_for_the_events(client_for):
    campaign, _, _ = started_campaign_factory(players=1)
    assert client_for(UserFactory()).get(url(campaign, "events/")).status_code == 404


def test_anonymous_gets_401_for_the_events(client_for):
    campaign, _, _ = started_campaign_factory(players=1)
    assert client_for().get(url(campaign, "events/")).status_code == 401
