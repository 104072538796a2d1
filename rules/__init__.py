"""Pure-Python game rules: hex grid, verifiable dice, pathing and the rulesets (no Django here)."""
