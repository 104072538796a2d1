"""Strict reading of calculator JSON: unknown fields, wrong types and ranges name the field."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")

JSONObject = Mapping[str, object]


class InputError(ValueError):
    """Bad calculator input; `field` is the dotted path of the offending value."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def child(path: str, name: str | int) -> str:
    if isinstance(name, int):
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


def as_object(value: object, path: str) -> JSONObject:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise InputError(path or "input", "must be a JSON object.")
    return value


def only_fields(obj: JSONObject, allowed: Collection[str], path: str) -> None:
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        names = ", ".join(sorted(allowed))
        raise InputError(child(path, unknown[0]), f"unknown field (allowed: {names}).")


def _get(obj: JSONObject, name: str, path: str, default: object, required: bool) -> object:
    if name not in obj or obj[name] is None:
        if required:
            raise InputError(child(path, name), "is required.")
        return default
    return obj[name]


def get_int(
    obj: JSONObject,
    name: str,
    path: str = "",
    *,
    default: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int:
    value = _get(obj, name, path, default, default is None)
    where = child(path, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, "must be a whole number.")
    if minimum is not None and value < minimum:
        raise InputError(where, f"must be at least {minimum}.")
    if maximum is not None and value > maximum:
        raise InputError(where, f"must be at most {maximum}.")
    return value


def get_optional_int(
    obj: JSONObject, name: str, path: str = "", *, minimum: int | None = None,
    maximum: int | None = None,
) -> int | None:
    if obj.get(name) is None:
        return None
    return get_int(obj, name, path, minimum=minimum, maximum=maximum)


def get_bool(obj: JSONObject, name: str, path: str = "", *, default: bool = False) -> bool:
    value = _get(obj, name, path, default, False)
    if not isinstance(value, bool):
        raise InputError(child(path, name), "must be true or false.")
    return value


def get_str(obj: JSONObject, name: str, path: str = "", *, default: str | None = None) -> str:
    value = _get(obj, name, path, default, default is None)
    if not isinstance(value, str):
        raise InputError(child(path, name), "must be a string.")
    return value


def get_choice(
    obj: JSONObject,
    name: str,
    choices: Sequence[str],
    path: str = "",
    *,
    default: str | None = None,
) -> str:
    value = get_str(obj, name, path, default=default)
    if value not in choices:
        raise InputError(child(path, name), f"must be one of {', '.join(choices)} (got {value!r}).")
    return value


def get_list(obj: JSONObject, name: str, path: str = "", *, default: bool = False) -> list[object]:
    value = _get(obj, name, path, [], not default)
    if not isinstance(value, list):
        raise InputError(child(path, name), "must be a JSON array.")
    return value


def get_str_list(obj: JSONObject, name: str, path: str = "", *, what: str = "a string"
                 ) -> tuple[str, ...]:
    """An optional list of strings (absent: empty)."""
    out = []
    for i, raw in enumerate(get_list(obj, name, path, default=True)):
        if not isinstance(raw, str):
            raise InputError(child(child(path, name), i), f"is {what}.")
        out.append(raw)
    return tuple(out)
