"""Verifiable dice: derivation, seeded and fixed dice, commitments and verification (rules/dice.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.dice import (
    DiceError,
    FixedDice,
    Roll,
    SeededDice,
    commitment,
    derive,
    mix_draw,
    new_seed,
    roll_2d6,
    verify,
)

# The worked example of docs/rules/dice.md.
DOC_SEED = "0123456789abcdef" * 4
DOC_COMMITMENT = "a8ae6e6ee929abea3afcfc5258c8ccd6f85273e0d4626d26c7279f3250f77c8e"
DOC_ROLLS = [
    Roll(number=1, purpose="combat 1 attacker die 1", sides=6, value=5),
    Roll(number=2, purpose="combat 1 attacker die 2", sides=6, value=1),
    Roll(number=3, purpose="combat 1 defender die 1", sides=6, value=6),
    Roll(number=4, purpose="combat 1 defender die 2", sides=6, value=5),
    Roll(number=5, purpose="commander level Ansom", sides=10, value=8),
]


def reference_derive(seed: str, number: int, purpose: str, sides: int) -> tuple[int, int]:
    """docs/rules/dice.md's algorithm written out again; also returns how many retries it took."""
    limit = (2**256 // sides) * sides
    k = 0
    while True:
        msg = f"{number}:{purpose}" if k == 0 else f"{number}:{purpose}:{k}"
        x = int(hmac.new(seed.encode(), msg.encode(), hashlib.sha256).hexdigest(), 16)
        if x < limit:
            return x % sides + 1, k
        k += 1


def test_worked_example_commitment() -> None:
    assert commitment(DOC_SEED) == DOC_COMMITMENT


DOC_DIGESTS = [
    ("1:combat 1 attacker die 1", 6,
     "e059cf631f61bbed644b3d4b7fe9fbe8f2c940aea1d30c291619a1d2ee85bc3c", 4),
    ("2:combat 1 attacker die 2", 6,
     "86213115d671aa319e05a2ca5a15a6ca33fafe954f1c6d00f4d4066f806feae8", 0),
    ("5:commander level Ansom", 10,
     "cc1ecc8e72e76ba0b2f617679d81e34260fdb1fdc3c7cea173c29c8d0cc9e2fb", 7),
]


@pytest.mark.parametrize(("message", "sides", "digest", "remainder"), DOC_DIGESTS)
def test_worked_example_digests(message: str, sides: int, digest: str, remainder: int) -> None:
    got = hmac.new(DOC_SEED.encode(), message.encode(), hashlib.sha256).hexdigest()
    assert got == digest
    assert int(digest, 16) < (2**256 // sides) * sides  # no retry needed
    assert int(digest, 16) % sides == remainder


@pytest.mark.parametrize(("sides", "rejected"), [(6, 4), (10, 6)])
def test_rejected_values_per_die(sides: int, rejected: int) -> None:
    assert 2**256 - (2**256 // sides) * sides == rejected


def test_worked_example_rolls() -> None:
    dice = SeededDice(seed=DOC_SEED)
    assert roll_2d6(dice, "combat 1 attacker") == (5, 1)
    assert roll_2d6(dice, "combat 1 defender") == (6, 5)
    assert dice.roll(10, "commander level Ansom") == 8
    assert list(dice.rolls) == DOC_ROLLS
    assert dice.next_number == 6


DERIVE_CASES = [
    # (number, purpose, sides): values from the reference implementation, including a
    # die so large (2^255 + 1 sides) that about half the digests are rejected.
    (1, "combat 1 attacker die 1", 6),
    (5, "commander level Ansom", 10),
    (3, "big", 2**255 + 1),
    (6, "big", 2**255 + 1),
    (7, "big", 2**255 + 1),
    (42, "ü unicode purpose: with colons", 20),
]


@pytest.mark.parametrize(("number", "purpose", "sides"), DERIVE_CASES)
def test_derive_matches_reference(number: int, purpose: str, sides: int) -> None:
    value, _ = reference_derive(DOC_SEED, number, purpose, sides)
    assert derive(DOC_SEED, number, purpose, sides) == value
    assert 1 <= value <= sides


def test_rejection_extension_is_exercised() -> None:
    retries = [reference_derive(DOC_SEED, n, "big", 2**255 + 1)[1] for n, _, _ in DERIVE_CASES[2:5]]
    assert retries[0] >= 1 and retries[1] >= 1 and retries[2] >= 1


@given(
    number=st.integers(1, 10**6),
    purpose=st.text(min_size=1, max_size=30),
    sides=st.integers(2, 1000),
)
def test_derive_property(number: int, purpose: str, sides: int) -> None:
    assert derive(DOC_SEED, number, purpose, sides) == reference_derive(
        DOC_SEED, number, purpose, sides
    )[0]


def test_seeded_dice_are_deterministic() -> None:
    a, b = SeededDice(seed="abc"), SeededDice(seed="abc")
    assert [a.roll(6, f"r{i}") for i in range(50)] == [b.roll(6, f"r{i}") for i in range(50)]
    assert a.rolls == b.rolls


def test_seeded_dice_depend_on_seed_and_purpose() -> None:
    values = [SeededDice(seed="abc").roll(10**9, "x"), SeededDice(seed="abd").roll(10**9, "x"),
              SeededDice(seed="abc").roll(10**9, "y")]
    assert len(set(values)) == 3


def test_first_number_resumes_numbering() -> None:
    whole = SeededDice(seed=DOC_SEED)
    roll_2d6(whole, "combat 1 attacker")
    roll_2d6(whole, "combat 1 defender")
    resumed = SeededDice(seed=DOC_SEED, first_number=3)
    assert roll_2d6(resumed, "combat 1 defender") == (6, 5)
    assert resumed.rolls == whole.rolls[2:]
    assert resumed.next_number == 5


def test_seeded_dice_hide_the_seed() -> None:
    dice = SeededDice(seed=DOC_SEED)
    dice.roll(6, "x")
    assert DOC_SEED not in repr(dice)
    assert repr(dice) == "SeededDice(next_number=2, rolls=1)"


def test_distribution_is_unbiased() -> None:
    """Pearson's chi-square over 60,000 d6 rolls stays below the 0.1% critical value (20.515)."""
    dice = SeededDice(seed=DOC_SEED)
    counts = Counter(dice.roll(6, "uniformity") for _ in range(60_000))
    expected = 10_000
    # chi² = Σ (o − e)² / e < 20.515, compared exactly in integers.
    assert sum((counts[v] - expected) ** 2 for v in range(1, 7)) * 1000 < 20_515 * expected
    assert set(counts) == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize(
    ("sides", "purpose", "message"),
    [
        (1, "x", "A die needs at least 2 sides; got 1 for 'x'."),
        (6, "", "Every roll needs a purpose saying what it is for."),
    ],
)
def test_bad_die(sides: int, purpose: str, message: str) -> None:
    for dice in (SeededDice(seed="s"), FixedDice([1])):
        with pytest.raises(DiceError) as info:
            dice.roll(sides, purpose)
        assert str(info.value) == message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": ""}, "Seeded dice need a non-empty seed."),
        ({"seed": "s", "first_number": 0}, "Roll numbers start at 1, not 0."),
    ],
)
def test_bad_seeded_dice(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(DiceError) as info:
        SeededDice(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_fixed_dice_return_values_in_order_and_record_them() -> None:
    dice = FixedDice([3, 6, 10])
    assert roll_2d6(dice, "combat") == (3, 6)
    assert dice.roll(10, "level") == 10
    assert dice.rolls == (
        Roll(number=1, purpose="combat die 1", sides=6, value=3),
        Roll(number=2, purpose="combat die 2", sides=6, value=6),
        Roll(number=3, purpose="level", sides=10, value=10),
    )
    assert dice.remaining == 0
    assert dice.next_number == 4


FIXED_ERRORS = [
    ([7], 6, "A d6 shows 1 to 6, so the given value 7 cannot be used for 'attack'."),
    ([0], 6, "A d6 shows 1 to 6, so the given value 0 cannot be used for 'attack'."),
    ([], 6, "Ran out of given dice: 0 value(s) were given, but another d6 is needed for 'attack'."),
]


@pytest.mark.parametrize(("values", "sides", "message"), FIXED_ERRORS)
def test_fixed_dice_errors(values: list[int], sides: int, message: str) -> None:
    dice = FixedDice(values)
    with pytest.raises(DiceError) as info:
        dice.roll(sides, "attack")
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_new_seed() -> None:
    a, b = new_seed(), new_seed()
    assert re.fullmatch(r"[0-9a-f]{64}", a)
    assert a != b


def test_verify_accepts_the_worked_example() -> None:
    result = verify(seed=DOC_SEED, commitment=DOC_COMMITMENT, rolls=DOC_ROLLS)
    assert result.commitment_ok
    assert result.all_ok
    assert [(c.expected, c.matches) for c in result.results] == [(r.value, True) for r in DOC_ROLLS]


def test_verify_accepts_uppercase_commitment() -> None:
    assert verify(seed=DOC_SEED, commitment=DOC_COMMITMENT.upper(), rolls=DOC_ROLLS).all_ok


TAMPERED = [
    # (which roll to change, field, new value, expected value the seed gives)
    (0, "value", 6, 5),
    (1, "purpose", "combat 1 attacker die 3", 6),
    (4, "number", 6, 4),
    (4, "sides", 12, 4),
]


@pytest.mark.parametrize(("index", "field", "new", "expected"), TAMPERED)
def test_verify_detects_tampered_roll(index: int, field: str, new: object, expected: int) -> None:
    rolls = list(DOC_ROLLS)
    rolls[index] = dataclasses.replace(rolls[index], **{field: new})
    result = verify(seed=DOC_SEED, commitment=DOC_COMMITMENT, rolls=rolls)
    assert result.commitment_ok
    assert not result.all_ok
    bad = [i for i, c in enumerate(result.results) if not c.matches]
    assert bad == [index]
    assert result.results[index].expected == expected


def test_verify_detects_wrong_seed() -> None:
    result = verify(seed=DOC_SEED[:-1] + "0", commitment=DOC_COMMITMENT, rolls=DOC_ROLLS)
    assert not result.commitment_ok
    assert not result.all_ok


def test_verify_detects_tampered_commitment() -> None:
    result = verify(seed=DOC_SEED, commitment="0" * 64, rolls=DOC_ROLLS)
    assert not result.commitment_ok
    assert all(c.matches for c in result.results)
    assert not result.all_ok


def test_a_draw_mixes_into_the_seed_as_the_worked_case_says() -> None:
    mixed = mix_draw(DOC_SEED, "the river runs north")
    assert mixed == "657bd63b9040a9165d2d3a93ce771cc1c7afa3b26e69f7ecfdc47f2e133ad12d"
    assert mixed == hmac.new(DOC_SEED.encode(), b"draw:the river runs north",
                             hashlib.sha256).hexdigest()
    rolls = [(6, "combat 2 attacker die 1"), (7, "combat 2 attacker die 2")]
    assert [derive(mixed, n, p, 6) for n, p in rolls] == [6, 6]
    assert [derive(DOC_SEED, n, p, 6) for n, p in rolls] == [4, 1]
    assert mix_draw(DOC_SEED, "") != mix_draw(DOC_SEED, " ") != DOC_SEED
