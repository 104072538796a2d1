"""The seam between the campaign's life and the game it runs.

The campaign's life (members and sides, phases and deadlines, dice commit–reveal, events, the
forum, notifications, webhooks, exports, the archive) knows a game only through `Game`: who
acts in the open phase, which orders a member may give now, giving them, closing the phase,
what happens at its deadline, and what a member may see. Each game registers one `Game` when
Django starts (`CampaignsConfig.ready`): Erfworld's relational campaign engine
(`campaigns.games.erfworld`) and the battles refereed by `rules/` (`campaigns.games.battle`).
This module is a foundation: it imports no service, so the services below the games (the
deadline sweep) reach them through `game_for` (docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from accounts.models import User
from campaigns.errors import WrongStateError
from campaigns.models import Campaign, Membership, Phase


class Game(Protocol):
    """What the campaign's life asks of a game."""

    key: str
    name: str

    def acting_sides(self, campaign: Campaign, phase: Phase) -> list[str]:
        """The names of the sides that act in the open phase."""

    def waiting_for(self, campaign: Campaign, phase: Phase) -> str:
        """The open phase in one sentence: who acts, in which step."""

    def orders_allowed(self, *, membership: Membership) -> list[str]:
        """The kinds of order `membership` may give now (empty: none)."""

    def give_orders(self, *, user: User, campaign: Campaign, orders: Sequence[Any]) -> None:
        """Apply a member's orders (all or none): a refused order raises a CampaignError
        naming the rule and the order's field, and nothing changes."""

    def close_phase(self, *, user: User, campaign: Campaign, reason: str) -> Phase | None:
        """A person closes the open phase (the late are handled as the game says); returns
        the phase open afterwards (None once the game is over)."""

    def deadline_passed(self, *, campaign: Campaign, phase: Phase, now: datetime) -> list[str]:
        """The sweep found the phase at or past its deadline (campaign locked, reminders
        sent): do what the game does then; returns the names of what it did."""

    def view(self, *, user: User, campaign: Campaign) -> dict[str, Any]:
        """The game state as `user` may see it (fog of war, hidden hands)."""

    def page(self, campaign: Campaign) -> str:
        """The URL name of the game's main page for a running campaign."""


_GAMES: dict[str, Game] = {}


def register(game: Game, *keys: str) -> None:
    """A game answers for the rule systems `keys` (Campaign.ruleset_key)."""
    for key in keys or (game.key,):
        _GAMES[key] = game


def game_for(campaign: Campaign) -> Game:
    game = _GAMES.get(campaign.ruleset_key)
    if game is None:
        raise WrongStateError(f"No game runs the rule system {campaign.ruleset_key!r}.",
                              code="unknown_game")
    return game


def games() -> dict[str, Game]:
    return dict(_GAMES)
