"""campaigns.api.renderers.FastJSONRenderer: the same bytes as DRF's JSONRenderer."""

import datetime
import json
from decimal import Decimal

import pytest
from rest_framework.exceptions import ErrorDetail
from rest_framework.renderers import JSONRenderer

from campaigns.api.renderers import FastJSONRenderer

VALUE = {
    "points": Decimal("12.50"),
    "at": datetime.datetime(2026, 11, 23, 21, 0, tzinfo=datetime.UTC),
    "day": datetime.date(2026, 11, 23),
    "detail": ErrorDetail("Move costs 3; the stack has 2 left.", code="move_too_far"),
    7: "an int key",
    "name": "Jack Snipe — Wardog of Gobwin Knob",
    "nested": [{"hex": "A1", "hits": 3, "ok": True, "none": None, "ratio": 0.25}],
}


def test_the_same_bytes_as_drfs_renderer():
    assert FastJSONRenderer().render(VALUE) == JSONRenderer().render(VALUE)


def test_times_keep_drfs_z():
    assert json.loads(FastJSONRenderer().render(VALUE))["at"] == "2026-11-23T21:00:00Z"


def test_an_indent_in_the_accept_header_indents():
    body = FastJSONRenderer().render({"a": [1]}, "application/json; indent=4")
    assert body == b'{\n  "a": [\n    1\n  ]\n}'


def test_nothing_renders_as_an_empty_body():
    assert FastJSONRenderer().render(None) == b""


def test_what_neither_can_write_is_refused():
    with pytest.raises(TypeError):
        FastJSONRenderer().render({"x": object()})
