"""Every complete example in docs/rules/quad.md is what the calculator really prints."""

import re
import shlex
from pathlib import Path

import pytest

from tests.rules.test_cli import run

DOC = Path(__file__).resolve().parents[3] / "docs" / "rules" / "quad.md"
EXAMPLE = re.compile(
    r"^    \$ echo '(?P<stdin>[^']*)' \| python -m rules (?P<args>.+)\n    (?P<out>.+)$",
    re.MULTILINE,
)


def examples() -> list[tuple[str, list[str], str]]:
    return [(m["stdin"], shlex.split(m["args"]), m["out"]) for m in EXAMPLE.finditer(DOC.read_text())]


def test_the_doc_has_examples():
    assert len(examples()) == 5


@pytest.mark.parametrize(("stdin", "argv", "expected"), examples())
def test_doc_example(stdin, argv, expected):
    code, out, err = run(argv, stdin)
    assert (code, err) == (0, "")
    if "…" in expected:
        # Shortened in the doc: everything up to the ellipsis is printed as shown.
        assert out.strip().startswith(expected.split("…")[0])
    else:
        assert out.strip() == expected
