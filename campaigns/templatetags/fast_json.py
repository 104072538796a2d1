"""`fast_json_script`: Django's json_script filter written with orjson, for big documents."""

from __future__ import annotations

from typing import Any

import orjson
from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# json_script's escapes: nothing in the element can close it or open a comment.
_ESCAPES = ((b"<", b"\\u003C"), (b">", b"\\u003E"), (b"&", b"\\u0026"))


@register.filter(is_safe=True)
def fast_json_script(value: Any, element_id: str) -> SafeString:
    """What `value|json_script:element_id` writes (compact, and only for JSON's own types:
    anything else is an error). The map page embeds a 2 MB document on a 100 × 100 map with
    2,000 stacks, which the standard library's encoder took 25 ms of the page's ~100 to write;
    orjson takes under 2."""
    body = orjson.dumps(value)
    for char, escaped in _ESCAPES:
        body = body.replace(char, escaped)
    # Safe: the JSON is escaped above and the id by escape().
    return mark_safe(  # noqa: S308
        f'<script id="{escape(element_id)}" type="application/json">{body.decode()}</script>')
