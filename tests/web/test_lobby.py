"""The campaign lobby: join by invite link, members and sides, the army designer with the
rules' live preview, buying, ready, the Chief Warlord vote, the GM's appoint and start."""

import pytest
from django.urls import reverse

from campaigns.models import CampaignStatus, Membership, PhaseStatus, Unit, UnitType
from tests.factories import (
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)

pytestmark = pytest.mark.django_db

SCOUT = {"name": "Scout", "hits": "3", "attack": "2", "defence": "2", "move": "4",
         "specials": ["scout"]}
HIDDEN_TYPE = "Gatekeeper"  # only the Broad Way garrison has it
HIDDEN_UNIT = "Rider 2"


def _lobby(campaign):
    return reverse("campaigns:lobby", args=[campaign.pk])


# --- permissions -------------------------------------------------------------------------


def test_lobby_anonymous_is_sent_to_login(client):
    campaign = campaign_factory()
    response = client.get(_lobby(campaign))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('account_login')}?next={_lobby(campaign)}"


def test_lobby_outsider_gets_404(client):
    campaign = campaign_factory()
    client.force_login(UserFactory())
    assert client.get(_lobby(campaign)).status_code == 404


def test_lobby_unknown_campaign_gets_404(client):
    client.force_login(UserFactory())
    assert client.get(reverse("campaigns:lobby", args=[999999])).status_code == 404


def test_lobby_lists_members_and_sides(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign, user=UserFactory(display_name="Parson"))
    client.force_login(member.user)
    page = client.get(_lobby(campaign)).content.decode()
    assert "<strong>The Alliance</strong> (alliance) against <strong>The Broad Way Garrison</strong> (opposition)" in page
    assert "<th scope=\"row\">Parson (you)</th>" in page


def test_gm_sees_the_invite_link(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    client.force_login(gm)
    page = client.get(_lobby(campaign)).content.decode()
    assert f'value="http://testserver/campaigns/join/{campaign.invite_code}/"' in page


def test_player_does_not_see_the_invite_link(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    assert campaign.invite_code not in client.get(_lobby(campaign)).content.decode()


def test_alliance_player_lobby_hides_the_opposition(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member, ready=False)
    client.force_login(member.user)
    page = client.get(_lobby(campaign)).content.decode()
    assert HIDDEN_TYPE not in page
    assert HIDDEN_UNIT not in page


def test_other_players_army_is_not_shown(client):
    campaign = campaign_factory()
    me = player_factory(campaign=campaign)
    other = player_factory(campaign=campaign)
    army_factory(membership=other, army=[("Hobgoblin", {"hits": 4, "attack": 4, "defence": 3,
                                                        "move": 1, "specials": []}, 2)],
                 ready=False)
    client.force_login(me.user)
    assert "Hobgoblin" not in client.get(_lobby(campaign)).content.decode()


# --- join -------------------------------------------------------------------------------


def test_join_page_confirms_before_joining(client):
    campaign = campaign_factory(name="Gobwin Knob")
    user = UserFactory()
    client.force_login(user)
    page = client.get(reverse("campaigns:join", args=[campaign.invite_code])).content.decode()
    assert "<h1>Join Gobwin Knob</h1>" in page
    assert not Membership.objects.filter(campaign=campaign, user=user).exists()


def test_join_post_joins_the_alliance(client):
    campaign = campaign_factory()
    user = UserFactory()
    client.force_login(user)
    response = client.post(reverse("campaigns:join", args=[campaign.invite_code]))
    assert response.status_code == 302
    assert response["Location"] == _lobby(campaign)
    membership = Membership.objects.get(campaign=campaign, user=user)
    assert (membership.role, membership.side.kind) == ("player", "alliance")


def test_join_after_the_start_shows_the_rule(client):
    campaign, _, _ = started_campaign_factory(players=1)
    user = UserFactory()
    client.force_login(user)
    response = client.post(reverse("campaigns:join", args=[campaign.invite_code]))
    assert response.status_code == 400
    assert "Players can join only before the campaign starts." in response.content.decode()
    assert not Membership.objects.filter(campaign=campaign, user=user).exists()


def test_join_unknown_code_gets_404(client):
    client.force_login(UserFactory())
    assert client.get(reverse("campaigns:join", args=["nope"])).status_code == 404


def test_join_anonymous_is_sent_to_login(client):
    campaign = campaign_factory()
    url = reverse("campaigns:join", args=[campaign.invite_code])
    response = client.get(url)
    assert response["Location"] == f"{reverse('account_login')}?next={url}"


def test_join_when_already_a_member_goes_to_the_lobby(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    response = client.get(reverse("campaigns:join", args=[campaign.invite_code]))
    assert response["Location"] == _lobby(campaign)


# --- army designer ----------------------------------------------------------------------


def test_preview_shows_cost_class_and_formula(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    page = client.post(reverse("campaigns:unit-type-preview", args=[campaign.pk]),
                       SCOUT, **{"HTTP_HX_REQUEST": "true"}).content.decode()
    # (9/4 + 2 + 2) × 0.5 + (3 × 4) × 0.5 + 5 + (3 + 2 × 2) = 3.125 + 6 + 12
    assert "Cost: <strong>21.125</strong> points per unit · class: <strong>cavalry</strong>" in page
    assert "scout: 5 + (H + A × D) = 5 + (3 + 2 × 2) = 12" in page
    assert "The rules accept this design." in page


def test_preview_shows_the_rules_errors(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    page = client.post(reverse("campaigns:unit-type-preview", args=[campaign.pk]),
                       {**SCOUT, "attack": "9"}).content.decode()
    assert ("Unit type &#x27;Scout&#x27; has attack 9; attack may be at most one and a half "
            "times hits rounded up (5 for 3 hits).") in page


def test_preview_names_a_field_that_is_not_a_number(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    page = client.post(reverse("campaigns:unit-type-preview", args=[campaign.pk]),
                       {**SCOUT, "hits": "lots"}).content.decode()
    assert "Hits must be a whole number, not &#x27;lots&#x27;." in page


def test_preview_shows_the_unit_type_limit(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    for i in range(campaign.max_unit_types):
        army_factory(membership=member, ready=False, army=[
            (f"Type {i}", {"hits": 1, "attack": 1, "defence": 1, "move": 1, "specials": []}, 0)])
    client.force_login(member.user)
    page = client.post(reverse("campaigns:unit-type-preview", args=[campaign.pk]),
                       SCOUT).content.decode()
    assert (f"The army has {campaign.max_unit_types + 1} distinct unit types; at most "
            f"{campaign.max_unit_types} are allowed") in page


def test_preview_outsider_gets_404(client):
    campaign = campaign_factory()
    client.force_login(UserFactory())
    response = client.post(reverse("campaigns:unit-type-preview", args=[campaign.pk]), SCOUT)
    assert response.status_code == 404


def test_create_unit_type(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:unit-type-create", args=[campaign.pk]), SCOUT)
    assert response.status_code == 302
    unit_type = UnitType.objects.get(owner=member)
    assert (unit_type.name, unit_type.move, unit_type.specials, str(unit_type.cost)) == (
        "Scout", 4, ["scout"], "21.125")


def test_create_invalid_unit_type_shows_the_rule_and_creates_nothing(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:unit-type-create", args=[campaign.pk]),
                           {**SCOUT, "defence": "4"})
    assert response.status_code == 400
    assert ("Unit type &#x27;Scout&#x27; has defence 4; defence may not be higher than hits "
            "(3).") in response.content.decode()
    assert UnitType.objects.filter(owner=member).count() == 0


def test_create_keeps_what_was_typed_after_an_error(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    page = client.post(reverse("campaigns:unit-type-create", args=[campaign.pk]),
                       {**SCOUT, "defence": "4"}).content.decode()
    assert 'name="defence" value="4"' in page
    assert 'value="scout" checked' in page


def test_gm_cannot_design_unit_types(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    client.force_login(gm)
    response = client.post(reverse("campaigns:unit-type-create", args=[campaign.pk]), SCOUT)
    assert response.status_code == 400
    assert ("Only alliance players may do this; the Game Master plays the opposition."
            in response.content.decode())
    assert UnitType.objects.filter(campaign=campaign, owner__isnull=False).count() == 0


def test_edit_unit_type(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    types = army_factory(membership=member, ready=False)
    client.force_login(member.user)
    url = reverse("campaigns:unit-type-edit", args=[campaign.pk, types["Scout"].pk])
    response = client.post(url, {**SCOUT, "name": "Outrider", "attack": "3"})
    assert response.status_code == 302
    types["Scout"].refresh_from_db()
    assert (types["Scout"].name, types["Scout"].attack) == ("Outrider", 3)


def test_edit_page_shows_the_current_design_and_its_cost(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    types = army_factory(membership=member, ready=False)
    client.force_login(member.user)
    page = client.get(reverse("campaigns:unit-type-edit",
                              args=[campaign.pk, types["Scout"].pk])).content.decode()
    assert 'name="name" value="Scout"' in page
    assert "Cost: <strong>21.125</strong>" in page


def test_edit_another_players_unit_type_gets_404(client):
    campaign = campaign_factory()
    other = player_factory(campaign=campaign)
    types = army_factory(membership=other, ready=False)
    me = player_factory(campaign=campaign)
    client.force_login(me.user)
    url = reverse("campaigns:unit-type-edit", args=[campaign.pk, types["Scout"].pk])
    assert client.post(url, {**SCOUT, "name": "Mine"}).status_code == 404
    types["Scout"].refresh_from_db()
    assert types["Scout"].name == "Scout"


def test_delete_unit_type_with_its_units(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    types = army_factory(membership=member, ready=False)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:unit-type-delete",
                                   args=[campaign.pk, types["Spearman"].pk]))
    assert response.status_code == 302
    assert not UnitType.objects.filter(pk=types["Spearman"].pk).exists()
    assert Unit.objects.filter(owner=member).count() == 3


def test_buy_units(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    types = army_factory(membership=member, ready=False)
    client.force_login(member.user)
    client.post(reverse("campaigns:units-buy", args=[campaign.pk, types["Spearman"].pk]),
                {"count": "2"})
    assert Unit.objects.filter(unit_type=types["Spearman"]).count() == 12


def test_buy_over_budget_shows_the_rule_and_buys_nothing(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    types = army_factory(membership=member, ready=False)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:units-buy",
                                   args=[campaign.pk, types["Spearman"].pk]), {"count": "500"})
    assert response.status_code == 400
    assert f"the budget is {campaign.points_budget} points." in response.content.decode()
    assert Unit.objects.filter(unit_type=types["Spearman"]).count() == 10


def test_army_shows_points_and_commander_levels(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member, ready=False)
    warlord = Unit.objects.get(owner=member, unit_type__name="Warlord")
    client.force_login(member.user)
    page = client.get(_lobby(campaign)).content.decode()
    assert f"Warlord 1 (level {warlord.commander_level})" in page
    assert "Spent <strong>" in page


def test_mark_ready(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member, ready=False)
    client.force_login(member.user)
    client.post(reverse("campaigns:army-ready", args=[campaign.pk]), {"ready": "yes"})
    member.refresh_from_db()
    assert member.army_ready_at is not None


def test_mark_ready_without_a_commander_shows_the_rule(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:army-ready", args=[campaign.pk]), {"ready": "yes"})
    assert response.status_code == 400
    assert ("The army has no commander; every player needs at least one commander."
            in response.content.decode())
    member.refresh_from_db()
    assert member.army_ready_at is None


def test_mark_not_ready(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member)
    client.force_login(member.user)
    client.post(reverse("campaigns:army-ready", args=[campaign.pk]), {"ready": "no"})
    member.refresh_from_db()
    assert member.army_ready_at is None


# --- Chief Warlord and start ---------------------------------------------------------------


def test_a_vote_leaves_the_election_open_and_the_gm_closes_it(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    client.post(reverse("campaigns:vote", args=[campaign.pk]), {"candidate": member.pk})
    page = client.get(reverse("campaigns:lobby", args=[campaign.pk])).content.decode()
    member.refresh_from_db()
    still_open = (member.is_chief_warlord, "The election is open: 1 of 1 alliance players "
                  "have voted" in page, 'data-key="close-election"' in page)
    client.force_login(Membership.objects.get(campaign=campaign, role="gm").user)
    closed = client.post(reverse("campaigns:close-election", args=[campaign.pk]), follow=True)
    member.refresh_from_db()
    assert (still_open, member.is_chief_warlord,
            f"The election is closed: {member.user.public_name} is the Chief Warlord." in
            closed.content.decode()) == ((False, True, False), True, True)


def test_vote_for_a_non_player_shows_the_rule(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    member = player_factory(campaign=campaign)
    gm_membership = Membership.objects.get(campaign=campaign, user=gm)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:vote", args=[campaign.pk]),
                           {"candidate": gm_membership.pk})
    assert response.status_code == 400
    assert ("Only an alliance player of this campaign can be Chief Warlord."
            in response.content.decode())
    member.refresh_from_db()
    assert member.chief_warlord_vote_id is None


def test_gm_appoints_the_chief_warlord(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    member = player_factory(campaign=campaign)
    client.force_login(gm)
    client.post(reverse("campaigns:appoint", args=[campaign.pk]), {"membership": member.pk})
    member.refresh_from_db()
    assert member.is_chief_warlord is True


def test_player_cannot_appoint(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:appoint", args=[campaign.pk]),
                           {"membership": member.pk})
    assert "Only the Game Master may do this." in response.content.decode()
    member.refresh_from_db()
    assert member.is_chief_warlord is False


def test_gm_starts_the_campaign(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    member = player_factory(campaign=campaign)
    army_factory(membership=member)
    client.force_login(gm)
    client.post(reverse("campaigns:appoint", args=[campaign.pk]), {"membership": member.pk})
    client.post(reverse("campaigns:start", args=[campaign.pk]))
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.RUNNING
    assert campaign.phases.filter(status=PhaseStatus.OPEN).count() == 1


def test_start_with_an_army_not_ready_shows_the_rule(client):
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    member = player_factory(campaign=campaign, user=UserFactory(display_name="Stanley"))
    client.force_login(gm)
    response = client.post(reverse("campaigns:start", args=[campaign.pk]))
    assert response.status_code == 400
    assert ("Every army must be ready before the start; not ready: Stanley."
            in response.content.decode())
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.SETUP
    assert member.army_ready_at is None


def test_player_cannot_start_and_sees_why(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    response = client.post(reverse("campaigns:start", args=[campaign.pk]))
    assert response.status_code == 400
    assert "Only the Game Master may do this." in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.SETUP


def test_running_lobby_and_phase_bar_never_name_a_hidden_opposition_unit(client):
    from campaigns.games.erfworld import phase_end, scout_order_give
    from tests.web.fog import disguise_the_opposition, hidden_units, leaks

    campaign, gm, (p1,) = started_campaign_factory(players=1)
    disguise_the_opposition(campaign)
    scout_order_give(user=p1.user, campaign=campaign,
                     scout=Unit.objects.get(owner=p1, name="Scout 1"),
                     directions=["SE", "S", "SE", "SE", "S"])
    phase_end(user=gm, campaign=campaign)
    hidden = hidden_units(campaign)
    client.force_login(p1.user)
    urls = [_lobby(campaign), reverse("campaigns:phase-bar", args=[campaign.pk])]
    texts = {url: client.get(url).content.decode() for url in urls}
    assert {url: leaks(text, hidden) for url, text in texts.items()} == {url: [] for url in urls}


# --- how to win --------------------------------------------------------------------------


def test_the_overview_states_the_scenarios_victory_condition(client):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    client.force_login(member.user)
    page = client.get(_lobby(campaign)).content.decode()
    assert ('<section class="lobby-victory" aria-labelledby="victory-title" data-victory="">'
            in page)
    assert ("<p>The Alliance wins by capturing the fortification of J10: a stack of theirs in "
            "J10 with no enemy stack left in it. The Broad Way Garrison wins when no alliance "
            "unit is left, on the map or waiting to pop.</p>") in page


def test_a_finished_campaign_names_its_winner_and_why(client):
    from campaigns.games.erfworld.engine import check_victory
    from campaigns.models import Fortification, SideKind

    campaign, gm, (player,) = started_campaign_factory(players=1)
    Fortification.objects.filter(campaign=campaign, hex="J10").update(
        owner=campaign.sides.get(kind=SideKind.ALLIANCE))
    assert check_victory(campaign=campaign, phase=None, actor=gm) == "alliance"
    client.force_login(player.user)
    page = client.get(_lobby(campaign)).content.decode()
    assert 'data-victory="alliance"' in page
    assert ('<h2 id="victory-title">Victory: The Alliance wins: it holds the fortification of '
            "J10. The campaign is finished; its setup dice are revealed.</h2>") in page
