"""One API for every game (campaigns.game): the game's state as the member may see it, orders,
closing the phase; and the battles of ELF ABAS and QUAD: their demo scenarios, creating one,
checking a scenario, joining a side, starting it (docs/api.md, "One API for every game")."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from campaigns.access import membership_of
from campaigns.api import lookups
from campaigns.api.views import (
    READ_ERRORS,
    WRITE_ERRORS,
    _errors,
    _user,
    answer_example,
    request_example,
)
from campaigns.game import game_for
from campaigns.games.battle import services as battles
from campaigns.games.battle.catalogue import battle_scenarios
from campaigns.games.battle.systems import SYSTEMS
from campaigns.models import Campaign, Phase, PhaseStatus

MAX_ORDERS = 50


class GamePhaseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    turn = serializers.IntegerField(help_text="The turn (Erfworld) or the step (a battle).")
    opened_at = serializers.DateTimeField()
    deadline_at = serializers.DateTimeField()
    dice_commitment = serializers.CharField()


class GameStateSerializer(serializers.Serializer):
    game = serializers.CharField(help_text="The rule system: erfworld, elf_abas or quad.")
    status = serializers.CharField()
    phase = GamePhaseSerializer(allow_null=True)
    acting = serializers.ListField(child=serializers.CharField(),
                                   help_text="The sides that act in the open phase.")
    waiting_for = serializers.CharField(allow_blank=True)
    orders_allowed = serializers.ListField(
        child=serializers.CharField(), help_text="The kinds of order you may give now.")
    view = serializers.DictField(help_text="The game as you may see it: Erfworld's map "
                                 "answer, or a battle's state, log and outcome.")


GAME_EXAMPLE = {
    "game": "elf_abas", "status": "running",
    "phase": {"id": 51, "kind": "battle", "turn": 3, "opened_at": "2026-03-02T18:00:00Z",
              "deadline_at": "2026-03-05T18:00:00Z",
              "dice_commitment":
                  "fe3886524323eb574ef85209e721518f787f39caa6901a82f8d20d91d72a96c5"},
    "acting": ["Epping"], "waiting_for": "Turn 1: Epping holds activation card 3 of 4",
    "orders_allowed": ["move", "attack", "end"],
    "view": {"system": "elf_abas", "state": {"step": "activation"}, "log": []},
}


def game_state(*, user: User, campaign: Campaign) -> dict[str, Any]:
    game = game_for(campaign)
    membership = membership_of(user=user, campaign=campaign)
    phase = (Phase.objects.filter(campaign=campaign, status=PhaseStatus.OPEN)
             .select_related("turn").first())
    return {
        "game": campaign.ruleset_key, "status": campaign.status,
        "phase": None if phase is None else {
            "id": phase.pk, "kind": phase.kind, "turn": phase.turn.number,
            "opened_at": phase.opened_at, "deadline_at": phase.deadline_at,
            "dice_commitment": phase.dice_commitment},
        "acting": [] if phase is None else game.acting_sides(campaign, phase),
        "waiting_for": "" if phase is None else game.waiting_for(campaign, phase),
        "orders_allowed": game.orders_allowed(membership=membership),
        "view": game.view(user=user, campaign=campaign),
    }


class GameApi(APIView):
    @extend_schema(operation_id="campaigns_game", summary="The game as you may see it",
                   description="Every game answers the same questions: the open phase, who "
                   "acts, the orders you may give now, and the game's own view (fogged).",
                   responses={200: GameStateSerializer, **READ_ERRORS},
                   examples=[answer_example("an ELF ABAS battle", GAME_EXAMPLE)])
    def get(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        return Response(GameStateSerializer(game_state(user=user, campaign=campaign)).data)


class GameOrdersApi(APIView):
    class InputSerializer(serializers.Serializer):
        orders = serializers.ListField(
            child=serializers.DictField(), min_length=1, max_length=MAX_ORDERS,
            help_text="The orders in the game's JSON: a battle's engine orders (docs/battles.md)"
            ", or Erfworld's scout / move / attack / done.")

    @extend_schema(operation_id="campaigns_game_orders",
                   summary="Give orders (all applied in order, or none); returns the game",
                   request=InputSerializer, responses={200: GameStateSerializer, **WRITE_ERRORS},
                   examples=[request_example("an ELF ABAS activation", {"orders": [
                       {"kind": "move", "force": "ep-foot", "path": ["D4", "E4"]},
                       {"kind": "end"}]}),
                       answer_example("the game afterwards", GAME_EXAMPLE)])
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game_for(campaign).give_orders(user=user, campaign=campaign,
                                       orders=data.validated_data["orders"])
        campaign.refresh_from_db()
        return Response(GameStateSerializer(game_state(user=user, campaign=campaign)).data)


class GameCloseApi(APIView):
    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=2000, allow_blank=True,
                                       help_text="Why (players read it).")

    @extend_schema(operation_id="campaigns_game_close",
                   summary="Close the open phase (the GM; the late are handled as the game "
                   "says: a battle's proxy acts for them)",
                   request=InputSerializer, responses={200: GameStateSerializer, **WRITE_ERRORS},
                   examples=[request_example("a vanished player",
                                             {"reason": "Fremont's player is away."}),
                             answer_example("the game afterwards", GAME_EXAMPLE)])
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        game_for(campaign).close_phase(user=user, campaign=campaign,
                                       reason=data.validated_data["reason"])
        campaign.refresh_from_db()
        return Response(GameStateSerializer(game_state(user=user, campaign=campaign)).data)


# --- Battles ----------------------------------------------------------------------------------


class BattleScenarioSerializer(serializers.Serializer):
    key = serializers.CharField()
    system = serializers.CharField()
    system_name = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    settings = serializers.DictField()
    scenario = serializers.DictField()


class BattleScenariosApi(APIView):
    @extend_schema(operation_id="battles_scenarios", summary="The demo battle scenarios",
                   responses={200: BattleScenarioSerializer(many=True), **_errors(401)},
                   examples=[answer_example("ELF ABAS", {
                       "key": "elf_abas_ford", "system": "elf_abas", "system_name": "ELF ABAS",
                       "name": "The ford at Epping", "description": "…",
                       "settings": {"max_turns": 6}, "scenario": {"map": {}, "sides": []}})])
    def get(self, request: Request) -> Response:
        return Response(BattleScenarioSerializer(battle_scenarios(), many=True).data)


class BattleCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ruleset_key = serializers.CharField()
    invite_code = serializers.CharField()
    status = serializers.CharField()


class BattleCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        system = serializers.ChoiceField(choices=sorted(SYSTEMS))
        scenario_key = serializers.CharField(required=False, allow_blank=True, max_length=64,
                                             help_text="A demo scenario of the system.")
        scenario = serializers.DictField(required=False, help_text="Or your own scenario, "
                                         "as the system's engine reads it.")
        settings = serializers.DictField(required=False, help_text="The system's settings "
                                         "(e.g. max_turns), over the demo's.")
        name = serializers.CharField(required=False, allow_blank=True, max_length=120)
        phase_hours = serializers.IntegerField(required=False, min_value=1, max_value=336)

    @extend_schema(operation_id="battles_create", summary="Create a battle campaign (you are "
                   "its GM)", request=InputSerializer,
                   responses={201: BattleCreatedSerializer, **_errors(400, 401)},
                   examples=[request_example("the ELF ABAS demo", {
                       "system": "elf_abas", "scenario_key": "elf_abas_ford",
                       "settings": {"max_turns": 4}, "phase_hours": 24}),
                       answer_example("created", {"id": 7, "name": "The ford at Epping",
                                                  "ruleset_key": "elf_abas",
                                                  "invite_code": "k3Jd9x", "status": "setup"},
                                      201)])
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        campaign = battles.battle_create(
            gm=_user(request), system=v["system"], scenario_key=v.get("scenario_key", ""),
            scenario=v.get("scenario"), settings=v.get("settings"), name=v.get("name", ""),
            phase_hours=v.get("phase_hours"))
        return Response(BattleCreatedSerializer(campaign).data, status=status.HTTP_201_CREATED)


class BattleCheckApi(APIView):
    class InputSerializer(serializers.Serializer):
        system = serializers.ChoiceField(choices=sorted(SYSTEMS))
        scenario = serializers.DictField(help_text="The scenario, as the system's engine "
                                         "reads it.")
        settings = serializers.DictField(required=False, help_text="The system's settings "
                                         "(e.g. max_turns).")

    class OutputSerializer(serializers.Serializer):
        system = serializers.CharField()
        summary = serializers.CharField(help_text="What the engine would deploy.")

    @extend_schema(operation_id="battles_check", summary="Check a battle scenario without "
                   "creating anything (the scenario editor's Check)", request=InputSerializer,
                   responses={200: OutputSerializer, **_errors(400, 401)},
                   examples=[request_example("a QUAD skirmish", {
                       "system": "quad", "scenario": {
                           "map": {"cols": 4, "rows": 3, "terrain": {"B2": "forest"}},
                           "sides": [
                               {"name": "Red", "units": [{"id": "r1", "hex": "A1", "type": {
                                   "name": "Foot", "quality": 3, "speed": 1, "attack": 2,
                                   "defense": 2}}]},
                               {"name": "Blue", "units": [{"id": "b1", "hex": "D3", "type": {
                                   "name": "Foot", "quality": 3, "speed": 1, "attack": 2,
                                   "defense": 2}}]}]}}),
                       answer_example("it would start", {
                           "system": "quad", "summary": "2 units deployed on a 4 × 3 map."})])
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        return Response(self.OutputSerializer(battles.battle_scenario_check(
            system=v["system"], scenario=v["scenario"], settings=v.get("settings"))).data)


class BattleJoinApi(APIView):
    class InputSerializer(serializers.Serializer):
        invite_code = serializers.CharField(max_length=64)
        side = serializers.CharField(max_length=64, help_text="The side you play.")

    class OutputSerializer(serializers.Serializer):
        membership = serializers.IntegerField(source="pk")
        campaign = serializers.IntegerField(source="campaign_id")
        side = serializers.CharField(source="side.name")

    @extend_schema(operation_id="battles_join", summary="Join a battle on a side",
                   request=InputSerializer, responses={201: OutputSerializer,
                                                       **_errors(400, 401, 403)},
                   examples=[request_example("Fremont", {"invite_code": "k3Jd9x",
                                                         "side": "Fremont"}),
                             answer_example("joined", {"membership": 31, "campaign": 7,
                                                       "side": "Fremont"}, 201)])
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = battles.battle_join(user=_user(request),
                                         invite_code=data.validated_data["invite_code"],
                                         side=data.validated_data["side"])
        return Response(self.OutputSerializer(membership).data, status=status.HTTP_201_CREATED)


class BattleStartApi(APIView):
    class InputSerializer(serializers.Serializer):
        pass

    @extend_schema(operation_id="battles_start", summary="Start the battle (the GM)",
                   request=InputSerializer, responses={200: GameStateSerializer, **WRITE_ERRORS},
                   examples=[request_example("start", {}),
                             answer_example("the first phase", GAME_EXAMPLE)])
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        battles.battle_start(user=user, campaign=campaign)
        campaign.refresh_from_db()
        return Response(GameStateSerializer(game_state(user=user, campaign=campaign)).data)
