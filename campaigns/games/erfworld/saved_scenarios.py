"""Scenarios drawn in the scenario editor: validated like scenario files, saved by key."""

from __future__ import annotations

import copy
from typing import Any

from django.db import transaction

from accounts.models import User
from campaigns.errors import NotAllowedError, ScenarioError
from campaigns.games.erfworld.scenarios import (
    Scenario,
    file_scenario_keys,
    no_such_scenario,
    parse_scenario,
)
from campaigns.models import SavedScenario

# The largest map the server (and the browser map) is built for: 100 × 100 hexes.
MAX_MAP_SIDE = 100


def scenario_validate(*, key: str, data: object) -> Scenario:
    """The scenario `data` checked as a scenario file is, under the editor's own limits:
    its key must be `key`, and the map at most MAX_MAP_SIDE hexes each way."""
    if not isinstance(data, dict):
        raise ScenarioError("scenario: must be an object.", field="scenario")
    if data.get("key") != key:
        raise ScenarioError(f"key: the scenario says its key is {data.get('key')!r}, but it is "
                            f"saved as {key!r}.", field="key")
    if len(key) > 64:
        raise ScenarioError(f"key: at most 64 characters, not {len(key)}.", field="key")
    name = data.get("name")
    if isinstance(name, str) and len(name) > 120:
        raise ScenarioError(f"name: at most 120 characters, not {len(name)}.", field="name")
    map_data = data.get("map")
    if isinstance(map_data, dict):
        for side in ("cols", "rows"):
            value = map_data.get(side)
            if isinstance(value, int) and not isinstance(value, bool) and value > MAX_MAP_SIDE:
                raise ScenarioError(
                    f"map.{side}: a map has at most {MAX_MAP_SIDE} {side}, not {value}.",
                    field=f"map.{side}",
                )
    return parse_scenario(data)


@transaction.atomic
def scenario_save(*, user: User, key: str, data: dict[str, Any]) -> SavedScenario:
    """Create or update the saved scenario `key` (its author only) after full validation.

    Keys of scenario files are taken: a file always wins over a saved scenario of the same
    key, so saving one would be silently ignored by load_scenario."""
    if not user.is_authenticated:
        raise NotAllowedError("Log in to save a scenario.", code="not_authenticated")
    scenario = scenario_validate(key=key, data=data)
    if key in file_scenario_keys():
        raise ScenarioError(
            f"key: {key!r} is the key of a scenario file; choose another key.", field="key"
        )
    existing = SavedScenario.objects.select_for_update().filter(key=key).first()
    if existing is not None and existing.author_id != user.pk:
        raise NotAllowedError(
            f"key: the scenario {key!r} was made by someone else; choose another key.",
            code="not_author", field="key",
        )
    saved = existing or SavedScenario(key=key, author=user)
    saved.name = scenario.name
    saved.data = copy.deepcopy(data)
    saved.save()
    return saved


@transaction.atomic
def scenario_share(*, user: User, key: str, shared: bool) -> SavedScenario:
    """Share a saved scenario of one's own with every GM (they may make campaigns from it, never
    open it), or take it back (campaigns already made from it keep their copy)."""
    saved = SavedScenario.objects.select_for_update().filter(key=key).first()
    if saved is None or (saved.author_id != user.pk and not saved.shared):
        # Another author's unshared scenario is as unknown as a key nobody used.
        raise no_such_scenario(key, user.pk)
    if saved.author_id != user.pk:
        raise NotAllowedError("Only its author may share a scenario or take it back.",
                              code="not_author", field="key")
    if saved.shared != shared:
        saved.shared = shared
        saved.save(update_fields=["shared", "updated_at"])
    return saved
