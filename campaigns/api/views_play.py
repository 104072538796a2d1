"""API views of play: reachable hexes, paths, attack targets and odds (reads); move, split,
merge, reorder, mount, attack, siege, repair, pops and the GM's tools (writes).

Every id in a URL or body names something the caller may know of, or the answer is 404
exactly as for an id that does not exist (campaigns/games/erfworld/previews.py decides what is
visible); permissions and rules are the services', answered as 400/403 by api/errors.py.
A stack in an answer has the shape of that stack in the map JSON, so the map can update it
in place; like the map, answers holding stacks are plain data (a serializer would add the
optional unit fields as null to another side's units), and their serializers document them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.api import lookups
from campaigns.api.serializers import StackSerializer, UnitSerializer
from campaigns.api.serializers_play import (
    AttackPreviewSerializer,
    FortificationWithIdSerializer,
    ReachableSerializer,
    SiegeTargetsSerializer,
)
from campaigns.api.views import (
    ON_BEHALF_OF_HELP,
    WRITE_ERRORS,
    GmReasonSerializer,
    PhaseOpenedSerializer,
    _user,
)
from campaigns.games.erfworld import (
    fortification_adjust_hits,
    fortification_besiege,
    fortification_repair,
    phase_end,
    phase_revert,
    pop_points_grant,
    pop_points_share,
    pops_buy,
    stack_attack,
    stack_move,
    stack_reorder,
    stack_split,
    stacks_merge,
    unit_adjust_hits,
    units_mount,
)
from campaigns.games.erfworld import previews as play
from campaigns.models import Campaign, EventKind, Fortification, Membership, Stack, Unit
from campaigns.services.deadlines import phase_processing_unflag

# Reads of play check the order's rights too (400 wrong phase, 403 not your stack).
PLAY_ERRORS = WRITE_ERRORS

ON_BEHALF_OF_QUERY = OpenApiParameter(
    "on_behalf_of", OpenApiTypes.INT, OpenApiParameter.QUERY, required=False,
    description=ON_BEHALF_OF_HELP,
)


def _decimal(value: Decimal) -> str:
    return format(value.normalize(), "f")


class OnBehalfOfSerializer(serializers.Serializer):
    on_behalf_of = serializers.IntegerField(required=False, allow_null=True,
                                            help_text=ON_BEHALF_OF_HELP)


# --- Looking up what the caller names -------------------------------------------------------


def _campaign(request: Request, campaign_id: int) -> Campaign:
    return lookups.member_campaign(user=_user(request), campaign_id=campaign_id)


def _stack(request: Request, campaign: Campaign, stack_id: int) -> Stack:
    stack = play.visible_stack(user=_user(request), campaign=campaign, stack_id=stack_id)
    if stack is None:
        raise Http404
    return stack


def _units(request: Request, campaign: Campaign, unit_ids: list[int]) -> list[Unit]:
    units = play.visible_units(user=_user(request), campaign=campaign, unit_ids=unit_ids)
    if units is None:
        raise Http404
    return units


def _fortification(request: Request, campaign: Campaign, fort_id: int) -> Fortification:
    fort = play.visible_fortification(user=_user(request), campaign=campaign,
                                      fortification_id=fort_id)
    if fort is None:
        raise Http404
    return fort


def _on_behalf_of(campaign: Campaign, data: dict[str, Any]) -> Membership | None:
    return lookups.campaign_membership(campaign=campaign,
                                       membership_id=data.get("on_behalf_of"))


def _stack_json(request: Request, campaign: Campaign, stack_id: int) -> dict[str, Any] | None:
    return play.stack_json(user=_user(request), campaign=campaign, stack_id=stack_id)


def _input(serializer: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    checked = serializer(data=data)
    checked.is_valid(raise_exception=True)
    return dict(checked.validated_data)


# --- Reads ------------------------------------------------------------------------------------


class StackReachableApi(APIView):
    InputSerializer = OnBehalfOfSerializer

    @extend_schema(
        operation_id="campaigns_stacks_reachable",
        summary="Hexes your stack can enter in its next move, with their cost",
        description="Computed on the board your side knows: an enemy stack you have not "
        "scouted this turn is no obstacle (entering it is an ambush). The stack's own hex is "
        "left out; hexes are sorted by cost. `road_move_left` is the allowance of a move "
        "wholly on road (null when the road bonus is not available).",
        parameters=[ON_BEHALF_OF_QUERY],
        responses={200: ReachableSerializer, **PLAY_ERRORS},
        examples=[OpenApiExample("two hexes", response_only=True, value={
            "stack": 12, "move_left": 1, "road_move_left": 2,
            "hexes": [{"hex": "J10", "cost": 1}, {"hex": "J11", "cost": 2}]})],
    )
    def get(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.query_params)
        result = play.stack_reachable(user=_user(request), campaign=campaign, stack=stack,
                                      on_behalf_of=_on_behalf_of(campaign, data))
        return Response(ReachableSerializer(result).data)


class StackPathApi(APIView):
    class InputSerializer(OnBehalfOfSerializer):
        to = serializers.CharField(max_length=8, help_text='The destination hex, e.g. "J10".')

    class OutputSerializer(serializers.Serializer):
        path = serializers.ListField(
            child=serializers.CharField(),
            help_text="The hexes entered in order (the start left out): a move's `path`.")
        cost = serializers.IntegerField(help_text="Movement points the move costs.")
        all_on_road = serializers.BooleanField(
            help_text="The whole move (start hex and every hex entered) is on road: the road "
            "bonus (+1) applies (§2).")

    @extend_schema(
        operation_id="campaigns_stacks_path",
        summary="The cheapest path of your stack to a hex (what a move to it would take)",
        parameters=[OpenApiParameter("to", OpenApiTypes.STR, OpenApiParameter.QUERY,
                                     required=True, description='Destination, e.g. "J10".'),
                    ON_BEHALF_OF_QUERY],
        responses={200: OutputSerializer, **PLAY_ERRORS},
        examples=[OpenApiExample("two steps", response_only=True,
                                 value={"path": ["I10", "J10"], "cost": 4,
                                        "all_on_road": False})],
    )
    def get(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.query_params)
        result = play.stack_path(user=_user(request), campaign=campaign, stack=stack,
                                 to=data["to"], on_behalf_of=_on_behalf_of(campaign, data))
        return Response(self.OutputSerializer(result).data)


class StackTargetsApi(APIView):
    InputSerializer = OnBehalfOfSerializer

    @extend_schema(
        operation_id="campaigns_stacks_targets",
        summary="The enemy stacks your stack may attack: adjacent, and known to your side",
        description="Known: in a hex your side scouted this turn or was ambushed from this "
        "phase. Each stack as the map shows another side's stack, plus every unit's `id` "
        "(for `directed_at`).",
        parameters=[ON_BEHALF_OF_QUERY],
        responses={200: StackSerializer(many=True), **PLAY_ERRORS},
        examples=[OpenApiExample("the D4 garrison", response_only=True, value={
            "id": 1, "hex": "D4", "side": "opposition", "units": [
                {"id": 1, "name": "Spearman 1", "unit_type": "Spearman", "current_hits": 4},
                {"id": 4, "name": "Archer 1", "unit_type": "Archer", "current_hits": 3}]})],
    )
    def get(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.query_params)
        rows = play.attack_targets(user=_user(request), campaign=campaign, stack=stack,
                                   on_behalf_of=_on_behalf_of(campaign, data))
        return Response(rows)


class StackSiegeTargetsApi(APIView):
    InputSerializer = OnBehalfOfSerializer

    @extend_schema(
        operation_id="campaigns_stacks_siege_targets",
        summary="The fortifications your stack's siege units may strike, with the exact odds",
        description="An enemy tower in the stack's hex, or an enemy wall hexside seen from "
        "the hex across it (§4), each not yet at 0 hits; the damage over the 36 rolls of the "
        "2d6, as the siege would roll it.",
        parameters=[ON_BEHALF_OF_QUERY],
        responses={200: SiegeTargetsSerializer, **PLAY_ERRORS},
        examples=[OpenApiExample("a wall of J10 from I10", response_only=True, value={
            "stack": 12, "hex": "I10", "targets": [{
                "id": 9, "hex": "J10", "kind": "wall", "direction": "NW",
                "description": "wall NW of J10", "owner": "opposition", "hits": None,
                "starting_hits": None}],
            "odds": {"siege_attack": 12, "cb": "6/5", "units": [31, 32],
                     "damage": [{"damage": 7, "p": "1/36", "chance": 0.0278}],
                     "expected_damage": {"p": "54/5", "value": 10.8}}})],
    )
    def get(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.query_params)
        result = play.siege_targets(user=_user(request), campaign=campaign, stack=stack,
                                    on_behalf_of=_on_behalf_of(campaign, data))
        return Response(SiegeTargetsSerializer(result).data)


class AttackInputSerializer(OnBehalfOfSerializer):
    target = serializers.IntegerField(help_text="The id of an adjacent enemy stack you know.")
    withdraw = serializers.BooleanField(required=False, default=False,
                                        help_text="Attack and withdraw (§3).")
    directed_at = serializers.IntegerField(
        required=False, allow_null=True,
        help_text="A unit of the target stack to direct the hits at (needs a commander).")
    ranged = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="null: a ranged attack exactly when the stack can make one.")


ATTACK_EXAMPLE = OpenApiExample("plain attack", request_only=True,
                                value={"target": 31, "withdraw": False, "directed_at": None,
                                       "ranged": None})


def _attack_arguments(request: Request, campaign: Campaign, stack_id: int,
                      data: dict[str, Any]) -> dict[str, Any]:
    stack = _stack(request, campaign, stack_id)
    target = _stack(request, campaign, data["target"])
    directed_at = None
    if data.get("directed_at") is not None:
        # A unit of the (known) target stack, or one of the caller's own; nothing else.
        directed_at = Unit.objects.filter(campaign=campaign, pk=data["directed_at"],
                                          stack=target).first()
        if directed_at is None:
            (directed_at,) = _units(request, campaign, [data["directed_at"]])
    return {"stack": stack, "target": target, "withdraw": data["withdraw"],
            "directed_at": directed_at, "ranged": data["ranged"],
            "on_behalf_of": _on_behalf_of(campaign, data)}


class AttackPreviewApi(APIView):
    InputSerializer = AttackInputSerializer

    @extend_schema(
        operation_id="campaigns_stacks_attack_preview",
        summary="The exact odds of an attack (rolls no die, changes nothing)",
        description="Refused exactly as the attack would be. Every probability is exact "
        "(`p`, a fraction) and rounded (`chance`/`value`, 4 places).",
        request=AttackInputSerializer, responses={200: AttackPreviewSerializer, **PLAY_ERRORS},
        examples=[ATTACK_EXAMPLE],
    )
    def post(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        result = play.attack_preview(user=_user(request), campaign=campaign,
                                     **_attack_arguments(request, campaign, stack_id, data))
        return Response(AttackPreviewSerializer(result).data)


# --- Moving and rearranging stacks --------------------------------------------------------


class StackMoveApi(APIView):
    class InputSerializer(OnBehalfOfSerializer):
        path = serializers.ListField(
            child=serializers.CharField(max_length=8), required=False, allow_null=True,
            max_length=256, help_text="The hexes entered, in order; or give `destination`.")
        destination = serializers.CharField(
            max_length=8, required=False, allow_null=True,
            help_text="Go by the cheapest path; or give `path`.")

    class OutputSerializer(serializers.Serializer):
        stack = StackSerializer(allow_null=True,
                                help_text="The stack as in the map JSON; null if it croaked.")
        path = serializers.ListField(child=serializers.CharField(),
                                     help_text="The route taken, start hex first.")
        cost = serializers.IntegerField()
        ambushed = serializers.BooleanField()
        event = serializers.IntegerField(help_text="The id of the move's event.")
        combat_event = serializers.IntegerField(allow_null=True,
                                                help_text="The ambush's event, if any.")

    @extend_schema(
        operation_id="campaigns_stacks_move", summary="Move your stack",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("by path", request_only=True, value={"path": ["I10", "J10"]}),
                  OpenApiExample("to a hex", request_only=True, value={"destination": "J10"})],
    )
    def post(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.data)
        result = stack_move(user=_user(request), campaign=campaign, stack=stack,
                            path=data.get("path"), destination=data.get("destination"),
                            on_behalf_of=_on_behalf_of(campaign, data))
        return Response({
            "stack": _stack_json(request, campaign, stack.pk), "path": result.path,
            "cost": result.cost, "ambushed": result.ambushed, "event": result.event.pk,
            "combat_event": result.combat.pk if result.combat else None,
        })


class StackOutputSerializer(serializers.Serializer):
    stack = StackSerializer(help_text="The stack as in the map JSON.")


class StackSplitApi(APIView):
    class InputSerializer(OnBehalfOfSerializer):
        units = serializers.ListField(child=serializers.IntegerField(), allow_empty=False,
                                     max_length=1000,
                                     help_text="Ids of the units that leave, in order.")

    OutputSerializer = StackOutputSerializer

    @extend_schema(
        operation_id="campaigns_stacks_split", summary="Split units off into a new stack",
        request=InputSerializer, responses={201: StackOutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("one unit", request_only=True, value={"units": [41]})],
    )
    def post(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.data)
        new = stack_split(user=_user(request), campaign=campaign, stack=stack,
                          units=_units(request, campaign, data["units"]),
                          on_behalf_of=_on_behalf_of(campaign, data))
        return Response({"stack": _stack_json(request, campaign, new.pk)},
                        status=status.HTTP_201_CREATED)


class StacksMergeApi(APIView):
    class InputSerializer(OnBehalfOfSerializer):
        stacks = serializers.ListField(child=serializers.IntegerField(), min_length=2,
                                       max_length=100,
                                       help_text="Stacks of one hex; the first is kept.")

    OutputSerializer = StackOutputSerializer

    @extend_schema(
        operation_id="campaigns_stacks_merge", summary="Merge stacks of one hex into the first",
        request=InputSerializer, responses={200: StackOutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("two", request_only=True, value={"stacks": [12, 15]})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        kept = stacks_merge(user=_user(request), campaign=campaign,
                            stacks=[_stack(request, campaign, i) for i in data["stacks"]],
                            on_behalf_of=_on_behalf_of(campaign, data))
        return Response({"stack": _stack_json(request, campaign, kept.pk)})


class StackReorderApi(APIView):
    class InputSerializer(OnBehalfOfSerializer):
        order = serializers.ListField(child=serializers.IntegerField(), allow_empty=False,
                                      max_length=1000,
                                      help_text="Every unit of the stack once, first takes "
                                      "hits first (§3).")

    OutputSerializer = StackOutputSerializer

    @extend_schema(
        operation_id="campaigns_stacks_reorder", summary="Put your stack's units in a new order",
        request=InputSerializer, responses={200: StackOutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("three", request_only=True, value={"order": [43, 41, 42]})],
    )
    def post(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.data)
        stack_reorder(user=_user(request), campaign=campaign, stack=stack,
                      order=_units(request, campaign, data["order"]),
                      on_behalf_of=_on_behalf_of(campaign, data))
        return Response({"stack": _stack_json(request, campaign, stack.pk)})


class UnitsMountApi(APIView):
    class InputSerializer(OnBehalfOfSerializer):
        riders = serializers.ListField(child=serializers.IntegerField(), allow_empty=False,
                                       max_length=100)
        mount = serializers.IntegerField(allow_null=True,
                                         help_text="The mount's unit id; null to dismount.")

    class OutputSerializer(serializers.Serializer):
        units = UnitSerializer(many=True, help_text="The riders, as in the map JSON.")
        stack = StackSerializer(help_text="Their stack, as in the map JSON.")

    @extend_schema(
        operation_id="campaigns_units_mount", summary="Riders climb on a mount, or dismount",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("mount", request_only=True,
                                 value={"riders": [41], "mount": 44})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        mount = (_units(request, campaign, [data["mount"]])[0]
                 if data["mount"] is not None else None)
        riders = units_mount(user=_user(request), campaign=campaign,
                             riders=_units(request, campaign, data["riders"]), mount=mount,
                             on_behalf_of=_on_behalf_of(campaign, data))
        stack = _stack_json(request, campaign, riders[0].stack_id or 0)
        assert stack is not None
        ids = {u.pk for u in riders}
        return Response({"units": [u for u in stack["units"] if u["id"] in ids],
                         "stack": stack})


# --- Combat ---------------------------------------------------------------------------------


class CombatOutputSerializer(serializers.Serializer):
    event = serializers.IntegerField(help_text="The id of the combat's event.")
    declared = serializers.BooleanField(
        help_text="true: declared for the alliance's draw, not rolled yet (the opposition "
        "phase of a campaign with the alliance's draw); `report` is then the declaration.")
    report = serializers.JSONField(help_text="The event's report: result, explanation, every "
                                   "die, casualties.")
    stack = StackSerializer(allow_null=True, help_text="Your stack after it (map JSON shape); "
                            "null if it croaked.")


class StackAttackApi(APIView):
    InputSerializer = AttackInputSerializer
    OutputSerializer = CombatOutputSerializer

    @extend_schema(
        operation_id="campaigns_stacks_attack",
        summary="Attack an adjacent enemy stack you know (resolved at once)",
        request=AttackInputSerializer, responses={200: CombatOutputSerializer, **WRITE_ERRORS},
        examples=[ATTACK_EXAMPLE],
    )
    def post(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        event = stack_attack(user=_user(request), campaign=campaign,
                             **_attack_arguments(request, campaign, stack_id, data))
        return Response({"event": event.pk, "report": event.payload,
                         "declared": event.kind == EventKind.COMBAT_DECLARED,
                         "stack": _stack_json(request, campaign, stack_id)})


class StackSiegeApi(APIView):
    class InputSerializer(OnBehalfOfSerializer):
        fortification = serializers.IntegerField(help_text="The enemy tower or wall's id.")

    class OutputSerializer(CombatOutputSerializer):
        fortification = FortificationWithIdSerializer()

    @extend_schema(
        operation_id="campaigns_stacks_siege",
        summary="Your siege units strike an enemy tower or wall (§4)",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("tower", request_only=True, value={"fortification": 3})],
    )
    def post(self, request: Request, campaign_id: int, stack_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        stack = _stack(request, campaign, stack_id)
        data = _input(self.InputSerializer, request.data)
        fort = _fortification(request, campaign, data["fortification"])
        event = fortification_besiege(user=_user(request), campaign=campaign, stack=stack,
                                      fortification=fort,
                                      on_behalf_of=_on_behalf_of(campaign, data))
        return Response({"event": event.pk, "report": event.payload,
                         "declared": event.kind == EventKind.COMBAT_DECLARED,
                         "stack": _stack_json(request, campaign, stack.pk),
                         "fortification": play.fortification_json(fort)})


class FortificationOutputSerializer(serializers.Serializer):
    fortification = FortificationWithIdSerializer()


class FortificationRepairApi(APIView):
    class InputSerializer(serializers.Serializer):
        hits = serializers.IntegerField(help_text="Hits to restore, 1 pop point each.")

    OutputSerializer = FortificationOutputSerializer

    @extend_schema(
        operation_id="campaigns_fortifications_repair",
        summary="Repair a fortification your side holds with your pop points (§4)",
        request=InputSerializer, responses={200: FortificationOutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("five hits", request_only=True, value={"hits": 5})],
    )
    def post(self, request: Request, campaign_id: int, fort_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        fort = _fortification(request, campaign, fort_id)
        data = _input(self.InputSerializer, request.data)
        fort = fortification_repair(user=_user(request), campaign=campaign, fortification=fort,
                                    hits=data["hits"])
        return Response(self.OutputSerializer(
            {"fortification": play.fortification_json(fort)}).data)


# --- Pops ------------------------------------------------------------------------------------


class PopsBuyApi(APIView):
    class InputSerializer(serializers.Serializer):
        unit_type = serializers.IntegerField(help_text="One of your unit types.")
        count = serializers.IntegerField(min_value=1, max_value=1000)
        hex = serializers.CharField(max_length=8, help_text="A pop hex of the campaign.")

    class OutputSerializer(serializers.Serializer):
        class PopSerializer(serializers.Serializer):
            id = serializers.IntegerField()
            name = serializers.CharField()
            unit_type = serializers.CharField(source="unit_type.name")
            pop_hex = serializers.CharField()
            commander_level = serializers.IntegerField(allow_null=True)

        units = PopSerializer(many=True, help_text="They appear at the next scout phase.")
        pop_points = serializers.CharField(help_text="Your pop points left.")

    @extend_schema(
        operation_id="campaigns_pops_buy", summary="Buy pops of one of your unit types (§5)",
        request=InputSerializer, responses={201: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("two", request_only=True,
                                 value={"unit_type": 5, "count": 2, "hex": "B2"})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        unit_type = play.own_unit_type(user=user, campaign=campaign,
                                       unit_type_id=data["unit_type"])
        if unit_type is None:
            raise Http404
        units = pops_buy(user=user, campaign=campaign, unit_type=unit_type,
                         count=data["count"], hex=data["hex"])
        left = Membership.objects.get(campaign=campaign, user=user).pop_points
        return Response(self.OutputSerializer({"units": units, "pop_points": _decimal(left)})
                        .data, status=status.HTTP_201_CREATED)


class PopsShareApi(APIView):
    class ShareSerializer(serializers.Serializer):
        membership = serializers.IntegerField(help_text="The alliance player's membership id.")
        points = serializers.IntegerField(min_value=-10**9, max_value=10**9,
                                          help_text="Pop points from the granted pool.")

    class InputSerializer(serializers.Serializer):
        membership = serializers.IntegerField(
            required=False, help_text="The alliance player's membership id (one share).")
        points = serializers.IntegerField(required=False, min_value=-10**9, max_value=10**9,
                                          help_text="Pop points from the granted pool.")
        shares = serializers.ListField(
            child=serializers.DictField(), required=False, max_length=100,
            help_text="Several shares at once, all or none: [{membership, points}].")

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            single = "membership" in attrs or "points" in attrs
            if single == ("shares" in attrs):
                raise serializers.ValidationError(
                    "Give either membership and points, or shares.", code="invalid_field")
            if single:
                if "membership" not in attrs or "points" not in attrs:
                    raise serializers.ValidationError(
                        "Give both membership and points.", code="invalid_field")
                attrs["shares"] = [{"membership": attrs["membership"],
                                    "points": attrs["points"]}]
                return attrs
            checked = PopsShareApi.ShareSerializer(data=attrs["shares"], many=True)
            checked.is_valid(raise_exception=True)
            attrs["shares"] = checked.validated_data
            if not attrs["shares"]:
                raise serializers.ValidationError({"shares": "Name at least one share."})
            return attrs

    class OutputSerializer(serializers.Serializer):
        class PlayerPointsSerializer(serializers.Serializer):
            membership = serializers.IntegerField()
            pop_points = serializers.CharField(help_text="That player's pop points now.")

        membership = serializers.IntegerField(help_text="The first share's player.")
        pop_points = serializers.CharField(help_text="The first share's player's points now.")
        shares = PlayerPointsSerializer(many=True)
        pool = serializers.CharField(help_text="What is left to share.")

    @extend_schema(
        operation_id="campaigns_pops_share",
        summary="Share granted pop points with players (Chief Warlord, §5)",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("three", request_only=True,
                                 value={"membership": 7, "points": 3}),
                  OpenApiExample("two players", request_only=True,
                                 value={"shares": [{"membership": 7, "points": 30},
                                                   {"membership": 8, "points": 30}]})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        shares: dict[int, int] = {}
        for share in data["shares"]:
            shares[share["membership"]] = shares.get(share["membership"], 0) + share["points"]
        if Membership.objects.filter(campaign=campaign, pk__in=list(shares)).count() != len(
                shares):
            raise Http404
        points = pop_points_share(user=_user(request), campaign=campaign, shares=shares)
        campaign.refresh_from_db(fields=["pop_pool"])
        first = next(iter(shares))
        return Response(self.OutputSerializer({
            "membership": first,
            "pop_points": _decimal(points[first]),
            "shares": [{"membership": pk, "pop_points": _decimal(points[pk])} for pk in shares],
            "pool": _decimal(campaign.pop_pool)}).data)


# --- GM tools --------------------------------------------------------------------------------


class GmPhaseSerializer(GmReasonSerializer):
    expected_phase = serializers.IntegerField(
        help_text="The id of the phase you mean to act on: refused (`phase_already_closed`) "
        "when another phase is open by then, so a repeated request never acts twice.")


class GmEndPhaseApi(APIView):
    InputSerializer = GmPhaseSerializer
    OutputSerializer = PhaseOpenedSerializer

    @extend_schema(
        operation_id="campaigns_gm_end_phase",
        summary="End the open phase (GM); returns the phase that opens",
        description="The same service as `phase/end/`, which decides who may: the GM, or "
        "the Chief Warlord in the alliance's phases.",
        request=GmPhaseSerializer, responses={200: PhaseOpenedSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("deadline", request_only=True,
                                 value={"expected_phase": 40,
                                        "reason": "Everyone has posted."})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        phase = phase_end(user=_user(request), campaign=campaign, reason=data["reason"],
                          expected_phase=lookups.campaign_phase(
                              campaign=campaign, phase_id=data["expected_phase"]))
        return Response(self.OutputSerializer(phase).data)


class GmRevertApi(APIView):
    InputSerializer = GmPhaseSerializer
    OutputSerializer = PhaseOpenedSerializer

    @extend_schema(
        operation_id="campaigns_gm_revert",
        summary="Revert the game to the opening of the open phase (GM)",
        request=GmPhaseSerializer, responses={200: PhaseOpenedSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("mistake", request_only=True,
                                 value={"expected_phase": 40,
                                        "reason": "Misplaced opposition stack."})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        phase = phase_revert(user=_user(request), campaign=campaign, reason=data["reason"],
                             expected_phase=lookups.campaign_phase(
                                 campaign=campaign, phase_id=data["expected_phase"]))
        return Response(self.OutputSerializer(phase).data)


class GmUnflagApi(APIView):
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField(help_text="The open phase.")
        processing_failures = serializers.IntegerField(help_text="Back to 0.")
        processing_flagged_at = serializers.DateTimeField(allow_null=True,
                                                          help_text="Back to null.")

    @extend_schema(
        operation_id="campaigns_gm_unflag",
        summary="Let the deadline sweep try a flagged phase again (GM)",
        description="After the sweep failed on the open phase's deadline several times it "
        "flags the phase and leaves it alone; once the GM has looked, this clears the flag.",
        request=None, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("cleared", response_only=True, value={
            "id": 41, "processing_failures": 0, "processing_flagged_at": None})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        phase = phase_processing_unflag(user=_user(request), campaign=campaign)
        return Response(self.OutputSerializer(phase).data)


class GmPopPointsApi(APIView):
    class InputSerializer(serializers.Serializer):
        points = serializers.IntegerField(max_value=1_000_000,
                                          help_text="At least 1, at most 1,000,000.")

    class OutputSerializer(serializers.Serializer):
        pool = serializers.CharField(help_text="The Chief Warlord's pool to share.")

    @extend_schema(
        operation_id="campaigns_gm_pop_points",
        summary="Grant the Chief Warlord pop points to share (GM)",
        request=InputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("ten", request_only=True, value={"points": 10})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        data = _input(self.InputSerializer, request.data)
        campaign = pop_points_grant(user=_user(request), campaign=campaign,
                                    points=data["points"])
        return Response(self.OutputSerializer({"pool": _decimal(campaign.pop_pool)}).data)


class HitsInputSerializer(GmReasonSerializer):
    hits = serializers.IntegerField(help_text="The new current hits (0 croaks a unit).")


class GmUnitHitsApi(APIView):
    InputSerializer = HitsInputSerializer

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        name = serializers.CharField()
        current_hits = serializers.IntegerField()
        stack = serializers.IntegerField(source="stack_id", allow_null=True,
                                         help_text="null once croaked.")

    @extend_schema(
        operation_id="campaigns_gm_unit_hits", summary="Set a unit's current hits (GM)",
        request=HitsInputSerializer, responses={200: OutputSerializer, **WRITE_ERRORS},
        examples=[OpenApiExample("wounded", request_only=True,
                                 value={"hits": 2, "reason": "Rules query settled."})],
    )
    def post(self, request: Request, campaign_id: int, unit_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        unit = lookups.visible_unit(user=_user(request), campaign=campaign, unit_id=unit_id)
        data = _input(self.InputSerializer, request.data)
        unit = unit_adjust_hits(user=_user(request), unit=unit, hits=data["hits"],
                                reason=data["reason"])
        return Response(self.OutputSerializer(unit).data)


class GmFortificationHitsApi(APIView):
    InputSerializer = HitsInputSerializer
    OutputSerializer = FortificationOutputSerializer

    @extend_schema(
        operation_id="campaigns_gm_fortification_hits",
        summary="Set a tower's or wall's hits (GM)",
        request=HitsInputSerializer, responses={200: FortificationOutputSerializer,
                                                **WRITE_ERRORS},
        examples=[OpenApiExample("breached", request_only=True,
                                 value={"hits": 0, "reason": "Siege resolved on the forum."})],
    )
    def post(self, request: Request, campaign_id: int, fort_id: int) -> Response:
        campaign = _campaign(request, campaign_id)
        fort = _fortification(request, campaign, fort_id)
        data = _input(self.InputSerializer, request.data)
        fort = fortification_adjust_hits(user=_user(request), fortification=fort,
                                         hits=data["hits"], reason=data["reason"])
        return Response(self.OutputSerializer(
            {"fortification": play.fortification_json(fort)}).data)

