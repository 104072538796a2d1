"""Erfworld healing at the end of the alliance move/combat phase."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.erfworld.healing import HealingError, UnitHealth, heal_units


def test_partial_hits_are_restored_to_full() -> None:
    result = heal_units(
        [
            UnitHealth(name="Gobwin", hits=3, current_hits=1),
            UnitHealth(name="Twoll", hits=10, current_hits=10),
            UnitHealth(name="Archer", hits=4, current_hits=0),
        ]
    )
    assert [u.current_hits for u in result.units] == [3, 10, 0]
    assert [(h.name, h.restored) for h in result.healed] == [("Gobwin", 2)]
    assert result.explain() == ["healing: Gobwin regains 2 hits"]


def test_nothing_to_heal() -> None:
    result = heal_units([UnitHealth(name="Twoll", hits=10, current_hits=10)])
    assert result.healed == ()
    assert result.explain() == ["healing: no unit had partial hits"]


@pytest.mark.parametrize(("hits", "current"), [(3, 4), (3, -1), (0, 0)])
def test_impossible_hits_are_refused(hits: int, current: int) -> None:
    with pytest.raises(HealingError):
        UnitHealth(name="X", hits=hits, current_hits=current)


@given(st.lists(st.integers(1, 30).flatmap(lambda h: st.tuples(st.just(h), st.integers(0, h)))))
def test_after_healing_every_living_unit_is_full(units: list[tuple[int, int]]) -> None:
    result = heal_units(
        [UnitHealth(name=str(i), hits=h, current_hits=c) for i, (h, c) in enumerate(units)]
    )
    for (h, c), after in zip(units, result.units, strict=True):
        assert after.current_hits == (0 if c == 0 else h)
