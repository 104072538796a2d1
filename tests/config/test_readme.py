"""The README documents every environment variable the settings read, and the two commands."""

import re

from config.settings.base import BASE_DIR

ENV_READ = re.compile(r"""env(?:\.\w+)?\(\s*["']([A-Z_]+)["']""")


def settings_variables() -> set[str]:
    names: set[str] = set()
    for path in (BASE_DIR / "config" / "settings").glob("*.py"):
        text = path.read_text()
        names |= set(ENV_READ.findall(text))
        names |= set(re.findall(r"""os\.environ\.setdefault\(\s*["']([A-Z_]+)["']""", text))
    return names


def test_every_settings_variable_is_in_the_readme_table():
    readme = (BASE_DIR / "README.md").read_text()
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", readme, flags=re.MULTILINE))
    assert settings_variables() - documented == set()
    assert "DATABASE_URL" in documented  # the regex really reads the table


def test_readme_gives_the_two_commands_first():
    readme = (BASE_DIR / "README.md").read_text()
    first_block = readme.split("## Two commands", 1)[1].split("\n\n")[1]
    assert [line.split("#")[0].strip() for line in first_block.splitlines()] == [
        "./dev up", "./dev test",
    ]
    assert "./dev test" in (BASE_DIR / ".ci" / "run").read_text()
