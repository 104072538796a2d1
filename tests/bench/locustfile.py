"""Locust users for tests/bench/bench_api_load.py: players of one campaign, and a health probe.

Not run on its own: bench_api_load.py seeds the campaign, writes the players' tokens and ids
to the file named by BENCH_PLAYERS, and reads back what this file writes to BENCH_OUT when
locust quits: the request statistics and every player's successful orders, from which it
checks that the database lost no update.

BENCH_STAGE picks what a Player does after each map read: "scout" (give a scout order, now
and then cancel it, mark the orders done once) or "move" (move the stack once to a hex the
reachable endpoint offers, mark done once, then reorder the stack's units).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import gevent
from locust import FastHttpUser, constant, events, task

STAGE = os.environ.get("BENCH_STAGE", "scout")
# Users stop themselves after BENCH_SECONDS, between two requests, and the last one to stop
# ends the run: locust's own time limit (-t, only a safety net here) would kill requests in
# flight, whose effect the server may have committed unseen by the lost-update check.
SECONDS = float(os.environ.get("BENCH_SECONDS", "60"))
_end = {"at": float("inf")}
_idle: set[int] = set()
_SEED = json.loads(Path(os.environ["BENCH_PLAYERS"]).read_text()) if "BENCH_PLAYERS" in os.environ \
    else {"campaign": 0, "players": []}
CAMPAIGN = _SEED["campaign"]
_next_player = itertools.count()
# Per membership id: what the server accepted, in order (only 2xx answers count).
ACCEPTED: dict[str, dict[str, Any]] = {}


@events.test_start.add_listener
def _start_clock(**_kwargs: Any) -> None:
    _end["at"] = time.monotonic() + SECONDS


def _time_is_up(user: FastHttpUser) -> bool:
    """After the run's time, park the user; the last user to park quits the run."""
    if time.monotonic() < _end["at"]:
        return False
    _idle.add(id(user))
    runner = user.environment.runner
    if runner is not None and len(_idle) >= runner.user_count:
        gevent.spawn(runner.quit)
    gevent.sleep(1)
    return True


class Player(FastHttpUser):
    """One player, closed loop: no think time, so the server is the bottleneck."""

    wait_time = constant(0)

    def on_start(self) -> None:
        self.me = _SEED["players"][next(_next_player) % len(_SEED["players"])]
        self.auth = {"Authorization": f"Token {self.me['token']}"}
        self.rng = random.Random(self.me["membership"])
        self.log = ACCEPTED.setdefault(str(self.me["membership"]), {
            "give": 0, "cancel": 0, "done": 0, "move": 0, "reorder": 0,
            "order": None, "hex": None, "ambushed": False, "unit_order": None,
        })
        self.order_id: int | None = None
        self.done = False
        self.moved = False

    def _post(self, url: str, body: dict[str, Any], name: str) -> Any:
        with self.client.post(url, json=body, headers=self.auth, name=name,
                              catch_response=True) as response:
            if response.status_code >= 300:
                response.failure(f"{response.status_code} {response.text[:200]}")
                return None
            response.success()
            return response.json() if response.text else {}

    @task
    def turn(self) -> None:
        if _time_is_up(self):
            return
        base = f"/api/v1/campaigns/{CAMPAIGN}/"
        self.client.get(base + "map/", headers=self.auth, name="GET map")
        if STAGE == "scout":
            self.scout(base)
        else:
            self.move(base)
        if not self.done and self._post(base + "done/", {}, "POST done") is not None:
            self.done = True
            self.log["done"] += 1

    def scout(self, base: str) -> None:
        if self.order_id is not None and self.rng.random() < 0.3:
            if self._post(f"{base}scout-orders/{self.order_id}/cancel/", {},
                          "POST scout order cancel") is not None:
                self.order_id = None
                self.log["cancel"] += 1
                self.log["order"] = None
            return
        directions = self.rng.choice(self.me["paths"])
        body = self._post(base + "scout-orders/", {"scout": self.me["scout"],
                                                   "directions": directions},
                          "POST scout order")
        if body is not None:
            self.order_id = body["id"]
            self.log["give"] += 1
            self.log["order"] = directions

    def move(self, base: str) -> None:
        stack = f"{base}stacks/{self.me['stack']}/"
        if not self.moved:
            self.moved = True
            with self.client.get(stack + "reachable/", headers=self.auth,
                                 name="GET reachable", catch_response=True) as response:
                hexes = response.json()["hexes"] if response.status_code == 200 else []
            if hexes:
                goal = self.rng.choice(hexes)["hex"]
                body = self._post(stack + "move/", {"destination": goal}, "POST move")
                if body is not None:
                    self.log["move"] += 1
                    self.log["hex"] = goal
                    self.log["ambushed"] = bool(body["ambushed"])
            return
        order = list(self.me["units"])
        self.rng.shuffle(order)
        if self._post(stack + "reorder/", {"order": order}, "POST reorder") is not None:
            self.log["reorder"] += 1
            self.log["unit_order"] = order


class Health(FastHttpUser):
    """The same closed-loop load on /healthz: the server's ceiling for a trivial JSON view."""

    wait_time = constant(0)

    @task
    def health(self) -> None:
        if _time_is_up(self):
            return
        self.client.get("/healthz", name="GET /healthz")


def _entry(stats: Any) -> dict[str, Any]:
    return {
        "requests": stats.num_requests, "failures": stats.num_failures,
        "p50": stats.get_response_time_percentile(0.5),
        "p99": stats.get_response_time_percentile(0.99),
        "rps": stats.total_rps,
    }


@events.quitting.add_listener
def _write_results(environment: Any, **_kwargs: Any) -> None:
    out = os.environ.get("BENCH_OUT")
    if not out:
        return
    stats = environment.stats
    Path(out).write_text(json.dumps({
        "total": _entry(stats.total),
        "endpoints": {name: _entry(s) for (name, _method), s in stats.entries.items()},
        "errors": [{"name": e.name, "error": str(e.error), "occurrences": e.occurrences}
                   for e in stats.errors.values()],
        "accepted": ACCEPTED,
    }, indent=1))
