"""Response shapes shared by several API views (the rest are nested in their views)."""

from __future__ import annotations

from rest_framework import serializers

from campaigns.models import FortificationKind, PhaseKind, Role, SideKind


class PhaseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=PhaseKind.choices)
    turn = serializers.IntegerField()
    opened_at = serializers.DateTimeField()
    deadline_at = serializers.DateTimeField()
    dice_commitment = serializers.CharField(help_text="SHA-256 of the phase's secret dice seed.")
    awaiting_draw = serializers.BooleanField(
        help_text="The opposition's orders are in and its declared combats wait for the "
        "alliance's draw (`phase/draw/`); `deadline_at` is then the draw's deadline.")


class UnitSerializer(serializers.Serializer):
    """A unit. Another side's unit shows only `name`, `unit_type` and `current_hits` (what a
    sighting shows); the other fields are present for the viewer's own side."""

    id = serializers.IntegerField(required=False)
    name = serializers.CharField()
    unit_type = serializers.CharField()
    current_hits = serializers.IntegerField()
    owner = serializers.IntegerField(required=False, allow_null=True)
    hits = serializers.IntegerField(required=False)
    attack = serializers.IntegerField(required=False)
    defence = serializers.IntegerField(required=False)
    move = serializers.IntegerField(required=False)
    specials = serializers.ListField(child=serializers.CharField(), required=False)
    commander_level = serializers.IntegerField(required=False, allow_null=True)
    commander_xp = serializers.IntegerField(required=False)
    movement_used = serializers.IntegerField(required=False)
    has_attacked = serializers.BooleanField(required=False)
    was_commanded = serializers.BooleanField(required=False)
    mount = serializers.IntegerField(required=False, allow_null=True)


class StackSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    hex = serializers.CharField()
    side = serializers.ChoiceField(choices=SideKind.choices)
    units = UnitSerializer(many=True)
    declared = serializers.IntegerField(
        required=False, help_text="GM only: the stack's combat declared for the alliance's "
        "draw (its place in the order); the stack waits for the draw.")


class HexSerializer(serializers.Serializer):
    hex = serializers.CharField(help_text='Label, e.g. "J10".')
    terrain = serializers.CharField()


class FortificationSerializer(serializers.Serializer):
    hex = serializers.CharField()
    kind = serializers.ChoiceField(choices=FortificationKind.choices)
    direction = serializers.CharField(allow_null=True, help_text="The hexside of a wall.")
    owner = serializers.ChoiceField(choices=SideKind.choices)
    hits = serializers.IntegerField(
        allow_null=True, help_text="Its hits now when you hold it or occupy its hex; else as "
        "your side last witnessed them (see seen_turn); null when never witnessed.")
    starting_hits = serializers.IntegerField(allow_null=True)
    seen_turn = serializers.IntegerField(
        allow_null=True, help_text="The turn your side learned `hits`; null when they are "
        "current (or unknown).")


class SightingSerializer(serializers.Serializer):
    hex = serializers.CharField()
    turn = serializers.IntegerField(help_text="The turn of this latest sighting.")
    seen = serializers.JSONField(help_text="What the scouts saw: terrain, stacks, fortifications.")


class MapSizeSerializer(serializers.Serializer):
    cols = serializers.IntegerField()
    rows = serializers.IntegerField()
    default_terrain = serializers.CharField(help_text="Terrain of every hex not in `hexes`.")


class ViewerSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices)
    side = serializers.CharField(allow_null=True)


class MapStateSerializer(serializers.Serializer):
    turn = serializers.IntegerField(allow_null=True)
    phase = PhaseSerializer(allow_null=True)
    viewer = ViewerSerializer()
    map = MapSizeSerializer()
    hexes = HexSerializer(many=True, help_text="Every non-open hex whose terrain you know.")
    fortifications = FortificationSerializer(many=True)
    stacks = StackSerializer(many=True)
    sightings = SightingSerializer(many=True)


class PhasePlayerSerializer(serializers.Serializer):
    membership = serializers.IntegerField(help_text="The player's membership id.")
    name = serializers.CharField()
    is_chief_warlord = serializers.BooleanField()
    done = serializers.BooleanField()
    done_at = serializers.DateTimeField(allow_null=True)
    late = serializers.BooleanField()
    proxied_by = serializers.CharField(allow_null=True, help_text="The Chief Warlord's name.")


class PhaseBoardSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=PhaseKind.choices)
    phase_name = serializers.CharField()
    opened_at = serializers.DateTimeField()
    deadline_at = serializers.DateTimeField()
    dice_commitment = serializers.CharField()
    players = PhasePlayerSerializer(many=True)
