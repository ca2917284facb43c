"""The metagame of each game: matchups of the most played decks, card figures and
"deck or pilot?", aggregated from recorded matches (docs/lab.md)."""
