"""Who may do what with matches: one function per permission, one condition a line.

Views, the API and the WebSocket consumer ask these functions, never the rows directly.
"""

from __future__ import annotations

from collections.abc import Iterable

from decks.models import Deck
from matches.models import Match


def can_view_match(user, match: Match) -> bool:
    """Every match, its live status and its replays are public, like the decks in it."""
    return True


def can_challenge(user) -> bool:
    """Any signed-in player may start a challenge."""
    return user.is_authenticated


def can_challenge_with(user, decks: Iterable[Deck]) -> bool:
    """A challenge puts up the challenger's own deck as entry 0, the first listed (staff
    may pit any decks)."""
    decks = list(decks)
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return bool(decks) and decks[0].owner_id == user.pk
