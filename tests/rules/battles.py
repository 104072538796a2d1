"""Shared by the whole-battle tests of every rule system: play a battle out with a script,
and compare its events with the golden file (rewritten on purpose with
WARCAMP_UPDATE_GOLDEN=1, one event per line so that a change reads as a diff)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rules.battle import Outcome
from rules.dice import SeededDice


def play_out(engine: Any, scenario: dict[str, object], seed: str,
             choose: Callable[[Any], Sequence[Any]], *, settings: dict[str, Any] | None = None,
             limit: int = 3000) -> tuple[Any, list[dict[str, object]]]:
    """Start the scenario and give `choose(state)`'s orders until the battle is over."""
    dice = SeededDice(seed=seed)
    result = engine.start(scenario=scenario, settings=settings or {}, dice=dice)
    state, events = result.state, [e.to_json() for e in result.events]
    for _ in range(limit):
        if engine.outcome(state) is not None:
            break
        result = engine.step(state=state, orders=choose(state), dice=dice)
        state = result.state
        events.extend(e.to_json() for e in result.events)
    return state, events


def check_golden(path: Path, verdict: Outcome, events: list[dict[str, object]]) -> None:
    record = {"outcome": {"winner": verdict.winner, "reason": verdict.reason,
                          "scores": dict(verdict.scores)}, "events": events}
    if os.environ.get("WARCAMP_UPDATE_GOLDEN"):
        lines = ",\n".join(json.dumps(e, ensure_ascii=False) for e in events)
        path.parent.mkdir(exist_ok=True)
        path.write_text(f'{{"outcome": {json.dumps(record["outcome"])},\n"events": [\n'
                        f"{lines}\n]}}\n")
    assert record == json.loads(path.read_text())


def check_json_form(engine: Any, state: Any, orders: Sequence[Any]) -> None:
    """The state's JSON form loads back to the same JSON, and the loaded state continues
    exactly as the original: the same orders and dice give the same state and events."""
    data = json.loads(json.dumps(engine.state_to_json(state)))
    loaded = engine.state_from_json(data)
    assert engine.state_to_json(loaded) == data
    one = engine.step(state=state, orders=orders, dice=SeededDice(seed="next"))
    two = engine.step(state=loaded, orders=orders, dice=SeededDice(seed="next"))
    assert engine.state_to_json(one.state) == engine.state_to_json(two.state)
    assert [e.to_json() for e in one.events] == [e.to_json() for e in two.events]
