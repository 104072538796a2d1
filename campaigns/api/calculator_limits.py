"""Bounds on the rules calculators over HTTP: what a game uses, a CPU budget per calculation,
and a throttle of their own. Two anonymous requests with a 702 × 4,000 map once held every
worker past its timeout; now such input is a clear 400 and no calculation runs away."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from rules.jsonio import InputError

# A game's largest request is a 100 × 100 map with its stacks: about 10,000 terrain entries.
MAX_ITEMS = 30_000
MAX_STRING = 2_000
MAX_NUMBER = 1_000_000


class CalculatorAnonThrottle(AnonRateThrottle):
    scope = "calculator_anon"


class CalculatorUserThrottle(UserRateThrottle):
    scope = "calculator_user"


class CalculationTooLong(Exception):
    """A calculation used up its CPU budget (`API_CALCULATOR_CPU_SECONDS`)."""


def check_input(data: Any) -> None:
    """Every value within what a game uses: at most MAX_ITEMS values in all, strings of at
    most MAX_STRING characters, whole numbers within ±MAX_NUMBER; else InputError naming
    the first offending field."""
    count = 0
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        count += 1
        if count > MAX_ITEMS:
            raise InputError("input", f"holds more than {MAX_ITEMS:,} values; the largest map "
                             "a game uses is 100 × 100.")
        if isinstance(value, dict):
            for key, item in value.items():
                if len(key) > MAX_STRING:
                    raise InputError(path or "input", "has a key longer than "
                                     f"{MAX_STRING:,} characters.")
                stack.append((item, f"{path}.{key}" if path else str(key)))
        elif isinstance(value, list):
            stack.extend((item, f"{path}.{i}" if path else str(i)) for i, item in
                         enumerate(value))
        elif isinstance(value, str) and len(value) > MAX_STRING:
            raise InputError(path or "input", f"is longer than {MAX_STRING:,} characters.")
        elif isinstance(value, int | float) and not isinstance(value, bool) and (
                abs(value) > MAX_NUMBER):
            raise InputError(path or "input", f"must be between -{MAX_NUMBER:,} and "
                             f"{MAX_NUMBER:,}.")


@contextmanager
def cpu_budget() -> Iterator[None]:
    """Raise CalculationTooLong in the block once it has used `API_CALCULATOR_CPU_SECONDS`
    of CPU (the process's profiling timer). Only where a signal can be delivered: the main
    thread, as in gunicorn's sync workers; elsewhere (threaded dev servers, tests' live
    server) the input bounds alone apply."""
    seconds = float(getattr(settings, "API_CALCULATOR_CPU_SECONDS", 2.0))
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise CalculationTooLong

    previous = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
