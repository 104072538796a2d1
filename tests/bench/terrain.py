"""map.js's terrain colours and patterns (its TERRAIN_COLOURS and patternDefs) in Python,
for the map page benchmark's static SVG: the baseline draws the same picture as the map page.
No Django here, so tests import it freely; tests/e2e/test_map_legible.py checks the copies
agree with map.js."""

TERRAIN_COLOURS = {
    "open": "#e4ebc8", "road": "#e4ebc8", "hills": "#c8a87c", "woods": "#5d8a4c",
    "swamp": "#86aa9e", "dense_forest": "#3f6b35", "rocky": "#9a9488", "village": "#d6a27a",
    "deep_water": "#5a86b8",
}
# map.js's terrain patterns (patternDefs; tests/e2e/test_map_legible.py checks the copies
# agree), so the static SVG draws the same picture as the map page.
FOG_COLOURS = {
    "open": "#b9bdaa", "road": "#b9bdaa", "hills": "#9e8a6c", "woods": "#56704d",
    "swamp": "#74897f", "dense_forest": "#3d5637", "rocky": "#827e75", "village": "#ad8f76",
    "deep_water": "#5a7190",
}
DARK_TERRAIN = {"woods", "dense_forest", "deep_water"}
TERRAIN_GLYPHS = {
    "hills": '<path d="M1 11q3-6 6 0M8 5q3-6 6 0" fill="none" stroke-width="1.2"/>',
    "woods": '<circle cx="3.5" cy="4" r="2.2"/><circle cx="10.5" cy="11" r="2.2"/>',
    "dense_forest": ('<circle cx="3.5" cy="3.5" r="2.4"/><circle cx="10.5" cy="3.5" r="2.4"/>'
                     '<circle cx="7" cy="10.5" r="2.4"/><circle cx="0" cy="10.5" r="2.4"/>'
                     '<circle cx="14" cy="10.5" r="2.4"/>'),
    "swamp": ('<path d="M1 5h5M8 12h5M3.5 5v-3.5M10.5 12v-3.5M2 5l-1-2.5M5 5l1-2.5M9 12l-1-2.5'
              'M12 12l1-2.5" fill="none" stroke-width="1.3"/>'),
    "rocky": '<path d="M2 7l2.5-4 2.5 4zM8 13l2.5-4 2.5 4z"/>',
    "village": '<path d="M2 8v-3l2.5-2.5 2.5 2.5v3zM9 13v-2.5l2-2 2 2v2.5z"/>',
    "deep_water": ('<path d="M0 5q1.75-2 3.5 0t3.5 0t3.5 0t3.5 0M0 11q1.75-2 3.5 0t3.5 0t3.5 0t3.5 0" '
                   'fill="none" stroke-width="1.1"/>'),
}


def pattern_defs() -> str:
    """map.js's patternDefs(): every terrain's pattern, clear and fogged."""
    out = []
    for terrain, colour in TERRAIN_COLOURS.items():
        glyph = TERRAIN_GLYPHS.get(terrain, "")
        ink = "rgba(255,255,255,.38)" if terrain in DARK_TERRAIN else "rgba(40,30,10,.42)"
        for prefix, fill in (("t", colour), ("f", FOG_COLOURS.get(terrain, colour))):
            out.append(
                f'<pattern id="wc-{prefix}-{terrain}" patternUnits="userSpaceOnUse" width="14" '
                f'height="14"><rect width="14" height="14" fill="{fill}"/>'
                + (f'<g fill="{ink}" stroke="{ink}" stroke-width="0">{glyph}</g>' if glyph else "")
                + "</pattern>")
    return "".join(out)
