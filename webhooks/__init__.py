"""Campaign webhooks: Discord, Slack and signed JSON messages of a campaign's public events."""
