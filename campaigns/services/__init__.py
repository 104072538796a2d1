"""Every change of campaign state: one transaction, row locks, rules checks, an event each."""

from campaigns.services.gm_tools import (
    fortification_adjust_hits,
    phase_revert,
    unit_adjust_hits,
)
from campaigns.services.move_combat import (
    fortification_besiege,
    fortification_repair,
    stack_attack,
    stack_move,
    stack_reorder,
    stack_split,
    stacks_merge,
    units_mount,
)
from campaigns.services.phases import (
    open_phase,
    orders_mark_done,
    phase_end,
    scout_order_cancel,
    scout_order_give,
)
from campaigns.services.setup import (
    army_mark_not_ready,
    army_mark_ready,
    army_points_spent,
    campaign_create_from_scenario,
    campaign_join,
    campaign_start,
    chief_warlord_appoint,
    chief_warlord_vote,
    unit_type_create,
    unit_type_delete,
    unit_type_update,
    units_buy,
)
from campaigns.services.turns import pop_points_grant, pop_points_share, pops_buy

__all__ = [
    "army_mark_not_ready",
    "army_mark_ready",
    "army_points_spent",
    "campaign_create_from_scenario",
    "campaign_join",
    "campaign_start",
    "chief_warlord_appoint",
    "chief_warlord_vote",
    "fortification_adjust_hits",
    "fortification_besiege",
    "fortification_repair",
    "open_phase",
    "orders_mark_done",
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
