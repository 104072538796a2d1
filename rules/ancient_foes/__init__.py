"""Ancient Foes 2: fast-play 15mm ancients (unit tables, bands, fire/fight, leaders' orders)."""
