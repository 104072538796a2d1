"""Domain errors of the campaign engine: a sentence for people, a code for machines.

The UI shows `str(error)`; the API answers HTTP 400 with `error.code` (and `error.field`
when one input field is to blame). A refused action has changed nothing.
"""

from __future__ import annotations


class CampaignError(ValueError):
    """A campaign action that is refused; the message is a sentence naming the rule."""

    default_code = "campaign_error"

    def __init__(self, message: str, *, code: str | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.field = field


class NotAllowedError(CampaignError):
    """The user may not do this: not a member, wrong side, GM-only, Chief-Warlord-only."""

    default_code = "not_allowed"


class WrongStateError(CampaignError):
    """The campaign or phase is not in the state this action needs (e.g. already started)."""

    default_code = "wrong_state"


class RuleViolationError(CampaignError):
    """The ruleset refuses the action (unit design, army limits, scout orders)."""

    default_code = "rule_violation"


class ScenarioError(CampaignError):
    """A scenario file that cannot be loaded; the message names the field and the problem."""

    default_code = "invalid_scenario"
