"""The API's JSON parser with bounds: nesting depth, and a clear 400 instead of a crash."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# No request of the API nests deeper than a calculator's map (object → list → object …).
MAX_DEPTH = 16


def depth_of(value: Any, limit: int) -> int:
    """The nesting depth of a decoded JSON value, counting no further than `limit` + 1."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return depth
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((v, depth + 1) for v in item)
    return deepest


class BoundedJSONParser(JSONParser):
    """JSON bodies nested at most MAX_DEPTH deep; deeper (or too deep for Python's own
    decoder) is 400 `parse_error`, never a server error."""

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: dict[str, Any] | None = None) -> Any:
        limit = getattr(settings, "API_JSON_MAX_DEPTH", MAX_DEPTH)
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {limit} levels.") from None
        if depth_of(data, limit) > limit:
            raise ParseError(f"JSON parse error - nested deeper than {limit} levels.")
        return data

