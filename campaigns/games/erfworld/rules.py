"""The names of Erfworld's rules (`rules.erfworld`) that the pages and the API use: they import
them from here, the adapter being the only importer of a rule system (pyproject.toml)."""

from rules.erfworld.types import Special, Terrain

__all__ = ["Special", "Terrain"]
