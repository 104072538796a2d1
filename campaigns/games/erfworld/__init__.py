"""Erfworld's relational campaign engine, the one game whose state lives in tables (stacks,
units, fortifications, sightings), and the only package that imports `rules.erfworld` (the
import contract "a rule system is imported only by its game's adapter" in pyproject.toml).

- `game`: the adapter behind `campaigns.game.Game`, registered by `CampaignsConfig.ready`;
- the services that change its state (one transaction, row locks, rules checks, an event
  each): `setup`, `phases`, `move_combat`, `turns`, `draw`, `standing`, `gm_tools`,
  `saved_scenarios`, the deadline's work in `deadlines`, with `engine`, `knowledge`,
  `previews` and `fetch` under them;
- its reads: `army`, `lobby`, `gm_selectors`; its scenarios: `scenarios`;
- `rules`: the names of `rules.erfworld` the pages and the API need.

This module re-exports the services that the entry points, `seed_demo` and the tests call.
"""

from campaigns.games.erfworld.gm_tools import (
    fortification_adjust_hits,
    phase_revert,
    unit_adjust_hits,
)
from campaigns.games.erfworld.move_combat import (
    fortification_besiege,
    fortification_repair,
    stack_attack,
    stack_move,
    stack_reorder,
    stack_split,
    stacks_merge,
    units_mount,
)
from campaigns.games.erfworld.phases import (
    open_phase,
    orders_mark_done,
    orders_mark_not_done,
    phase_end,
    scout_order_cancel,
    scout_order_give,
)
from campaigns.games.erfworld.setup import (
    army_mark_not_ready,
    army_mark_ready,
    campaign_create_from_scenario,
    campaign_join,
    campaign_start,
    chief_warlord_appoint,
    chief_warlord_vote,
    deputy_choose,
    election_close,
    invite_regenerate,
    opposition_shuffle,
    unit_type_create,
    unit_type_delete,
    unit_type_update,
    units_buy,
)
from campaigns.games.erfworld.turns import pop_points_grant, pop_points_share, pops_buy

__all__ = [
    "army_mark_not_ready",
    "army_mark_ready",
    "campaign_create_from_scenario",
    "campaign_join",
    "campaign_start",
    "chief_warlord_appoint",
    "chief_warlord_vote",
    "deputy_choose",
    "election_close",
    "invite_regenerate",
    "opposition_shuffle",
    "fortification_adjust_hits",
    "fortification_besiege",
    "fortification_repair",
    "open_phase",
    "orders_mark_done",
    "orders_mark_not_done",
    "phase_end",
    "phase_revert",
    "pop_points_grant",
    "pop_points_share",
    "pops_buy",
    "scout_order_cancel",
    "scout_order_give",
    "stack_attack",
    "stack_move",
    "stack_reorder",
    "stack_split",
    "stacks_merge",
    "unit_adjust_hits",
    "unit_type_create",
    "unit_type_delete",
    "unit_type_update",
    "units_buy",
    "units_mount",
]
