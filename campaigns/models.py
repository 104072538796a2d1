"""Campaign data: sides, members, map, armies, turns and phases, orders, sightings and records.

Models hold data and constraints only; every change of game state goes through the services
(campaigns.services, a game's own in campaigns.games), every read that shows game state
through the selectors (campaigns.selectors, a game's own in its package).
Hexes are stored as their labels ("J10"), as players read them.
"""

from __future__ import annotations

import secrets
import threading
import time
from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import NotificationKind


def _default(name: str) -> object:
    return settings.CAMPAIGN_DEFAULTS[name]


def default_phase_hours() -> int:
    return int(str(_default("phase_hours")))


def default_points_budget() -> int:
    return int(str(_default("points_budget")))


def default_max_unit_types() -> int:
    return int(str(_default("max_unit_types")))


def default_ambush_value() -> int:
    return int(str(_default("ambush_value")))


def default_terrain_known_to_all() -> bool:
    return bool(_default("terrain_known_to_all"))


def default_max_extension_hours() -> int:
    return int(str(_default("max_extension_hours")))


class CampaignStatus(models.TextChoices):
    SETUP = "setup", "Setup"
    RUNNING = "running", "Running"
    PAUSED = "paused", "Paused"
    FINISHED = "finished", "Finished"


class Campaign(models.Model):
    name = models.CharField(max_length=120)
    ruleset_key = models.CharField(max_length=32, default="erfworld")
    scenario_key = models.CharField(
        max_length=64, help_text="The scenario file it was created from."
    )
    status = models.CharField(
        max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.SETUP
    )
    description = models.TextField(blank=True, max_length=2000)
    # At most this many alliance players may join; None: no cap.
    player_cap = models.PositiveIntegerField(null=True, blank=True)
    # Settings (copied from settings.CAMPAIGN_DEFAULTS and the scenario at creation).
    # phase_hours is the alliance move/combat phase's length, and the others' unless set.
    phase_hours = models.PositiveIntegerField(default=default_phase_hours)
    scout_hours = models.PositiveIntegerField(null=True, blank=True)
    opposition_hours = models.PositiveIntegerField(null=True, blank=True)
    # Rolling: a phase ends its length after it opens. Clock: at deadline_clock ("21:00") in
    # deadline_zone, at least its length of running clock after it opens, never on a day in
    # deadline_days_off (0 = Monday) (campaigns.deadline_clock).
    deadline_mode = models.CharField(max_length=8, default="rolling",
                                     choices=[("rolling", "Rolling"), ("clock", "Clock time")])
    deadline_clock = models.CharField(max_length=5, default="21:00")
    deadline_zone = models.CharField(max_length=64, default="UTC")
    deadline_days_off = models.JSONField(default=list, blank=True)
    # Changes the GM made after the start, applied when the next phase opens
    # (campaigns.services.settings): {"phase_hours": 48, ...}.
    pending_settings = models.JSONField(default=dict, blank=True)
    points_budget = models.PositiveIntegerField(default=default_points_budget)
    max_unit_types = models.PositiveIntegerField(default=default_max_unit_types)
    ambush_value = models.PositiveIntegerField(default=default_ambush_value)
    terrain_known_to_all = models.BooleanField(default=default_terrain_known_to_all)
    # Deadlines: off by default; the Chief Warlord decides when to end alliance phases.
    hard_deadline = models.BooleanField(
        default=False, help_text="The phase closes itself at its deadline with the orders given."
    )
    early_close = models.BooleanField(
        default=False, help_text="An alliance phase closes itself once every player is done."
    )
    max_extension_hours = models.PositiveIntegerField(
        default=default_max_extension_hours,
        help_text="At most this many hours of extensions in total per phase.",
    )
    paused_at = models.DateTimeField(null=True, blank=True)
    # At most this many hours of GM pauses over the whole campaign (None: no cap); a pause
    # that reaches it ends itself (the sweep). paused_seconds counts the pauses that ended.
    max_pause_hours = models.PositiveIntegerField(null=True, blank=True)
    # Days of declared absence each player may take over the campaign.
    absence_days = models.PositiveIntegerField(default=14)
    # True: an alliance phase whose deadline comes while a player not yet done is away waits
    # for them (its deadline moves to the end of their absence) instead of the Chief Warlord
    # giving their orders.
    absence_extends = models.BooleanField(default=False)
    # After this many phases missed in a row (no orders, no proxy, not away) the Chief Warlord
    # commands the player's stacks until they return; None: never.
    missed_phases_limit = models.PositiveIntegerField(null=True, blank=True, default=2)
    paused_seconds = models.PositiveIntegerField(default=0)
    # Forum: players may open private conversations with players of another side; the GM may
    # read the private conversations opened while this is on (every member sees both).
    diplomacy = models.BooleanField(default=False)
    gm_reads_conversations = models.BooleanField(default=False)
    # The alliance's draw (docs/campaigns.md "Dice the GM cannot foresee"): the opposition's
    # attacks and sieges of the opposition phase are declared, and rolled only
    # once an alliance player has drawn, with dice mixed from the phase's seed and the draw;
    # the alliance has `alliance_draw_hours` to draw before the server draws for it.
    alliance_draw = models.BooleanField(default=False)
    alliance_draw_hours = models.PositiveIntegerField(default=24)
    # Scenario facts the engine needs.
    entry_hex = models.CharField(max_length=8)
    pop_hexes = models.JSONField(default=list)
    victory_hex = models.CharField(max_length=8, blank=True)
    invite_code = models.CharField(max_length=32, unique=True)
    # Dice rolled before the first phase (commander levels at purchase) come from this
    # campaign-level seed; its commitment is public from creation, the seed is revealed
    # when the campaign starts (see docs/campaigns.md).
    setup_dice_seed = models.CharField(max_length=64)
    setup_dice_commitment = models.CharField(max_length=64)
    setup_dice_next_number = models.PositiveIntegerField(default=1)
    setup_dice_revealed_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    # Bumped by the lock every service that changes the campaign takes (services.common
    # .lock_campaign): the map cache is keyed on it (campaigns/selectors/map_json.py).
    state_version = models.PositiveBigIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Engine II: pop points the GM granted to the Chief Warlord and not yet shared (§5),
    # and how the campaign ended.
    pop_pool = models.DecimalField(max_digits=10, decimal_places=3, default=0)
    winner = models.CharField(max_length=16, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=CampaignStatus.values), name="campaign_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(phase_hours__gte=1), name="campaign_phase_hours_min"
            ),
        ]
        indexes = [
            models.Index(fields=["status"], name="campaign_status_idx"),
            # The few campaigns whose settings make the sweep close phases by itself.
            models.Index(fields=["status"], condition=Q(hard_deadline=True),
                         name="campaign_hard_deadline_idx"),
            models.Index(fields=["status"], condition=Q(early_close=True),
                         name="campaign_early_close_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    def hours_for(self, kind: str) -> int:
        """How long a phase of this kind lasts, in hours."""
        if kind == "scout" and self.scout_hours:
            return self.scout_hours
        if kind == "opposition" and self.opposition_hours:
            return self.opposition_hours
        return self.phase_hours


class SideKind(models.TextChoices):
    ALLIANCE = "alliance", "Alliance"
    OPPOSITION = "opposition", "Opposition"


class Side(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sides")
    kind = models.CharField(max_length=16, choices=SideKind.choices)
    name = models.CharField(max_length=64)
    # After the end, the side opened its threads for every member to read (the fog lifts).
    threads_opened_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "kind"], name="side_one_per_kind"),
            models.CheckConstraint(condition=Q(kind__in=SideKind.values), name="side_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class Role(models.TextChoices):
    GM = "gm", "Game Master"
    PLAYER = "player", "Player"
    OBSERVER = "observer", "Observer"
    # Left the campaign, or was removed by the GM, after it started: no side any more; the
    # units stay theirs as an open seat (the Chief Warlord commands them) until someone
    # takes the seat over (`successor`).
    FORMER = "former", "Former player"


class Membership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    side = models.ForeignKey(
        Side, on_delete=models.PROTECT, null=True, blank=True, related_name="memberships"
    )
    is_chief_warlord = models.BooleanField(default=False)
    # Stands in for the Chief Warlord (proxy orders, ending alliance phases) while the Chief
    # Warlord is away or has gone quiet; chosen by the Chief Warlord or the GM.
    is_deputy = models.BooleanField(default=False)
    chief_warlord_vote = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="votes_received"
    )
    # Exact: pops cost multiples of 1/8 (§1), which three decimals hold exactly.
    pop_points = models.DecimalField(max_digits=10, decimal_places=3, default=0)
    army_ready_at = models.DateTimeField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    # A former player: when they left (or were removed) and why; who took their seat.
    left_at = models.DateTimeField(null=True, blank=True)
    left_reason = models.TextField(blank=True)
    removed_by_gm = models.BooleanField(default=False)
    successor = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Standing orders: what the Chief Warlord (or the engine) does for this player when they
    # are late: "" (the Chief Warlord decides), "hold" (their stacks neither move nor fight)
    # or "no_attacks"; a scout path the engine orders at the scout phase's close if they gave
    # none; a note for the Chief Warlord.
    standing_orders = models.CharField(max_length=16, blank=True)
    standing_scout = models.ForeignKey(
        "Unit", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    standing_directions = models.JSONField(default=list, blank=True)
    standing_note = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="membership_once"),
            models.UniqueConstraint(
                fields=["campaign"],
                condition=Q(is_chief_warlord=True),
                name="membership_one_chief_warlord",
            ),
            models.CheckConstraint(
                condition=~Q(role="player") | Q(side__isnull=False),
                name="membership_player_has_side",
            ),
            models.CheckConstraint(
                condition=Q(is_chief_warlord=False) | Q(role="player"),
                name="membership_chief_warlord_is_player",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.campaign} ({self.role})"


class Map(models.Model):
    """The strategic map; terrain is one JSON object {label: terrain} of every non-open hex."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="map")
    cols = models.PositiveIntegerField()
    rows = models.PositiveIntegerField()
    terrain = models.JSONField(default=dict)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(cols__gte=1, rows__gte=1), name="map_size_min"),
        ]

    def __str__(self) -> str:
        return f"{self.cols} × {self.rows} map of {self.campaign}"


class FortificationKind(models.TextChoices):
    TOWER = "tower", "Tower"
    WALL = "wall", "Wall hexside"


HEXSIDES = ("N", "NE", "SE", "S", "SW", "NW")


def new_public_id() -> int:
    """A random id (below 2^53, so exact in JavaScript) for the game objects pages, the API,
    exports and feeds name (events, stacks, units, fortifications): an id says nothing of how
    many objects, seen or hidden, were made before it."""
    return secrets.randbelow(2**53 - 1) + 1


# Migration 0007 names the function by this name.
new_event_id = new_public_id

_seq_lock = threading.Lock()
_last_seq = 0


def next_creation_seq() -> int:
    """Creation order of stacks, units and fortifications, whose ids are random: the
    microseconds since the epoch, strictly rising within a process. Only for ordering (army
    lists, placements, the order dice are rolled in); never shown."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(_last_seq + 1, time.time_ns() // 1000)
        return _last_seq


class Fortification(models.Model):
    """A tower of a hex, or the wall on one hexside of a fortified hex."""

    id = models.BigIntegerField(primary_key=True, default=new_public_id, editable=False)
    created_seq = models.BigIntegerField(default=next_creation_seq, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="fortifications")
    hex = models.CharField(max_length=8)
    kind = models.CharField(max_length=8, choices=FortificationKind.choices)
    direction = models.CharField(max_length=2, blank=True, help_text="The hexside of a wall.")
    hits = models.PositiveIntegerField()
    starting_hits = models.PositiveIntegerField()
    owner = models.ForeignKey(Side, on_delete=models.PROTECT, related_name="fortifications")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "hex", "kind", "direction"], name="fortification_once"
            ),
            models.CheckConstraint(
                condition=(Q(kind="tower") & Q(direction=""))
                | (Q(kind="wall") & Q(direction__in=HEXSIDES)),
                name="fortification_kind_direction",
            ),
            models.CheckConstraint(
                condition=Q(hits__lte=F("starting_hits")), name="fortification_hits_le_start"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "hex"], name="fortification_hex_idx")]
        ordering = ["created_seq", "id"]

    def __str__(self) -> str:
        where = f"{self.hex} {self.direction}".strip()
        return f"{self.kind} {where} ({self.hits}/{self.starting_hits})"


class UnitType(models.Model):
    """A player's (or the opposition's) unit design; frozen once the campaign starts."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="unit_types")
    side = models.ForeignKey(Side, on_delete=models.PROTECT, related_name="unit_types")
    owner = models.ForeignKey(
        Membership, on_delete=models.CASCADE, null=True, blank=True, related_name="unit_types"
    )
    name = models.CharField(max_length=64)
    hits = models.PositiveIntegerField()
    attack = models.PositiveIntegerField()
    defence = models.PositiveIntegerField()
    move = models.PositiveIntegerField()
    specials = models.JSONField(default=list)
    # Exact: rules costs are multiples of 1/8, which three decimals hold exactly.
    cost = models.DecimalField(max_digits=10, decimal_places=3)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "name"], condition=Q(owner__isnull=False), name="unit_type_name"
            ),
            models.UniqueConstraint(
                fields=["side", "name"],
                condition=Q(owner__isnull=True),
                name="unit_type_side_name",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Stack(models.Model):
    # Random ids: a stack's id does not tell how many stacks were made before it (a split
    # of the other side's, hidden, would show as a gap); created_seq keeps their order.
    id = models.BigIntegerField(primary_key=True, default=new_public_id, editable=False)
    created_seq = models.BigIntegerField(default=next_creation_seq, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="stacks")
    side = models.ForeignKey(Side, on_delete=models.PROTECT, related_name="stacks")
    hex = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    # Combat state of the acting phase (reset when a move/combat or opposition phase opens):
    # it fought (then it may move only one adjacent hex, §2) and made that move; how often
    # it was attacked and defended (§3 "each stack once before any twice", SB); whether it
    # used its special retaliation.
    fought = models.BooleanField(default=False)
    moved_after_fighting = models.BooleanField(default=False)
    times_attacked = models.PositiveIntegerField(default=0)
    defender_combats = models.PositiveIntegerField(default=0)
    retaliation_used = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["campaign", "hex"], name="stack_hex_idx"),
            models.Index(fields=["campaign", "side"], name="stack_side_idx"),
        ]
        ordering = ["created_seq", "id"]

    def __str__(self) -> str:
        return f"stack {self.pk} of {self.side.kind} in {self.hex}"


def army_units() -> models.Count:
    """A unit type's units bought at army design (pops are paid with pop points, §5)."""
    return models.Count("units", filter=Q(units__popped=False))


class Unit(models.Model):
    id = models.BigIntegerField(primary_key=True, default=new_public_id, editable=False)
    created_seq = models.BigIntegerField(default=next_creation_seq, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="units")
    side = models.ForeignKey(Side, on_delete=models.PROTECT, related_name="units")
    owner = models.ForeignKey(
        Membership, on_delete=models.CASCADE, null=True, blank=True, related_name="units"
    )
    unit_type = models.ForeignKey(UnitType, on_delete=models.PROTECT, related_name="units")
    name = models.CharField(max_length=80)
    current_hits = models.PositiveIntegerField()
    commander_level = models.PositiveIntegerField(null=True, blank=True)
    commander_xp = models.PositiveIntegerField(default=0)
    movement_used = models.PositiveIntegerField(default=0)
    has_attacked = models.BooleanField(default=False)
    was_commanded = models.BooleanField(default=False)
    # Its whole move this phase (start hex and every hex entered) was on road (§2 road bonus).
    all_on_road = models.BooleanField(default=True)
    # A pop bought and waiting to appear in this hex at the next scout phase (stack empty).
    pop_hex = models.CharField(max_length=8, blank=True)
    # Bought with pop points (§5) during the campaign, not from the army's points budget.
    popped = models.BooleanField(default=False)
    mount = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="riders"
    )
    # No stack before the campaign starts (bought, not yet placed).
    stack = models.ForeignKey(
        Stack, on_delete=models.SET_NULL, null=True, blank=True, related_name="units"
    )
    position = models.PositiveIntegerField(default=0, help_text="Order within the stack.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["stack", "position"],
                condition=Q(stack__isnull=False),
                name="unit_stack_position",
            ),
            models.CheckConstraint(condition=~Q(mount=F("id")), name="unit_not_own_mount"),
        ]
        indexes = [
            models.Index(fields=["campaign", "side"], name="unit_side_idx"),
        ]
        ordering = ["created_seq", "id"]

    def __str__(self) -> str:
        return self.name


class Turn(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="turn_number_once"),
            models.CheckConstraint(condition=Q(number__gte=1), name="turn_number_min"),
        ]

    def __str__(self) -> str:
        return f"turn {self.number}"


class PhaseKind(models.TextChoices):
    SCOUT = "scout", "Alliance scout phase"
    MOVE_COMBAT = "move_combat", "Alliance move/combat phase"
    OPPOSITION = "opposition", "Opposition phase"
    BATTLE = "battle", "Battle step"


class PhaseStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


class Phase(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="phases")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="phases")
    kind = models.CharField(max_length=16, choices=PhaseKind.choices)
    status = models.CharField(max_length=8, choices=PhaseStatus.choices, default=PhaseStatus.OPEN)
    opened_at = models.DateTimeField()
    deadline_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    # Secret until the phase closes: never in a page, API response, log or export before.
    dice_seed = models.CharField(max_length=64)
    dice_commitment = models.CharField(max_length=64)
    dice_next_number = models.PositiveIntegerField(default=1)
    # For the deadlines issue: every transition advances the version; flags say what has
    # been done about the deadline.
    version = models.PositiveIntegerField(default=0)
    deadline_processed_at = models.DateTimeField(null=True, blank=True)
    reminders_sent = models.PositiveIntegerField(default=0)
    # Deadlines issue: extensions granted so far, the time left when the campaign was paused,
    # and failed processing (flagged for the GM after repeated failures instead of retrying).
    extended_hours = models.PositiveIntegerField(default=0)
    paused_remaining = models.DurationField(null=True, blank=True)
    processing_failures = models.PositiveIntegerField(default=0)
    processing_error = models.TextField(blank=True)
    processing_flagged_at = models.DateTimeField(null=True, blank=True)
    # The alliance's draw (Campaign.alliance_draw): when the GM ended the opposition's
    # declarations, the text an alliance player drew (empty: the server drew at the draw's
    # deadline), who and when, and the first roll number made with the mixed seed.
    draw_asked_at = models.DateTimeField(null=True, blank=True)
    alliance_draw = models.CharField(max_length=200, blank=True)
    drawn_at = models.DateTimeField(null=True, blank=True)
    drawn_by = models.ForeignKey(
        "Membership", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    drawn_from_number = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"],
                condition=Q(status="open"),
                name="phase_one_open_per_campaign",
            ),
            models.UniqueConstraint(fields=["turn", "kind"], name="phase_once_per_turn"),
            models.CheckConstraint(condition=Q(kind__in=PhaseKind.values), name="phase_kind_valid"),
            models.CheckConstraint(
                condition=(Q(status="open") & Q(closed_at__isnull=True))
                | (Q(status="closed") & Q(closed_at__isnull=False)),
                name="phase_closed_at_iff_closed",
            ),
            models.CheckConstraint(
                condition=Q(deadline_at__gte=F("opened_at")), name="phase_deadline_after_open"
            ),
        ]
        indexes = [
            # The deadline sweep: open phases by deadline.
            models.Index(
                fields=["deadline_at"], condition=Q(status="open"), name="phase_open_deadline_idx"
            ),
            # What the sweep looks for: open phases whose deadline is not yet processed.
            models.Index(
                fields=["deadline_at"],
                condition=Q(status="open", deadline_processed_at__isnull=True),
                name="phase_unprocessed_deadline_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of turn {self.turn.number} ({self.status})"

    @property
    def revealed_seed(self) -> str | None:
        """The dice seed once the phase has closed; None while it is secret."""
        return self.dice_seed if self.status == PhaseStatus.CLOSED else None

    @property
    def awaiting_draw(self) -> bool:
        """The GM has ended the opposition's declarations; the alliance has not drawn yet."""
        return self.draw_asked_at is not None and self.drawn_at is None


class DeclarationKind(models.TextChoices):
    ATTACK = "attack", "Attack"
    SIEGE = "siege", "Siege"


class DeclarationStatus(models.TextChoices):
    PENDING = "pending", "Waiting for the alliance's draw"
    RESOLVED = "resolved", "Resolved"
    VOID = "void", "Void"


class Declaration(models.Model):
    """An opposition combat declared in an opposition phase of a campaign with the alliance's
    draw: resolved, in order, once the alliance has drawn (games/erfworld/draw.py)."""

    id = models.BigIntegerField(primary_key=True, default=new_public_id, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="declarations")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=8, choices=DeclarationKind.choices)
    status = models.CharField(max_length=8, choices=DeclarationStatus.choices,
                              default=DeclarationStatus.PENDING)
    # The opposition's stack that attacks or besieges.
    stack = models.ForeignKey(Stack, on_delete=models.SET_NULL, null=True, related_name="+")
    target = models.ForeignKey(Stack, on_delete=models.SET_NULL, null=True, blank=True,
                               related_name="+")
    fortification = models.ForeignKey("Fortification", on_delete=models.SET_NULL, null=True,
                                      blank=True, related_name="+")
    options = models.JSONField(default=dict, blank=True)
    declared_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                    null=True, related_name="+")
    declared_at = models.DateTimeField(auto_now_add=True)
    event = models.ForeignKey("Event", on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="+")
    void_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "seq"], name="declaration_seq_once"),
            models.CheckConstraint(condition=Q(kind__in=DeclarationKind.values),
                                   name="declaration_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"declaration {self.seq} ({self.kind}) of {self.phase}"


class PlayerPhaseStatus(models.Model):
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="player_statuses")
    membership = models.ForeignKey(
        Membership, on_delete=models.CASCADE, related_name="phase_statuses"
    )
    done_at = models.DateTimeField(null=True, blank=True)
    late = models.BooleanField(default=False, help_text="Recorded once the player was late.")
    proxied_by = models.ForeignKey(
        Membership, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["phase", "membership"], name="player_phase_once"),
        ]
        verbose_name_plural = "player phase statuses"

    def __str__(self) -> str:
        return f"{self.membership.user} in phase {self.phase_id}"


class ScoutOrder(models.Model):
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="scout_orders")
    scout = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="scout_orders")
    given_by = models.ForeignKey(Membership, on_delete=models.CASCADE, related_name="+")
    proxied_by = models.ForeignKey(
        Membership, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    directions = models.JSONField()
    inspected_hexes = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["phase", "scout"], name="scout_order_once"),
        ]

    def __str__(self) -> str:
        return f"{self.scout}: {' '.join(self.directions)}"


class SightingSource(models.TextChoices):
    SCOUT = "scout", "Scouting"
    COMBAT = "combat", "Combat"
    AMBUSH = "ambush", "Ambush"
    SIEGE = "siege", "Siege"
    CAPTURE = "capture", "Capture"


class Sighting(models.Model):
    """What a side knows of a hex, as of a phase; `is_latest` marks the one its map shows.

    Scouting sees the whole hex; a combat, an ambush, a siege or a capture shows the stacks
    and fortifications the side witnessed, the rest carried from what it knew before (each
    stack and fortification in `seen` keeps the turn it was learned). `stack_ids` holds the
    stacks' ids, in `seen["stacks"]` order, so a later fight can correct them; they are never
    shown (an id tells nothing the side saw)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sightings")
    side = models.ForeignKey(Side, on_delete=models.CASCADE, related_name="sightings")
    hex = models.CharField(max_length=8)
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="sightings")
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="sightings")
    seen = models.JSONField()
    stack_ids = models.JSONField(default=list, blank=True)
    source = models.CharField(max_length=10, choices=SightingSource.choices,
                              default=SightingSource.SCOUT)
    is_latest = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["side", "hex"], condition=Q(is_latest=True), name="sighting_one_latest"
            ),
            models.UniqueConstraint(fields=["phase", "side", "hex"], name="sighting_once_a_phase"),
        ]

    def __str__(self) -> str:
        return f"{self.side.kind} saw {self.hex} in turn {self.turn.number}"


class DiceRoll(models.Model):
    """One die rolled by the server; phase is empty for the campaign's setup dice."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="dice_rolls")
    phase = models.ForeignKey(
        Phase, on_delete=models.CASCADE, null=True, blank=True, related_name="dice_rolls"
    )
    number = models.PositiveIntegerField()
    purpose = models.CharField(max_length=200)
    sides = models.PositiveIntegerField()
    value = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["phase", "number"], condition=Q(phase__isnull=False), name="roll_once"
            ),
            models.UniqueConstraint(
                fields=["campaign", "number"],
                condition=Q(phase__isnull=True),
                name="setup_roll_once",
            ),
            models.CheckConstraint(
                condition=Q(value__gte=1, value__lte=F("sides")), name="roll_value_on_die"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.number} d{self.sides}={self.value} ({self.purpose})"


class EventKind(models.TextChoices):
    CAMPAIGN_CREATED = "campaign_created", "Campaign created"
    PLAYER_JOINED = "player_joined", "Player joined"
    UNIT_TYPE_CREATED = "unit_type_created", "Unit type created"
    UNIT_TYPE_UPDATED = "unit_type_updated", "Unit type updated"
    UNIT_TYPE_DELETED = "unit_type_deleted", "Unit type deleted"
    UNITS_BOUGHT = "units_bought", "Units bought"
    ARMY_READY = "army_ready", "Army ready"
    ARMY_NOT_READY = "army_not_ready", "Army no longer ready"
    CHIEF_WARLORD_VOTE = "chief_warlord_vote", "Chief Warlord vote"
    CHIEF_WARLORD_ELECTED = "chief_warlord_elected", "Chief Warlord elected"
    CHIEF_WARLORD_TIE = "chief_warlord_tie", "Chief Warlord vote tied"
    CHIEF_WARLORD_APPOINTED = "chief_warlord_appointed", "Chief Warlord appointed"
    CAMPAIGN_STARTED = "campaign_started", "Campaign started"
    PHASE_OPENED = "phase_opened", "Phase opened"
    PHASE_CLOSED = "phase_closed", "Phase closed"
    SCOUT_ORDER_GIVEN = "scout_order_given", "Scout order given"
    SCOUT_ORDER_CANCELLED = "scout_order_cancelled", "Scout order cancelled"
    ORDERS_DONE = "orders_done", "Orders done"
    SCOUT_REPORT = "scout_report", "Scout report"
    STACK_MOVED = "stack_moved", "Stack moved"
    STACK_SPLIT = "stack_split", "Stack split"
    STACKS_MERGED = "stacks_merged", "Stacks merged"
    STACK_REORDERED = "stack_reordered", "Stack reordered"
    UNITS_MOUNTED = "units_mounted", "Units mounted"
    AMBUSH = "ambush", "Ambush"
    COMBAT = "combat", "Combat"
    SIEGE = "siege", "Siege"
    FORTIFICATION_CAPTURED = "fortification_captured", "Fortified hex captured"
    FORTIFICATION_REPAIRED = "fortification_repaired", "Fortification repaired"
    HEALING = "healing", "Healing"
    POP_POINTS_GRANTED = "pop_points_granted", "Pop points granted"
    POP_POINTS_SHARED = "pop_points_shared", "Pop points shared"
    POPS_BOUGHT = "pops_bought", "Pops bought"
    POPS_PLACED = "pops_placed", "Pops placed"
    CAMPAIGN_FINISHED = "campaign_finished", "Campaign finished"
    PHASE_REVERTED = "phase_reverted", "Phase reverted"
    HITS_ADJUSTED = "hits_adjusted", "Hits adjusted"
    REMINDER = "reminder", "Deadline reminder"
    DEADLINE_REACHED = "deadline_reached", "Deadline reached"
    DEADLINE_EXTENDED = "deadline_extended", "Deadline extended"
    CAMPAIGN_PAUSED = "campaign_paused", "Campaign paused"
    CAMPAIGN_RESUMED = "campaign_resumed", "Campaign resumed"
    PHASE_AUTO_CLOSED = "phase_auto_closed", "Phase closed at its hard deadline"
    PHASE_EARLY_CLOSED = "phase_early_closed", "Phase closed early: every player done"
    PROCESSING_FLAGGED = "processing_flagged", "Deadline processing failed repeatedly"
    SETTINGS_CHANGED = "settings_changed", "Settings changed"
    ABSENCE = "absence", "Absence declared"
    PLAYER_LEFT = "player_left", "Player left"
    SEAT_TAKEN = "seat_taken", "Seat taken"
    STANDING_ORDERS = "standing_orders", "Standing orders"
    POST_HIDDEN = "post_hidden", "Post hidden by the GM"
    POST_SHOWN = "post_shown", "Hidden post shown again"
    COMBAT_DECLARED = "combat_declared", "Combat declared for the alliance's draw"
    DECLARATION_WITHDRAWN = "declaration_withdrawn", "Declared combat withdrawn"
    DRAW_ASKED = "draw_asked", "The alliance's draw asked"
    ALLIANCE_DREW = "alliance_drew", "The alliance drew the opposition's dice"
    DECLARATION_VOID = "declaration_void", "Declared combat void"
    BATTLE_ORDERS = "battle_orders", "Battle orders and what they did"


class Event(models.Model):
    """A record of one change of game state; `side` set = only that side (and the GM) sees it.
    Its id is random, not a sequence (gaps between the ids a side sees would count the other
    side's hidden actions); events are in order by `created_at`, then id."""

    id = models.BigIntegerField(primary_key=True, default=new_public_id, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="events")
    phase = models.ForeignKey(
        Phase, on_delete=models.SET_NULL, null=True, blank=True, related_name="events"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    side = models.ForeignKey(
        Side, on_delete=models.CASCADE, null=True, blank=True, related_name="events"
    )
    kind = models.CharField(max_length=32, choices=EventKind.choices)
    summary = models.TextField()
    payload = models.JSONField(default=dict)
    # Strictly increasing within a campaign (services.common.record_event): the events' order.
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["campaign", "created_at"], name="event_campaign_time_idx")]

    def __str__(self) -> str:
        return self.summary


class PhaseSnapshot(models.Model):
    """The whole game state when a phase opened."""

    phase = models.OneToOneField(Phase, on_delete=models.CASCADE, related_name="snapshot")
    state = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"snapshot of phase {self.phase_id}"


class Absence(models.Model):
    """A player away from `starts_on` to `ends_on` (days in the player's own zone, inclusive):
    the Chief Warlord may act for them meanwhile, and a phase they miss then is excused."""

    membership = models.ForeignKey(Membership, on_delete=models.CASCADE,
                                   related_name="absences")
    starts_on = models.DateField()
    ends_on = models.DateField()
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_on", "pk"]

    def __str__(self) -> str:
        return f"{self.membership} away {self.starts_on}–{self.ends_on}"

    @property
    def days(self) -> int:
        return (self.ends_on - self.starts_on).days + 1


class Visit(models.Model):
    """When a member last opened one of the campaign's pages ("since your last visit").

    A table of its own: a visit is not game state, written without the campaign's lock, so
    it never moves the map cache's state version."""

    membership = models.OneToOneField(Membership, on_delete=models.CASCADE, related_name="visit")
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"membership {self.membership_id} seen {self.seen_at:%Y-%m-%d %H:%M}"


class Notification(models.Model):
    """A message for one user about one event: in-app at once, by email on commit if wanted."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="notifications")
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, null=True, blank=True, related_name="notifications"
    )
    kind = models.CharField(
        max_length=24, choices=NotificationKind.choices, default=NotificationKind.GENERAL
    )
    message = models.TextField()
    # Where it leads when the event does not say (a mention: the post in its thread).
    link = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # Email delivery: set once sent (or once the user's preferences said no email).
    emailed_at = models.DateTimeField(null=True, blank=True)
    email_skipped = models.BooleanField(default=False)

    class Meta:
        constraints = [
            # Exactly one notification per recipient per event, whatever retries happen.
            models.UniqueConstraint(
                fields=["event", "user"], condition=Q(event__isnull=False),
                name="notification_once_per_event_user",
            ),
        ]
        indexes = [
            models.Index(
                fields=["user", "created_at"],
                condition=Q(read_at__isnull=True),
                name="notification_unread_idx",
            ),
        ]

    def __str__(self) -> str:
        return self.message


class DeadlineReminder(models.Model):
    """One reminder sent to one player for one offset before a phase's deadline (sent once)."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="deadline_reminders")
    membership = models.ForeignKey(Membership, on_delete=models.CASCADE, related_name="+")
    offset_hours = models.PositiveIntegerField()
    sent_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["phase", "membership", "offset_hours"], name="reminder_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.offset_hours} h reminder for {self.membership_id} in phase {self.phase_id}"


class Notice(models.Model):
    """A system post on the campaign's notice board (deadlines, pauses, automatic closes)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="notices")
    phase = models.ForeignKey(Phase, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="notices")
    event = models.OneToOneField(Event, on_delete=models.CASCADE, related_name="notice")
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["campaign", "created_at"], name="notice_campaign_idx")]

    def __str__(self) -> str:
        return self.body[:60]


class SavedScenario(models.Model):
    """A scenario a GM drew in the scenario editor: the same JSON as a scenario file."""

    key = models.SlugField(max_length=64, unique=True, help_text="Lowercase letters, digits and _.")
    name = models.CharField(max_length=120)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    data = models.JSONField(help_text="The scenario, exactly as a scenario file holds it.")
    # Unshared, only its author sees it, edits it or makes a campaign from it; shared, every GM
    # may make a campaign from it, but still never opens it (its opposition stays unread).
    shared = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


# --- Forum (issue 8): threads by audience, posts, mentions, read markers, share tokens ----


class ThreadAudience(models.TextChoices):
    PUBLIC = "public", "Public"
    SIDE = "side", "Side"
    GM = "gm", "GM notes"
    PRIVATE = "private", "Private conversation"


class Thread(models.Model):
    """A campaign's thread for one audience: everyone, one side (its players and the GM), the
    GM alone, or a private conversation between its participants. Each campaign has one
    default thread for each of the first three (`is_default`: the engine posts there); members
    open topic threads beside them. Its id is random: a thread's id does not count the private
    conversations opened before it."""

    id = models.BigIntegerField(primary_key=True, default=new_public_id, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="threads")
    audience = models.CharField(max_length=8, choices=ThreadAudience.choices)
    side = models.ForeignKey(
        Side, on_delete=models.CASCADE, null=True, blank=True, related_name="threads"
    )
    title = models.CharField(max_length=120)
    is_default = models.BooleanField(default=False)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    pinned = models.BooleanField(default=False)
    locked = models.BooleanField(default=False)
    # A private conversation the GM may read: the campaign's setting when it was opened, shown
    # to its participants; a later change of the setting does not open it.
    gm_reads = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "audience"],
                condition=Q(is_default=True) & ~Q(audience="side"),
                name="thread_one_default_per_audience",
            ),
            models.UniqueConstraint(
                fields=["campaign", "side"], condition=Q(is_default=True) & Q(audience="side"),
                name="thread_one_default_per_side",
            ),
            models.CheckConstraint(
                condition=(Q(audience="side") & Q(side__isnull=False))
                | (Q(audience__in=["public", "gm", "private"]) & Q(side__isnull=True)),
                name="thread_side_iff_side_audience",
            ),
        ]

    def __str__(self) -> str:
        return self.title


class ThreadParticipant(models.Model):
    """A member of a private conversation."""

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="participants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["thread", "user"], name="thread_participant_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.thread}"


class Mute(models.Model):
    """A member no longer sees another's posts in a campaign (collapsed, one click away) and
    is not notified of their mentions."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user", "muted"], name="mute_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} muted {self.muted}"


class Post(models.Model):
    """A post in Markdown or BBCode; a system post (Markdown) has no author and names the event
    it reports."""

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="posts")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, null=True, blank=True, related_name="posts"
    )
    body = models.TextField(help_text="Source in `markup`; rendered and sanitized when shown.")
    markup = models.CharField(max_length=8, default="markdown",
                              choices=[("markdown", "Markdown"), ("bbcode", "BBCode")])
    created_at = models.DateTimeField(auto_now_add=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    # Hidden by the GM (moderation): readers see the reason instead of the post; the GM's
    # action and reason are in the ledger.
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            # An event is reported once per thread, however often the engine retries.
            models.UniqueConstraint(
                fields=["thread", "event"], condition=Q(event__isnull=False),
                name="post_event_once_per_thread",
            ),
        ]
        indexes = [models.Index(fields=["thread", "id"], name="post_thread_idx")]

    def __str__(self) -> str:
        return self.body[:60]


class PostMention(models.Model):
    """A user @mentioned in a post: the row exists once, so they are notified once."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="mentions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["post", "user"], name="post_mention_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in post {self.post_id}"


class ThreadReadMarker(models.Model):
    """The last post of a thread a user has seen; later posts are unread."""

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="read_markers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    last_read_post_id = models.PositiveBigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["thread", "user"], name="thread_read_marker_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} read {self.thread} up to {self.last_read_post_id}"


class ShareToken(models.Model):
    """A revocable secret that lets a feed reader or an external forum's embed see what its
    user may see of one campaign (private feeds and map images); nothing more."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="share_tokens")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="share_tokens"
    )
    token = models.CharField(max_length=64, unique=True)
    label = models.CharField(max_length=80, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # After this moment every URL carrying the token answers 404, as for a revoked one.
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.label or f"token {self.pk}"

    def is_live(self, now: datetime) -> bool:
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


# --- Battles of the other rule systems (docs/battles-by-forum.md) -------------------------


class Battle(models.Model):
    """A campaign of another rule system than Erfworld: one battle refereed by `rules/`, its
    state kept as the engine's JSON document (`rules.battle`), changed only by the battle's
    services (campaigns/games/battle/). `window` is what the open phase waits for: the sides
    acting and the engine's step when it opened (a new phase opens when it changes)."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="battle")
    system = models.CharField(max_length=16)
    scenario_key = models.CharField(max_length=64, blank=True)
    scenario = models.JSONField()
    settings = models.JSONField(default=dict, blank=True)
    state = models.JSONField(null=True, blank=True)
    window = models.JSONField(default=dict, blank=True)
    outcome = models.JSONField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.system} battle of {self.campaign}"


class BattleEntry(models.Model):
    """One step of a battle's log: the orders given (by a member, or by the server as proxy
    for a late side) and the engine's events, each `{"kind", "text", "data", "rolls"}`. The
    first entry (number 0) is the battle's start."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="entries")
    number = models.PositiveIntegerField()
    phase = models.ForeignKey(Phase, on_delete=models.SET_NULL, null=True, blank=True,
                              related_name="battle_entries")
    side = models.CharField(max_length=64, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True,
                           blank=True, related_name="+")
    proxy = models.BooleanField(default=False)
    orders = models.JSONField(default=list)
    events = models.JSONField(default=list)
    # Fog of war: `{side: [index of each event that side did not see]}` (docs/battles.md).
    hidden = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["battle", "number"], name="battle_entry_once"),
        ]

    def __str__(self) -> str:
        return f"entry {self.number} of {self.battle}"
