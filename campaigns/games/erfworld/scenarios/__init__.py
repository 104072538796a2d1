"""Scenario files (JSON, next to this module) and their validating loader.

A scenario is plain data: map size and terrain, entry and pop hexes, the victory hex,
fortifications, and the opposition's unit types and stacks. `load_scenario(key)` reads
`<key>.json`, or else the GM-made SavedScenario of that key (the same JSON, drawn in the
scenario editor); `parse_scenario(data)` checks everything (shape here, rules through the
ruleset) and returns frozen dataclasses, or raises ScenarioError naming the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from campaigns.errors import ScenarioError
from rules.erfworld.board import Board, board_from_labels
from rules.erfworld.types import UnitStats
from rules.erfworld.units import unit_stats_from_dict, validate_unit_type
from rules.hexgrid import Grid, parse_label
from rules.registry import ruleset_keys

# The rule systems the campaign engine referees whole campaigns of.
CAMPAIGN_RULESETS = ("erfworld",)

SCENARIO_DIR = Path(__file__).resolve().parent
_KEY = re.compile(r"[a-z][a-z0-9_]*")
SETTING_NAMES = ("phase_hours", "points_budget", "max_unit_types", "ambush_value")
HEXSIDES = ("N", "NE", "SE", "S", "SW", "NW")


@dataclass(frozen=True, kw_only=True)
class ScenarioFortification:
    hex: str
    owner: str
    tower: int | None
    walls: Mapping[str, int]


@dataclass(frozen=True, kw_only=True)
class ScenarioUnitType:
    name: str
    stats: UnitStats


@dataclass(frozen=True, kw_only=True)
class ScenarioStack:
    hex: str
    units: tuple[tuple[str, int], ...]  # (unit type name, count), in stack order
    # Other hexes it may start in: a campaign that varies the opposition draws one of
    # (hex, *candidates) for it, so reading the scenario does not tell where it stands.
    candidates: tuple[str, ...] = ()


MAX_CANDIDATES = 12


@dataclass(frozen=True, kw_only=True)
class Scenario:
    key: str
    name: str
    ruleset: str
    description: str
    settings: Mapping[str, int | bool]
    side_names: Mapping[str, str]
    cols: int
    rows: int
    terrain: Mapping[str, str]
    entry_hex: str
    pop_hexes: tuple[str, ...]
    victory_hex: str
    fortifications: tuple[ScenarioFortification, ...]
    unit_types: tuple[ScenarioUnitType, ...]
    stacks: tuple[ScenarioStack, ...]
    board: Board


def file_scenario_keys() -> list[str]:
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.json"))


def saved_scenario_keys() -> list[str]:
    # Imported here: this module is plain data loading and must import before the app
    # registry is ready (management commands, the rules CLI's neighbours).
    from campaigns.models import SavedScenario

    return sorted(SavedScenario.objects.values_list("key", flat=True))


def scenario_keys() -> list[str]:
    """Every scenario a campaign can be created from: the files, then the GM-made ones."""
    return sorted({*file_scenario_keys(), *saved_scenario_keys()})


def usable_scenario_keys(user_id: int | None) -> list[str]:
    """The keys a user may make a campaign from: every file, their own saved scenarios and the
    ones their authors shared."""
    from django.db.models import Q

    from campaigns.models import SavedScenario

    saved = SavedScenario.objects.filter(Q(shared=True) | Q(author_id=user_id))
    return sorted({*file_scenario_keys(), *saved.values_list("key", flat=True)})


def no_such_scenario(key: str, user_id: int | None) -> ScenarioError:
    """The same answer for an unknown key and for another author's unshared scenario."""
    known = ", ".join(usable_scenario_keys(user_id))
    return ScenarioError(f"There is no scenario {key!r}; known scenarios: {known}.")


def load_usable_scenario(key: str, user_id: int | None) -> Scenario:
    """load_scenario for a user: another author's unshared scenario is unknown to them."""
    if _KEY.fullmatch(key) and key not in usable_scenario_keys(user_id):
        raise no_such_scenario(key, user_id)
    return load_scenario(key)


def load_scenario(key: str) -> Scenario:
    """The scenario `<key>.json` of this folder, or else the saved scenario `key`, validated.

    A file wins over a saved scenario of the same key (scenario_save refuses such keys)."""
    if not _KEY.fullmatch(key):
        raise ScenarioError(f"Scenario key {key!r} must be lowercase letters, digits and _.")
    path = SCENARIO_DIR / f"{key}.json"
    if not path.exists():
        return _load_saved(key)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path.name} is not valid JSON: {exc}.") from exc
    scenario = parse_scenario(data)
    if scenario.key != key:
        raise ScenarioError(f"key: {path.name} says its key is {scenario.key!r}, not {key!r}.")
    return scenario


def _load_saved(key: str) -> Scenario:
    from campaigns.models import SavedScenario

    data = SavedScenario.objects.filter(key=key).values_list("data", flat=True).first()
    if data is None:
        raise no_such_scenario(key, None)
    # Saved data passed parse_scenario when it was saved; it is checked again because the
    # rules may have changed since, and a campaign must never start from an invalid map.
    scenario = parse_scenario(data)
    if scenario.key != key:
        raise ScenarioError(f"key: saved scenario {key!r} says its key is {scenario.key!r}.")
    return scenario


def _fail(field: str, message: str) -> ScenarioError:
    return ScenarioError(f"{field}: {message}", field=field)


def _obj(data: object, field: str) -> Mapping[str, object]:
    if not isinstance(data, dict):
        raise _fail(field, "must be an object.")
    return data


def _get(data: Mapping[str, object], key: str, field: str) -> object:
    if key not in data:
        raise _fail(f"{field}.{key}" if field else key, "is required.")
    return data[key]


def _str(value: object, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(field, "must be a non-empty string.")
    return value


def _int(value: object, field: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(field, f"must be a whole number, not {value!r}.")
    if value < minimum:
        raise _fail(field, f"must be {minimum} or more, not {value}.")
    return value


def _list(value: object, field: str) -> list[object]:
    if not isinstance(value, list):
        raise _fail(field, "must be a list.")
    return value


def _label(value: object, field: str, cols: int, rows: int) -> str:
    label = _str(value, field)
    try:
        h = parse_label(label)
    except ValueError as exc:
        raise _fail(field, str(exc)) from exc
    if not Grid(cols=cols, rows=rows).contains(h):
        raise _fail(field, f"hex {label} is not on the {cols} × {rows} map.")
    return label


def _reject_unknown(data: Mapping[str, object], allowed: tuple[str, ...], field: str) -> None:
    for key in data:
        if key not in allowed:
            where = f"{field}.{key}" if field else key
            raise _fail(where, f"unknown field (allowed: {', '.join(allowed)}).")


def parse_scenario(data: object) -> Scenario:
    """A validated Scenario from a scenario file's JSON; ScenarioError names what is wrong."""
    top = _obj(data, "scenario")
    _reject_unknown(
        top,
        (
            "key", "name", "ruleset", "description", "settings", "sides", "map", "entry_hex",
            "pop_hexes", "victory_hex", "fortifications", "opposition",
        ),
        "",
    )
    key = _str(_get(top, "key", ""), "key")
    if not _KEY.fullmatch(key):
        raise _fail("key", f"{key!r} must be lowercase letters, digits and _.")
    name = _str(_get(top, "name", ""), "name")
    ruleset = _str(_get(top, "ruleset", ""), "ruleset")
    if ruleset not in ruleset_keys():
        raise _fail("ruleset", f"unknown ruleset {ruleset!r}; known: {', '.join(ruleset_keys())}.")
    if ruleset not in CAMPAIGN_RULESETS:
        # A scenario of this shape is an Erfworld campaign: naming another rule system would
        # only label an Erfworld game with its name.
        raise _fail("ruleset", f"a campaign scenario is for {', '.join(CAMPAIGN_RULESETS)}; "
                    f"the {ruleset} rules referee single battles (python -m rules {ruleset} "
                    "battle-start), not campaigns yet.")
    description = top.get("description", "")
    if not isinstance(description, str):
        raise _fail("description", "must be a string.")

    settings = _parse_settings(top.get("settings", {}))
    sides = _obj(_get(top, "sides", ""), "sides")
    _reject_unknown(sides, ("alliance", "opposition"), "sides")
    side_names = {
        k: _str(_get(sides, k, "sides"), f"sides.{k}") for k in ("alliance", "opposition")
    }

    map_data = _obj(_get(top, "map", ""), "map")
    _reject_unknown(map_data, ("cols", "rows", "terrain"), "map")
    cols = _int(_get(map_data, "cols", "map"), "map.cols", minimum=1)
    rows = _int(_get(map_data, "rows", "map"), "map.rows", minimum=1)
    terrain_data = _obj(map_data.get("terrain", {}), "map.terrain")
    terrain = {
        _label(k, f"map.terrain[{k}]", cols, rows): _str(v, f"map.terrain[{k}]")
        for k, v in terrain_data.items()
    }

    entry_hex = _label(_get(top, "entry_hex", ""), "entry_hex", cols, rows)
    pop_hexes = tuple(
        _label(v, f"pop_hexes[{i}]", cols, rows)
        for i, v in enumerate(_list(top.get("pop_hexes", []), "pop_hexes"))
    )
    victory_hex = _label(_get(top, "victory_hex", ""), "victory_hex", cols, rows)

    forts = tuple(
        _parse_fortification(f, f"fortifications[{i}]", cols, rows)
        for i, f in enumerate(_list(top.get("fortifications", []), "fortifications"))
    )
    seen_forts: set[str] = set()
    for i, f in enumerate(forts):
        if f.hex in seen_forts:
            raise _fail(f"fortifications[{i}]", f"hex {f.hex} is listed twice.")
        seen_forts.add(f.hex)

    opposition = _obj(top.get("opposition", {}), "opposition")
    _reject_unknown(opposition, ("unit_types", "stacks"), "opposition")
    unit_types = tuple(
        _parse_unit_type(u, f"opposition.unit_types[{i}]")
        for i, u in enumerate(_list(opposition.get("unit_types", []), "opposition.unit_types"))
    )
    type_names = [u.name for u in unit_types]
    for i, n in enumerate(type_names):
        if n in type_names[:i]:
            raise _fail(f"opposition.unit_types[{i}].name", f"unit type {n!r} is listed twice.")
    stacks = tuple(
        _parse_stack(s, f"opposition.stacks[{i}]", cols, rows, set(type_names))
        for i, s in enumerate(_list(opposition.get("stacks", []), "opposition.stacks"))
    )

    # The ruleset checks the map as a whole (terrain names, hexsides, hits, owners).
    try:
        board = board_from_labels(
            cols=cols,
            rows=rows,
            terrain=terrain,
            towers={f.hex: (f.tower, f.owner) for f in forts if f.tower is not None},
            walls={f.hex: dict(f.walls) for f in forts if f.walls},
            fort_owners={f.hex: f.owner for f in forts},
            stacks={"opposition": [s.hex for s in stacks]},
        )
    except ValueError as exc:
        raise ScenarioError(f"map: {exc}", field="map") from exc

    return Scenario(
        key=key,
        name=name,
        ruleset=ruleset,
        description=description,
        settings=settings,
        side_names=side_names,
        cols=cols,
        rows=rows,
        terrain=terrain,
        entry_hex=entry_hex,
        pop_hexes=pop_hexes,
        victory_hex=victory_hex,
        fortifications=forts,
        unit_types=unit_types,
        stacks=stacks,
        board=board,
    )


def _parse_settings(data: object) -> dict[str, int | bool]:
    obj = _obj(data, "settings")
    _reject_unknown(obj, (*SETTING_NAMES, "terrain_known_to_all"), "settings")
    out: dict[str, int | bool] = {}
    for name in SETTING_NAMES:
        if name in obj:
            out[name] = _int(obj[name], f"settings.{name}", minimum=1)
    if "terrain_known_to_all" in obj:
        value = obj["terrain_known_to_all"]
        if not isinstance(value, bool):
            raise _fail("settings.terrain_known_to_all", "must be true or false.")
        out["terrain_known_to_all"] = value
    return out


def _parse_fortification(data: object, field: str, cols: int, rows: int) -> ScenarioFortification:
    obj = _obj(data, field)
    _reject_unknown(obj, ("hex", "owner", "tower", "walls"), field)
    hex_label = _label(_get(obj, "hex", field), f"{field}.hex", cols, rows)
    owner = _str(_get(obj, "owner", field), f"{field}.owner")
    if owner not in ("alliance", "opposition"):
        raise _fail(f"{field}.owner", f"must be alliance or opposition, not {owner!r}.")
    tower = None
    if "tower" in obj:
        tower = _int(obj["tower"], f"{field}.tower", minimum=1)
    walls_obj = _obj(obj.get("walls", {}), f"{field}.walls")
    walls: dict[str, int] = {}
    for side, hits in walls_obj.items():
        if side not in HEXSIDES:
            raise _fail(f"{field}.walls.{side}", f"a hexside is one of {', '.join(HEXSIDES)}.")
        walls[side] = _int(hits, f"{field}.walls.{side}", minimum=1)
    if tower is None and not walls:
        raise _fail(field, f"the fortification in {hex_label} needs a tower or walls.")
    return ScenarioFortification(hex=hex_label, owner=owner, tower=tower, walls=walls)


def _parse_unit_type(data: object, field: str) -> ScenarioUnitType:
    obj = _obj(data, field)
    name = _str(_get(obj, "name", field), f"{field}.name")
    try:
        stats = unit_stats_from_dict(obj, where=field, extra_fields=("name",))
    except ValueError as exc:
        raise ScenarioError(str(exc), field=getattr(exc, "field", field)) from exc
    errors = validate_unit_type(stats, name=name)
    if errors:
        raise ScenarioError(f"{field}: {' '.join(errors)}", field=field)
    return ScenarioUnitType(name=name, stats=stats)


def _parse_stack(
    data: object, field: str, cols: int, rows: int, type_names: set[str]
) -> ScenarioStack:
    obj = _obj(data, field)
    _reject_unknown(obj, ("hex", "units", "candidates"), field)
    hex_label = _label(_get(obj, "hex", field), f"{field}.hex", cols, rows)
    candidates: list[str] = []
    for i, item in enumerate(_list(obj.get("candidates", []), f"{field}.candidates")):
        label = _label(item, f"{field}.candidates[{i}]", cols, rows)
        if label == hex_label or label in candidates:
            raise _fail(f"{field}.candidates[{i}]", f"{label} is already one of the stack's "
                        "start hexes.")
        candidates.append(label)
    if len(candidates) > MAX_CANDIDATES:
        raise _fail(f"{field}.candidates", f"at most {MAX_CANDIDATES} other start hexes, not "
                    f"{len(candidates)}.")
    units: list[tuple[str, int]] = []
    for i, item in enumerate(_list(_get(obj, "units", field), f"{field}.units")):
        where = f"{field}.units[{i}]"
        entry = _obj(item, where)
        _reject_unknown(entry, ("type", "count"), where)
        type_name = _str(_get(entry, "type", where), f"{where}.type")
        if type_name not in type_names:
            raise _fail(f"{where}.type", f"unknown unit type {type_name!r}.")
        units.append((type_name, _int(entry.get("count", 1), f"{where}.count", minimum=1)))
    if not units:
        raise _fail(f"{field}.units", "a stack needs at least one unit.")
    return ScenarioStack(hex=hex_label, units=tuple(units), candidates=tuple(candidates))
