"""The browser is a complete client: every unsafe route of the REST API has a page control that
performs it (the page, and a marker of the control in the file that draws it), or a written
reason why it is API-only. A new write route without either fails here, and so does a control
whose marker is gone from its file. docs/browser.md lists the same table for people.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import NoReverseMatch, reverse

from tests.api.test_authorization_matrix import write_routes

ROOT = Path(__file__).resolve().parents[2]
MAP = "static/js/map.js"
LOBBY = "templates/campaigns/lobby.html"
GM_PANEL = "templates/campaigns/gm/_panel.html"
PHASE_BAR = "templates/campaigns/_phase_bar.html"
BATTLE = "templates/campaigns/battle.html"


@dataclass(frozen=True)
class Control:
    """The page (a URL name of the browser pages) and the control on it: `marker` is a text
    that occurs in `file` only because of the control (a data-key, a form's action)."""

    page: str
    file: str
    marker: str


@dataclass(frozen=True)
class ApiOnly:
    reason: str


PARITY: dict[tuple[str, str], Control | ApiOnly] = {
    # Before play: creation, joining, the army designer, the election, the start.
    ("campaigns", "POST"): Control("campaigns:gm-dashboard", "templates/campaigns/gm/_create.html",
                                   "url 'campaigns:gm-create'"),
    ("campaign-join", "POST"): Control("campaigns:join", "templates/campaigns/lobby_join.html",
                                       "Join the alliance</button>"),
    ("unit-types", "POST"): Control("campaigns:lobby", LOBBY, "url 'campaigns:unit-type-create'"),
    ("unit-type", "PATCH"): Control("campaigns:unit-type-edit",
                                    "templates/campaigns/lobby_unit_type.html",
                                    "url 'campaigns:unit-type-edit'"),
    ("unit-type", "DELETE"): Control("campaigns:lobby", LOBBY, "url 'campaigns:unit-type-delete'"),
    ("units-buy", "POST"): Control("campaigns:lobby", LOBBY, "url 'campaigns:units-buy'"),
    ("army-ready", "POST"): Control("campaigns:lobby", LOBBY, '<input type="hidden" name="ready" value="yes">'),
    ("army-not-ready", "POST"): Control("campaigns:lobby", LOBBY, '<input type="hidden" name="ready" value="no">'),
    ("election-vote", "POST"): Control("campaigns:lobby", LOBBY, "url 'campaigns:vote'"),
    ("gm-appoint-chief-warlord", "POST"): Control("campaigns:lobby", LOBBY, "url 'campaigns:appoint'"),
    ("gm-start", "POST"): Control("campaigns:lobby", LOBBY, "url 'campaigns:start'"),
    ("gm-handover", "POST"): Control("campaigns:gm-settings",
                                     "templates/campaigns/gm/settings.html",
                                     'data-key="gm-handover"'),
    ("done-undo", "POST"): Control("campaigns:lobby", PHASE_BAR, 'data-key="phase-undone"'),
    ("deputy", "POST"): Control("campaigns:lobby", LOBBY, 'data-key="deputy-choose"'),
    ("leave", "POST"): Control("campaigns:lobby", LOBBY, 'data-key="leave"'),
    ("standing-orders", "POST"): Control("campaigns:lobby", LOBBY, 'data-key="standing-save"'),
    ("gm-remove-player", "POST"): Control("campaigns:lobby", LOBBY, 'data-key="remove-player"'),
    ("absences", "POST"): Control("campaigns:lobby", LOBBY, 'data-key="absence-declare"'),
    ("absence-cancel", "POST"): Control("campaigns:lobby", LOBBY, 'data-key="absence-cancel"'),
    ("gm-invite", "POST"): Control("campaigns:lobby", LOBBY, 'data-key="invite-regenerate"'),
    ("gm-close-election", "POST"): Control("campaigns:lobby", LOBBY,
                                           'data-key="close-election"'),
    ("campaign", "PATCH"): Control("campaigns:gm-settings", "templates/campaigns/gm/settings.html",
                                   'data-key="save-settings"'),
    ("gm-shuffle-opposition", "POST"): Control("campaigns:lobby", LOBBY,
                                               'data-key="shuffle-opposition"'),
    # Phases.
    ("done", "POST"): Control("campaigns:lobby", PHASE_BAR, "url 'campaigns:phase-done'"),
    ("phase-end", "POST"): Control("campaigns:lobby", PHASE_BAR, "url 'campaigns:phase-end'"),
    ("phase-draw", "POST"): Control("campaigns:lobby", PHASE_BAR, "url 'campaigns:phase-draw'"),
    ("declaration-withdraw", "POST"): Control("campaigns:lobby", PHASE_BAR,
                                              "url 'campaigns:declaration-withdraw'"),
    ("scout-orders", "POST"): Control("campaigns:map", MAP, '"scout-submit"'),
    ("scout-order-cancel", "POST"): Control("campaigns:map", MAP, "`scout-cancel-${unit.id}`"),
    # The map's orders.
    ("stack-move", "POST"): Control("campaigns:map", MAP, '"move-confirm"'),
    ("stack-split", "POST"): Control("campaigns:map", MAP, '"Split off ticked units", "split"'),
    ("stacks-merge", "POST"): Control("campaigns:map", MAP, "`merge-${o.id}`"),
    ("stack-reorder", "POST"): Control("campaigns:map", MAP, "`up-${u.id}`"),
    ("units-mount", "POST"): Control("campaigns:map", MAP, '"mount-confirm"'),
    ("stack-attack-preview", "POST"): Control("campaigns:map", MAP, "attack/preview/"),
    ("stack-attack", "POST"): Control("campaigns:map", MAP, '"attack-confirm"'),
    ("stack-siege", "POST"): Control("campaigns:map", MAP, '"siege-confirm"'),
    ("fortification-repair", "POST"): Control("campaigns:map", MAP, "`repair-${f.id}`"),
    ("pops-buy", "POST"): Control("campaigns:map", MAP, '"pops-buy"'),
    ("pops-share", "POST"): Control("campaigns:map", MAP, '"share-confirm"'),
    # Every game's API (campaigns.game) and the battles of ELF ABAS and QUAD: the battle page.
    # (Erfworld's orders of the game API are the map's: its scout, move, attack and done.)
    ("game-orders", "POST"): Control("campaigns:battle", BATTLE, "url 'campaigns:battle-orders'"),
    ("game-close", "POST"): Control("campaigns:battle", BATTLE, 'data-key="proxy"'),
    ("battle-start", "POST"): Control("campaigns:battle", BATTLE, 'data-key="start-battle"'),
    ("battles", "POST"): Control("campaigns:battle-new", "templates/campaigns/battle_new.html",
                                 "Create the battle</button>"),
    ("battle-check", "POST"): Control("campaigns:battle-new",
                                      "templates/campaigns/battle_new.html",
                                      'id="be-check">Check</button>'),
    ("battle-join", "POST"): Control("campaigns:join", "templates/campaigns/battle_join.html",
                                     "Join the battle</button>"),
    # The GM's page.
    ("gm-end-phase", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'end-phase'"),
    ("gm-revert", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'revert'"),
    ("gm-unflag", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'unflag'"),
    ("gm-pop-points", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'grant-pop'"),
    ("gm-unit-hits", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'unit-hits'"),
    ("gm-fortification-hits", "POST"): Control("campaigns:gm-campaign", GM_PANEL,
                                               "'fortification-hits'"),
    ("gm-extend", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'extend'"),
    ("gm-pause", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'pause'"),
    ("gm-resume", "POST"): Control("campaigns:gm-campaign", GM_PANEL, "'resume'"),
    # Scenarios.
    ("scenario", "PUT"): Control("campaigns:scenario-new", "static/js/scenario_editor.js",
                                 "state.config.save_url"),
    ("scenario-share", "POST"): Control("campaigns:gm-dashboard",
                                        "templates/campaigns/gm/dashboard.html",
                                        'data-key="scenario-share"'),
    ("scenario-check", "POST"): Control("campaigns:scenario-new", "static/js/scenario_editor.js",
                                        "state.config.check_url"),
    # Forum and notifications.
    ("thread-posts", "POST"): Control("campaigns:forum-thread",
                                      "templates/campaigns/forum/thread.html",
                                      '<form id="reply" method="post"'),
    ("thread-read", "POST"): Control("campaigns:forum-thread", "campaigns/web/forum.py",
                                     "thread_mark_read(user=_user(request), thread=thread"),
    ("post", "PATCH"): Control("campaigns:forum-post-edit", "templates/campaigns/forum/_post.html",
                               "url 'campaigns:forum-post-edit'"),
    ("threads", "POST"): Control("campaigns:forum", "templates/campaigns/forum/index.html",
                                 '<form id="new-thread" method="post"'),
    ("thread", "PATCH"): Control("campaigns:forum-thread", "templates/campaigns/forum/thread.html",
                                 "url 'campaigns:forum-thread-manage'"),
    ("post-hide", "POST"): Control("campaigns:forum-thread",
                                   "templates/campaigns/forum/_post.html",
                                   "<button type=\"submit\">Hide the post</button>"),
    ("post-hide", "DELETE"): Control("campaigns:forum-thread",
                                     "templates/campaigns/forum/_post.html",
                                     'value="unhide">Show again</button>'),
    ("mutes", "POST"): Control("campaigns:forum-thread", "templates/campaigns/forum/_post.html",
                               "url 'campaigns:forum-mute'"),
    ("mute", "DELETE"): Control("campaigns:forum", "templates/campaigns/forum/index.html",
                                '<input type="hidden" name="action" value="unmute">'),
    ("side-threads-open", "POST"): Control("campaigns:after-action",
                                           "templates/campaigns/after_action.html",
                                           'data-key="open-side-threads"'),
    ("notifications-mark-read", "POST"): Control("notifications",
                                                 "templates/notifications/index.html",
                                                 "url 'notifications-read'"),
    # Tools for programs.
    ("rules-calculator", "POST"): ApiOnly(
        "The JSON calculators are for tools, bots and forum GMs' own spreadsheets (the same "
        "as `python -m rules`); the pages already give a player every number they compute "
        "where it is used: the army designer's live cost and rule errors, the attack's exact "
        "odds, the siege's damage odds, the reachable hexes and their costs."),
}

# Pages that need arguments: any value that reverses will do, the test only checks the route.
ARGS = {
    "campaigns:join": ["x"], "campaigns:lobby": [1], "campaigns:map": [1],
    "campaigns:gm-campaign": [1], "campaigns:gm-settings": [1],
    "campaigns:unit-type-edit": [1, 1],
    "campaigns:forum-thread": [1, 1], "campaigns:forum-post-edit": [1, 1], "campaigns:forum": [1],
    "campaigns:after-action": [1], "campaigns:battle": [1],
}


def test_every_unsafe_api_route_has_a_page_control_or_a_reason():
    assert sorted(write_routes() - set(PARITY)) == []


def test_every_parity_row_names_an_unsafe_api_route():
    assert sorted(set(PARITY) - write_routes()) == []


@pytest.mark.parametrize("route", sorted(k for k, v in PARITY.items() if isinstance(v, Control)))
def test_the_control_is_on_its_page(route):
    control = PARITY[route]
    assert isinstance(control, Control)
    try:
        reverse(control.page, args=ARGS.get(control.page, []))
    except NoReverseMatch:  # pragma: no cover - the failure message is the point
        pytest.fail(f"{route}: no page named {control.page}")
    text = (ROOT / control.file).read_text(encoding="utf-8")
    assert control.marker in text, f"{route}: {control.marker!r} is not in {control.file}"


def test_api_only_routes_give_a_reason():
    reasons = {k: v.reason for k, v in PARITY.items() if isinstance(v, ApiOnly)}
    assert sorted(k for k, r in reasons.items() if len(r.split()) < 10) == []


def test_docs_browser_lists_every_action():
    """docs/browser.md's action table names every API route of the parity table."""
    doc = (ROOT / "docs/browser.md").read_text(encoding="utf-8")
    missing = [f"{name} {method}" for name, method in PARITY if f"`{name}` {method}" not in doc]
    assert missing == []
