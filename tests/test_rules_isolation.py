"""Importing rules (and every module below it) never imports Django."""

import pkgutil
import subprocess
import sys

import rules
from config.settings.base import BASE_DIR


def all_rules_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(rules.__path__, "rules."))


def test_importing_rules_does_not_import_django():
    modules = ["rules", *all_rules_modules()]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "leaked = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(len(sys.modules), leaked)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[1:] == ["[]"]


def test_rules_sources_have_no_django_import():
    offenders = [
        str(path.relative_to(BASE_DIR))
        for path in (BASE_DIR / "rules").rglob("*.py")
        if any(line.lstrip().startswith(("import django", "from django"))
               for line in path.read_text().splitlines())
    ]
    assert offenders == []
