"""Decks: a player's registered decks and their immutable, numbered versions."""
