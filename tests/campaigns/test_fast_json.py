"""campaigns.templatetags.fast_json: the same element and document as Django's json_script."""

import json
import re

import pytest
from django.template import Context, Template
from django.utils.html import json_script

from campaigns.templatetags.fast_json import fast_json_script

VALUE = {"name": "</script><!-- & <b>é ✓", "numbers": [1, 2.5, None, True, False], "nested": {}}


def _parts(html: str) -> tuple[str, object]:
    match = re.fullmatch(r'(<script id="[^"]*" type="application/json">)(.*)</script>', str(html),
                         re.S)
    assert match is not None, html
    return match.group(1), json.loads(match.group(2))


def test_it_writes_the_element_and_document_json_script_writes():
    assert _parts(fast_json_script(VALUE, "map-data")) == _parts(json_script(VALUE, "map-data"))


def test_nothing_in_the_document_can_close_the_element_or_open_a_comment():
    html = str(fast_json_script(VALUE, "map-data"))
    body = html[len('<script id="map-data" type="application/json">'):-len("</script>")]
    assert [c for c in "<>&" if c in body] == []


def test_the_filter_in_a_template():
    html = Template('{% load fast_json %}{{ value|fast_json_script:"x" }}').render(
        Context({"value": VALUE}))
    assert _parts(html) == ('<script id="x" type="application/json">', VALUE)


def test_a_value_json_cannot_hold_is_an_error():
    with pytest.raises(TypeError):
        fast_json_script({"when": object()}, "x")
