"""Exports for external forums and feeds: Markdown/BBCode text, map images (PNG and SVG)."""
