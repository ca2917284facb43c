"""Best-of-N arithmetic: seat rotation, game results by entry, when a match is decided.

Pure functions with no database access, shared by the services and the tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def seat_order(*, entries: int, number: int) -> list[int]:
    """The entry that plays each engine seat in game ``number`` (1-based).

    Game 1 seats entry 0 in seat 0; each following game rotates by one, so in a
    two-player match the seats alternate and in a best-of-N with more players every
    entry takes every seat in turn.
    """
    shift = (number - 1) % entries
    return [(seat + shift) % entries for seat in range(entries)]


def entry_places(places: Sequence[int], order: Sequence[int]) -> list[int]:
    """A game's places (by engine seat) re-indexed by entry."""
    out = [0] * len(order)
    for seat, entry in enumerate(order):
        out[entry] = places[seat]
    return out


def game_winner(places_by_entry: Sequence[int]) -> int | None:
    """The entry alone in first place, or None (a draw or a shared first place)."""
    firsts = [entry for entry, place in enumerate(places_by_entry) if place == 1]
    return firsts[0] if len(firsts) == 1 else None


@dataclass(frozen=True)
class Standing:
    """Where a best-of-N match stands after some games."""

    decided: bool
    winner: int | None
    wins: list[int]
    draws: int
    games: int
    places: list[int]

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "wins": self.wins, "draws": self.draws, "games": self.games,
                "places": self.places}


def standing(*, best_of: int, entries: int, games: Sequence[Sequence[int]]) -> Standing:
    """The standing after ``games`` (each a list of places by entry).

    The match is decided as soon as one entry has won a majority of ``best_of`` games, or
    once ``best_of`` games are played: then the entry with the most wins takes it, and
    equal most wins is a drawn match (``winner`` None). ``places`` ranks the entries by
    wins, then by their summed places in all games (lower is better).
    """
    wins = [0] * entries
    draws = 0
    place_sums = [0] * entries
    for places in games:
        winner = game_winner(places)
        if winner is None:
            draws += 1
        else:
            wins[winner] += 1
        for entry, place in enumerate(places):
            place_sums[entry] += place
    needed = best_of // 2 + 1
    majority = [entry for entry, count in enumerate(wins) if count >= needed]
    decided = bool(majority) or len(games) >= best_of
    winner: int | None = None
    if majority:
        winner = majority[0]
    elif decided:
        most = max(wins)
        leaders = [entry for entry, count in enumerate(wins) if count == most]
        winner = leaders[0] if len(leaders) == 1 and most > 0 else None
    # Rank by wins (higher better), then by summed places (lower better).
    keys = [(wins[e], -place_sums[e]) for e in range(entries)]
    places = [1 + sum(1 for other in keys if other > keys[e]) for e in range(entries)]
    return Standing(decided=decided, winner=winner, wins=wins, draws=draws, games=len(games), places=places)
