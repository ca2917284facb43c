"""Receivers of the matches app's signals (connected in ``TournamentsConfig.ready``).

``match_finished`` and ``match_failed`` are sent inside the transaction that records the
match; the receiver only asks, after that commit, for ``tournaments.advance`` of the
match's event, so the next round is paired the moment the last match of a round ends.
Live games of a live event (kind ``live``) are tables too: their end advances the event,
which records the game and starts the next game of a series.
"""

from __future__ import annotations

from matches.models import Match
from tournaments.models import Pairing
from tournaments.services import request_advance


def _advance_event_of(match: Match) -> None:
    if match.kind not in (Match.Kind.TOURNAMENT, Match.Kind.LIVE):
        return
    for tournament_id in set(Pairing.objects.filter(match=match).values_list("round__tournament_id", flat=True)):
        request_advance(tournament_id)


def on_match_finished(sender, match: Match, **kwargs) -> None:
    _advance_event_of(match)


def on_match_failed(sender, match: Match, **kwargs) -> None:
    """The round waits for a failed match; advancing marks its table failed, so the
    organiser sees it and can re-run it."""
    _advance_event_of(match)
