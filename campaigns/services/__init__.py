"""Every change of campaign state: one transaction, row locks, rules checks, an event each.

The services here are the campaign's life, common to every game (members, seats, settings,
absences, deadlines, the forum); each game's own services live in its package under
`campaigns.games` (Erfworld's: `campaigns.games.erfworld`).
"""
