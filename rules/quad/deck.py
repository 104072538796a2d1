"""QUAD's activation deck: unit cards ×3, tactics cards, the starting hand, shuffles and draws
from injected dice, and the activation (playing, releasing and stealing it)."""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from rules.dice import Dice, DiceError

UNIT_CARD_COPIES = 3
UNITS_PER_TACTICS_CARD = 3
RELEASE_DRAW = 2
TURN_DRAW = 1


class DeckError(ValueError):
    """A card play, draw or activation change that the QUAD turn rules do not allow."""


class CardKind(enum.StrEnum):
    UNIT = "unit"
    TACTICS = "tactics"


@dataclass(frozen=True, kw_only=True, order=True)
class Card:
    """A unit (activation) card — one of three for its unit — or a tactics (face) card."""

    kind: CardKind
    unit: str
    copy: int

    def __str__(self) -> str:
        if self.kind is CardKind.TACTICS:
            return f"tactics {self.copy}"
        return f"{self.unit} {self.copy}/{UNIT_CARD_COPIES}"

    def to_dict(self) -> dict[str, object]:
        if self.kind is CardKind.TACTICS:
            return {"kind": "tactics", "copy": self.copy}
        return {"kind": "unit", "unit": self.unit, "copy": self.copy}


def tactics_card_count(*, units: int, leader_level: int) -> int:
    """One tactics card per three units (whole threes), plus one per level of the leader."""
    _check_army(units=units, leader_level=leader_level)
    return units // UNITS_PER_TACTICS_CARD + leader_level


def starting_hand_size(*, units: int, leader_level: int) -> int:
    """The starting hand: one card per three units (whole threes), plus one per leader level."""
    return tactics_card_count(units=units, leader_level=leader_level)


def _check_army(*, units: int, leader_level: int) -> None:
    if units < 1:
        raise DeckError("An army needs at least one unit to build its activation deck.")
    if leader_level < 0:
        raise DeckError(f"A leader's level is 0 or more, not {leader_level}.")


def build_deck(*, units: Sequence[str], leader_level: int) -> tuple[Card, ...]:
    """The unshuffled deck: three cards for each unit in the order given, then the tactics cards."""
    _check_army(units=len(units), leader_level=leader_level)
    if len(set(units)) != len(units) or any(not u for u in units):
        raise DeckError(
            "Each unit needs its own non-empty name: its three cards must be told apart."
        )
    cards = [
        Card(kind=CardKind.UNIT, unit=name, copy=c)
        for name in units
        for c in range(1, UNIT_CARD_COPIES + 1)
    ]
    count = tactics_card_count(units=len(units), leader_level=leader_level)
    cards.extend(Card(kind=CardKind.TACTICS, unit="", copy=c) for c in range(1, count + 1))
    return tuple(cards)


def shuffle(cards: Sequence[Card], *, dice: Dice, purpose: str) -> tuple[Card, ...]:
    """A Fisher–Yates shuffle from the dice: for i = n−1 … 1, a d(i+1) picks the card (1-based)
    that swaps into position i. The first card of the result is the top of the pile."""
    out = list(cards)
    for i in range(len(out) - 1, 0, -1):
        try:
            j = dice.roll(i + 1, f"{purpose}: position {i + 1}") - 1
        except DiceError as exc:
            raise DeckError(f"The shuffle ({purpose}) could not be rolled: {exc}") from exc
        out[i], out[j] = out[j], out[i]
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class PlayerCards:
    """One player's draw pile (top first), hand and discard pile."""

    player: str
    draw_pile: tuple[Card, ...]
    hand: tuple[Card, ...]
    discard: tuple[Card, ...]

    @property
    def tactics_in_hand(self) -> int:
        return sum(1 for c in self.hand if c.kind is CardKind.TACTICS)

    def to_dict(self) -> dict[str, object]:
        return {
            "player": self.player,
            "hand": [str(c) for c in self.hand],
            "draw_pile": len(self.draw_pile),
            "discard": [str(c) for c in self.discard],
        }


def draw_cards(
    cards: PlayerCards, count: int, *, dice: Dice
) -> tuple[PlayerCards, tuple[str, ...]]:
    """Draw `count` cards; an empty draw pile is refilled by shuffling the discard pile into it.
    With both empty there is nothing left to draw."""
    draw, hand, discard = list(cards.draw_pile), list(cards.hand), list(cards.discard)
    log: list[str] = []
    for _ in range(count):
        if not draw and discard:
            draw = list(shuffle(discard, dice=dice, purpose=f"reshuffle {cards.player}"))
            discard = []
            log.append(f"{cards.player} shuffles the discard pile into the draw pile")
        if not draw:
            log.append(f"{cards.player} has no card left to draw")
            break
        card = draw.pop(0)
        hand.append(card)
        log.append(f"{cards.player} draws {card}")
    return (
        replace(cards, draw_pile=tuple(draw), hand=tuple(hand), discard=tuple(discard)),
        tuple(log),
    )


@dataclass(frozen=True, kw_only=True)
class Army:
    """What the deck is built from: the player, the names of their units, the leader's level."""

    player: str
    units: tuple[str, ...]
    leader_level: int = 0


@dataclass(frozen=True, kw_only=True)
class TurnState:
    """Every player's cards and the activation: the turn number, the active player (None between
    turns), cards played in the current activation, and releases-without-play in a row."""

    players: tuple[PlayerCards, ...]
    turn: int = 0
    active: str | None = None
    played: int = 0
    passes: int = 0

    def cards_of(self, player: str) -> PlayerCards:
        for p in self.players:
            if p.player == player:
                return p
        raise DeckError(f"There is no player {player!r} in this game.")

    def _with(self, cards: PlayerCards) -> tuple[PlayerCards, ...]:
        return tuple(cards if p.player == cards.player else p for p in self.players)

    def next_player(self, player: str) -> str:
        names = [p.player for p in self.players]
        return names[(names.index(player) + 1) % len(names)]

    def to_dict(self) -> dict[str, object]:
        return {
            "turn": self.turn,
            "active": self.active,
            "played_this_activation": self.played,
            "releases_in_a_row": self.passes,
            "players": [p.to_dict() for p in self.players],
        }


Step = tuple[TurnState, tuple[str, ...]]


def setup(*, armies: Sequence[Army], dice: Dice) -> Step:
    """Build and shuffle each player's deck (in the order given) and draw the starting hands."""
    if not armies:
        raise DeckError("A game needs at least one player.")
    names = [a.player for a in armies]
    if len(set(names)) != len(names) or any(not n for n in names):
        raise DeckError("Each player needs a distinct, non-empty name.")
    players: list[PlayerCards] = []
    log: list[str] = []
    for army in armies:
        deck = build_deck(units=army.units, leader_level=army.leader_level)
        tactics = tactics_card_count(units=len(army.units), leader_level=army.leader_level)
        hand = starting_hand_size(units=len(army.units), leader_level=army.leader_level)
        log.append(
            f"{army.player}: {len(army.units)} unit(s) × {UNIT_CARD_COPIES} unit cards +"
            f" {tactics} tactics card(s) = {len(deck)} cards; starting hand {hand}"
        )
        pile = shuffle(deck, dice=dice, purpose=f"shuffle {army.player}")
        cards, drawn = draw_cards(
            PlayerCards(player=army.player, draw_pile=pile, hand=(), discard=()), hand, dice=dice
        )
        players.append(cards)
        log.extend(drawn)
    return TurnState(players=tuple(players)), tuple(log)


def start_turn(
    state: TurnState, *, first_player: str, drawing: Collection[str] | None = None, dice: Dice
) -> Step:
    """A new turn: every player in `drawing` (default: all — the draw is optional) draws one card,
    then `first_player` holds the activation."""
    if state.active is not None:
        raise DeckError(
            f"Turn {state.turn} is still going: {state.active} holds the activation."
        )
    state.cards_of(first_player)
    wanted = {p.player for p in state.players} if drawing is None else set(drawing)
    for name in wanted:
        state.cards_of(name)
    log = [f"turn {state.turn + 1} begins"]
    players = list(state.players)
    for i, cards in enumerate(players):
        if cards.player in wanted:
            players[i], drawn = draw_cards(cards, TURN_DRAW, dice=dice)
            log.extend(drawn)
    log.append(f"{first_player} holds the activation")
    return (
        TurnState(players=tuple(players), turn=state.turn + 1, active=first_player),
        tuple(log),
    )


def _require_active(state: TurnState, player: str) -> PlayerCards:
    cards = state.cards_of(player)
    if state.active is None:
        raise DeckError("No turn is going on: start a turn first.")
    if state.active != player:
        raise DeckError(
            f"{player} does not hold the activation ({state.active} does); only the active"
            " player plays activation cards or releases the activation."
        )
    return cards


def play_card(state: TurnState, *, player: str, unit: str) -> Step:
    """The active player plays one of `unit`'s activation cards: that unit acts. A player whose
    hand runs out loses the activation to the next player."""
    cards = _require_active(state, player)
    card = next((c for c in cards.hand if c.kind is CardKind.UNIT and c.unit == unit), None)
    if card is None:
        raise DeckError(f"{player} has no activation card of {unit!r} in hand.")
    hand = list(cards.hand)
    hand.remove(card)
    cards = replace(cards, hand=tuple(hand), discard=(*cards.discard, card))
    log = [f"{player} plays {card}: {unit} is activated"]
    new = replace(state, players=state._with(cards), played=state.played + 1, passes=0)
    if not hand:
        nxt = state.next_player(player)
        log.append(f"{player} has run out of cards; {nxt} holds the activation")
        new = replace(new, active=nxt, played=0)
    return new, tuple(log)


def release(state: TurnState, *, player: str, dice: Dice) -> Step:
    """The active player releases the activation to the next player; releasing without having
    played a card draws two cards. When every player in a row has released without playing,
    the turn is over."""
    cards = _require_active(state, player)
    log: list[str] = []
    passes = 0
    players = state.players
    if state.played == 0:
        cards, drawn = draw_cards(cards, RELEASE_DRAW, dice=dice)
        log.append(f"{player} releases the activation without playing and draws two cards")
        log.extend(drawn)
        passes = state.passes + 1
        players = state._with(cards)
    else:
        log.append(f"{player} releases the activation")
    if passes >= len(state.players):
        log.append(f"every player released without playing: turn {state.turn} is over")
        return replace(state, players=players, active=None, played=0, passes=0), tuple(log)
    nxt = state.next_player(player)
    log.append(f"{nxt} holds the activation")
    return replace(state, players=players, active=nxt, played=0, passes=passes), tuple(log)


def steal(state: TurnState, *, player: str) -> Step:
    """An inactive player pays a tactics card from hand to take the activation at once."""
    cards = state.cards_of(player)
    if state.active is None:
        raise DeckError("No turn is going on, so there is no activation to steal.")
    if state.active == player:
        raise DeckError(f"{player} already holds the activation.")
    card = next((c for c in cards.hand if c.kind is CardKind.TACTICS), None)
    if card is None:
        raise DeckError(f"{player} has no tactics card in hand to steal the activation with.")
    hand = list(cards.hand)
    hand.remove(card)
    cards = replace(cards, hand=tuple(hand), discard=(*cards.discard, card))
    log = (f"{player} plays {card} and steals the activation from {state.active}",)
    return replace(state, players=state._with(cards), active=player, played=0, passes=0), log


def eliminate_unit(state: TurnState, *, player: str, unit: str) -> Step:
    """An eliminated unit's three cards leave the game (hand, draw pile and discard pile)."""
    cards = state.cards_of(player)

    def keep(pile: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(c for c in pile if not (c.kind is CardKind.UNIT and c.unit == unit))

    removed = sum(
        len(p) - len(keep(p)) for p in (cards.hand, cards.draw_pile, cards.discard)
    )
    if removed == 0:
        raise DeckError(f"{player} has no cards of a unit {unit!r}.")
    cards = replace(
        cards, hand=keep(cards.hand), draw_pile=keep(cards.draw_pile), discard=keep(cards.discard)
    )
    log = (f"{unit} is eliminated: its {removed} card(s) leave {player}'s deck",)
    return replace(state, players=state._with(cards)), log
