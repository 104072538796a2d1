"""The Erfworld campaign ruleset (see docs/rules/erfworld.md)."""
