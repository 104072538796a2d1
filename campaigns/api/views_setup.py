"""API views before and around play: scenarios and creation, army design, the election, the
start, reports, the event log and dice verification. Same pattern as campaigns/api/views.py."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from campaigns.api import lookups
from campaigns.api.serializers_setup import (
    EventSerializer,
    PhaseDiceSerializer,
    SetupDiceSerializer,
    UnitTypeSerializer,
)
from campaigns.api.views import (
    PHASE_EXAMPLE,
    READ_ERRORS,
    WRITE_ERRORS,
    CampaignListApi,
    PhaseOpenedSerializer,
    _errors,
    answer_example,
    request_example,
)
from campaigns.errors import CampaignError, ScenarioError
from campaigns.games.erfworld import (
    army_mark_not_ready,
    army_mark_ready,
    campaign_create_from_scenario,
    campaign_start,
    chief_warlord_appoint,
    chief_warlord_vote,
    deputy_choose,
    election_close,
    invite_regenerate,
    opposition_shuffle,
    unit_type_create,
    unit_type_delete,
    unit_type_update,
    units_buy,
)
from campaigns.games.erfworld.army import army_of, unit_types_visible
from campaigns.games.erfworld.rules import Special
from campaigns.games.erfworld.saved_scenarios import (
    scenario_save,
    scenario_share,
    scenario_validate,
)
from campaigns.games.erfworld.scenarios import Scenario, load_scenario, usable_scenario_keys
from campaigns.games.erfworld.standing import standing_orders_set
from campaigns.models import (
    Absence,
    Campaign,
    Membership,
    Phase,
    PhaseStatus,
    Unit,
    UnitType,
)
from campaigns.selectors.dice import phase_dice_verification, setup_dice_verification
from campaigns.selectors.reports import (
    MAX_EVENTS,
    REPORT_KINDS,
    events_since,
    report_detail,
    reports_for,
)
from campaigns.services.absences import absence_cancel, absence_declare
from campaigns.services.seats import player_leave, player_remove
from campaigns.services.settings import gm_handover


def _user(request: Request) -> User:
    user: User = request.user
    return user


def _campaign(request: Request, campaign_id: int) -> Campaign:
    return lookups.member_campaign(user=_user(request), campaign_id=campaign_id)


def _visible_unit_type(*, user: User, campaign: Campaign, type_id: int) -> UnitType:
    """A unit type of the user's side (any for the GM); another side's design is unknown."""
    found = unit_types_visible(user=user, campaign=campaign).filter(pk=type_id).first()
    if found is None:
        raise Http404
    return found


def _player(*, campaign: Campaign, membership_id: int, field: str) -> Membership:
    membership = Membership.objects.filter(campaign=campaign, pk=membership_id).first()
    if membership is None:
        raise CampaignError("There is no such player in this campaign.", code="unknown_player",
                            field=field)
    return membership


# --- Scenarios and creation ----------------------------------------------------------------


def scenarios_available(user_id: int | None) -> list[dict[str, Any]]:
    """Every scenario the user may make a campaign from (files, their own saved ones, those
    shared) that loads, by key (a broken one is left out, not an error)."""
    rows = []
    for key in usable_scenario_keys(user_id):
        try:
            s = load_scenario(key)
        except ScenarioError:
            continue
        rows.append({"key": s.key, "name": s.name, "ruleset": s.ruleset,
                     "description": s.description, "cols": s.cols, "rows": s.rows})
    return rows


class ScenarioListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        key = serializers.CharField()
        name = serializers.CharField()
        ruleset = serializers.CharField()
        description = serializers.CharField()
        cols = serializers.IntegerField(help_text="Map size: columns.")
        rows = serializers.IntegerField(help_text="Map size: rows.")

    @extend_schema(operation_id="scenarios_list", summary="The scenarios a campaign can start from",
                   responses={200: OutputSerializer(many=True), **_errors(401)},
                   examples=[answer_example("Broad Way", {
                       "key": "broad_way", "name": "The Broad Way", "ruleset": "erfworld",
                       "description": "The alliance enters at A1 and must fight down the "
                       "Broad Way road to take the fortification at J10.",
                       "cols": 12, "rows": 12})])
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(scenarios_available(request.user.pk),
                                              many=True).data)


class ScenarioMapSerializer(serializers.Serializer):
    cols = serializers.IntegerField(min_value=1, max_value=100)
    rows = serializers.IntegerField(min_value=1, max_value=100)
    terrain = serializers.DictField(child=serializers.CharField(), required=False,
                                    help_text='Terrain by hex label ("B5": "woods"); '
                                    "every other hex is open.")


class ScenarioSerializer(serializers.Serializer):
    """A scenario as the scenario files and the editor write it (docs/campaigns.md). This
    documents the shape; the scenario service checks everything and names the bad field."""

    key = serializers.CharField(max_length=64, help_text="Lowercase letters, digits and _.")
    name = serializers.CharField(max_length=120)
    ruleset = serializers.CharField()
    description = serializers.CharField(required=False, allow_blank=True)
    settings = serializers.DictField(required=False, help_text="phase_hours, points_budget, "
                                     "max_unit_types, ambush_value, terrain_known_to_all.")
    sides = serializers.DictField(child=serializers.CharField(),
                                  help_text='{"alliance": name, "opposition": name}')
    map = ScenarioMapSerializer()
    entry_hex = serializers.CharField()
    pop_hexes = serializers.ListField(child=serializers.CharField(), required=False)
    victory_hex = serializers.CharField()
    fortifications = serializers.ListField(
        child=serializers.DictField(), required=False,
        help_text='[{"hex", "owner", "tower": hits, "walls": {direction: hits}}]')
    opposition = serializers.DictField(required=False,
                                       help_text='{"unit_types": [...], "stacks": [...]}')


class ScenarioCheckedSerializer(serializers.Serializer):
    key = serializers.CharField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    cols = serializers.IntegerField()
    rows = serializers.IntegerField()


SMALL_SCENARIO = {
    "key": "river_crossing", "name": "River Crossing", "ruleset": "erfworld",
    "description": "Take the ford.", "settings": {"phase_hours": 48},
    "sides": {"alliance": "The Alliance", "opposition": "The Ford Guard"},
    "map": {"cols": 6, "rows": 6, "terrain": {"C3": "road", "C4": "swamp"}},
    "entry_hex": "A1", "pop_hexes": ["B1"], "victory_hex": "F6",
    "fortifications": [{"hex": "F6", "owner": "opposition", "tower": 10}],
    "opposition": {"unit_types": [{"name": "Spearman", "hits": 4, "attack": 4, "defence": 3,
                                   "move": 1, "specials": []}],
                   "stacks": [{"hex": "F6", "units": [{"type": "Spearman", "count": 3}]}]},
}
SMALL_SCENARIO_CHECKED = {"key": "river_crossing", "name": "River Crossing",
                          "ruleset": "erfworld", "cols": 6, "rows": 6}


def _checked(scenario: Scenario) -> dict[str, Any]:
    return {"key": scenario.key, "name": scenario.name, "ruleset": scenario.ruleset,
            "cols": scenario.cols, "rows": scenario.rows}


class ScenarioCheckApi(APIView):
    @extend_schema(
        operation_id="scenarios_check",
        summary="Check a scenario without saving it (the editor's check)",
        request=ScenarioSerializer, responses={200: ScenarioCheckedSerializer, **_errors(400, 401)},
        examples=[request_example("a small scenario", SMALL_SCENARIO),
                  answer_example("valid", SMALL_SCENARIO_CHECKED)],
    )
    def post(self, request: Request) -> Response:
        data = request.data
        scenario = scenario_validate(key=str(data.get("key", "")) if isinstance(data, dict)
                                     else "", data=data)
        return Response(ScenarioCheckedSerializer(_checked(scenario)).data)


class ScenarioSaveApi(APIView):
    @extend_schema(
        operation_id="scenarios_save",
        summary="Save a scenario of yours under its key (create, or replace your own)",
        description="The key in the path is the scenario's `key`. A scenario file's key, or "
        "another author's, is refused (400 and 403); once saved, GET scenarios/ lists it and "
        "POST campaigns/ creates campaigns from it.",
        request=ScenarioSerializer,
        # 404: a key that is no slug matches no route.
        responses={200: ScenarioCheckedSerializer, **_errors(400, 401, 403, 404)},
        examples=[request_example("a small scenario", SMALL_SCENARIO),
                  answer_example("saved", SMALL_SCENARIO_CHECKED)],
    )
    def put(self, request: Request, key: str) -> Response:
        data = request.data
        if not isinstance(data, dict):
            raise ScenarioError("scenario: must be an object.", field="scenario")
        saved = scenario_save(user=_user(request), key=key, data=data)
        return Response(ScenarioCheckedSerializer(_checked(load_scenario(saved.key))).data)


class ScenarioShareApi(APIView):
    class InputSerializer(serializers.Serializer):
        shared = serializers.BooleanField(help_text="true: every GM may make campaigns from it "
                                          "(only you may open it); false: yours alone again.")

    class OutputSerializer(serializers.Serializer):
        key = serializers.CharField()
        name = serializers.CharField()
        shared = serializers.BooleanField()

    @extend_schema(
        operation_id="scenarios_share", summary="Share a saved scenario of yours, or stop",
        description="Another author's scenario is 403 when shared and 404 (as an unknown key) "
        "when not.",
        request=InputSerializer,
        responses={200: OutputSerializer, **_errors(400, 401, 403, 404)},
        examples=[request_example("share", {"shared": True}),
                  answer_example("shared", {"key": "ford", "name": "The Ford", "shared": True})],
    )
    def post(self, request: Request, key: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            saved = scenario_share(user=_user(request), key=key,
                                   shared=data.validated_data["shared"])
        except ScenarioError as exc:
            raise NotFound(exc.message) from exc
        return Response(self.OutputSerializer(saved).data)


class CampaignCreateInputSerializer(serializers.Serializer):
    scenario = serializers.CharField(max_length=64, help_text="A key from GET /scenarios/.")
    name = serializers.CharField(max_length=120, required=False, allow_blank=True,
                                 help_text="Defaults to the scenario's name.")
    vary_opposition = serializers.BooleanField(
        required=False, default=False,
        help_text="Each opposition stack for which the scenario names candidate hexes starts "
        "in one of them, drawn at random (the page's checkbox, on there by default).")


class CampaignCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField()
    ruleset = serializers.CharField(source="ruleset_key")
    scenario = serializers.CharField(source="scenario_key")
    invite_code = serializers.CharField(help_text="Give it to the players: POST campaigns/join/.")
    setup_dice_commitment = serializers.CharField()
    membership = serializers.IntegerField(help_text="Your (the GM's) membership id.")


class CampaignListCreateApi(CampaignListApi):
    """GET: your campaigns (CampaignListApi); POST: a new campaign, you its GM."""

    @extend_schema(
        operation_id="campaigns_create",
        summary="Create a campaign from a scenario (you become its GM)",
        request=CampaignCreateInputSerializer,
        responses={201: CampaignCreatedSerializer, **_errors(400, 401)},
        examples=[OpenApiExample("Broad Way", request_only=True,
                                 value={"scenario": "broad_way", "name": "Spring campaign"})],
    )
    def post(self, request: Request) -> Response:
        data = CampaignCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = _user(request)
        try:
            campaign = campaign_create_from_scenario(
                gm=user, scenario_key=data.validated_data["scenario"],
                name=data.validated_data.get("name", ""),
                vary_opposition=data.validated_data["vary_opposition"])
        except ScenarioError as exc:
            raise ScenarioError(exc.message, code=exc.code, field="scenario") from exc
        created = {f: getattr(campaign, f) for f in (
            "id", "name", "status", "ruleset_key", "scenario_key", "invite_code",
            "setup_dice_commitment")}
        created["membership"] = Membership.objects.get(campaign=campaign, user=user).pk
        return Response(CampaignCreatedSerializer(created).data, status=status.HTTP_201_CREATED)


# --- Unit types and the army ---------------------------------------------------------------

SPECIALS = [s.value for s in Special]
UNIT_TYPE_EXAMPLE = {"name": "Warlord", "hits": 5, "attack": 5, "defence": 3, "move": 2,
                     "specials": ["commander"]}
UNIT_TYPE_ANSWER = {"id": 31, "side": "alliance", "owner": 12, **UNIT_TYPE_EXAMPLE,
                    "cost": "32.125", "units_bought": 1}


class UnitTypeInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=64)
    hits = serializers.IntegerField(min_value=0, max_value=1000)
    attack = serializers.IntegerField(min_value=0, max_value=1000)
    defence = serializers.IntegerField(min_value=0, max_value=1000)
    move = serializers.IntegerField(min_value=0, max_value=1000)
    specials = serializers.ListField(child=serializers.ChoiceField(choices=SPECIALS),
                                     max_length=len(SPECIALS), default=list)


class UnitTypeListApi(APIView):
    @extend_schema(operation_id="campaigns_unit_types_list",
                   summary="Unit types of your side (all of them for the GM)",
                   responses={200: UnitTypeSerializer(many=True), **READ_ERRORS},
                   examples=[answer_example("one type", UNIT_TYPE_ANSWER)])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        types = unit_types_visible(user=_user(request), campaign=campaign).select_related("side")
        return Response(UnitTypeSerializer(types, many=True).data)

    @extend_schema(
        operation_id="campaigns_unit_types_create", summary="Design a unit type (setup)",
        request=UnitTypeInputSerializer, responses={201: UnitTypeSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("a commander", request_only=True, value=UNIT_TYPE_EXAMPLE)],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = UnitTypeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        unit_type = unit_type_create(user=_user(request), campaign=campaign,
                                     **data.validated_data)
        unit_type.units_bought = 0  # type: ignore[attr-defined]
        return Response(UnitTypeSerializer(unit_type).data, status=status.HTTP_201_CREATED)


class UnitTypeDetailApi(APIView):
    @extend_schema(
        operation_id="campaigns_unit_types_update",
        summary="Change a unit type of yours (setup; bought units follow)",
        request=UnitTypeInputSerializer(partial=True),
        responses={200: UnitTypeSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("faster", request_only=True, value={"move": 3})],
    )
    def patch(self, request: Request, campaign_id: int, type_id: int) -> Response:
        user = _user(request)
        campaign = _campaign(request, campaign_id)
        unit_type = _visible_unit_type(user=user, campaign=campaign, type_id=type_id)
        data = UnitTypeInputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        fields = {f: getattr(unit_type, f) for f in UnitTypeInputSerializer().fields}
        fields.update(data.validated_data)
        updated = unit_type_update(user=user, unit_type=unit_type, **fields)
        return Response(UnitTypeSerializer(
            _visible_unit_type(user=user, campaign=campaign, type_id=updated.pk)).data)

    @extend_schema(operation_id="campaigns_unit_types_delete",
                   summary="Delete a unit type of yours and its units (setup)",
                   request=None, responses={204: None, **WRITE_ERRORS})
    def delete(self, request: Request, campaign_id: int, type_id: int) -> Response:
        user = _user(request)
        campaign = _campaign(request, campaign_id)
        unit_type_delete(user=user, unit_type=_visible_unit_type(user=user, campaign=campaign,
                                                                  type_id=type_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class UnitsBuyApi(APIView):
    class InputSerializer(serializers.Serializer):
        unit_type = serializers.IntegerField(help_text="The id of one of your unit types.")
        count = serializers.IntegerField(min_value=1, max_value=1000)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        name = serializers.CharField()
        unit_type = serializers.IntegerField(source="unit_type_id")
        current_hits = serializers.IntegerField()
        commander_level = serializers.IntegerField(
            allow_null=True, help_text="Rolled (d10, setup dice) for a commander; else null.")

    @extend_schema(
        operation_id="campaigns_units_buy", summary="Buy units of one of your types (setup)",
        request=InputSerializer, responses={201: OutputSerializer(many=True), **WRITE_ERRORS},
        examples=[OpenApiExample("ten spearmen", request_only=True,
                                 value={"unit_type": 31, "count": 10})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = _campaign(request, campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        units = units_buy(
            user=user, count=data.validated_data["count"],
            unit_type=_visible_unit_type(user=user, campaign=campaign,
                                         type_id=data.validated_data["unit_type"]),
        )
        return Response(self.OutputSerializer(units, many=True).data,
                        status=status.HTTP_201_CREATED)


class ArmyUnitSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    unit_type = serializers.CharField()
    unit_type_id = serializers.IntegerField()
    current_hits = serializers.IntegerField()
    commander_level = serializers.IntegerField(
        allow_null=True, help_text="Rolled at purchase for a commander; else null.")


class ArmyApi(APIView):
    class OutputSerializer(serializers.Serializer):
        membership = serializers.IntegerField()
        ready = serializers.BooleanField()
        ready_at = serializers.DateTimeField(allow_null=True)
        points_budget = serializers.IntegerField()
        points_spent = serializers.CharField(help_text='Exact: "12.5", or "97/3".')
        points_remaining = serializers.CharField()
        max_unit_types = serializers.IntegerField()
        unit_types = UnitTypeSerializer(many=True)
        units = ArmyUnitSerializer(many=True)

    @extend_schema(operation_id="campaigns_army", summary="Your army: types, units, points",
                   responses={200: OutputSerializer, **_errors(401, 403, 404)},
                   examples=[answer_example("a commander", {
                       "membership": 12, "ready": False, "ready_at": None,
                       "points_budget": 500, "points_spent": "32.125",
                       "points_remaining": "467.875", "max_unit_types": 5,
                       "unit_types": [UNIT_TYPE_ANSWER],
                       "units": [{"id": 37, "name": "Warlord 1", "unit_type": "Warlord",
                                  "unit_type_id": 31, "current_hits": 5,
                                  "commander_level": 4}]})])
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        return Response(self.OutputSerializer(army_of(user=_user(request), campaign=campaign)).data)


class ArmyReadySerializer(serializers.Serializer):
    membership = serializers.IntegerField(source="pk")
    ready = serializers.SerializerMethodField()
    ready_at = serializers.DateTimeField(source="army_ready_at", allow_null=True)

    def get_ready(self, membership: Membership) -> bool:
        return membership.army_ready_at is not None


class ArmyReadyApi(APIView):
    @extend_schema(operation_id="campaigns_army_ready",
                   summary="Declare your army finished (budget, types and a commander checked)",
                   request=None, responses={200: ArmyReadySerializer, **WRITE_ERRORS},
                   examples=[answer_example("ready", {"membership": 12, "ready": True,
                                                      "ready_at": "2026-03-01T12:00:00Z"})])
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = army_mark_ready(user=_user(request), campaign=_campaign(request, campaign_id))
        return Response(ArmyReadySerializer(membership).data)


class ArmyNotReadyApi(APIView):
    @extend_schema(operation_id="campaigns_army_not_ready",
                   summary="Withdraw your army's readiness to change it (setup)",
                   request=None, responses={200: ArmyReadySerializer, **WRITE_ERRORS},
                   examples=[answer_example("not ready", {"membership": 12, "ready": False,
                                                          "ready_at": None})])
    def post(self, request: Request, campaign_id: int) -> Response:
        membership = army_mark_not_ready(user=_user(request),
                                         campaign=_campaign(request, campaign_id))
        return Response(ArmyReadySerializer(membership).data)


# --- Election and start -------------------------------------------------------------------


class ChiefWarlordSerializer(serializers.Serializer):
    chief_warlord = serializers.IntegerField(
        allow_null=True, help_text="The Chief Warlord's membership id; null while undecided.")


def _chief_warlord_id(campaign: Campaign) -> int | None:
    return (Membership.objects.filter(campaign=campaign, is_chief_warlord=True)
            .values_list("pk", flat=True).first())


class ElectionVoteApi(APIView):
    class InputSerializer(serializers.Serializer):
        candidate = serializers.IntegerField(help_text="An alliance player's membership id.")

    class OutputSerializer(ChiefWarlordSerializer):
        voter = serializers.IntegerField()
        candidate = serializers.IntegerField()

    @extend_schema(
        operation_id="campaigns_election_vote", summary="Vote for a Chief Warlord (setup)",
        description="Vote again to change your vote. The election stays open until the GM "
        "closes it (gm/close-election/) or starts the campaign, or until every seat of a player "
        "cap has voted; then the most votes win and a tie goes to a setup die.",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("vote", request_only=True, value={"candidate": 12})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        candidate = _player(campaign=campaign, membership_id=data.validated_data["candidate"],
                            field="candidate")
        voter = chief_warlord_vote(user=_user(request), campaign=campaign, candidate=candidate)
        return Response(self.OutputSerializer({
            "voter": voter.pk, "candidate": candidate.pk,
            "chief_warlord": _chief_warlord_id(campaign)}).data)


class ChiefWarlordAppointApi(APIView):
    class InputSerializer(serializers.Serializer):
        membership = serializers.IntegerField(help_text="An alliance player's membership id.")

    @extend_schema(
        operation_id="campaigns_gm_appoint_chief_warlord",
        summary="Appoint (or replace) the Chief Warlord (GM)",
        request=InputSerializer, responses={200: ChiefWarlordSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("appoint", request_only=True, value={"membership": 12})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        target = _player(campaign=campaign, membership_id=data.validated_data["membership"],
                         field="membership")
        chief = chief_warlord_appoint(user=_user(request), campaign=campaign, membership=target)
        return Response(ChiefWarlordSerializer({"chief_warlord": chief.pk}).data)


class AbsenceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    starts_on = serializers.DateField()
    ends_on = serializers.DateField()
    note = serializers.CharField()


class AbsenceDeclareApi(APIView):
    class InputSerializer(serializers.Serializer):
        starts_on = serializers.CharField(help_text="YYYY-MM-DD, your own zone's date.")
        ends_on = serializers.CharField(help_text="YYYY-MM-DD, inclusive.")
        note = serializers.CharField(required=False, allow_blank=True, max_length=200)

    @extend_schema(
        operation_id="campaigns_absences_declare",
        summary="Declare an absence (alliance player): the Chief Warlord may act for you",
        request=InputSerializer, responses={201: AbsenceSerializer, **WRITE_ERRORS},
        examples=[request_example("a week away", {"starts_on": "2026-12-20",
                                                  "ends_on": "2026-12-27", "note": "Family"})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        absence = absence_declare(user=_user(request), campaign=_campaign(request, campaign_id),
                                  **data.validated_data)
        return Response(AbsenceSerializer(absence).data, status=status.HTTP_201_CREATED)


class AbsenceCancelApi(APIView):
    @extend_schema(
        operation_id="campaigns_absences_cancel",
        summary="Cancel an absence of yours (one under way ends today)",
        request=None, responses={204: None, **WRITE_ERRORS},
    )
    def post(self, request: Request, campaign_id: int, absence_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        absence = Absence.objects.filter(pk=absence_id, membership__campaign=campaign,
                                         membership__user=request.user).first()
        if absence is None:
            raise Http404
        absence_cancel(user=_user(request), absence=absence)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GmHandoverApi(APIView):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)

    class OutputSerializer(serializers.Serializer):
        gm = serializers.CharField(help_text="The new GM's public name.")

    @extend_schema(
        operation_id="campaigns_gm_handover",
        summary="Hand the GM role to another user (GM); you leave the campaign",
        description="The user must exist and must not play in this campaign (400 "
        "`unknown_user`, `is_player`).",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[request_example("hand over", {"username": "marta"}),
                  answer_example("handed over", {"gm": "marta"})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = gm_handover(user=_user(request), campaign=_campaign(request, campaign_id),
                                 username=data.validated_data["username"])
        return Response(self.OutputSerializer({"gm": membership.user.public_name}).data)


class InviteRegenerateApi(APIView):
    class OutputSerializer(serializers.Serializer):
        invite_code = serializers.CharField(help_text="The new code; the old one is dead.")

    @extend_schema(
        operation_id="campaigns_gm_invite_regenerate",
        summary="A new invite code (GM, before the start); the old one stops working",
        request=None, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[answer_example("new code", {"invite_code": "Q2xv3kP9aZ"})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = invite_regenerate(user=_user(request),
                                     campaign=_campaign(request, campaign_id))
        return Response(self.OutputSerializer({"invite_code": campaign.invite_code}).data)


class ElectionCloseApi(APIView):
    @extend_schema(
        operation_id="campaigns_gm_close_election",
        summary="Close the Chief Warlord election (GM)",
        description="The most votes win; a tie is settled by a setup die (recorded in the "
        "election event). Starting the campaign closes it too. 400 `no_votes` when nobody "
        "has voted.",
        request=None, responses={200: ChiefWarlordSerializer, **WRITE_ERRORS},
        examples=[answer_example("closed", {"chief_warlord": 12})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        chief = election_close(user=_user(request), campaign=_campaign(request, campaign_id))
        return Response(ChiefWarlordSerializer({"chief_warlord": chief.pk}).data)


class DeputyChooseApi(APIView):
    class InputSerializer(serializers.Serializer):
        membership = serializers.IntegerField(help_text="An alliance player's membership id.")

    class OutputSerializer(serializers.Serializer):
        deputy = serializers.IntegerField()

    @extend_schema(
        operation_id="campaigns_deputy_choose",
        summary="Choose the Chief Warlord's deputy (Chief Warlord or GM)",
        description="The deputy gives orders for late players and ends the alliance's phases "
        "while the Chief Warlord is away (a declared absence) or has gone quiet.",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[request_example("choose", {"membership": 13}),
                  answer_example("chosen", {"deputy": 13})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        target = _player(campaign=campaign, membership_id=data.validated_data["membership"],
                         field="membership")
        deputy = deputy_choose(user=_user(request), campaign=campaign, membership=target)
        return Response(self.OutputSerializer({"deputy": deputy.pk}).data)


class OppositionShuffleApi(APIView):
    class OutputSerializer(serializers.Serializer):
        hexes = serializers.ListField(child=serializers.CharField(),
                                      help_text="Each opposition stack's new start hex.")

    @extend_schema(
        operation_id="campaigns_gm_shuffle_opposition",
        summary="Draw the opposition's start hexes again (GM, before the start)",
        description="Among the candidate hexes the scenario names for each stack; a scenario "
        "that names none is 400 `no_candidates`.",
        request=None, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[answer_example("shuffled", {"hexes": ["I9", "D4", "C7", "G7", "J10", "J10"]})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        hexes = opposition_shuffle(user=_user(request), campaign=_campaign(request, campaign_id))
        return Response(self.OutputSerializer({"hexes": hexes}).data)


class CampaignStartApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        status = serializers.CharField()
        version = serializers.IntegerField()
        setup_dice_seed = serializers.CharField(
            help_text="For the GM (who sees every unit): GET setup-dice/ re-derives every "
            "setup roll; players see it when the campaign ends.")
        phase = PhaseOpenedSerializer(help_text="Turn 1's scout phase, now open.")

    @extend_schema(
        operation_id="campaigns_gm_start",
        summary="Start the campaign (GM): every army ready and a Chief Warlord",
        request=None, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[answer_example("started", {
            "id": 3, "status": "running", "version": 1,
            "setup_dice_seed": "87df4f24c19023d20649ad98742a2600aba60339a7652684f4ccc12d02908d17",
            "phase": {**PHASE_EXAMPLE, "kind": "scout"}})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = campaign_start(user=_user(request), campaign=_campaign(request, campaign_id))
        phase = Phase.objects.select_related("turn").get(campaign=campaign,
                                                         status=PhaseStatus.OPEN)
        return Response(self.OutputSerializer({
            "id": campaign.pk, "status": campaign.status, "version": campaign.version,
            "setup_dice_seed": campaign.setup_dice_seed, "phase": phase}).data)


# --- Reports and events -------------------------------------------------------------------


SCOUT_REPORT_EXAMPLE = {
    "id": 22, "kind": "scout_report", "phase": 40, "turn": 1, "side": "alliance",
    "actor": "ann", "created_at": "2026-03-02T18:00:00Z",
    "summary": "Scout report of turn 1: 2 hexes inspected (B1, D4).",
    "payload": {"turn": 1, "sightings": [
        {"hex": "B1", "road": True, "terrain": "road", "stacks": [], "fortifications": []},
        {"hex": "D4", "road": True, "terrain": "road", "fortifications": [
            {"kind": "tower", "direction": None, "hits": 20}],
         "stacks": [{"side": "opposition", "fortification": "D4", "units": [
             {"name": "Spearman 1", "unit_type": "Spearman", "current_hits": 4}]}]}]},
}
DICE_ROLL_EXAMPLE = {"number": 1, "purpose": "combat: attacker die 1", "sides": 6, "value": 3,
                     "expected": 3, "matches": True}


class ReportListApi(APIView):
    @extend_schema(
        operation_id="campaigns_reports_list",
        summary="Combat, ambush, siege and scout reports you may see, newest first",
        parameters=[OpenApiParameter("kind", OpenApiTypes.STR, enum=list(REPORT_KINDS),
                                     required=False, description="Only reports of this kind.")],
        responses={200: EventSerializer(many=True), **_errors(400, 401, 404)},
        examples=[answer_example("a scout report", SCOUT_REPORT_EXAMPLE)],
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        kind = request.query_params.get("kind") or None
        if kind is not None and kind not in REPORT_KINDS:
            raise CampaignError(f"kind is one of {', '.join(REPORT_KINDS)}, not {kind!r}.",
                                code="invalid_field", field="kind")
        rows = reports_for(user=_user(request), campaign=campaign, kind=kind)
        return Response(EventSerializer(rows, many=True).data)


class ReportDetailApi(APIView):
    @extend_schema(operation_id="campaigns_reports_retrieve", summary="One report",
                   responses={200: EventSerializer, **READ_ERRORS},
                   examples=[answer_example("a scout report", SCOUT_REPORT_EXAMPLE)])
    def get(self, request: Request, campaign_id: int, event_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        row = report_detail(user=_user(request), campaign=campaign, event_id=event_id)
        return Response(EventSerializer(row).data)


class EventListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        events = EventSerializer(many=True)
        next_since = serializers.IntegerField(help_text="Ask again with ?since=<this>.")
        more = serializers.BooleanField(help_text="More events wait after this page.")

    @extend_schema(
        operation_id="campaigns_events",
        summary="The events you may see after a given one, oldest first",
        parameters=[
            OpenApiParameter("since", OpenApiTypes.INT, required=False,
                             description="Only events with a greater id (default 0)."),
            OpenApiParameter("limit", OpenApiTypes.INT, required=False,
                             description=f"At most this many (1 to {MAX_EVENTS}, default "
                             f"{MAX_EVENTS})."),
        ],
        responses={200: OutputSerializer, **_errors(400, 401, 404)},
        examples=[answer_example("after event 21", {
            "events": [SCOUT_REPORT_EXAMPLE], "next_since": 22, "more": False})],
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        since = _int_param(request, "since", default=0, lowest=0, highest=2**63 - 1)
        limit = _int_param(request, "limit", default=MAX_EVENTS, lowest=1, highest=MAX_EVENTS)
        page = events_since(user=_user(request), campaign=campaign, since=since, limit=limit)
        return Response(self.OutputSerializer(page).data)


def _int_param(request: Request, name: str, *, default: int, lowest: int, highest: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = lowest - 1
    if not lowest <= value <= highest:
        raise CampaignError(f"{name} is a whole number from {lowest} to {highest}, not {raw!r}.",
                            code="invalid_field", field=name)
    return value


# --- Dice verification ---------------------------------------------------------------------


class PhaseDiceApi(APIView):
    @extend_schema(
        operation_id="campaigns_phase_dice",
        summary="A phase's dice: commitment, and once closed its seed and every roll re-derived",
        responses={200: PhaseDiceSerializer, **READ_ERRORS},
        examples=[answer_example("closed", {
            "commitment": PHASE_EXAMPLE["dice_commitment"],
            "seed": "af3d4c225797849b0873b0d5cad8f5dfa7516d9954832e0e4a548155e83493e7",
            "revealed": True, "commitment_ok": True, "rolls": [DICE_ROLL_EXAMPLE],
            "all_match": True, "draw": None, "phase": {
                "id": 41, "turn": 1, "kind": "move_combat", "status": "closed",
                "opened_at": "2026-03-02T18:00:00Z", "closed_at": "2026-03-04T21:40:00Z"}}),
                  answer_example("still open", {
            "commitment": PHASE_EXAMPLE["dice_commitment"], "seed": None, "revealed": False,
            "commitment_ok": None, "rolls": [], "all_match": None, "draw": None, "phase": {
                "id": 42, "turn": 1, "kind": "opposition", "status": "open",
                "opened_at": "2026-03-04T21:40:00Z", "closed_at": None}})],
    )
    def get(self, request: Request, campaign_id: int, phase_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        phase = Phase.objects.select_related("turn").filter(campaign=campaign, pk=phase_id).first()
        if phase is None:
            raise Http404
        body = phase_dice_verification(user=_user(request), campaign=campaign, phase=phase)
        return Response(PhaseDiceSerializer(body).data)


class SetupDiceApi(APIView):
    @extend_schema(
        operation_id="campaigns_setup_dice",
        summary="The setup dice: commitment, and once started the seed and every roll re-derived",
        responses={200: SetupDiceSerializer, **READ_ERRORS},
        examples=[answer_example("started", {
            "commitment": "7038c1499b0ae00e6ccd3997380e40a3f35d0f6b3069a6cd29cb0d2910b43c46",
            "seed": "87df4f24c19023d20649ad98742a2600aba60339a7652684f4ccc12d02908d17",
            "revealed": True, "commitment_ok": True, "all_match": True,
            "rolls": [{"number": 3, "purpose": "commander level of Warlord 1 (ann)",
                       "sides": 10, "value": 9, "expected": 9, "matches": True}],
            "setup": {"revealed_at": "2026-03-02T09:00:00Z"}})],
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        body = setup_dice_verification(user=_user(request), campaign=campaign)
        return Response(SetupDiceSerializer(body).data)


# --- Leaving and removal -------------------------------------------------------------------


class SeatOutputSerializer(serializers.Serializer):
    membership = serializers.IntegerField(allow_null=True,
                                          help_text="The former membership; null before the "
                                          "start (the player is gone).")
    seat_open = serializers.BooleanField(help_text="After the start the seat opens: the Chief "
                                         "Warlord commands its stacks until someone takes it.")


def _seat_answer(left: Membership | None) -> Response:
    return Response(SeatOutputSerializer(
        {"membership": left.pk if left else None, "seat_open": left is not None}).data)


class LeaveApi(APIView):
    @extend_schema(
        operation_id="campaigns_leave", summary="Leave the campaign (a player)",
        description="Before the start you leave with your army. After it your seat opens: you "
        "become a former member (you see what everyone sees), the Chief Warlord commands "
        "your stacks, and someone (you too) may take the seat by the invite link "
        "(POST campaigns/join/ with `seat`).",
        request=None, responses={200: SeatOutputSerializer, **WRITE_ERRORS},
        examples=[answer_example("seat open", {"membership": 14, "seat_open": True})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        return _seat_answer(player_leave(user=_user(request),
                                         campaign=_campaign(request, campaign_id)))


class PlayerRemoveApi(APIView):
    class InputSerializer(serializers.Serializer):
        membership = serializers.IntegerField(help_text="The player's membership id.")
        reason = serializers.CharField(max_length=300, allow_blank=True,
                                       help_text="Shown to everyone; required.")

    @extend_schema(
        operation_id="campaigns_gm_remove_player", summary="Remove a player (GM, with a reason)",
        description="As if the player left (POST leave/), with the GM's reason made public.",
        request=InputSerializer, responses={200: SeatOutputSerializer, **WRITE_ERRORS},
        examples=[request_example("remove", {"membership": 14, "reason": "Gone for a month."})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        target = _player(campaign=campaign, membership_id=data.validated_data["membership"],
                         field="membership")
        return _seat_answer(player_remove(user=_user(request), campaign=campaign,
                                          membership=target,
                                          reason=data.validated_data["reason"]))


class StandingOrdersApi(APIView):
    class InputSerializer(serializers.Serializer):
        mode = serializers.ChoiceField(choices=["", "hold", "no_attacks"], allow_blank=True,
                                       help_text='"" (the Chief Warlord decides), "hold" or '
                                       '"no_attacks".')
        scout = serializers.IntegerField(required=False, allow_null=True,
                                         help_text="One of your scouts, for a standing path.")
        directions = serializers.ListField(child=serializers.CharField(max_length=2),
                                           required=False, max_length=20)
        note = serializers.CharField(required=False, allow_blank=True, max_length=300)

    class OutputSerializer(serializers.Serializer):
        mode = serializers.CharField(source="standing_orders")
        scout = serializers.IntegerField(source="standing_scout_id", allow_null=True)
        directions = serializers.ListField(source="standing_directions",
                                           child=serializers.CharField())
        note = serializers.CharField(source="standing_note")

    @extend_schema(
        operation_id="campaigns_standing_orders",
        summary="File your standing orders (for when you are late)",
        description="Whoever gives your orders while you are late keeps to `hold` (no moves, "
        "no attacks) or `no_attacks`; a scout path is ordered for you when the scout phase "
        "closes if you gave that scout none. Replaces what you filed before.",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[request_example("hold, and scout", {
            "mode": "hold", "scout": 41, "directions": ["SE", "S"],
            "note": "Keep the riders in the woods."})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        scout_id = data.validated_data.get("scout")
        scout = None
        if scout_id is not None:
            scout = Unit.objects.filter(campaign=campaign, pk=scout_id).first()
            if scout is None:
                raise CampaignError("Choose one of your scouts.", code="not_a_scout",
                                    field="scout")
        player = standing_orders_set(
            user=_user(request), campaign=campaign, mode=data.validated_data["mode"],
            note=data.validated_data.get("note", ""), scout=scout,
            directions=data.validated_data.get("directions", []))
        return Response(self.OutputSerializer(player).data)
