"""`FastJSONRenderer`: DRF's JSON renderer written with orjson, for the big answers (the map:
2 MB on a 100 × 100 map, which the standard library's encoder takes about 25 ms to write)."""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_fallback = JSONEncoder().default


class FastJSONRenderer(JSONRenderer):
    """The same document as `JSONRenderer` (compact, UTF-8, dict keys that are not strings
    written as strings); datetimes and what orjson cannot write itself (Decimal, lazy
    translations, …) go through DRF's encoder, so times keep DRF's "Z". U+2028 and U+2029
    stay raw (DRF escapes them; both are valid JSON). An `indent` asked for in the Accept
    header, or by the browsable API, gives two spaces."""

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        if data is None:
            return b""
        indent = self.get_indent(accepted_media_type or "", renderer_context or {})
        option = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS
        if indent:
            option |= orjson.OPT_INDENT_2
        return orjson.dumps(data, default=_fallback, option=option)
