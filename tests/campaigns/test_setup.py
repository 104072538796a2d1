"""Before the first turn: creation, joining, army design, the Chief Warlord, the start."""

from decimal import Decimal

import pytest

from campaigns.errors import CampaignError
from campaigns.games.erfworld import (
    army_mark_not_ready,
    army_mark_ready,
    campaign_join,
    campaign_start,
    chief_warlord_appoint,
    chief_warlord_vote,
    election_close,
    unit_type_create,
    unit_type_delete,
    unit_type_update,
    units_buy,
)
from campaigns.models import (
    Campaign,
    CampaignStatus,
    DiceRoll,
    Event,
    Fortification,
    Membership,
    Notification,
    Phase,
    PhaseSnapshot,
    PlayerPhaseStatus,
    Role,
    Stack,
    Unit,
)
from rules.dice import Roll as RulesRoll
from rules.dice import SeededDice, commitment, derive, verify
from rules.erfworld.units import commander_level_from_d10
from tests.factories import (
    STANDARD_ARMY,
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

SPEARMAN = {"hits": 4, "attack": 4, "defence": 3, "move": 1, "specials": []}
WARLORD = {"hits": 5, "attack": 5, "defence": 3, "move": 2, "specials": ["commander"]}


def assert_refused(info, code, message=None):
    assert info.value.code == code
    if message is not None:
        assert str(info.value) == message


# --- creation ------------------------------------------------------------------------------


def test_create_from_scenario_builds_sides_map_forts_and_opposition():
    gm = UserFactory(username="thegm")
    campaign = campaign_factory(gm=gm)
    assert (campaign.name, campaign.status, campaign.scenario_key) == (
        "The Broad Way", CampaignStatus.SETUP, "broad_way",
    )
    assert (campaign.phase_hours, campaign.points_budget, campaign.max_unit_types,
            campaign.ambush_value, campaign.terrain_known_to_all) == (72, 500, 5, 2, True)
    assert sorted(campaign.sides.values_list("kind", flat=True)) == ["alliance", "opposition"]
    assert list(Membership.objects.filter(campaign=campaign).values_list("user__username", "role")
                ) == [("thegm", Role.GM)]
    assert (campaign.map.cols, campaign.map.rows, campaign.map.terrain["J10"]) == (12, 12, "road")
    assert Fortification.objects.filter(campaign=campaign, hex="J10").count() == 7
    assert Stack.objects.filter(campaign=campaign, side__kind="opposition").count() == 6
    assert Unit.objects.filter(campaign=campaign, side__kind="opposition").count() == 36
    assert campaign.setup_dice_commitment == commitment(campaign.setup_dice_seed)


def test_opposition_commander_levels_are_rolled_with_recorded_setup_dice():
    campaign = campaign_factory()
    rolls = list(DiceRoll.objects.filter(campaign=campaign).order_by("number"))
    assert [(r.number, r.purpose, r.sides, r.phase_id) for r in rolls] == [
        (1, "commander level of Warlord 1 (opposition)", 10, None),
        (2, "commander level of Warlord 2 (opposition)", 10, None),
    ]
    for r in rolls:
        assert r.value == derive(campaign.setup_dice_seed, r.number, r.purpose, 10)
    levels = list(Unit.objects.filter(campaign=campaign, unit_type__name="Warlord")
                  .order_by("created_seq", "pk").values_list("commander_level", flat=True))
    assert levels == [commander_level_from_d10(r.value) for r in rolls]
    campaign.refresh_from_db()
    assert campaign.setup_dice_next_number == 3


# --- joining -------------------------------------------------------------------------------


def test_join_with_the_invite_code_makes_an_alliance_player_and_tells_the_gm(
    django_capture_on_commit_callbacks,
):
    campaign = campaign_factory()
    user = UserFactory(username="newbie")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        membership = campaign_join(user=user, invite_code=campaign.invite_code)
    assert (membership.role, membership.side.kind, membership.is_chief_warlord) == (
        Role.PLAYER, "alliance", False,
    )
    assert len(callbacks) == 2  # the GM's notification delivered, the map cache warmed
    assert list(Notification.objects.values_list("user__is_staff", "message")) == [
        (True, "newbie joined the alliance."),
    ]


def test_join_with_a_wrong_code_is_refused(unchanged):
    campaign = campaign_factory()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_join(user=UserFactory(), invite_code="not-a-code")
    assert_refused(info, "invalid_invite", "This invite code does not belong to any campaign.")
    assert info.value.field == "invite_code"


def test_joining_twice_is_refused(unchanged):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_join(user=member.user, invite_code=campaign.invite_code)
    assert_refused(info, "already_member")


# --- unit types ----------------------------------------------------------------------------


def test_unit_type_create_stores_the_rules_cost():
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    t = unit_type_create(user=member.user, campaign=campaign, name="Warlord", **WARLORD)
    assert (t.name, t.cost, t.specials, t.owner_id, t.side.kind) == (
        "Warlord", Decimal("32.125"), ["commander"], member.pk, "alliance",
    )
    assert Event.objects.filter(kind="unit_type_created").get().summary == (
        f"{member.user.username} designed the unit type 'Warlord' (32.125 points)."
    )


def test_non_member_cannot_design_unit_types(unchanged):
    campaign = campaign_factory()
    stranger = UserFactory(username="stranger")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_create(user=stranger, campaign=campaign, name="Spy", **SPEARMAN)
    assert_refused(info, "not_member",
                   "stranger is not a member of the campaign 'The Broad Way'.")


def test_the_gm_cannot_design_alliance_unit_types(unchanged):
    campaign = campaign_factory()
    gm = Membership.objects.get(campaign=campaign, role=Role.GM).user
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_create(user=gm, campaign=campaign, name="Spy", **SPEARMAN)
    assert_refused(info, "wrong_side")


def test_a_sixth_unit_type_is_refused(unchanged):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    for i in range(5):
        unit_type_create(user=member.user, campaign=campaign, name=f"Type {i}", **SPEARMAN)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_create(user=member.user, campaign=campaign, name="Type 5", **SPEARMAN)
    assert_refused(info, "too_many_unit_types",
                   "The army has 6 distinct unit types; at most 5 are allowed (a commander "
                   "type counts).")


@pytest.mark.parametrize(
    ("stats", "message"),
    [
        ({**SPEARMAN, "attack": 7},
         "Unit type 'Bad' has attack 7; attack may be at most one and a half times hits rounded"
         " up (6 for 4 hits)."),
        ({**SPEARMAN, "defence": 5},
         "Unit type 'Bad' has defence 5; defence may not be higher than hits (4)."),
        ({**SPEARMAN, "hits": 8, "specials": ["commander"]},
         "Unit type 'Bad' is a commander with 8 hits; commanders must have between 3 and 6 "
         "hits."),
        ({**SPEARMAN, "move": 6}, "Unit type 'Bad' has move 6; move must be between 0 and 5."),
    ],
)
def test_invalid_stats_are_refused_with_the_rule(unchanged, stats, message):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_create(user=member.user, campaign=campaign, name="Bad", **stats)
    assert_refused(info, "invalid_unit_type", message)


def test_an_unknown_special_is_refused_naming_the_field(unchanged):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_create(user=member.user, campaign=campaign, name="Bad",
                         **{**SPEARMAN, "specials": ["teleport"]})
    assert (info.value.code, info.value.field) == ("invalid_field", "specials[0]")


def test_unit_type_update_recomputes_cost_and_rolls_new_commanders():
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    t = unit_type_create(user=member.user, campaign=campaign, name="Captain",
                         **{**WARLORD, "specials": []})
    units_buy(user=member.user, unit_type=t, count=2)
    t = unit_type_update(user=member.user, unit_type=t, name="Captain", **WARLORD)
    assert t.cost == Decimal("32.125")
    units = list(Unit.objects.filter(unit_type=t).order_by("created_seq", "pk"))
    rolls = list(DiceRoll.objects.filter(campaign=campaign, purpose__startswith="commander level "
                                         "of Captain ").order_by("number"))
    assert [(u.name, u.commander_level) for u in units] == [
        ("Captain 1", commander_level_from_d10(rolls[0].value)),
        ("Captain 2", commander_level_from_d10(rolls[1].value)),
    ]


def test_another_players_unit_type_cannot_be_changed(unchanged):
    campaign = campaign_factory()
    owner, other = player_factory(campaign=campaign), player_factory(campaign=campaign)
    t = unit_type_create(user=owner.user, campaign=campaign, name="Spearman", **SPEARMAN)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_update(user=other.user, unit_type=t, name="Mine", **SPEARMAN)
    assert_refused(info, "not_owner", "You can change only your own unit types.")
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_delete(user=other.user, unit_type=t)
    assert_refused(info, "not_owner")


def test_unit_type_delete_removes_its_units():
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    t = unit_type_create(user=member.user, campaign=campaign, name="Spearman", **SPEARMAN)
    units_buy(user=member.user, unit_type=t, count=3)
    unit_type_delete(user=member.user, unit_type=t)
    assert Unit.objects.filter(owner=member).count() == 0
    assert Event.objects.filter(kind="unit_type_deleted").get().payload["units_deleted"] == 3


# --- buying --------------------------------------------------------------------------------


def test_buying_a_commander_rolls_its_level_with_the_setup_dice():
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    t = unit_type_create(user=member.user, campaign=campaign, name="Warlord", **WARLORD)
    [unit] = units_buy(user=member.user, unit_type=t, count=1)
    purpose = f"commander level of Warlord 1 ({member.user.username})"
    roll = DiceRoll.objects.get(campaign=campaign, purpose=purpose)
    assert (roll.number, roll.sides, roll.phase_id) == (3, 10, None)  # 1, 2: opposition
    assert roll.value == derive(campaign.setup_dice_seed, 3, purpose, 10)
    assert unit.commander_level == commander_level_from_d10(roll.value)
    assert (unit.name, unit.current_hits, unit.stack_id) == ("Warlord 1", 5, None)


def test_buying_over_the_budget_is_refused(unchanged):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    t = unit_type_create(user=member.user, campaign=campaign, name="Spearman", **SPEARMAN)
    units_buy(user=member.user, unit_type=t, count=66)  # 495 points
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        units_buy(user=member.user, unit_type=t, count=1)
    assert_refused(info, "over_budget", "The army costs 502.5 points; the budget is 500 points.")


def test_buying_is_refused_once_the_army_is_ready(unchanged):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    types = army_factory(membership=member)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        units_buy(user=member.user, unit_type=types["Spearman"], count=1)
    assert_refused(info, "army_ready")


def test_an_army_without_a_commander_cannot_be_ready(unchanged):
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member, army=[STANDARD_ARMY[2]], ready=False)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        army_mark_ready(user=member.user, campaign=campaign)
    assert_refused(info, "no_commander",
                   "The army has no commander; every player needs at least one commander.")


def test_army_ready_and_not_ready():
    campaign = campaign_factory()
    member = player_factory(campaign=campaign)
    army_factory(membership=member)
    member.refresh_from_db()
    assert member.army_ready_at is not None
    assert Event.objects.filter(kind="army_ready").get().summary == (
        f"{member.user.username}'s army is ready (149.375 of 500 points)."
    )
    army_mark_not_ready(user=member.user, campaign=campaign)
    member.refresh_from_db()
    assert member.army_ready_at is None


# --- Chief Warlord -------------------------------------------------------------------------


def _chiefs():
    return list(Membership.objects.filter(is_chief_warlord=True).values_list("pk", flat=True))


def test_votes_keep_the_election_open_and_may_change():
    campaign = campaign_factory()
    a, b, c = (player_factory(campaign=campaign) for _ in range(3))
    chief_warlord_vote(user=a.user, campaign=campaign, candidate=b)
    chief_warlord_vote(user=c.user, campaign=campaign, candidate=b)
    chief_warlord_vote(user=c.user, campaign=campaign, candidate=a)  # c changes their mind
    late = player_factory(campaign=campaign)  # a late joiner votes too
    chief_warlord_vote(user=late.user, campaign=campaign, candidate=b)
    c.refresh_from_db()
    assert (_chiefs(), c.chief_warlord_vote_id,
            Event.objects.filter(kind="chief_warlord_elected").count()) == ([], a.pk, 0)


def test_the_gm_closes_it_and_the_most_votes_win():
    campaign = campaign_factory()
    a, b, c = (player_factory(campaign=campaign) for _ in range(3))
    chief_warlord_vote(user=a.user, campaign=campaign, candidate=b)
    chief_warlord_vote(user=c.user, campaign=campaign, candidate=b)
    chief_warlord_vote(user=b.user, campaign=campaign, candidate=a)
    gm = Membership.objects.get(campaign=campaign, role=Role.GM).user
    chief = election_close(user=gm, campaign=campaign)
    assert (chief.pk, _chiefs(),
            Event.objects.filter(kind="chief_warlord_elected").get().summary) == (
        b.pk, [b.pk], f"The election is closed (closed by the GM): {b.user.username} is "
        "elected Chief Warlord with 2 of 3 votes.")


def test_a_tie_is_settled_by_a_recorded_setup_die():
    campaign = campaign_factory()
    a, b = player_factory(campaign=campaign), player_factory(campaign=campaign)
    chief_warlord_vote(user=a.user, campaign=campaign, candidate=a)
    chief_warlord_vote(user=b.user, campaign=campaign, candidate=b)
    gm = Membership.objects.get(campaign=campaign, role=Role.GM).user
    campaign.refresh_from_db()
    number = campaign.setup_dice_next_number
    chief = election_close(user=gm, campaign=campaign)
    roll = DiceRoll.objects.get(campaign=campaign, phase=None, number=number)
    expected = SeededDice(seed=campaign.setup_dice_seed, first_number=number).roll(
        2, roll.purpose)
    assert (roll.sides, roll.value, roll.purpose, chief.pk, _chiefs(),
            Event.objects.get(kind="chief_warlord_elected").summary) == (
        2, expected, f"Chief Warlord tie between {a.user.username}, {b.user.username}",
        [a, b][expected - 1].pk, [[a, b][expected - 1].pk],
        f"The election is closed (closed by the GM): {a.user.username} and {b.user.username} "
        f"tied with 1 of 2 votes each; the setup die (d2, roll {number}) came up {expected}: "
        f"{[a, b][expected - 1].user.username} is Chief Warlord.")


def test_with_a_player_cap_the_last_seat_s_vote_closes_it():
    campaign = campaign_factory()
    Campaign.objects.filter(pk=campaign.pk).update(player_cap=2)
    a, b = player_factory(campaign=campaign), player_factory(campaign=campaign)
    chief_warlord_vote(user=a.user, campaign=campaign, candidate=b)
    first = _chiefs()
    chief_warlord_vote(user=b.user, campaign=campaign, candidate=b)
    assert (first, _chiefs(), Event.objects.get(kind="chief_warlord_elected").actor) == (
        [], [b.pk], b.user)


def test_starting_closes_the_election():
    campaign = campaign_factory()
    a, b = player_factory(campaign=campaign), player_factory(campaign=campaign)
    for m in (a, b):
        army_factory(membership=m, ready=True)
    chief_warlord_vote(user=a.user, campaign=campaign, candidate=b)
    gm = Membership.objects.get(campaign=campaign, role=Role.GM).user
    campaign_start(user=gm, campaign=campaign)
    assert (_chiefs(), Event.objects.get(kind="chief_warlord_elected").summary) == (
        [b.pk], f"The election is closed (the campaign starts): {b.user.username} is elected "
        "Chief Warlord with 1 of 2 votes.")


def test_closing_without_votes_is_refused(unchanged):
    campaign = campaign_factory()
    player_factory(campaign=campaign)
    gm = Membership.objects.get(campaign=campaign, role=Role.GM).user
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        election_close(user=gm, campaign=campaign)
    assert_refused(info, "no_votes", "Nobody has voted yet: wait for the votes, or appoint the "
                   "Chief Warlord.")


def test_the_gm_may_still_appoint_over_a_tie():
    campaign = campaign_factory()
    a, b = player_factory(campaign=campaign), player_factory(campaign=campaign)
    chief_warlord_vote(user=a.user, campaign=campaign, candidate=a)
    chief_warlord_vote(user=b.user, campaign=campaign, candidate=b)
    gm = Membership.objects.get(campaign=campaign, role=Role.GM).user
    chief_warlord_appoint(user=gm, campaign=campaign, membership=b)
    assert _chiefs() == [b.pk]


def test_only_the_gm_appoints(unchanged):
    campaign = campaign_factory()
    a = player_factory(campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        chief_warlord_appoint(user=a.user, campaign=campaign, membership=a)
    assert_refused(info, "gm_only", "Only the Game Master may do this.")


def test_a_non_member_cannot_vote(unchanged):
    campaign = campaign_factory()
    a = player_factory(campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        chief_warlord_vote(user=UserFactory(), campaign=campaign, candidate=a)
    assert_refused(info, "not_member")


def test_the_gm_cannot_be_a_candidate(unchanged):
    campaign = campaign_factory()
    a = player_factory(campaign=campaign)
    gm = Membership.objects.get(campaign=campaign, role=Role.GM)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        chief_warlord_vote(user=a.user, campaign=campaign, candidate=gm)
    assert_refused(info, "invalid_candidate")


# --- start ---------------------------------------------------------------------------------


def ready_campaign():
    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    members = [player_factory(campaign=campaign) for _ in range(2)]
    for m in members:
        army_factory(membership=m)
    return campaign, gm, members


def test_start_places_each_army_at_the_entry_hex_and_opens_the_scout_phase(
    django_capture_on_commit_callbacks,
):
    campaign, gm, members = ready_campaign()
    chief_warlord_appoint(user=gm, campaign=campaign, membership=members[0])
    with django_capture_on_commit_callbacks(execute=True):
        campaign_start(user=gm, campaign=campaign)
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.RUNNING
    stacks = list(Stack.objects.filter(campaign=campaign, side__kind="alliance").order_by("created_seq", "pk"))
    assert [(s.hex, s.units.count()) for s in stacks] == [("A1", 13), ("A1", 13)]
    assert list(stacks[0].units.order_by("position").values_list("name", flat=True))[:3] == [
        "Warlord 1", "Scout 1", "Scout 2",
    ]
    phase = Phase.objects.get(campaign=campaign)
    assert (phase.turn.number, phase.kind, phase.status) == (1, "scout", "open")
    assert phase.dice_commitment == commitment(phase.dice_seed)
    assert phase.deadline_at - phase.opened_at == __import__("datetime").timedelta(hours=72)
    assert PlayerPhaseStatus.objects.filter(phase=phase).count() == 2
    snapshot = PhaseSnapshot.objects.get(phase=phase).state
    assert (len(snapshot["stacks"]), snapshot["campaign"]["status"]) == (8, "running")
    assert phase.dice_seed not in str(snapshot)
    assert [e.kind for e in Event.objects.filter(campaign=campaign).order_by("-created_at", "-id")[:2]] == [
        "phase_opened", "campaign_started",
    ]
    # The setup seed is not told at the start (it waits for the end), and it re-derives
    # every setup roll.
    rolls = [RulesRoll(number=r.number, purpose=r.purpose, sides=r.sides, value=r.value)
             for r in DiceRoll.objects.filter(campaign=campaign, phase=None)]
    started = Event.objects.get(kind="campaign_started")
    assert (started.payload, campaign.setup_dice_revealed_at) == (
        {"setup_dice_commitment": campaign.setup_dice_commitment}, None)
    assert verify(seed=campaign.setup_dice_seed,
                  commitment=campaign.setup_dice_commitment, rolls=rolls).all_ok


def test_start_with_an_army_not_ready_is_refused(unchanged):
    campaign, gm, members = ready_campaign()
    chief_warlord_appoint(user=gm, campaign=campaign, membership=members[0])
    army_mark_not_ready(user=members[1].user, campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_start(user=gm, campaign=campaign)
    assert_refused(info, "army_not_ready",
                   f"Every army must be ready before the start; not ready: "
                   f"{members[1].user.username}.")


def test_start_without_a_chief_warlord_is_refused(unchanged):
    campaign, gm, _ = ready_campaign()
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_start(user=gm, campaign=campaign)
    assert_refused(info, "no_chief_warlord")


def test_only_the_gm_starts(unchanged):
    campaign, gm, members = ready_campaign()
    chief_warlord_appoint(user=gm, campaign=campaign, membership=members[0])
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        campaign_start(user=members[0].user, campaign=campaign)
    assert_refused(info, "gm_only")


def test_unit_types_cannot_change_after_the_start(unchanged):
    campaign, gm, members = ready_campaign()
    chief_warlord_appoint(user=gm, campaign=campaign, membership=members[0])
    campaign_start(user=gm, campaign=campaign)
    with unchanged(campaign), pytest.raises(CampaignError) as info:
        unit_type_create(user=members[0].user, campaign=campaign, name="Late", **SPEARMAN)
    assert_refused(info, "not_setup",
                   "Unit types and armies cannot change once the campaign has started.")


def test_one_user_creates_at_most_the_hourly_limit_of_campaigns(settings):
    from campaigns.errors import CampaignError
    from campaigns.games.erfworld import campaign_create_from_scenario
    from campaigns.models import Campaign
    from tests.factories import UserFactory

    settings.CAMPAIGNS_PER_USER_PER_HOUR = 3
    gm, other = UserFactory(), UserFactory()
    for _ in range(3):
        campaign_create_from_scenario(gm=gm, scenario_key="broad_way")
    with pytest.raises(CampaignError) as info:
        campaign_create_from_scenario(gm=gm, scenario_key="broad_way")
    campaign_create_from_scenario(gm=other, scenario_key="broad_way")
    assert (info.value.code, info.value.message, Campaign.objects.count()) == (
        "campaign_limit", "You have created 3 campaigns in the last hour; at most 3 an hour. "
        "Try again later.", 4)
