"""What the OpenAPI schema promises, operation by operation: a typed success answer, the
error answers that can happen (each the error body, with an example), a typed request body,
at least one example of a success, and every example valid against its own schema."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator

ERROR_REF = "#/components/schemas/Error"
JSON = "application/json"
# The calculators show no game state: open to anyone, so never 401 nor 403.
PUBLIC = {("post", "/api/v1/rules/{ruleset}/{command}/")}
# Reads whose query is never refused: a page number that is not one means the first unread.
LENIENT_QUERY = {("get", "/api/v1/campaigns/{campaign_id}/threads/{thread_id}/posts/")}


@cache
def schema() -> dict[str, Any]:
    """The schema as /api/schema/ serves it (test_schema.py checks it is served), as JSON."""
    return json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True),
                                 default=str))


def operations() -> list[Any]:
    return [pytest.param(method, path, id=f"{method.upper()} {path}")
            for path, item in schema()["paths"].items()
            for method in item if method in ("get", "post", "put", "patch", "delete")]


def operation(method: str, path: str) -> dict[str, Any]:
    return schema()["paths"][path][method]


def successes(op: dict[str, Any]) -> dict[str, Any]:
    return {code: answer for code, answer in op["responses"].items() if code.startswith("2")}


def expected_errors(method: str, path: str, op: dict[str, Any]) -> set[str]:
    """401 unless public; 404 for a path naming something; 400 for a body or a query to
    refuse; 403 for a change to a campaign (someone's rights) or a read of another's."""
    codes = set()
    if (method, path) not in PUBLIC:
        codes.add("401")
    if "{" in path:
        codes.add("404")
    query = any(p["in"] == "query" for p in op.get("parameters", []))
    if "requestBody" in op or (query and (method, path) not in LENIENT_QUERY):
        codes.add("400")
    if method != "get" and path.startswith("/api/v1/campaigns/{campaign_id}/"):
        codes.add("403")
    return codes


def examples_of(content: dict[str, Any]) -> list[Any]:
    media = content.get("content", {}).get(JSON, {})
    found = [e["value"] for e in media.get("examples", {}).values()]
    return found + ([media["example"]] if "example" in media else [])


@pytest.mark.parametrize(("method", "path"), operations())
def test_every_success_answer_is_typed(method, path):
    op = operation(method, path)
    answers = successes(op)
    assert answers, "no 2xx answer"
    for code, answer in answers.items():
        if code == "204":
            assert "content" not in answer
        else:
            assert "schema" in answer["content"][JSON], code


@pytest.mark.parametrize(("method", "path"), operations())
def test_every_request_body_is_typed(method, path):
    op = operation(method, path)
    if method in ("get", "delete"):
        assert "requestBody" not in op
    elif "requestBody" in op:
        assert set(op["requestBody"]["content"]) >= {JSON}
        assert "schema" in op["requestBody"]["content"][JSON]


@pytest.mark.parametrize(("method", "path"), operations())
def test_every_possible_error_is_documented_with_the_error_body_and_an_example(method, path):
    op = operation(method, path)
    errors = {code: answer for code, answer in op["responses"].items() if code.startswith("4")}
    assert set(errors) >= expected_errors(method, path, op)
    assert {code: answer["content"][JSON]["schema"] for code, answer in errors.items()} == {
        code: {"$ref": ERROR_REF} for code in errors}
    assert [code for code, answer in errors.items() if not examples_of(answer)] == []


@pytest.mark.parametrize(("method", "path"), operations())
def test_every_operation_has_an_example_of_a_success(method, path):
    op = operation(method, path)
    found = examples_of(op.get("requestBody", {}))
    for answer in successes(op).values():
        found += examples_of(answer)
    nothing_to_show = "requestBody" not in op and set(successes(op)) == {"204"}
    assert found or nothing_to_show


def nullable_to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as JSON Schema's null type (the rest is the same), and
    no field beyond those documented, so that an example cannot show an undocumented one."""
    if isinstance(node, list):
        return [nullable_to_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: nullable_to_json_schema(v) for k, v in node.items() if k != "nullable"}
    if "properties" in node and "additionalProperties" not in node:
        out["additionalProperties"] = False
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def validator(schema_part: dict[str, Any]) -> Draft202012Validator:
    root = nullable_to_json_schema({"components": schema()["components"]})
    return Draft202012Validator({**root, **nullable_to_json_schema(schema_part)})


@pytest.mark.parametrize(("method", "path"), operations())
def test_every_example_is_valid_against_its_schema(method, path):
    op = operation(method, path)
    parts = [op["requestBody"]] if "requestBody" in op else []
    parts += [answer for answer in op["responses"].values() if "content" in answer]
    problems = []
    for part in parts:
        media = part["content"].get(JSON)
        if media is None:
            continue
        check = validator(media["schema"])
        for value in examples_of(part):
            problems += [f"{error.json_path}: {error.message}"
                         for error in check.iter_errors(value)]
    assert problems == []
