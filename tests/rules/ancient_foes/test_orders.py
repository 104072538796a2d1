"""Ancient Foes 2 command: leaders' orders, initiative, movement, army limits, who starts."""

import pytest

from .harness import check_case, load


@pytest.mark.parametrize("case", load("orders"))
def test_orders_case(case):
    check_case("orders", case)


@pytest.mark.parametrize("case", load("initiative"))
def test_initiative_case(case):
    check_case("initiative", case)


@pytest.mark.parametrize("case", load("move"))
def test_move_case(case):
    check_case("move", case)


@pytest.mark.parametrize("case", load("army"))
def test_army_case(case):
    check_case("army", case)


@pytest.mark.parametrize("case", load("start"))
def test_start_case(case):
    check_case("start", case)
