"""Every change of campaign state: one transaction, row locks, rules checks, an event each."""

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

__all__ = [
    "army_mark_not_ready",
    "army_mark_ready",
    "army_points_spent",
    "campaign_create_from_scenario",
    "campaign_join",
    "campaign_start",
    "chief_warlord_appoint",
    "chief_warlord_vote",
    "open_phase",
    "orders_mark_done",
    "phase_end",
    "scout_order_cancel",
    "scout_order_give",
    "unit_type_create",
    "unit_type_delete",
    "unit_type_update",
    "units_buy",
]
