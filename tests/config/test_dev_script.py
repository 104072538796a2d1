"""The ./dev script: POSIX syntax, help text, unknown commands."""

import shutil
import subprocess

import pytest

from config.settings.base import BASE_DIR

DEV = BASE_DIR / "dev"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", str(DEV), *args], capture_output=True, text=True, timeout=60)


def test_posix_syntax():
    assert subprocess.run(["sh", "-n", str(DEV)]).returncode == 0


@pytest.mark.skipif(shutil.which("dash") is None, reason="dash not installed")
def test_runs_under_dash():
    result = subprocess.run(["dash", str(DEV), "help"], capture_output=True, text=True)
    assert result.returncode == 0


def test_help_lists_every_command():
    result = run("help")
    assert result.returncode == 0
    commands = [line.split()[0] for line in result.stdout.splitlines()
                if line.startswith("  ") and not line.startswith("   ")]
    assert commands == ["up", "test", "bench", "manage", "help"]


def test_unknown_command_fails_with_help():
    result = run("dance")
    assert result.returncode == 1
    assert "dev: error: unknown command 'dance'" in result.stderr
    assert "Usage: ./dev COMMAND" in result.stderr
