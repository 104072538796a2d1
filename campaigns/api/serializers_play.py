"""Response shapes of the play API shared by several views (reachable hexes, attack odds,
fortifications with their ids)."""

from __future__ import annotations

from rest_framework import serializers

from campaigns.api.serializers import FortificationSerializer


class ReachableHexSerializer(serializers.Serializer):
    hex = serializers.CharField()
    cost = serializers.IntegerField(help_text="Movement points the best way there costs.")


class ReachableSerializer(serializers.Serializer):
    stack = serializers.IntegerField()
    move_left = serializers.IntegerField(
        help_text="The stack's allowance: the smallest movement left among its movers.")
    road_move_left = serializers.IntegerField(
        allow_null=True, help_text="The allowance of a move wholly on road (+1), when open.")
    hexes = ReachableHexSerializer(many=True)


class ExactSerializer(serializers.Serializer):
    p = serializers.CharField(help_text='Exact, as a fraction: "13/4".')
    value = serializers.FloatField(help_text="Rounded to 4 places.")


class HitsChanceSerializer(serializers.Serializer):
    hits = serializers.IntegerField()
    p = serializers.CharField(help_text='Exact probability: "5/36".')
    chance = serializers.FloatField(help_text="The same rounded to 4 places.")


class UnitOddsSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    side = serializers.ChoiceField(choices=["attacker", "defender"])
    current_hits = serializers.IntegerField(help_text="Before the combat.")
    croak = serializers.CharField(help_text="Exact chance of being croaked.")
    croak_chance = serializers.FloatField()
    expected_hits_after = ExactSerializer()


class WinnerOddsSerializer(serializers.Serializer):
    attacker = ExactSerializer()
    defender = ExactSerializer()
    none = ExactSerializer()


class OddsSerializer(serializers.Serializer):
    order = serializers.CharField(help_text="Who strikes first (§3).")
    hits_on_defender = HitsChanceSerializer(many=True, help_text="Hits the attacker deals.")
    hits_on_attacker = HitsChanceSerializer(many=True, help_text="Hits the defender deals.")
    expected_hits_on_defender = ExactSerializer()
    expected_hits_on_attacker = ExactSerializer()
    winner = WinnerOddsSerializer()
    units = UnitOddsSerializer(many=True, help_text="Attacking units, then defending units.")
    branches = serializers.IntegerField(help_text="Distinct outcomes enumerated.")


class PreviewAttackerSerializer(serializers.Serializer):
    stack = serializers.IntegerField()
    hex = serializers.CharField()
    ranged = serializers.BooleanField()
    units = serializers.ListField(child=serializers.IntegerField(),
                                  help_text="The units that would attack.")
    left_out = serializers.ListField(child=serializers.CharField(),
                                     help_text="Units that already attacked this turn.")


class PreviewDefenderSerializer(serializers.Serializer):
    stack = serializers.IntegerField()
    hex = serializers.CharField()
    units = serializers.ListField(child=serializers.IntegerField())
    fortification_hits = serializers.IntegerField(help_text="Tower + wall facing the attack.")
    fortified = serializers.BooleanField()
    protectors = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Other stacks of the hex that may retaliate specially.")


class AttackPreviewSerializer(serializers.Serializer):
    attacker = PreviewAttackerSerializer()
    defender = PreviewDefenderSerializer()
    odds = OddsSerializer()


class FortificationWithIdSerializer(FortificationSerializer):
    id = serializers.IntegerField()


class SiegeDamageSerializer(serializers.Serializer):
    damage = serializers.IntegerField()
    p = serializers.CharField(help_text='Exact probability: "1/12".')
    chance = serializers.FloatField(help_text="The same rounded to 4 places.")


class SiegeOddsSerializer(serializers.Serializer):
    siege_attack = serializers.IntegerField(help_text="Sum of the striking siege units' attack.")
    cb = serializers.CharField(help_text='Command bonus, exact ("11/10").')
    units = serializers.ListField(child=serializers.IntegerField(),
                                  help_text="The siege units that strike.")
    damage = SiegeDamageSerializer(many=True, help_text="Damage over the 36 rolls of the 2d6.")
    expected_damage = ExactSerializer()


class SiegeTargetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    hex = serializers.CharField()
    kind = serializers.ChoiceField(choices=["tower", "wall"])
    direction = serializers.CharField(allow_null=True, help_text="A wall's hexside.")
    description = serializers.CharField()
    owner = serializers.CharField(allow_null=True)
    hits = serializers.IntegerField(
        allow_null=True, help_text="Only when your side sees them now (its hex).")
    starting_hits = serializers.IntegerField(allow_null=True)


class SiegeTargetsSerializer(serializers.Serializer):
    stack = serializers.IntegerField()
    hex = serializers.CharField()
    targets = SiegeTargetSerializer(many=True)
    odds = SiegeOddsSerializer(allow_null=True, help_text="Null when there is no target.")
