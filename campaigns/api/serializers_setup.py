"""Response shapes shared by the setup, report, event and dice views (api/views_setup.py)."""

from __future__ import annotations

from rest_framework import serializers

from campaigns.games.erfworld.rules import Special
from campaigns.models import EventKind, PhaseKind, PhaseStatus, SideKind


class UnitTypeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    side = serializers.ChoiceField(choices=SideKind.choices, source="side.kind")
    owner = serializers.IntegerField(source="owner_id", allow_null=True,
                                     help_text="The designing player's membership id.")
    hits = serializers.IntegerField()
    attack = serializers.IntegerField()
    defence = serializers.IntegerField()
    move = serializers.IntegerField()
    specials = serializers.ListField(
        child=serializers.ChoiceField(choices=[s.value for s in Special]))
    cost = serializers.DecimalField(max_digits=10, decimal_places=3, coerce_to_string=True,
                                    help_text="Points a unit of this type costs (exact).")
    units_bought = serializers.IntegerField(required=False)


class DiceRollCheckSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="The roll's number within its seed.")
    purpose = serializers.CharField(
        help_text='What it was for; "hidden" when it would tell another side\'s secrets.')
    sides = serializers.IntegerField()
    value = serializers.IntegerField(help_text="The value recorded when it was rolled.")
    expected = serializers.IntegerField(help_text="The value the revealed seed gives.")
    matches = serializers.BooleanField()


class DiceVerificationSerializer(serializers.Serializer):
    commitment = serializers.CharField(help_text="SHA-256 of the seed, published in advance.")
    seed = serializers.CharField(allow_null=True, help_text="null until revealed.")
    revealed = serializers.BooleanField()
    commitment_ok = serializers.BooleanField(
        allow_null=True, help_text="The seed hashes to the commitment; null until revealed.")
    rolls = DiceRollCheckSerializer(many=True, help_text="Empty until the seed is revealed.")
    all_match = serializers.BooleanField(
        allow_null=True, help_text="The commitment and every roll check out; null until revealed.")


class DicePhaseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    turn = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=PhaseKind.choices)
    status = serializers.ChoiceField(choices=PhaseStatus.choices)
    opened_at = serializers.DateTimeField()
    closed_at = serializers.DateTimeField(allow_null=True)


class DrawSerializer(serializers.Serializer):
    asked_at = serializers.DateTimeField(help_text="When the GM ended the opposition's orders.")
    drawn_at = serializers.DateTimeField(allow_null=True)
    text = serializers.CharField(allow_null=True, allow_blank=True,
                                 help_text="The draw; empty when the server drew at the "
                                 "draw's deadline; null until drawn.")
    by = serializers.CharField(allow_null=True, help_text="The alliance player who drew.")
    by_server = serializers.BooleanField()
    first_roll = serializers.IntegerField(
        allow_null=True, help_text="Rolls from this number on use the mixed seed.")
    mixed_seed = serializers.CharField(
        allow_null=True, help_text="HMAC-SHA256(key=seed, msg=\"draw:\" + text); null until "
        "the seed is revealed.")


class PhaseDiceSerializer(DiceVerificationSerializer):
    phase = DicePhaseSerializer()
    draw = DrawSerializer(allow_null=True, help_text="The alliance's draw of an opposition "
                          "phase; null where none was asked.")


class SetupDiceInfoSerializer(serializers.Serializer):
    revealed_at = serializers.DateTimeField(allow_null=True,
                                            help_text="When the campaign started.")


class SetupDiceSerializer(DiceVerificationSerializer):
    setup = SetupDiceInfoSerializer()


class EventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=EventKind.choices)
    phase = serializers.IntegerField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True)
    side = serializers.ChoiceField(
        choices=SideKind.choices, allow_null=True,
        help_text="null: for everyone in the campaign; else for that side and the GM.")
    actor = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    summary = serializers.CharField()
    payload = serializers.JSONField(
        help_text="Everything recorded: for a combat every factor and die, for a scout report "
        "every sighting.")
