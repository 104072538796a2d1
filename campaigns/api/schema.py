"""OpenAPI generation: drf-spectacular's AutoSchema, naming the nested serializers of a view
after the view (`CampaignJoinApi.InputSerializer` → `CampaignJoinInput`), since HackSoft
views all call theirs InputSerializer and OutputSerializer."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema


class AutoSchema(SpectacularAutoSchema):
    def get_serializer_name(self, serializer: Any, direction: Any) -> str:
        qualname = type(serializer).__qualname__
        if "." not in qualname:
            return str(super().get_serializer_name(serializer, direction))
        view, _, name = qualname.rpartition(".")
        return view.removesuffix("Api") + name.removesuffix("Serializer")
