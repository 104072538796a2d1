"""Phase status board, scout orders, done (and by proxy), end phase."""

from datetime import timedelta

import pytest

from campaigns.games.erfworld import orders_mark_done, scout_order_give
from campaigns.models import Phase, PlayerPhaseStatus, ScoutOrder, Unit
from tests.factories import started_campaign_factory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

TO_D4 = ["SE", "S", "SE", "SE", "S"]


def url(campaign, tail):
    return f"/api/v1/campaigns/{campaign.pk}/{tail}"


def open_phase(campaign):
    return Phase.objects.get(campaign=campaign, status="open")


def scout_of(member, n=1):
    return Unit.objects.get(owner=member, name=f"Scout {n}")


def make_late(campaign):
    phase = open_phase(campaign)
    shift = timedelta(hours=73)
    Phase.objects.filter(pk=phase.pk).update(opened_at=phase.opened_at - shift,
                                             deadline_at=phase.deadline_at - shift)


# --- phase status board --------------------------------------------------------------------


def test_the_status_board_lists_every_acting_player(client_for):
    campaign, _, (p1, p2) = started_campaign_factory(players=2)
    orders_mark_done(user=p2.user, campaign=campaign)
    response = client_for(p1.user).get(url(campaign, "phase/"))
    board = response.json()["open_phase"]
    phase = open_phase(campaign)
    assert (response.status_code, board["turn"], board["phase"], board["dice_commitment"]) == (
        200, 1, "scout", phase.dice_commitment
    )
    assert [(p["membership"], p["done"], p["late"], p["is_chief_warlord"])
            for p in board["players"]] == [(p1.pk, False, False, True), (p2.pk, True, False, False)]


def test_the_status_board_of_a_campaign_in_setup_is_null(client_for):
    from tests.factories import campaign_factory

    campaign = campaign_factory()
    gm = campaign.memberships.get(role="gm").user
    response = client_for(gm).get(url(campaign, "phase/"))
    assert (response.status_code, response.json()) == (200, {"open_phase": None})


# --- scout orders --------------------------------------------------------------------------


def test_a_scout_order_is_201_with_the_inspected_hexes(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    scout = scout_of(p1)
    response = client_for(p1.user).post(url(campaign, "scout-orders/"),
                                        {"scout": scout.pk, "directions": TO_D4}, format="json")
    order = ScoutOrder.objects.get()
    assert (response.status_code, response.json()) == (201, {
        "id": order.pk, "scout": scout.pk, "directions": TO_D4,
        "inspected_hexes": ["B1", "B2", "C3", "D3", "D4"], "proxied_by": None,
    })


def test_a_bad_scout_path_is_400_naming_directions(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    response = client_for(p1.user).post(url(campaign, "scout-orders/"),
                                        {"scout": scout_of(p1).pk, "directions": ["UP"]},
                                        format="json")
    body = response.json()
    assert (response.status_code, body["code"], body["field"]) == (
        400, "invalid_scout_path", "directions"
    )


def test_ordering_an_allys_scout_is_403(client_for):
    campaign, _, (p1, p2, _p3) = started_campaign_factory()
    response = client_for(p2.user).post(url(campaign, "scout-orders/"),
                                        {"scout": scout_of(p1).pk, "directions": ["S"]},
                                        format="json")
    assert (response.status_code, response.json()) == (403, {
        "code": "not_your_unit",
        "detail": f"Scout 1 is not one of {p2.user.username}'s units.", "field": None,
    })


def test_ordering_an_opposition_unit_is_404_and_does_not_name_it(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    foe = Unit.objects.filter(campaign=campaign, side__kind="opposition").first()
    response = client_for(p1.user).post(url(campaign, "scout-orders/"),
                                        {"scout": foe.pk, "directions": ["S"]}, format="json")
    assert (response.status_code, response.json()) == (
        404, {"code": "not_found", "detail": "Not found.", "field": None}
    )


def test_the_gm_ordering_a_scout_is_403_wrong_side(client_for):
    campaign, gm, (p1, *_rest) = started_campaign_factory()
    response = client_for(gm).post(url(campaign, "scout-orders/"),
                                   {"scout": scout_of(p1).pk, "directions": ["S"]}, format="json")
    assert (response.status_code, response.json()["code"]) == (403, "wrong_side")


def test_cancel_a_scout_order_is_204(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    order = scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1),
                             directions=["S"])
    response = client_for(p1.user).post(url(campaign, f"scout-orders/{order.pk}/cancel/"),
                                        {}, format="json")
    assert (response.status_code, ScoutOrder.objects.count()) == (204, 0)


def test_cancelling_an_unknown_order_is_404(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    response = client_for(p1.user).post(url(campaign, "scout-orders/999999/cancel/"), {},
                                        format="json")
    assert response.status_code == 404


def test_cancelling_an_allys_order_is_403(client_for):
    campaign, _, (p1, p2, _p3) = started_campaign_factory()
    order = scout_order_give(user=p1.user, campaign=campaign, scout=scout_of(p1),
                             directions=["S"])
    response = client_for(p2.user).post(url(campaign, f"scout-orders/{order.pk}/cancel/"), {},
                                        format="json")
    assert (response.status_code, response.json()["code"], ScoutOrder.objects.count()) == (
        403, "not_your_order", 1
    )


# --- done ----------------------------------------------------------------------------------


def test_mark_done(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    response = client_for(p1.user).post(url(campaign, "done/"), {}, format="json")
    status = PlayerPhaseStatus.objects.get(membership=p1)
    assert (response.status_code, response.json()) == (200, {
        "membership": p1.pk, "done_at": status.done_at.isoformat().replace("+00:00", "Z"),
        "late": False, "proxied_by": None,
    })


def test_marking_done_twice_is_400(client_for):
    campaign, _, (p1, *_rest) = started_campaign_factory()
    client = client_for(p1.user)
    client.post(url(campaign, "done/"), {}, format="json")
    response = client.post(url(campaign, "done/"), {}, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "already_done")


def test_the_chief_warlord_marks_a_late_player_done(client_for):
    campaign, _, (cw, p2, _p3) = started_campaign_factory()
    make_late(campaign)
    response = client_for(cw.user).post(url(campaign, "done/"), {"on_behalf_of": p2.pk},
                                        format="json")
    assert (response.status_code, response.json()["membership"], response.json()["late"],
            response.json()["proxied_by"]) == (200, p2.pk, True, cw.pk)


def test_proxy_before_the_deadline_is_403_not_late(client_for):
    campaign, _, (cw, p2, _p3) = started_campaign_factory()
    response = client_for(cw.user).post(url(campaign, "done/"), {"on_behalf_of": p2.pk},
                                        format="json")
    assert (response.status_code, response.json()["code"]) == (403, "not_late")


def test_proxy_by_a_plain_player_is_403(client_for):
    campaign, _, (_cw, p2, p3) = started_campaign_factory()
    make_late(campaign)
    response = client_for(p3.user).post(url(campaign, "done/"), {"on_behalf_of": p2.pk},
                                        format="json")
    assert (response.status_code, response.json()["code"]) == (403, "chief_warlord_only")


def test_proxy_for_an_unknown_membership_is_400(client_for):
    campaign, _, (cw, *_rest) = started_campaign_factory()
    response = client_for(cw.user).post(url(campaign, "done/"), {"on_behalf_of": 999999},
                                        format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "unknown_player", "detail": "There is no such player in this campaign.",
        "field": "on_behalf_of",
    })


# --- end phase -----------------------------------------------------------------------------


def test_the_gm_ends_the_phase_and_gets_the_next(client_for):
    campaign, gm, _ = started_campaign_factory()
    scout = open_phase(campaign)
    response = client_for(gm).post(url(campaign, "phase/end/"),
                                   {"expected_phase": scout.pk, "reason": "test"}, format="json")
    nxt = open_phase(campaign)
    assert (response.status_code, response.json()["id"], response.json()["kind"],
            response.json()["turn"]) == (200, nxt.pk, "move_combat", 1)


def test_ending_an_already_closed_phase_is_400(client_for):
    campaign, gm, _ = started_campaign_factory()
    scout = open_phase(campaign)
    client = client_for(gm)
    client.post(url(campaign, "phase/end/"), {"expected_phase": scout.pk}, format="json")
    response = client.post(url(campaign, "phase/end/"), {"expected_phase": scout.pk},
                           format="json")
    assert (response.status_code, response.json()) == (400, {
        "code": "phase_already_closed", "detail": "That phase has already been closed.",
        "field": None,
    })


def test_the_chief_warlord_cannot_end_while_players_are_not_done(client_for):
    campaign, _, (cw, p2, p3) = started_campaign_factory()
    response = client_for(cw.user).post(url(campaign, "phase/end/"),
                                        {"expected_phase": open_phase(campaign).pk},
                                        format="json")
    assert (response.status_code, response.json()["code"]) == (400, "players_not_done")


def test_a_plain_player_cannot_end_the_phase(client_for):
    campaign, _, (_cw, p2, _p3) = started_campaign_factory()
    response = client_for(p2.user).post(url(campaign, "phase/end/"),
                                        {"expected_phase": open_phase(campaign).pk},
                                        format="json")
    assert (response.status_code, response.json()["code"]) == (403, "chief_warlord_only")


def test_ending_a_phase_without_naming_it_is_400_and_closes_nothing(client_for):
    campaign, gm, _ = started_campaign_factory()
    scout = open_phase(campaign)
    response = client_for(gm).post(url(campaign, "phase/end/"), {"reason": "go"},
                                   format="json")
    assert (response.status_code, response.json()["code"], response.json()["field"],
            open_phase(campaign).pk) == (400, "required", "expected_phase", scout.pk)
