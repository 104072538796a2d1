"""QUAD, the four-stat operational hex rules: quality, unit speed, attack, defense."""
