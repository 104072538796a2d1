"""The REST API under /api/v1/: thin views over the campaign services and selectors."""
