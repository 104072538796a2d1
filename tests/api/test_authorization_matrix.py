"""The authorization matrix: every write endpoint of /api/v1/ × every kind of caller.

Each row names an endpoint (its URL name and method), how to build the world, the URL and the
body, and what each caller gets: anonymous 401 (token authentication answers with a
challenge), an outsider 404 (a campaign they are not in does not exist for them), a member
without the right 403 with the service's code, and a caller with the right success (the world
is built so that the action really succeeds) or, where noted, a domain 400. Each caller meets
the world as freshly built, and a refusal must leave the game's rows as they were. A guard test
fails when a write route of the URLconf has no row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, reverse
from rest_framework.test import APIClient

from accounts.models import User
from campaigns.api import urls as api_urls
from campaigns.api.views_setup import SMALL_SCENARIO
from campaigns.games.battle.catalogue import battle_scenario
from campaigns.games.erfworld import orders_mark_done, phase_end, scout_order_give
from campaigns.models import (
    Campaign,
    Declaration,
    Fortification,
    Membership,
    Notification,
    Phase,
    Stack,
    Thread,
    Unit,
    UnitType,
)
from campaigns.services.deadlines import campaign_pause
from rules.hexgrid import Direction, format_label, neighbor, parse_label
from tests.campaigns.conftest import fingerprint
from tests.factories import (
    STANDARD_ARMY,
    UserFactory,
    army_factory,
    campaign_factory,
    player_factory,
    started_campaign_factory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("require_postgres")]

CALLERS = ("anonymous", "outsider", "player", "ally", "chief_warlord", "gm")
WRITE_METHODS = ("post", "put", "patch", "delete")

# An expected outcome: a success status, or (4xx status, the error body's code). A refusal
# that changed the game's rows all the same shows as a third item, never expected.
Outcome = int | tuple[int, str] | tuple[int, str, str]


@dataclass
class World:
    """One campaign and one user of each kind. `player` owns the objects a row acts on;
    `ally` is another alliance player; `chief_warlord` a third; `refs` holds what a row's
    preparation made (an order id, a stack id …)."""

    campaign: Campaign
    gm: User
    chief_warlord: Membership
    player: Membership
    ally: Membership
    outsider: User
    refs: dict[str, Any] = field(default_factory=dict)

    def user(self, caller: str) -> User | None:
        return {
            "anonymous": None, "outsider": self.outsider, "player": self.player.user,
            "ally": self.ally.user, "chief_warlord": self.chief_warlord.user, "gm": self.gm,
        }[caller]

    def open_phase(self) -> Phase:
        return Phase.objects.get(campaign=self.campaign, status="open")


# --- worlds --------------------------------------------------------------------------------


def started_world() -> World:
    """Turn 1's scout phase is open; three alliance players, the first Chief Warlord."""
    campaign, gm, (chief, player, ally) = started_campaign_factory(players=3)
    return World(campaign=campaign, gm=gm, chief_warlord=chief, player=player, ally=ally,
                 outsider=UserFactory())


def setup_world(*, chief: bool = True, ready: bool = False) -> Callable[[], World]:
    """A campaign in setup: three players joined with armies designed and bought (`ready`:
    and marked ready), the first appointed Chief Warlord (`chief`)."""

    def build() -> World:
        from campaigns.games.erfworld import chief_warlord_appoint

        gm = UserFactory(is_staff=True)
        campaign = campaign_factory(gm=gm)
        members = [player_factory(campaign=campaign) for _ in range(3)]
        for member in members:
            army_factory(membership=member, ready=ready)
        if chief:
            chief_warlord_appoint(user=gm, campaign=campaign, membership=members[0])
        for member in members:
            member.refresh_from_db()
        return World(campaign=campaign, gm=gm, chief_warlord=members[0], player=members[1],
                     ally=members[2], outsider=UserFactory())

    return build


# The player's army adds a mount and a siege unit to the usual one, for mount and siege.
PLAY_ARMY = [
    *STANDARD_ARMY[:2],
    ("Spearman", {"hits": 4, "attack": 4, "defence": 3, "move": 1, "specials": []}, 4),
    ("Horse", {"hits": 8, "attack": 1, "defence": 1, "move": 3, "specials": []}, 1),
    ("Ram", {"hits": 4, "attack": 2, "defence": 1, "move": 1, "specials": ["siege"]}, 1),
]


def play_world() -> World:
    """Turn 1's move and combat phase (fixed dice seed), every stack in A1; the Chief
    Warlord's Scout 1 inspected B1 … D4 in the scout phase, so the D4 garrison is known."""
    from campaigns.games.erfworld import campaign_start, chief_warlord_appoint

    gm = UserFactory(is_staff=True)
    campaign = campaign_factory(gm=gm)
    chief, player, ally = (player_factory(campaign=campaign) for _ in range(3))
    for member in (chief, ally):
        army_factory(membership=member)
    army_factory(membership=player, army=PLAY_ARMY)
    chief_warlord_appoint(user=gm, campaign=campaign, membership=chief)
    campaign_start(user=gm, campaign=campaign)
    scout_order_give(user=chief.user, campaign=campaign, scout=scout_of(chief),
                     directions=["SE", "S", "SE", "SE", "S"])
    phase_end(user=gm, campaign=campaign, reason="matrix")
    Phase.objects.filter(campaign=campaign, status="open").update(dice_seed="0" * 64)
    campaign.refresh_from_db()
    for member in (chief, player, ally):
        member.refresh_from_db()
    return World(campaign=campaign, gm=gm, chief_warlord=chief, player=player, ally=ally,
                 outsider=UserFactory())


def play(*steps: Callable[[World], World]) -> Callable[[], World]:
    """A play world with `steps` applied in order."""
    return then(*steps, base=play_world)


def own_stack(member: Membership) -> Stack:
    return Stack.objects.get(units__owner=member, units__name="Warlord 1")


def unit_of(member: Membership, name: str) -> Unit:
    return Unit.objects.get(owner=member, name=name)


def opposition_stack(world: World, hex_label: str) -> Stack:
    return Stack.objects.filter(campaign=world.campaign, hex=hex_label,
                                side__kind="opposition").order_by("created_seq", "pk").first()


def opposition_phase(world: World) -> World:
    """The GM ends the alliance's move/combat phase: the opposition phase is open."""
    phase_end(user=world.gm, campaign=world.campaign, reason="matrix")
    return world


NEXT_TO_G7 = format_label(neighbor(parse_label("G7"), Direction["NW"]))


def alliance_draw(world: World) -> World:
    """The campaign has the alliance's draw on (the opposition's combats wait for it)."""
    Campaign.objects.filter(pk=world.campaign.pk).update(alliance_draw=True)
    world.campaign.refresh_from_db()
    return world


def declared(world: World) -> World:
    """The GM declares the G7 stack's attack on the player's stack next to it."""
    from campaigns.games.erfworld.move_combat import stack_attack

    stack_attack(user=world.gm, campaign=world.campaign, stack=opposition_stack(world, "G7"),
                 target=own_stack(world.player))
    world.refs["declaration"] = Declaration.objects.get(phase=world.open_phase()).pk
    return world


def draw_asked(world: World) -> World:
    """The GM ends the opposition phase: the alliance is asked to draw."""
    phase_end(user=world.gm, campaign=world.campaign, reason="matrix")
    return world


def placed(hex_label: str) -> Callable[[World], World]:
    """The player's stack is moved (by fiat) to `hex_label`."""

    def step(world: World) -> World:
        Stack.objects.filter(pk=own_stack(world.player).pk).update(hex=hex_label)
        return world

    return step


def split_off(world: World) -> World:
    from campaigns.games.erfworld import stack_split

    new = stack_split(user=world.player.user, campaign=world.campaign,
                      stack=own_stack(world.player), units=[unit_of(world.player, "Spearman 1")])
    world.refs["split"] = new.pk
    return world


def with_pop_points(points: int) -> Callable[[World], World]:
    """Every alliance player has `points` pop points."""

    def step(world: World) -> World:
        Membership.objects.filter(campaign=world.campaign, role="player").update(
            pop_points=points)
        return world

    return step


def pool_granted(world: World) -> World:
    from campaigns.games.erfworld import pop_points_grant

    pop_points_grant(user=world.gm, campaign=world.campaign, points=10)
    return world


def alliance_holds_d4_tower(world: World) -> World:
    Fortification.objects.filter(pk=d4_tower(world).pk).update(
        owner=world.player.side, hits=10)
    return world


def d4_tower(world: World) -> Fortification:
    return Fortification.objects.get(campaign=world.campaign, hex="D4", kind="tower")


def i9_nw_wall(world: World) -> Fortification:
    return Fortification.objects.get(campaign=world.campaign, hex="I9", direction="NW")


def across_i9_nw_wall() -> str:
    return format_label(neighbor(parse_label("I9"), Direction["NW"]))


def thread_of(world: World, audience: str) -> Thread:
    """The "public" thread, or the "alliance" or "opposition" side's."""
    from campaigns.services.forum import threads_ensure

    threads_ensure(campaign=world.campaign)
    threads = Thread.objects.filter(campaign=world.campaign, is_default=True)
    if audience == "public":
        return threads.get(audience="public")
    return threads.get(audience="side", side__kind=audience)


def thread_url(world: World, thread: Thread) -> dict[str, Any]:
    return {"campaign_id": world.campaign.pk, "thread_id": thread.pk}


def with_post(audience: str) -> Callable[[World], World]:
    """A post in that thread: the player's, or in the opposition's thread the GM's."""

    def step(world: World) -> World:
        from campaigns.services.forum import post_create

        author = world.gm if audience == "opposition" else world.player.user
        post = post_create(user=author, thread=thread_of(world, audience), body="First.")
        world.refs["post"] = post.pk
        return world

    return step


def with_conversation(world: World) -> World:
    """A private conversation between the player and the ally (the GM may not read it)."""
    from campaigns.services.forum import thread_create

    thread = thread_create(user=world.player.user, campaign=world.campaign, title="Just us",
                           audience="private", participants=[world.ally.user.username],
                           body="Between us.")
    world.refs["thread"] = thread.pk
    world.refs["post"] = thread.posts.get().pk
    return world


def with_hidden_post(world: World) -> World:
    from campaigns.services.forum import post_hide

    with_post("alliance")(world)
    post_hide(user=world.gm, post=thread_of(world, "alliance").posts.get(pk=world.refs["post"]),
              reason="Off topic.")
    return world


def finished(world: World) -> World:
    """The alliance took the victory hex: the campaign has ended."""
    from campaigns.games.erfworld.engine import check_victory
    from campaigns.models import Side

    Fortification.objects.filter(campaign=world.campaign, hex=world.campaign.victory_hex
                                 ).update(owner=Side.objects.get(campaign=world.campaign,
                                                                 kind="alliance"))
    check_victory(campaign=world.campaign, phase=None, actor=world.gm)
    world.campaign.refresh_from_db()
    return world


def all_done(world: World) -> World:
    for member in (world.chief_warlord, world.player, world.ally):
        orders_mark_done(user=member.user, campaign=world.campaign)
    return world


def player_late(world: World) -> World:
    """The open phase's time has run out with nobody done: everyone is late (§5)."""
    phase = world.open_phase()
    shift = timedelta(hours=world.campaign.phase_hours + 1)
    Phase.objects.filter(pk=phase.pk).update(opened_at=phase.opened_at - shift,
                                             deadline_at=phase.deadline_at - shift)
    return world


def unit_type_of(member: Membership, name: str = "Spearman") -> UnitType:
    return UnitType.objects.get(owner=member, name=name)


def scout_of(member: Membership) -> Unit:
    return Unit.objects.get(owner=member, name="Scout 1")


def with_scout_order(world: World) -> World:
    order = scout_order_give(user=world.player.user, campaign=world.campaign,
                             scout=scout_of(world.player), directions=["S"])
    world.refs["order"] = order.pk
    return world


def flagged(world: World) -> World:
    """The deadline sweep gave up on the open phase after three failures."""
    from django.utils import timezone

    Phase.objects.filter(pk=world.open_phase().pk).update(
        processing_failures=3, processing_flagged_at=timezone.now())
    return world


def saved_scenario(world: World) -> World:
    from campaigns.games.erfworld.saved_scenarios import scenario_save

    scenario_save(user=world.player.user, key="river_crossing", data=SMALL_SCENARIO)
    return world


def _away_dates() -> dict[str, str]:
    from datetime import timedelta

    from django.utils import timezone as tz

    today = tz.now().date()
    return {"starts_on": (today + timedelta(days=1)).isoformat(),
            "ends_on": (today + timedelta(days=2)).isoformat()}


def away(world: World) -> World:
    from campaigns.services.absences import absence_declare

    absence = absence_declare(user=world.player.user, campaign=world.campaign, **_away_dates())
    world.refs["absence"] = absence.pk
    return world


def new_gm(world: World) -> World:
    UserFactory(username="successor")
    return world


def voted(world: World) -> World:
    from campaigns.games.erfworld import chief_warlord_vote

    chief_warlord_vote(user=world.player.user, campaign=world.campaign, candidate=world.player)
    return world


def shared(world: World) -> World:
    from campaigns.games.erfworld.saved_scenarios import scenario_share

    scenario_share(user=world.player.user, key="river_crossing", shared=True)
    return world


def paused(world: World) -> World:
    campaign_pause(user=world.gm, campaign=world.campaign, reason="matrix")
    return world


def player_left(world: World) -> World:
    from campaigns.services.seats import player_leave

    player_leave(user=world.player.user, campaign=world.campaign)
    return world


def then(*steps: Callable[[World], World],
         base: Callable[[], World] = started_world) -> Callable[[], World]:
    """A started world (or `base`) with `steps` applied in order."""

    def build() -> World:
        world = base()
        for step in steps:
            world = step(world)
        return world

    return build


def battle_world(system: str, *, start: bool = True) -> Callable[[], World]:
    """A battle of ELF ABAS or QUAD from its demo scenario, two players a side. Started
    (`start`), `player` and `chief_warlord` are the two players of the side that acts first
    (any player of a side gives its orders) and `ally` a player of the other side; in setup,
    `player` and `chief_warlord` hold the first side."""

    def build() -> World:
        from campaigns.games.battle.services import battle_create, battle_join, battle_start
        from campaigns.models import Battle

        gm = UserFactory()
        key = {"elf_abas": "elf_abas_ford", "quad": "quad_hill"}[system]
        campaign = battle_create(gm=gm, system=system, scenario_key=key)
        sides = list(campaign.sides.order_by("kind").values_list("name", flat=True))
        members: dict[str, list[Membership]] = {}
        for side in sides:
            members[side] = [battle_join(user=UserFactory(), invite_code=campaign.invite_code,
                                         side=side) for _ in range(2)]
        first = sides[0]
        if start:
            battle_start(user=gm, campaign=campaign)
            first = Battle.objects.get(campaign=campaign).window["acting"][0]
        other = next(s for s in sides if s != first)
        campaign.refresh_from_db()
        return World(campaign=campaign, gm=gm, chief_warlord=members[first][1],
                     player=members[first][0], ally=members[other][0], outsider=UserFactory())

    return build


def battle_join_body(world: World) -> dict[str, Any]:
    return {"invite_code": world.campaign.invite_code,
            "side": world.campaign.sides.order_by("kind").first().name}


# --- rows ----------------------------------------------------------------------------------


def campaign_url(world: World) -> dict[str, Any]:
    return {"campaign_id": world.campaign.pk}


def no_body(world: World) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Row:
    route: str  # the URL name in the "api" namespace
    method: str
    expect: dict[str, Outcome]
    world: Callable[[], World] = started_world
    url_kwargs: Callable[[World], dict[str, Any]] = campaign_url
    body: Callable[[World], Any] = no_body
    variant: str = ""  # tells apart two rows of one endpoint

    @property
    def id(self) -> str:
        return f"{self.method} {self.route}" + (f" ({self.variant})" if self.variant else "")


ANONYMOUS = (401, "not_authenticated")
NOT_FOUND = (404, "not_found")


def expect(**outcomes: Outcome) -> dict[str, Outcome]:
    """Outcomes per caller; anonymous is 401 and an outsider 404 unless said otherwise."""
    table: dict[str, Outcome] = {"anonymous": ANONYMOUS, "outsider": NOT_FOUND, **outcomes}
    assert set(table) == set(CALLERS), f"callers missing: {set(CALLERS) - set(table)}"
    return table


def gm_only(success: int = 200) -> dict[str, Outcome]:
    refused = (403, "gm_only")
    return expect(player=refused, ally=refused, chief_warlord=refused, gm=success)


GM_NOT_ALLIANCE = (403, "wrong_side")  # the GM plays the opposition, not alliance orders
OPPOSITION_PHASE = (403, "wrong_side")  # and the opposition phase is the GM's alone


def player_stack_order(success: int) -> dict[str, Outcome]:
    """An order to the player's own stack: allies (the Chief Warlord too, while the player
    is not late) do not command its units."""
    return expect(player=success, ally=(403, "not_your_unit"),
                  chief_warlord=(403, "not_your_unit"), gm=GM_NOT_ALLIANCE)


def stack_url(world: World, member: Membership) -> dict[str, Any]:
    return {"campaign_id": world.campaign.pk, "stack_id": own_stack(member).pk}

ROWS: list[Row] = [
    # --- campaigns
    Row("campaign-join", "POST", world=setup_world(), url_kwargs=lambda w: {},
        body=lambda w: {"invite_code": w.campaign.invite_code},
        # Anyone with the code may join; members already are.
        expect=expect(outsider=201, player=(400, "already_member"),
                      ally=(400, "already_member"), chief_warlord=(400, "already_member"),
                      gm=(400, "already_member"))),
    Row("campaign-join", "POST", variant="an open seat", world=then(player_left),
        url_kwargs=lambda w: {},
        body=lambda w: {"invite_code": w.campaign.invite_code, "seat": w.player.pk},
        # Anyone with the code takes an open seat, its former holder too; members may not.
        expect=expect(outsider=201, player=201, ally=(400, "already_member"),
                      chief_warlord=(400, "already_member"), gm=(400, "already_member"))),
    Row("campaigns", "POST", url_kwargs=lambda w: {},
        body=lambda w: {"scenario": "broad_way", "name": "Another"},
        # Anyone logged in may create a campaign and become its GM.
        expect=expect(outsider=201, player=201, ally=201, chief_warlord=201, gm=201)),
    # --- scenarios: anyone logged in checks one, and saves one under a key not yet taken
    Row("scenario-check", "POST", url_kwargs=lambda w: {}, body=lambda w: SMALL_SCENARIO,
        expect=expect(outsider=200, player=200, ally=200, chief_warlord=200, gm=200)),
    Row("scenario", "PUT", url_kwargs=lambda w: {"key": "river_crossing"},
        body=lambda w: SMALL_SCENARIO,
        expect=expect(outsider=200, player=200, ally=200, chief_warlord=200, gm=200)),
    Row("scenario", "PUT", variant="the player's saved scenario", world=then(saved_scenario),
        url_kwargs=lambda w: {"key": "river_crossing"}, body=lambda w: SMALL_SCENARIO,
        expect=expect(outsider=(403, "not_author"), player=200, ally=(403, "not_author"),
                      chief_warlord=(403, "not_author"), gm=(403, "not_author"))),
    # Sharing is the author's: another's unshared scenario is unknown (404), a shared one 403.
    Row("scenario-share", "POST", world=then(saved_scenario),
        url_kwargs=lambda w: {"key": "river_crossing"}, body=lambda w: {"shared": True},
        expect=expect(player=200, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=NOT_FOUND)),
    Row("scenario-share", "POST", variant="shared", world=then(saved_scenario, shared),
        url_kwargs=lambda w: {"key": "river_crossing"}, body=lambda w: {"shared": False},
        expect=expect(outsider=(403, "not_author"), player=200, ally=(403, "not_author"),
                      chief_warlord=(403, "not_author"), gm=(403, "not_author"))),
    # --- army design and the election (setup)
    Row("unit-types", "POST", world=setup_world(),
        body=lambda w: {"name": "Archer", "hits": 3, "attack": 3, "defence": 2, "move": 1,
                        "specials": []},
        expect=expect(player=201, ally=201, chief_warlord=201, gm=GM_NOT_ALLIANCE)),
    Row("unit-type", "PATCH", world=setup_world(),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "type_id": unit_type_of(w.player).pk},
        body=lambda w: {"defence": 2},
        expect=expect(player=200, ally=(403, "not_owner"), chief_warlord=(403, "not_owner"),
                      gm=GM_NOT_ALLIANCE)),
    Row("unit-type", "DELETE", world=setup_world(),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "type_id": unit_type_of(w.player).pk},
        expect=expect(player=204, ally=(403, "not_owner"), chief_warlord=(403, "not_owner"),
                      gm=GM_NOT_ALLIANCE)),
    Row("units-buy", "POST", world=setup_world(),
        body=lambda w: {"unit_type": unit_type_of(w.player).pk, "count": 1},
        expect=expect(player=201, ally=(403, "not_owner"), chief_warlord=(403, "not_owner"),
                      gm=GM_NOT_ALLIANCE)),
    Row("army-ready", "POST", world=setup_world(),
        expect=expect(player=200, ally=200, chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    Row("army-not-ready", "POST", world=setup_world(ready=True),
        expect=expect(player=200, ally=200, chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    Row("election-vote", "POST", world=setup_world(chief=False),
        body=lambda w: {"candidate": w.player.pk},
        expect=expect(player=200, ally=200, chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    Row("gm-appoint-chief-warlord", "POST", world=setup_world(),
        body=lambda w: {"membership": w.player.pk}, expect=gm_only()),
    Row("gm-start", "POST", world=setup_world(ready=True), expect=gm_only()),
    Row("gm-invite", "POST", world=setup_world(), expect=gm_only()),
    Row("deputy", "POST", body=lambda w: {"membership": w.ally.pk},
        expect=expect(player=(403, "chief_warlord_only"), ally=(403, "chief_warlord_only"),
                      chief_warlord=200, gm=200)),
    Row("absences", "POST", body=lambda w: _away_dates(),
        expect=expect(player=201, ally=201, chief_warlord=201, gm=GM_NOT_ALLIANCE)),
    Row("absence-cancel", "POST", world=then(away),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "absence_id": w.refs["absence"]},
        expect=expect(player=204, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=NOT_FOUND)),
    Row("standing-orders", "POST", body=lambda w: {"mode": "hold", "note": "matrix"},
        expect=expect(player=200, ally=200, chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    Row("leave", "POST",
        expect=expect(player=200, ally=200, chief_warlord=200, gm=(400, "gm_cannot_leave"))),
    Row("gm-remove-player", "POST", body=lambda w: {"membership": w.ally.pk, "reason": "gone"},
        expect=gm_only()),
    Row("gm-handover", "POST", world=then(new_gm), body=lambda w: {"username": "successor"},
        expect=gm_only()),
    Row("gm-close-election", "POST", world=then(voted, base=setup_world(chief=False)),
        expect=gm_only()),
    Row("campaign", "PATCH", world=setup_world(), body=lambda w: {"phase_hours": 48},
        expect=gm_only()),
    Row("gm-shuffle-opposition", "POST", world=setup_world(), expect=gm_only()),
    # --- phase and orders
    Row("phase-end", "POST", world=then(all_done),
        body=lambda w: {"expected_phase": w.open_phase().pk, "reason": "all done"},
        expect=expect(player=(403, "chief_warlord_only"), ally=(403, "chief_warlord_only"),
                      chief_warlord=200, gm=200)),
    Row("done", "POST",
        expect=expect(player=200, ally=200, chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    Row("done-undo", "POST", world=then(all_done),
        expect=expect(player=204, ally=204, chief_warlord=204, gm=GM_NOT_ALLIANCE)),
    Row("done", "POST", variant="on behalf of a late player", world=then(player_late),
        body=lambda w: {"on_behalf_of": w.player.pk},
        expect=expect(player=200, ally=(403, "chief_warlord_only"), chief_warlord=200,
                      gm=GM_NOT_ALLIANCE)),
    Row("scout-orders", "POST",
        body=lambda w: {"scout": scout_of(w.player).pk, "directions": ["S"]},
        expect=expect(player=201, ally=(403, "not_your_unit"),
                      chief_warlord=(403, "not_your_unit"), gm=GM_NOT_ALLIANCE)),
    Row("scout-orders", "POST", variant="on behalf of a late player", world=then(player_late),
        body=lambda w: {"scout": scout_of(w.player).pk, "directions": ["S"],
                        "on_behalf_of": w.player.pk},
        expect=expect(player=201, ally=(403, "chief_warlord_only"), chief_warlord=201,
                      gm=GM_NOT_ALLIANCE)),
    Row("scout-order-cancel", "POST", world=then(with_scout_order),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "order_id": w.refs["order"]},
        expect=expect(player=204, ally=(403, "not_your_order"),
                      chief_warlord=(403, "not_your_order"), gm=GM_NOT_ALLIANCE)),
    Row("scout-order-cancel", "POST", variant="on behalf of a late player",
        world=then(with_scout_order, player_late),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "order_id": w.refs["order"]},
        body=lambda w: {"on_behalf_of": w.player.pk},
        expect=expect(player=204, ally=(403, "chief_warlord_only"), chief_warlord=204,
                      gm=GM_NOT_ALLIANCE)),
    # --- moving and rearranging stacks (move and combat phase)
    Row("stack-move", "POST", world=play(), url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"destination": "B1"}, expect=player_stack_order(200)),
    Row("stack-move", "POST", variant="on behalf of a late player",
        world=play(player_late), url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"destination": "B1", "on_behalf_of": w.player.pk},
        expect=expect(player=200, ally=(403, "chief_warlord_only"), chief_warlord=200,
                      gm=GM_NOT_ALLIANCE)),
    Row("stack-move", "POST", variant="an unscouted opposition stack", world=play(),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk,
                              "stack_id": opposition_stack(w, "C6").pk},
        body=lambda w: {"destination": "C5"},
        # Unknown to the alliance: 404 as if it did not exist. The GM knows it, but the
        # move and combat phase is the alliance's.
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND,
                      gm=GM_NOT_ALLIANCE)),
    Row("stack-split", "POST", world=play(), url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"units": [unit_of(w.player, "Spearman 1").pk]},
        expect=player_stack_order(201)),
    Row("stacks-merge", "POST", world=play(split_off),
        body=lambda w: {"stacks": [own_stack(w.player).pk, w.refs["split"]]},
        expect=player_stack_order(200)),
    Row("stack-reorder", "POST", world=play(), url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"order": list(own_stack(w.player).units.order_by("-position", "-pk")
                                      .values_list("pk", flat=True))},
        expect=player_stack_order(200)),
    Row("units-mount", "POST", world=play(),
        body=lambda w: {"riders": [unit_of(w.player, "Spearman 1").pk],
                        "mount": unit_of(w.player, "Horse 1").pk},
        expect=player_stack_order(200)),
    # --- combat
    Row("stack-attack-preview", "POST", world=play(placed("D3")),
        url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"target": opposition_stack(w, "D4").pk},
        expect=player_stack_order(200)),
    Row("stack-attack", "POST", world=play(placed("D3")),
        url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"target": opposition_stack(w, "D4").pk},
        expect=player_stack_order(200)),
    Row("stack-siege", "POST", world=play(placed(across_i9_nw_wall())),
        url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"fortification": i9_nw_wall(w).pk},
        expect=player_stack_order(200)),
    Row("fortification-repair", "POST", world=play(alliance_holds_d4_tower, with_pop_points(5)),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "fort_id": d4_tower(w).pk},
        body=lambda w: {"hits": 2},
        # Any alliance player repairs what the alliance holds, with their own pop points.
        expect=expect(player=200, ally=200, chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    # --- the opposition phase: the GM's moves and attacks with the opposition (§5)
    Row("stack-move", "POST", variant="the opposition phase: the GM's unscouted G7 stack",
        world=play(opposition_phase),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk,
                              "stack_id": opposition_stack(w, "G7").pk},
        body=lambda w: {"destination": "F7"},
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=200)),
    Row("stack-reorder", "POST", variant="the opposition phase: the player's own stack",
        world=play(opposition_phase), url_kwargs=lambda w: stack_url(w, w.player),
        body=lambda w: {"order": list(own_stack(w.player).units.order_by("-position", "-pk")
                                      .values_list("pk", flat=True))},
        # The phase is the GM's, who plays the opposition and gives the alliance no orders.
        expect=expect(player=OPPOSITION_PHASE, ally=OPPOSITION_PHASE,
                      chief_warlord=OPPOSITION_PHASE, gm=(403, "wrong_side"))),
    Row("stack-attack", "POST", variant="the opposition phase: the G7 stack attacks",
        world=play(placed(NEXT_TO_G7), opposition_phase),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk,
                              "stack_id": opposition_stack(w, "G7").pk},
        body=lambda w: {"target": own_stack(w.player).pk},
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=200)),
    Row("stack-attack", "POST", variant="the opposition phase with the alliance's draw",
        world=play(placed(NEXT_TO_G7), alliance_draw, opposition_phase),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk,
                              "stack_id": opposition_stack(w, "G7").pk},
        body=lambda w: {"target": own_stack(w.player).pk},
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=200)),
    # --- the alliance's draw
    Row("declaration-withdraw", "POST",
        world=play(placed(NEXT_TO_G7), alliance_draw, opposition_phase, declared),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk,
                              "declaration_id": w.refs["declaration"]},
        expect=gm_only(204)),
    Row("phase-draw", "POST",
        world=play(placed(NEXT_TO_G7), alliance_draw, opposition_phase, declared, draw_asked),
        body=lambda w: {"expected_phase": w.open_phase().pk, "draw": "matrix"},
        # Any alliance player draws; the GM, who declared the combats, may not.
        expect=expect(player=200, ally=200, chief_warlord=200, gm=(403, "alliance_only"))),
    # --- pops
    Row("pops-buy", "POST", world=play(with_pop_points(20)),
        body=lambda w: {"unit_type": unit_type_of(w.player).pk, "count": 1, "hex": "B10"},
        # The ally and the Chief Warlord have pop points and a "Spearman" type of their own,
        # yet may not buy pops of the player's.
        expect=expect(player=201, ally=(400, "not_your_unit_type"),
                      chief_warlord=(400, "not_your_unit_type"), gm=GM_NOT_ALLIANCE)),
    Row("pops-share", "POST", world=play(pool_granted),
        body=lambda w: {"membership": w.player.pk, "points": 3},
        expect=expect(player=(403, "chief_warlord_only"), ally=(403, "chief_warlord_only"),
                      chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    # --- GM tools
    Row("gm-end-phase", "POST",
        body=lambda w: {"expected_phase": w.open_phase().pk, "reason": "matrix"},
        expect=expect(player=(403, "chief_warlord_only"), ally=(403, "chief_warlord_only"),
                      chief_warlord=(400, "players_not_done"), gm=200)),
    Row("gm-revert", "POST", world=play(),
        body=lambda w: {"expected_phase": w.open_phase().pk, "reason": "matrix"},
        expect=gm_only()),
    Row("gm-pop-points", "POST", world=play(), body=lambda w: {"points": 5}, expect=gm_only()),
    Row("gm-unflag", "POST", world=play(flagged), expect=gm_only()),
    Row("gm-unit-hits", "POST", world=play(),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk,
                              "unit_id": unit_of(w.player, "Spearman 1").pk},
        body=lambda w: {"hits": 1, "reason": "matrix"}, expect=gm_only()),
    Row("gm-unit-hits", "POST", variant="an unscouted opposition unit", world=play(),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk,
                              "unit_id": opposition_stack(w, "C6").units.first().pk},
        body=lambda w: {"hits": 1, "reason": "matrix"},
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=200)),
    Row("gm-fortification-hits", "POST", world=play(),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "fort_id": d4_tower(w).pk},
        body=lambda w: {"hits": 10, "reason": "matrix"}, expect=gm_only()),
    # --- the forum
    Row("thread-posts", "POST", variant="the public thread",
        url_kwargs=lambda w: thread_url(w, thread_of(w, "public")),
        body=lambda w: {"body": "Hello, all."},
        expect=expect(player=201, ally=201, chief_warlord=201, gm=201)),
    Row("thread-posts", "POST", variant="the alliance's thread",
        url_kwargs=lambda w: thread_url(w, thread_of(w, "alliance")),
        body=lambda w: {"body": "Hello, allies."},
        expect=expect(player=201, ally=201, chief_warlord=201, gm=201)),
    Row("thread-posts", "POST", variant="the opposition's thread",
        url_kwargs=lambda w: thread_url(w, thread_of(w, "opposition")),
        body=lambda w: {"body": "Hello, minions."},
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=201)),
    Row("thread-read", "POST", world=then(with_post("alliance")),
        url_kwargs=lambda w: thread_url(w, thread_of(w, "alliance")),
        body=lambda w: {"post": w.refs["post"]},
        expect=expect(player=200, ally=200, chief_warlord=200, gm=200)),
    Row("post", "PATCH", world=then(with_post("alliance")),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "post_id": w.refs["post"]},
        body=lambda w: {"body": "Edited."},
        expect=expect(player=200, ally=(403, "not_author"), chief_warlord=(403, "not_author"),
                      gm=(403, "not_author"))),
    Row("post", "PATCH", variant="a post in the opposition's thread",
        world=then(with_post("opposition")),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "post_id": w.refs["post"]},
        body=lambda w: {"body": "Edited."},
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=200)),
    Row("threads", "POST", variant="a public topic",
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk},
        body=lambda w: {"title": "Ford", "audience": "public", "body": "Who takes it?"},
        expect=expect(player=201, ally=201, chief_warlord=201, gm=201)),
    Row("threads", "POST", variant="GM notes",
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk},
        body=lambda w: {"title": "Plans", "audience": "gm", "body": "Ambush at C6."},
        expect=expect(player=(403, "not_audience"), ally=(403, "not_audience"),
                      chief_warlord=(403, "not_audience"), gm=201)),
    Row("threads", "POST", variant="a private conversation with the ally",
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk},
        body=lambda w: {"title": "Terms", "audience": "private", "body": "A word?",
                        "participants": [w.ally.user.username]},
        expect=expect(player=201, ally=(400, "no_participants"), chief_warlord=201, gm=201)),
    Row("thread", "PATCH", variant="pin the public thread",
        url_kwargs=lambda w: thread_url(w, thread_of(w, "public")),
        body=lambda w: {"pinned": True, "title": "Table talk"}, expect=gm_only()),
    Row("thread", "PATCH", variant="the opposition's thread",
        url_kwargs=lambda w: thread_url(w, thread_of(w, "opposition")),
        body=lambda w: {"locked": True},
        expect=expect(player=NOT_FOUND, ally=NOT_FOUND, chief_warlord=NOT_FOUND, gm=200)),
    Row("thread", "PATCH", variant="a conversation the GM may not read",
        world=then(with_conversation),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "thread_id": w.refs["thread"]},
        body=lambda w: {"locked": True},
        expect=expect(player=(403, "gm_only"), ally=(403, "gm_only"),
                      chief_warlord=NOT_FOUND, gm=NOT_FOUND)),
    Row("thread-posts", "POST", variant="a private conversation", world=then(with_conversation),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "thread_id": w.refs["thread"]},
        body=lambda w: {"body": "Agreed."},
        expect=expect(player=201, ally=201, chief_warlord=NOT_FOUND, gm=NOT_FOUND)),
    Row("post-hide", "POST", world=then(with_post("alliance")),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "post_id": w.refs["post"]},
        body=lambda w: {"reason": "Off topic."}, expect=gm_only()),
    Row("post-hide", "POST", variant="a post in a conversation the GM may not read",
        world=then(with_conversation),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "post_id": w.refs["post"]},
        body=lambda w: {"reason": "Off topic."},
        expect=expect(player=(403, "gm_only"), ally=(403, "gm_only"),
                      chief_warlord=NOT_FOUND, gm=NOT_FOUND)),
    Row("post-hide", "DELETE", world=then(with_hidden_post),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "post_id": w.refs["post"]},
        expect=gm_only()),
    Row("mutes", "POST", url_kwargs=lambda w: {"campaign_id": w.campaign.pk},
        body=lambda w: {"user": w.ally.user.username},
        expect=expect(player=201, ally=(400, "mute_self"), chief_warlord=201, gm=201)),
    Row("mutes", "POST", variant="the GM", url_kwargs=lambda w: {"campaign_id": w.campaign.pk},
        body=lambda w: {"user": w.gm.username},
        expect=expect(player=(400, "mute_gm"), ally=(400, "mute_gm"),
                      chief_warlord=(400, "mute_gm"), gm=(400, "mute_self"))),
    Row("mute", "DELETE",
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "username": w.ally.user.username},
        expect=expect(player=204, ally=204, chief_warlord=204, gm=204)),
    Row("side-threads-open", "POST", variant="the alliance's, after the end",
        world=then(finished),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "side": "alliance"},
        expect=expect(player=(403, "not_side_leader"), ally=(403, "not_side_leader"),
                      chief_warlord=200, gm=(403, "not_side_leader"))),
    Row("side-threads-open", "POST", variant="the opposition's, after the end",
        world=then(finished),
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "side": "opposition"},
        expect=expect(player=(403, "not_side_leader"), ally=(403, "not_side_leader"),
                      chief_warlord=(403, "not_side_leader"), gm=200)),
    Row("side-threads-open", "POST", variant="before the end",
        url_kwargs=lambda w: {"campaign_id": w.campaign.pk, "side": "alliance"},
        expect=expect(player=(400, "not_finished"), ally=(400, "not_finished"),
                      chief_warlord=(400, "not_finished"), gm=(400, "not_finished"))),
    # --- GM deadline controls
    Row("gm-extend", "POST", body=lambda w: {"hours": 2, "reason": "matrix"}, expect=gm_only()),
    Row("gm-pause", "POST", body=lambda w: {"reason": "matrix"}, expect=gm_only()),
    Row("gm-resume", "POST", world=then(paused), body=lambda w: {"reason": "matrix"},
        expect=gm_only()),
    # --- notifications: each caller marks only their own, so anyone logged in succeeds
    Row("notifications-mark-read", "POST", url_kwargs=lambda w: {},
        body=lambda w: {"ids": list(Notification.objects.filter(user=w.player.user)
                                    .values_list("pk", flat=True))},
        expect=expect(outsider=200, player=200, ally=200, chief_warlord=200, gm=200)),
    # --- one API for every game (campaigns.game), and the battles of ELF ABAS and QUAD
    Row("game-orders", "POST", body=lambda w: {"orders": [{"kind": "done"}]},
        # Erfworld's scout phase: each alliance player marks their own orders done.
        expect=expect(player=200, ally=200, chief_warlord=200, gm=GM_NOT_ALLIANCE)),
    Row("game-orders", "POST", variant="ELF ABAS battle", world=battle_world("elf_abas"),
        body=lambda w: {"orders": [{"kind": "end"}]},
        # Any player of the side holding the card ends its activation; the other side does not
        # act now; the GM only has the proxy act.
        expect=expect(player=200, chief_warlord=200, ally=(400, "turn"),
                      gm=(403, "not_player"))),
    Row("game-orders", "POST", variant="QUAD battle", world=battle_world("quad"),
        body=lambda w: {"orders": [{"kind": "draw", "take": True}]},
        # The draw: every side answers at once.
        expect=expect(player=200, chief_warlord=200, ally=200, gm=(403, "not_player"))),
    Row("game-close", "POST", body=lambda w: {"reason": "matrix"},
        # Erfworld: ending the phase (nobody is done yet, so not the Chief Warlord either).
        expect=expect(player=(403, "chief_warlord_only"), ally=(403, "chief_warlord_only"),
                      chief_warlord=(400, "players_not_done"), gm=200)),
    Row("game-close", "POST", variant="battle", world=battle_world("elf_abas"),
        body=lambda w: {"reason": "matrix"}, expect=gm_only()),
    Row("battle-start", "POST", world=battle_world("quad", start=False), expect=gm_only()),
    Row("battles", "POST", url_kwargs=lambda w: {},
        body=lambda w: {"system": "quad", "scenario_key": "quad_hill"},
        # Anyone logged in may create a battle and become its GM.
        expect=expect(outsider=201, player=201, ally=201, chief_warlord=201, gm=201)),
    Row("battle-check", "POST", url_kwargs=lambda w: {},
        body=lambda w: {"system": "quad", "scenario": battle_scenario("quad_hill").scenario},
        # Checking a scenario reads no campaign: anyone logged in (nothing is stored).
        expect=expect(outsider=200, player=200, ally=200, chief_warlord=200, gm=200)),
    Row("battle-join", "POST", world=battle_world("elf_abas", start=False),
        url_kwargs=lambda w: {}, body=battle_join_body,
        expect=expect(outsider=201, player=(400, "already_member"),
                      ally=(400, "already_member"), chief_warlord=(400, "already_member"),
                      gm=(400, "already_member"))),
    # --- the rules calculators show no game state: open to anyone
    Row("rules-calculator", "POST", url_kwargs=lambda w: {"ruleset": "dice", "command": "commit"},
        body=lambda w: {"seed": "00" * 32},
        expect=expect(anonymous=200, outsider=200, player=200, ally=200, chief_warlord=200,
                      gm=200)),
]

def outcome(row: Row, world: World, caller: str, before: dict[str, Any]) -> Outcome:
    """What `caller` gets for the row's request, as the row's table writes it; `before` is
    the world's fingerprint, which a refusal must leave as it was."""
    client = APIClient()
    client.raise_request_exception = False  # a crash shows as a 500 in the table
    user = world.user(caller)
    if user is not None:
        client.force_authenticate(user)
    url = reverse(f"api:{row.route}", kwargs=row.url_kwargs(world))
    body = row.body(world)
    response = getattr(client, row.method.lower())(url, body, format="json")
    code = ""
    if response.status_code >= 400 and response.get("Content-Type") == "application/json":
        code = response.json().get("code")
    if response.status_code >= 400 and fingerprint(world.campaign.pk) != before:
        return (response.status_code, code, "but changed the game")
    if isinstance(row.expect[caller], tuple) or response.status_code >= 400:
        return (response.status_code, code)
    return response.status_code


@pytest.mark.parametrize("row", [pytest.param(row, id=row.id) for row in ROWS])
def test_write_endpoint_authorization(row: Row) -> None:
    world = row.world()
    before = fingerprint(world.campaign.pk)
    got: dict[str, Outcome] = {}
    for caller in CALLERS:
        # Each caller meets the world exactly as built: their request's changes are rolled
        # back with a savepoint (building the world once per row keeps the matrix fast).
        with transaction.atomic():
            got[caller] = outcome(row, world, caller, before)
            transaction.set_rollback(True)
    assert got == row.expect


def test_each_caller_meets_the_world_as_built() -> None:
    # Marking done twice is refused (already_done) unless the first is rolled back.
    row = next(r for r in ROWS if r.route == "done" and not r.variant)
    world = row.world()
    before = fingerprint(world.campaign.pk)
    got = []
    for _ in range(2):
        with transaction.atomic():
            got.append(outcome(row, world, "player", before))
            transaction.set_rollback(True)
    assert got == [200, 200]


# --- the guard: every write route has a row ------------------------------------------------


def write_routes(patterns: list[Any] | None = None) -> set[tuple[str, str]]:
    """(URL name, METHOD) of every write method of every API view in the URLconf."""
    found: set[tuple[str, str]] = set()
    for entry in api_urls.urlpatterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            found |= write_routes(entry.url_patterns)
            continue
        assert isinstance(entry, URLPattern)
        view = getattr(entry.callback, "cls", None) or getattr(entry.callback, "view_class",
                                                                None)
        for method in WRITE_METHODS:
            if view is not None and hasattr(view, method):
                assert entry.name, f"the route {entry.pattern} has no name"
                found.add((entry.name, method.upper()))
    return found


def test_every_write_route_has_a_matrix_row() -> None:
    covered = {(row.route, row.method) for row in ROWS}
    assert sorted(write_routes() - covered) == []


def test_every_matrix_row_names_a_write_route() -> None:
    covered = {(row.route, row.method) for row in ROWS}
    assert sorted(covered - write_routes()) == []
