"""campaigns.selectors.map_json.json_script_element: the element and document Django's json_script writes."""

import json
import re

import orjson
from django.utils.html import json_script

from campaigns.selectors.map_json import json_script_element

VALUE = {"name": "</script><!-- & <b>é ✓", "numbers": [1, 2.5, None, True, False], "nested": {}}


def _parts(html: str) -> tuple[str, object]:
    match = re.fullmatch(r'(<script id="[^"]*" type="application/json">)(.*)</script>', html,
                         re.S)
    assert match is not None, html
    return match.group(1), json.loads(match.group(2))


def _element(value, element_id="map-data") -> str:
    return json_script_element(orjson.dumps(value), element_id).decode()


def test_it_writes_the_element_and_document_json_script_writes():
    assert _parts(_element(VALUE)) == _parts(json_script(VALUE, "map-data"))


def test_nothing_in_the_document_can_close_the_element_or_open_a_comment():
    html = _element(VALUE)
    body = html[len('<script id="map-data" type="application/json">'):-len("</script>")]
    assert ([c for c in "<>&" if c in body], body.count("\\u003C"), body.count("\\u0026")) == (
        [], 3, 1)


def test_the_id_is_escaped():
    assert _element({}, 'x"><b>').startswith(
        '<script id="x&quot;&gt;&lt;b&gt;" type="application/json">')
