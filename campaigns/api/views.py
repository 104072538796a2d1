"""API views: each reads its input with a nested InputSerializer, calls one service or
selector, and answers through a nested OutputSerializer. Errors: campaigns/api/errors.py."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from campaigns import selectors
from campaigns.api import lookups
from campaigns.api.calculator_limits import (
    CalculationTooLong,
    CalculatorAnonThrottle,
    CalculatorUserThrottle,
    check_input,
    cpu_budget,
)
from campaigns.api.errors import NOT_FOUND, ErrorSerializer, error_body
from campaigns.api.renderers import FastJSONRenderer
from campaigns.api.serializers import (
    MapStateSerializer,
    PhaseBoardSerializer,
    PhaseSerializer,
)
from campaigns.games.erfworld import (
    campaign_join,
    orders_mark_done,
    orders_mark_not_done,
    phase_end,
    scout_order_cancel,
    scout_order_give,
)
from campaigns.models import Campaign, Role
from campaigns.selectors.map_json import map_json, map_response
from campaigns.services.deadlines import (
    campaign_pause,
    campaign_resume,
    deadline_extend,
    notifications_mark_read,
)
from campaigns.services.seats import open_seats, seat_claim
from campaigns.services.settings import campaign_settings_update
from rules.__main__ import dice_commit, dice_verify
from rules.jsonio import InputError, as_object
from rules.registry import RULESETS, get_ruleset

ERROR_ANSWERS: dict[int, tuple[str, OpenApiExample]] = {
    400: ("Refused: a domain rule or bad input (`code` says which, `field` what to fix).",
          OpenApiExample("a rule", value=error_body(
              "not_scout_phase", "Scout orders are given in the alliance's scout phase; "
              "this is the alliance move/combat phase.")),
          ),
    401: ("Not logged in: send `Authorization: Token <key>` (or a browser session).",
          OpenApiExample("no credentials", value=error_body(
              "not_authenticated", "Authentication credentials were not provided."))),
    403: ("Not allowed: you lack the right (GM only, Chief Warlord only, wrong side).",
          OpenApiExample("GM only", value=error_body(
              "gm_only", "Only the Game Master may do this."))),
    404: ("Not found: it does not exist, or it is something you may not know of (a campaign "
          "you are not in, another side's unit); the two are never told apart.",
          OpenApiExample("not found", value=NOT_FOUND)),
}


def _errors(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented error answers `codes`: each the error body, with an example."""
    return {c: OpenApiResponse(ErrorSerializer, description=ERROR_ANSWERS[c][0],
                               examples=[ERROR_ANSWERS[c][1]]) for c in codes}


READ_ERRORS = _errors(401, 404)
WRITE_ERRORS = _errors(400, 401, 403, 404)


def answer_example(name: str, value: Any, status_code: int = 200) -> OpenApiExample:
    """An example of a success answer (of one item, for a list: drf-spectacular wraps it)."""
    return OpenApiExample(name, value=value, response_only=True, status_codes=[str(status_code)])


def request_example(name: str, value: Any) -> OpenApiExample:
    return OpenApiExample(name, value=value, request_only=True)


PHASE_EXAMPLE = {
    "id": 41, "kind": "move_combat", "turn": 1, "opened_at": "2026-03-02T18:00:00Z",
    "deadline_at": "2026-03-05T18:00:00Z",
    "dice_commitment": "fe3886524323eb574ef85209e721518f787f39caa6901a82f8d20d91d72a96c5",
    "awaiting_draw": False,
}
OWN_UNIT_EXAMPLE = {
    "id": 40, "name": "Spearman 1", "owner": 12, "unit_type": "Spearman", "hits": 4,
    "attack": 4, "defence": 3, "move": 1, "specials": [], "current_hits": 4,
    "commander_level": None, "commander_xp": 0, "movement_used": 0, "has_attacked": False,
    "was_commanded": True, "mount": None,
}
SIGHTED_STACK_EXAMPLE = {
    "side": "opposition", "fortification": "D4", "turn": 1,
    "units": [{"name": "Spearman 1", "unit_type": "Spearman", "current_hits": 4},
              {"name": "Archer 1", "unit_type": "Archer", "current_hits": 3}],
}


def _user(request: Request) -> Any:
    return request.user


# --- Campaigns ---------------------------------------------------------------------------


class CampaignListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        name = serializers.CharField()
        status = serializers.CharField()
        ruleset = serializers.CharField()
        scenario = serializers.CharField()
        role = serializers.ChoiceField(choices=Role.choices)
        side = serializers.CharField(allow_null=True)
        is_chief_warlord = serializers.BooleanField()
        membership = serializers.IntegerField(help_text="Your membership id in the campaign.")

    @extend_schema(operation_id="campaigns_list", summary="Your campaigns",
                   responses={200: OutputSerializer(many=True), **_errors(401)},
                   examples=[answer_example("one campaign", {
                       "id": 3, "name": "Spring campaign", "status": "running",
                       "ruleset": "erfworld", "scenario": "broad_way", "role": "player",
                       "side": "alliance", "is_chief_warlord": True, "membership": 12})])
    def get(self, request: Request) -> Response:
        rows = lookups.campaigns_of(user=_user(request))
        return Response(self.OutputSerializer(rows, many=True).data)


class CampaignSettingsSerializer(serializers.Serializer):
    """Every field optional: only those sent change (campaigns.services.settings checks the
    bounds and names the field)."""

    name = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    description = serializers.CharField(required=False, allow_blank=True)
    player_cap = serializers.IntegerField(required=False, allow_null=True,
                                          help_text="1 to 50; null: no cap.")
    scout_hours = serializers.IntegerField(required=False, allow_null=True,
                                           help_text="null: as the move/combat phase.")
    phase_hours = serializers.IntegerField(required=False,
                                           help_text="The alliance move/combat phase.")
    opposition_hours = serializers.IntegerField(required=False, allow_null=True,
                                                help_text="null: as the move/combat phase.")
    deadline_mode = serializers.CharField(required=False,
                                          help_text="rolling, or clock (at deadline_clock).")
    deadline_clock = serializers.CharField(required=False, help_text="HH:MM, e.g. 21:00.")
    deadline_zone = serializers.CharField(required=False, help_text="e.g. Europe/Paris.")
    deadline_days_off = serializers.ListField(
        child=serializers.IntegerField(), required=False,
        help_text="Weekdays the clock does not run, 0 (Monday) to 6 (Sunday).")
    hard_deadline = serializers.BooleanField(required=False)
    early_close = serializers.BooleanField(required=False)
    max_extension_hours = serializers.IntegerField(required=False)
    max_pause_hours = serializers.IntegerField(
        required=False, allow_null=True,
        help_text="GM pauses in all over the campaign; null: no cap. A pause that reaches it "
        "ends itself.")
    diplomacy = serializers.BooleanField(
        required=False, help_text="Players may open private conversations across sides.")
    gm_reads_conversations = serializers.BooleanField(
        required=False, help_text="The GM may read the private conversations opened while "
        "this is on.")
    alliance_draw = serializers.BooleanField(
        required=False, help_text="The opposition's combats wait for an alliance player's "
        "draw (dice the GM cannot foresee); after the start, from the next phase.")
    alliance_draw_hours = serializers.IntegerField(
        required=False, help_text="How long the alliance has to draw before the server draws.")
    points_budget = serializers.IntegerField(required=False, help_text="Setup only.")
    max_unit_types = serializers.IntegerField(required=False, help_text="Setup only.")
    ambush_value = serializers.IntegerField(required=False, help_text="Setup only.")
    terrain_known_to_all = serializers.BooleanField(required=False, help_text="Setup only.")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500,
                                   help_text="Required after the start for a change of pace.")


class CampaignDetailApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        name = serializers.CharField()
        description = serializers.CharField()
        status = serializers.CharField()
        ruleset_key = serializers.CharField()
        scenario_key = serializers.CharField()
        player_cap = serializers.IntegerField(allow_null=True)
        phase_hours = serializers.IntegerField()
        scout_hours = serializers.IntegerField(allow_null=True)
        opposition_hours = serializers.IntegerField(allow_null=True)
        deadline_mode = serializers.CharField()
        deadline_clock = serializers.CharField()
        deadline_zone = serializers.CharField()
        deadline_days_off = serializers.ListField(child=serializers.IntegerField())
        pending_settings = serializers.DictField(
            help_text="Changes made after the start, applied when the next phase opens.")
        diplomacy = serializers.BooleanField()
        gm_reads_conversations = serializers.BooleanField()
        alliance_draw = serializers.BooleanField()
        alliance_draw_hours = serializers.IntegerField()
        points_budget = serializers.IntegerField()
        max_unit_types = serializers.IntegerField()
        ambush_value = serializers.IntegerField()
        terrain_known_to_all = serializers.BooleanField()
        hard_deadline = serializers.BooleanField()
        early_close = serializers.BooleanField()
        max_extension_hours = serializers.IntegerField()
        max_pause_hours = serializers.IntegerField(allow_null=True)
        paused_seconds = serializers.IntegerField(help_text="Time paused so far, in seconds.")
        entry_hex = serializers.CharField()
        victory_hex = serializers.CharField()
        winner = serializers.CharField()
        setup_dice_commitment = serializers.CharField()
        version = serializers.IntegerField()
        created_at = serializers.DateTimeField()

    @extend_schema(operation_id="campaigns_retrieve", summary="A campaign of yours",
                   responses={200: OutputSerializer, **READ_ERRORS},
                   examples=[answer_example("running", {
                       "id": 3, "name": "Spring campaign", "description": "",
                       "status": "running", "ruleset_key": "erfworld",
                       "scenario_key": "broad_way", "player_cap": None, "phase_hours": 72,
                       "scout_hours": 24, "opposition_hours": None,
                       "deadline_mode": "clock", "deadline_clock": "21:00",
                       "deadline_zone": "Europe/Paris", "deadline_days_off": [5, 6],
                       "pending_settings": {"phase_hours": 48},
                       "points_budget": 500, "max_unit_types": 5,
                       "ambush_value": 2, "terrain_known_to_all": True,
                       "hard_deadline": False, "early_close": False,
                       "diplomacy": False, "gm_reads_conversations": False,
                       "alliance_draw": True, "alliance_draw_hours": 24,
                       "max_extension_hours": 168, "max_pause_hours": 72,
                       "paused_seconds": 5400, "entry_hex": "A1", "victory_hex": "J10",
                       "winner": "", "version": 7, "created_at": "2026-03-01T09:30:00Z",
                       "setup_dice_commitment":
                       "7038c1499b0ae00e6ccd3997380e40a3f35d0f6b3069a6cd29cb0d2910b43c46"})])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        return Response(self.OutputSerializer(campaign).data)

    @extend_schema(
        operation_id="campaigns_settings_update",
        summary="Change the campaign's settings (GM)",
        description="Before the start every setting changes at once. After it the pace "
        "(phase lengths, hard deadline, early close, extension cap) changes from the next "
        "phase, with a `reason` posted to the public thread; the points budget, unit types, "
        "ambush value and terrain are fixed (400 `setup_only`).",
        request=CampaignSettingsSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[request_example("slower opposition", {
            "opposition_hours": 96, "reason": "The GM travels this week."})],
    )
    def patch(self, request: Request, campaign_id: int) -> Response:
        data = CampaignSettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        reason = changes.pop("reason", "")
        campaign = campaign_settings_update(
            user=_user(request),
            campaign=lookups.member_campaign(user=_user(request), campaign_id=campaign_id),
            changes=changes, reason=reason)
        return Response(self.OutputSerializer(campaign).data)


class CampaignJoinApi(APIView):
    class InputSerializer(serializers.Serializer):
        invite_code = serializers.CharField(max_length=64)
        seat = serializers.IntegerField(
            required=False, help_text="After the start: the open seat to take (its former "
            "membership id, from GET with the invite code).")

    class SeatsSerializer(serializers.Serializer):
        campaign = serializers.IntegerField()
        name = serializers.CharField()
        status = serializers.CharField()
        open_seats = serializers.ListField(child=serializers.DictField(), help_text=(
            "After the start: {seat, name, units} for each seat a player left open."))

    class OutputSerializer(serializers.Serializer):
        membership = serializers.IntegerField(source="pk")
        campaign = serializers.IntegerField(source="campaign_id")
        role = serializers.CharField()
        side = serializers.CharField(source="side.kind")

    @extend_schema(
        operation_id="campaigns_join", summary="Join a campaign with its invite code",
        request=InputSerializer, responses={201: OutputSerializer, **WRITE_ERRORS},
        description="Before the start: join the alliance. After it: take an open seat with "
        "`seat` (GET with the invite code lists them); the army is yours, a newcomer gets a "
        "full phase.",
        examples=[OpenApiExample("invite", value={"invite_code": "k3Jd9x"}, request_only=True),
                  OpenApiExample("seat", value={"invite_code": "k3Jd9x", "seat": 14},
                                 request_only=True)],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        seat = data.validated_data.pop("seat", None)
        if seat is not None:
            membership = seat_claim(user=_user(request), seat=seat, **data.validated_data)
        else:
            membership = campaign_join(user=_user(request), **data.validated_data)
        return Response(self.OutputSerializer(membership).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="campaigns_join_info", summary="What an invite code offers",
        description="Anyone with the invite code: the campaign, and after the start the seats "
        "players left open (to take with POST and `seat`).",
        parameters=[OpenApiParameter("invite_code", str, required=True)],
        responses={200: SeatsSerializer, **_errors(400, 401, 404)},
        examples=[answer_example("one open seat", {
            "campaign": 3, "name": "Spring campaign", "status": "running",
            "open_seats": [{"seat": 14, "name": "rowan", "units": 9}]})],
    )
    def get(self, request: Request) -> Response:
        campaign = Campaign.objects.filter(
            invite_code=str(request.query_params.get("invite_code", "")).strip()).first()
        if campaign is None:
            raise Http404
        seats = [{"seat": m.pk, "name": m.user.public_name,
                  "units": m.living_units}  # type: ignore[attr-defined]
                 for m in open_seats(campaign)] if campaign.status != "setup" else []
        return Response(self.SeatsSerializer({"campaign": campaign.pk, "name": campaign.name,
                                              "status": campaign.status,
                                              "open_seats": seats}).data)


# --- Map and phase -------------------------------------------------------------------------


class MapApi(APIView):
    renderer_classes = [FastJSONRenderer, BrowsableAPIRenderer]

    @extend_schema(
        operation_id="campaigns_map", summary="The map as you see it (fog of war)",
        description="Your side's stacks in full; of everything else only your side's latest "
        "sighting of each hex, with its turn (the GM sees everything). `hexes` lists the hexes "
        "whose terrain is not `map.default_terrain`.",
        responses={200: MapStateSerializer, **READ_ERRORS},
        examples=[answer_example("a player's map (shortened)", {
            "turn": 1, "phase": PHASE_EXAMPLE, "viewer": {"role": "player", "side": "alliance"},
            "map": {"cols": 12, "rows": 12, "default_terrain": "open"},
            "hexes": [{"hex": "A1", "terrain": "road"}, {"hex": "B5", "terrain": "woods"}],
            "fortifications": [{"hex": "D4", "kind": "tower", "direction": None,
                                "owner": "opposition", "hits": 20, "starting_hits": 20,
                                "seen_turn": 1}],
            "stacks": [{"id": 7, "hex": "D3", "side": "alliance", "units": [OWN_UNIT_EXAMPLE]}],
            "sightings": [{"hex": "D4", "turn": 1, "seen": {
                "hex": "D4", "road": True, "terrain": "road", "stacks": [SIGHTED_STACK_EXAMPLE],
                "fortifications": [{"kind": "tower", "direction": None, "hits": 20,
                                    "owner": "opposition", "turn": 1}]}}],
        })],
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse | Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        if isinstance(request.accepted_renderer, FastJSONRenderer):
            # The same bytes the renderer would write, kept in the cache per state and side.
            return HttpResponse(map_json(user=_user(request), campaign=campaign),
                                content_type="application/json")
        return Response(map_response(selectors.map_state(user=_user(request),
                                                         campaign=campaign)))


class PhaseStatusApi(APIView):
    class OutputSerializer(serializers.Serializer):
        open_phase = PhaseBoardSerializer(
            allow_null=True, help_text="The open phase's board; null when no phase is open."
        )

    @extend_schema(operation_id="campaigns_phase_status", summary="The open phase's board",
                   responses={200: OutputSerializer, **READ_ERRORS},
                   examples=[answer_example("move/combat phase", {"open_phase": {
                       "turn": 1, "phase": "move_combat",
                       "phase_name": "Alliance move/combat phase",
                       "opened_at": PHASE_EXAMPLE["opened_at"],
                       "deadline_at": PHASE_EXAMPLE["deadline_at"],
                       "dice_commitment": PHASE_EXAMPLE["dice_commitment"],
                       "players": [
                           {"membership": 12, "name": "ann", "is_chief_warlord": True,
                            "done": True, "done_at": "2026-03-03T07:12:00Z", "late": False,
                            "proxied_by": None},
                           {"membership": 14, "name": "bob", "is_chief_warlord": False,
                            "done": False, "done_at": None, "late": False,
                            "proxied_by": None}]}})])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = lookups.member_campaign(user=_user(request), campaign_id=campaign_id)
        board = selectors.phase_status_board(user=_user(request), campaign=campaign)
        return Response(self.OutputSerializer({"open_phase": board}).data)


# --- Orders --------------------------------------------------------------------------------

ON_BEHALF_OF_HELP = ("The membership id of a late ally whose orders the Chief Warlord gives "
                     "(§5); omit for your own.")


class ScoutOrderGiveApi(APIView):
    class InputSerializer(serializers.Serializer):
        scout = serializers.IntegerField(help_text="The id of one of your scouts.")
        directions = serializers.ListField(
            child=serializers.CharField(max_length=2), allow_empty=False, max_length=64,
            help_text='The path, one direction a step: "N", "NE", "SE", "S", "SW", "NW".',
        )
        on_behalf_of = serializers.IntegerField(required=False, allow_null=True,
                                                help_text=ON_BEHALF_OF_HELP)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        scout = serializers.IntegerField(source="scout_id")
        directions = serializers.ListField(child=serializers.CharField())
        inspected_hexes = serializers.ListField(child=serializers.CharField())
        proxied_by = serializers.IntegerField(source="proxied_by_id", allow_null=True)

    @extend_schema(
        operation_id="campaigns_scout_orders_give", summary="Order a scout (scout phase)",
        request=InputSerializer, responses={201: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("two steps", request_only=True,
                                 value={"scout": 12, "directions": ["NE", "NE"]})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        order = scout_order_give(
            user=user, campaign=campaign,
            scout=lookups.visible_unit(user=user, campaign=campaign,
                                       unit_id=data.validated_data["scout"]),
            directions=data.validated_data["directions"],
            on_behalf_of=lookups.campaign_membership(
                campaign=campaign, membership_id=data.validated_data.get("on_behalf_of")),
        )
        return Response(self.OutputSerializer(order).data, status=status.HTTP_201_CREATED)


class ScoutOrderCancelApi(APIView):
    class InputSerializer(serializers.Serializer):
        on_behalf_of = serializers.IntegerField(required=False, allow_null=True,
                                                help_text=ON_BEHALF_OF_HELP)

    @extend_schema(operation_id="campaigns_scout_orders_cancel", summary="Cancel a scout order",
                   request=InputSerializer, responses={204: None, **WRITE_ERRORS},
                   examples=[request_example("your own", {}),
                             request_example("for a late ally", {"on_behalf_of": 14})])
    def post(self, request: Request, campaign_id: int, order_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        scout_order_cancel(
            user=user,
            order=lookups.visible_scout_order(user=user, campaign=campaign, order_id=order_id),
            on_behalf_of=lookups.campaign_membership(
                campaign=campaign, membership_id=data.validated_data.get("on_behalf_of")),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class DoneApi(APIView):
    class InputSerializer(serializers.Serializer):
        on_behalf_of = serializers.IntegerField(required=False, allow_null=True,
                                                help_text=ON_BEHALF_OF_HELP)

    class OutputSerializer(serializers.Serializer):
        membership = serializers.IntegerField(source="membership_id")
        done_at = serializers.DateTimeField()
        late = serializers.BooleanField()
        proxied_by = serializers.IntegerField(source="proxied_by_id", allow_null=True)

    @extend_schema(operation_id="campaigns_done", summary="Mark your orders done",
                   request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
                   examples=[request_example("your own", {}),
                             request_example("for a late ally", {"on_behalf_of": 14}),
                             answer_example("done", {
                                 "membership": 12, "done_at": "2026-03-03T07:12:00Z",
                                 "late": False, "proxied_by": None})])
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player_status = orders_mark_done(
            user=user, campaign=campaign,
            on_behalf_of=lookups.campaign_membership(
                campaign=campaign, membership_id=data.validated_data.get("on_behalf_of")),
        )
        return Response(self.OutputSerializer(player_status).data)


class UndoneApi(APIView):
    @extend_schema(operation_id="campaigns_done_undo",
                   summary="Take back your own \"done\" while the phase is open",
                   description="Not one the Chief Warlord marked for you (400 `proxied`).",
                   request=None, responses={204: None, **WRITE_ERRORS})
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        orders_mark_not_done(user=user, campaign=campaign)
        return Response(status=204)


class PhaseOpenedSerializer(PhaseSerializer):
    turn = serializers.IntegerField(source="turn.number")


class PhaseEndApi(APIView):
    class InputSerializer(serializers.Serializer):
        expected_phase = serializers.IntegerField(
            help_text="The id of the phase you mean to end (required): refused "
            "(`phase_already_closed`) when another phase is open by then, so a repeated "
            "request never closes two phases.",
        )
        reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)

    OutputSerializer = PhaseOpenedSerializer

    @extend_schema(operation_id="campaigns_end_phase",
                   summary="End the open phase (Chief Warlord or GM); returns the next phase",
                   request=InputSerializer, responses={200: PhaseOpenedSerializer, **WRITE_ERRORS},
                   examples=[request_example("the phase you saw", {
                                 "expected_phase": 40, "reason": "Everyone is done."}),
                             answer_example("the next phase", PHASE_EXAMPLE)])
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        phase = phase_end(
            user=user, campaign=campaign, reason=data.validated_data.get("reason", ""),
            expected_phase=lookups.campaign_phase(
                campaign=campaign, phase_id=data.validated_data.get("expected_phase")),
        )
        return Response(self.OutputSerializer(phase).data)


# --- GM controls -----------------------------------------------------------------------------


class GmReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(allow_blank=True, max_length=2000,
                                   help_text="Why: GM decisions are recorded with a reason.")


class CampaignClockSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    paused_at = serializers.DateTimeField(allow_null=True)
    version = serializers.IntegerField()


class DeadlineExtendApi(APIView):
    class InputSerializer(GmReasonSerializer):
        hours = serializers.IntegerField(help_text="At least 1; capped per phase by the campaign.")

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        deadline_at = serializers.DateTimeField()
        extended_hours = serializers.IntegerField()

    @extend_schema(
        operation_id="campaigns_gm_extend", summary="Extend the open phase's deadline (GM)",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("a day", request_only=True,
                                 value={"hours": 24, "reason": "Holiday weekend."})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        phase = deadline_extend(user=user, campaign=campaign, **data.validated_data)
        return Response(self.OutputSerializer(phase).data)


class _CampaignClockApi(APIView):
    """Pause or resume: the GM with a reason; the same body and answer for both."""

    InputSerializer = GmReasonSerializer
    OutputSerializer = CampaignClockSerializer
    service: Any = None  # campaign_pause or campaign_resume

    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = type(self).service(user=user, campaign=campaign, **data.validated_data)
        return Response(self.OutputSerializer(campaign).data)


@extend_schema_view(post=extend_schema(
    operation_id="campaigns_gm_pause", summary="Pause the campaign's clock (GM)",
    request=GmReasonSerializer, responses={200: CampaignClockSerializer, **WRITE_ERRORS},
    examples=[request_example("holiday", {"reason": "Two weeks of holidays."}),
              answer_example("paused", {"id": 3, "status": "paused",
                                        "paused_at": "2026-03-03T10:00:00Z", "version": 8})]))
class CampaignPauseApi(_CampaignClockApi):
    service = staticmethod(campaign_pause)


@extend_schema_view(post=extend_schema(
    operation_id="campaigns_gm_resume", summary="Resume a paused campaign (GM)",
    request=GmReasonSerializer, responses={200: CampaignClockSerializer, **WRITE_ERRORS},
    examples=[request_example("back", {"reason": "Holidays are over."}),
              answer_example("running", {"id": 3, "status": "running", "paused_at": None,
                                         "version": 9})]))
class CampaignResumeApi(_CampaignClockApi):
    service = staticmethod(campaign_resume)


# --- Notifications -------------------------------------------------------------------------


class NotificationListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        campaign = serializers.IntegerField(source="campaign_id")
        campaign_name = serializers.CharField(source="campaign.name")
        kind = serializers.CharField()
        message = serializers.CharField()
        created_at = serializers.DateTimeField()
        read_at = serializers.DateTimeField(allow_null=True)

    @extend_schema(operation_id="notifications_list", summary="Your latest 50 notifications",
                   responses={200: OutputSerializer(many=True), **_errors(401)},
                   examples=[answer_example("one", {
                       "id": 17, "campaign": 3, "campaign_name": "Spring campaign",
                       "kind": "phase_opened", "read_at": None,
                       "message": "Turn 1: the alliance move/combat phase is open until "
                       "2026-03-05 18:00 UTC.", "created_at": "2026-03-02T18:00:00Z"})])
    def get(self, request: Request) -> Response:
        rows = selectors.notifications_for(user=_user(request))
        return Response(self.OutputSerializer(rows, many=True).data)


class NotificationUnreadCountApi(APIView):
    class OutputSerializer(serializers.Serializer):
        unread = serializers.IntegerField()

    @extend_schema(operation_id="notifications_unread_count", summary="How many are unread",
                   responses={200: OutputSerializer, **_errors(401)},
                   examples=[answer_example("three", {"unread": 3})])
    def get(self, request: Request) -> Response:
        count = selectors.notifications_unread_count(user=_user(request))
        return Response(self.OutputSerializer({"unread": count}).data)


class NotificationMarkReadApi(APIView):
    class InputSerializer(serializers.Serializer):
        ids = serializers.ListField(child=serializers.IntegerField(), max_length=1000)

    class OutputSerializer(serializers.Serializer):
        marked = serializers.IntegerField(help_text="How many were unread and are read now.")

    @extend_schema(operation_id="notifications_mark_read", summary="Mark notifications read",
                   request=InputSerializer, responses={200: OutputSerializer, **_errors(400, 401)},
                   examples=[OpenApiExample("two", request_only=True, value={"ids": [7, 9]})])
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        marked = notifications_mark_read(user=_user(request),
                                         notification_ids=data.validated_data["ids"])
        return Response(self.OutputSerializer({"marked": marked}).data)


# --- Rules calculators ---------------------------------------------------------------------

# `python -m rules dice …` next to each ruleset's calculators: the same functions, same JSON.
DICE_CALCULATORS = {"verify": dice_verify, "commit": dice_commit}


def _calculator(ruleset: str, command: str) -> Any:
    found: Any
    if ruleset == "dice":
        found = DICE_CALCULATORS.get(command)
    elif ruleset in RULESETS:
        found = get_ruleset(ruleset).calculators().get(command)
    else:
        found = None
    if found is None:
        raise Http404
    return found


class RulesCalculatorApi(APIView):
    """The offline calculators of `python -m rules`, over HTTP: no game state, so open to
    anyone (throttled)."""

    permission_classes = [AllowAny]
    # Their own budget (tighter for anonymous callers), on top of the API's general rates.
    throttle_classes = [CalculatorAnonThrottle, CalculatorUserThrottle, AnonRateThrottle,
                        UserRateThrottle]

    @extend_schema(
        operation_id="rules_calculate",
        summary="Run a rules calculator (the JSON of `python -m rules <ruleset> <command>`)",
        description="`ruleset` is a ruleset key (" + ", ".join(RULESETS) + ") or `dice` "
        "(commands `verify`, `commit`). One JSON object in, one out; bad input is 400 with "
        "`code` `bad_input` and `field` the dotted path of the offending value. Input is "
        "bounded to what a game uses (maps of at most 100 × 100, at most 30,000 values, "
        "strings of 2,000 characters, numbers within ±1,000,000); a calculation that uses up "
        "its CPU budget is 400 `too_complex`. Calculators have a throttle of their own "
        "(`API_THROTTLE_CALCULATOR_ANON`, `API_THROTTLE_CALCULATOR_USER`).",
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT, **_errors(400, 404)},
        examples=[OpenApiExample("dice commit", request_only=True, value={"seed": "abc"})],
    )
    def post(self, request: Request, ruleset: str, command: str) -> Response:
        calculator = _calculator(ruleset, command)
        try:
            check_input(request.data)
            with cpu_budget():
                result = calculator(as_object(request.data, "input"))
        except CalculationTooLong:
            return Response(error_body(
                "too_complex", "This calculation needs more computing time than the server "
                "gives one request; make the input smaller (or use `python -m rules` offline)."),
                status=status.HTTP_400_BAD_REQUEST)
        except InputError as exc:
            return Response(error_body("bad_input", exc.message, exc.field or None),
                            status=status.HTTP_400_BAD_REQUEST)
        except ValueError as exc:
            return Response(error_body("bad_input", str(exc)), status=status.HTTP_400_BAD_REQUEST)
        return Response(result)
