"""Battles of ELF ABAS and QUAD by forum: one battle per campaign, refereed by the system's
engine in `rules/` (the `rules.battle` contract), its state stored as the engine's JSON
document in `Battle.state` with the log of every step in `BattleEntry` (docs/battles.md)."""
