"""The demo battle scenarios (one per system) shipped in `scenarios/`: each file holds the
system, a name and description, the engine's settings and the `rules/` scenario itself."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from campaigns.games.battle.systems import SYSTEMS

_DIR = Path(__file__).resolve().parent / "scenarios"


@dataclass(frozen=True, kw_only=True)
class BattleScenario:
    key: str
    system: str
    name: str
    description: str
    settings: dict[str, Any]
    scenario: dict[str, Any]

    @property
    def system_name(self) -> str:
        return SYSTEMS[self.system].name


@cache
def battle_scenarios() -> tuple[BattleScenario, ...]:
    """Every demo scenario, in the order of the systems, then by name."""
    out = []
    for path in sorted(_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out.append(BattleScenario(key=data["key"], system=data["system"], name=data["name"],
                                  description=data["description"],
                                  settings=dict(data.get("settings") or {}),
                                  scenario=data["scenario"]))
    order = list(SYSTEMS)
    return tuple(sorted(out, key=lambda s: (order.index(s.system), s.name)))


def battle_scenario(key: str) -> BattleScenario | None:
    return next((s for s in battle_scenarios() if s.key == key), None)
