"""Every example in docs/rules/grasp.md is what the calculator really prints."""

import re
import shlex
from pathlib import Path

import pytest

from tests.rules.test_cli import run

DOC = Path(__file__).resolve().parents[3] / "docs" / "rules" / "grasp.md"
EXAMPLE = re.compile(
    r"^ +\$ echo '(?P<stdin>[^']*)' \| python -m rules (?P<args>.+)\n +(?P<out>.+)$", re.MULTILINE
)


def examples() -> list[tuple[str, list[str], str]]:
    return [(m["stdin"], shlex.split(m["args"]), m["out"]) for m in EXAMPLE.finditer(DOC.read_text())]


def test_the_doc_has_an_example_per_calculator() -> None:
    assert sorted({argv[1] for _, argv, _ in examples()}) == [
        "carrier", "close_combat", "cost", "die", "engineer", "fatigue", "fire", "mines", "move",
        "round", "supply", "terrain"]


@pytest.mark.parametrize(("stdin", "argv", "expected"), examples())
def test_doc_example(stdin: str, argv: list[str], expected: str) -> None:
    code, out, err = run(argv, stdin)
    assert (code, err) == (0, "")
    assert out.strip() == expected
