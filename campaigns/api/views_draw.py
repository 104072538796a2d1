"""API of the alliance's draw: the alliance draws the opposition's dice; the GM lists and
withdraws the opposition's declared combats (campaigns/games/erfworld/draw.py)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.api import lookups
from campaigns.api.views import (
    PHASE_EXAMPLE,
    READ_ERRORS,
    WRITE_ERRORS,
    PhaseOpenedSerializer,
    _errors,
    _user,
    answer_example,
    request_example,
)
from campaigns.games.erfworld.draw import DRAW_MAX_LENGTH, declaration_withdraw
from campaigns.games.erfworld.phases import phase_draw
from campaigns.models import Declaration, DeclarationKind, DeclarationStatus
from campaigns.selectors.draw import declarations_of


class DrawApi(APIView):
    class InputSerializer(serializers.Serializer):
        expected_phase = serializers.IntegerField(
            help_text="The id of the opposition phase you draw for (required): refused "
            "(`no_draw_waiting`) once the draw was made or the phase has moved on.")
        draw = serializers.CharField(
            max_length=DRAW_MAX_LENGTH, trim_whitespace=True,
            help_text="Anything you choose, 1 to 200 characters (the page offers a random "
            "one): the phase's dice from here on are derived from its seed mixed with it.")

    @extend_schema(
        operation_id="campaigns_phase_draw",
        summary="Draw the opposition's dice (an alliance player); returns the phase that opens",
        description="With the alliance's draw on, the opposition's combats wait for this: "
        "they are resolved in order with the phase's seed mixed with the draw, and the "
        "opposition phase closes.",
        request=InputSerializer, responses={200: PhaseOpenedSerializer, **WRITE_ERRORS},
        examples=[request_example("a draw", {"expected_phase": 42,
                                             "draw": "7f3a9c01 the river runs north"}),
                  answer_example("the next turn's scout phase", {
                      **PHASE_EXAMPLE, "id": 43, "kind": "scout", "turn": 2,
                      "awaiting_draw": False})],
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        phase = phase_draw(
            user=user, campaign=campaign, draw=data.validated_data["draw"],
            expected_phase=lookups.campaign_phase(
                campaign=campaign, phase_id=data.validated_data["expected_phase"]))
        return Response(PhaseOpenedSerializer(phase).data)


class DeclarationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="Its place in the order they are resolved in.")
    kind = serializers.ChoiceField(choices=DeclarationKind.choices)
    status = serializers.ChoiceField(choices=DeclarationStatus.choices)
    stack = serializers.IntegerField(allow_null=True, help_text="The opposition's stack.")
    target = serializers.IntegerField(allow_null=True)
    fortification = serializers.IntegerField(allow_null=True)
    text = serializers.CharField()
    void_reason = serializers.CharField(allow_blank=True)


class DeclarationsSerializer(serializers.Serializer):
    phase = serializers.IntegerField(allow_null=True, help_text="The open phase.")
    alliance_draw = serializers.BooleanField(help_text="The campaign's setting.")
    awaiting_draw = serializers.BooleanField()
    declarations = DeclarationSerializer(many=True)


class DeclarationsApi(APIView):
    @extend_schema(
        operation_id="campaigns_declarations",
        summary="The opposition's combats declared for the alliance's draw (GM)",
        responses={200: DeclarationsSerializer, **READ_ERRORS, **_errors(403)},
        examples=[answer_example("one attack declared", {
            "phase": 42, "alliance_draw": True, "awaiting_draw": False, "declarations": [{
                "id": 5093482211, "seq": 1, "kind": "attack", "status": "pending",
                "stack": 8801273, "target": 7723110, "fortification": None,
                "text": "The stack in D4 attacks the stack in D3.", "void_reason": ""}]})],
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        return Response(DeclarationsSerializer(
            declarations_of(user=user, campaign=campaign)).data)


class DeclarationWithdrawApi(APIView):
    @extend_schema(
        operation_id="campaigns_declarations_withdraw",
        summary="Withdraw a declared combat before the alliance is asked to draw (GM)",
        request=None, responses={204: None, **WRITE_ERRORS},
    )
    def post(self, request: Request, campaign_id: int, declaration_id: int) -> Response:
        user = _user(request)
        campaign = lookups.member_campaign(user=user, campaign_id=campaign_id)
        declaration = Declaration.objects.filter(campaign=campaign, pk=declaration_id).first()
        if declaration is None:
            raise Http404
        declaration_withdraw(user=user, campaign=campaign, declaration=declaration)
        return Response(status=204)
