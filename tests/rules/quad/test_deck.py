"""QUAD's activation deck: card counts, shuffles and draws from dice, the activation."""

import pytest

from rules.dice import FixedDice, SeededDice
from rules.quad.deck import (
    Army,
    Card,
    CardKind,
    DeckError,
    PlayerCards,
    TurnState,
    build_deck,
    draw_cards,
    eliminate_unit,
    play_card,
    release,
    setup,
    shuffle,
    start_turn,
    starting_hand_size,
    steal,
    tactics_card_count,
)


def unit_card(name, copy):
    return Card(kind=CardKind.UNIT, unit=name, copy=copy)


def tactics(copy):
    return Card(kind=CardKind.TACTICS, unit="", copy=copy)


@pytest.mark.parametrize(
    ("units", "leader", "tactics_cards"),
    [(1, 0, 0), (2, 0, 0), (3, 0, 1), (5, 0, 1), (6, 0, 2), (7, 2, 4), (10, 1, 4)],
)
def test_tactics_cards_and_starting_hand(units, leader, tactics_cards):
    assert tactics_card_count(units=units, leader_level=leader) == tactics_cards
    assert starting_hand_size(units=units, leader_level=leader) == tactics_cards
    deck = build_deck(units=[f"u{i}" for i in range(units)], leader_level=leader)
    assert len(deck) == 3 * units + tactics_cards


def test_build_deck_three_cards_per_unit_then_tactics():
    assert build_deck(units=["Heavy cavalry", "Archers", "Pikes"], leader_level=1) == (
        unit_card("Heavy cavalry", 1), unit_card("Heavy cavalry", 2),
        unit_card("Heavy cavalry", 3), unit_card("Archers", 1), unit_card("Archers", 2),
        unit_card("Archers", 3), unit_card("Pikes", 1), unit_card("Pikes", 2),
        unit_card("Pikes", 3), tactics(1), tactics(2),
    )


@pytest.mark.parametrize(
    ("units", "leader", "message"),
    [([], 0, "An army needs at least one unit"), (["a"], -1, "A leader's level is 0 or more"),
     (["a", "a"], 0, "Each unit needs its own non-empty name")],
)
def test_build_deck_refuses(units, leader, message):
    with pytest.raises(DeckError, match=message):
        build_deck(units=units, leader_level=leader)


def test_shuffle_is_fisher_yates_from_the_dice():
    cards = [tactics(i) for i in range(1, 5)]
    dice = FixedDice([1, 3, 2])
    # i=3: d4=1 swaps positions 4 and 1; i=2: d3=3 keeps; i=1: d2=2 keeps.
    assert shuffle(cards, dice=dice, purpose="shuffle p") == (
        tactics(4), tactics(2), tactics(3), tactics(1)
    )
    assert [(r.sides, r.purpose) for r in dice.rolls] == [
        (4, "shuffle p: position 4"), (3, "shuffle p: position 3"), (2, "shuffle p: position 2"),
    ]


def test_draw_reshuffles_the_discard_pile_when_the_draw_pile_is_empty():
    cards = PlayerCards(player="p", draw_pile=(tactics(1),), hand=(),
                        discard=(tactics(2), tactics(3)))
    after, log = draw_cards(cards, 2, dice=FixedDice([1]))
    assert after.hand == (tactics(1), tactics(3))
    assert after.draw_pile == (tactics(2),)
    assert after.discard == ()
    assert log == ("p draws tactics 1", "p shuffles the discard pile into the draw pile",
                   "p draws tactics 3")


def test_draw_with_nothing_left():
    cards = PlayerCards(player="p", draw_pile=(), hand=(), discard=())
    after, log = draw_cards(cards, 1, dice=FixedDice([]))
    assert (after, log) == (cards, ("p has no card left to draw",))


def _game():
    # Blue: 3 units, leader 1 → 9 + 2 = 11 cards, hand 2; Red: 1 unit, leader 1 → 3 + 1, hand 1.
    armies = [Army(player="Blue", units=("Knights", "Archers", "Pikes"), leader_level=1),
              Army(player="Red", units=("Horde",), leader_level=1)]
    return setup(armies=armies, dice=SeededDice(seed="quad deck test"))


def test_setup_deals_starting_hands():
    state, log = _game()
    blue, red = state.players
    assert (len(blue.hand), len(blue.draw_pile)) == (2, 9)
    assert (len(red.hand), len(red.draw_pile)) == (1, 3)
    assert log[0] == "Blue: 3 unit(s) × 3 unit cards + 2 tactics card(s) = 11 cards; starting hand 2"
    assert state.active is None


def _state(blue_hand, red_hand, active="Blue"):
    return TurnState(
        players=(PlayerCards(player="Blue", draw_pile=(tactics(9), tactics(8)), hand=blue_hand,
                             discard=()),
                 PlayerCards(player="Red", draw_pile=(unit_card("Horde", 3),), hand=red_hand,
                             discard=())),
        turn=1, active=active,
    )


def test_start_turn_each_player_may_draw_one():
    state = TurnState(players=_state((), ()).players)
    after, log = start_turn(state, first_player="Red", drawing=["Blue"], dice=FixedDice([]))
    assert [len(p.hand) for p in after.players] == [1, 0]
    assert (after.turn, after.active) == (1, "Red")
    assert log == ("turn 1 begins", "Blue draws tactics 9", "Red holds the activation")


def test_play_cards_one_at_a_time_then_run_out():
    state = _state((unit_card("Knights", 1), unit_card("Knights", 2)), ())
    state, _ = play_card(state, player="Blue", unit="Knights")
    assert (state.active, state.played) == ("Blue", 1)
    state, log = play_card(state, player="Blue", unit="Knights")
    assert state.active == "Red"
    assert log[-1] == "Blue has run out of cards; Red holds the activation"
    assert state.cards_of("Blue").discard == (unit_card("Knights", 1), unit_card("Knights", 2))


def test_release_without_playing_draws_two():
    state = _state((unit_card("Knights", 1),), (tactics(1),))
    state, log = release(state, player="Blue", dice=FixedDice([]))
    assert len(state.cards_of("Blue").hand) == 3
    assert (state.active, state.passes) == ("Red", 1)


def test_release_after_playing_draws_nothing():
    state = _state((unit_card("Knights", 1), unit_card("Archers", 1)), ())
    state, _ = play_card(state, player="Blue", unit="Knights")
    state, log = release(state, player="Blue", dice=FixedDice([]))
    assert len(state.cards_of("Blue").hand) == 1
    assert log == ("Blue releases the activation", "Red holds the activation")


def test_turn_ends_when_every_player_releases_without_playing_in_a_row():
    state = _state((), ())
    state, _ = release(state, player="Blue", dice=FixedDice([]))
    state, log = release(state, player="Red", dice=FixedDice([]))
    assert state.active is None
    assert log[-1] == "every player released without playing: turn 1 is over"


def test_steal_with_a_tactics_card():
    state = _state((unit_card("Knights", 1),), (tactics(1), unit_card("Horde", 1)))
    state, log = steal(state, player="Red")
    assert state.active == "Red"
    assert state.cards_of("Red").hand == (unit_card("Horde", 1),)
    assert state.cards_of("Red").discard == (tactics(1),)
    assert log == ("Red plays tactics 1 and steals the activation from Blue",)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda s: play_card(s, player="Red", unit="Horde"), "Red does not hold the activation"),
        (lambda s: play_card(s, player="Blue", unit="Archers"), "no activation card of 'Archers'"),
        (lambda s: steal(s, player="Red"), "no tactics card in hand"),
        (lambda s: steal(s, player="Blue"), "already holds the activation"),
        (lambda s: release(s, player="Red", dice=FixedDice([])), "does not hold the activation"),
        (lambda s: play_card(s, player="Green", unit="x"), "There is no player 'Green'"),
    ],
)
def test_activation_rules_refuse(action, message):
    state = _state((unit_card("Knights", 1),), (unit_card("Horde", 1),))
    with pytest.raises(DeckError, match=message):
        action(state)


def test_eliminated_units_cards_leave_the_deck():
    state = _state((unit_card("Knights", 1),), (unit_card("Horde", 1),))
    state, log = eliminate_unit(state, player="Red", unit="Horde")
    red = state.cards_of("Red")
    assert (red.hand, red.draw_pile) == ((), ())
    assert log == ("Horde is eliminated: its 2 card(s) leave Red's deck",)
