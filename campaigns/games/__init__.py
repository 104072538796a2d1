"""The games a campaign can run, each behind the interface of `campaigns.game`: Erfworld's
relational campaign engine (`erfworld`) and the battles of the other rule systems refereed by
`rules/` with their state kept as a document (`battle`). Only these packages import a rule
system (`rules.<system>`); the import contracts in pyproject.toml hold them to it."""
