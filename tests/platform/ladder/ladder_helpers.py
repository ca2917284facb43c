"""Helpers of the ladder tests: decks from the starter lists, and finished matches whose
result is recorded exactly as the matches app records it (``match_finished`` inside the
transaction, with the match row locked)."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from decks.models import Deck
from decks.services import deck_register
from engine import games
from matches.models import Match, MatchSeat
from matches.signals import match_finished


def starter_text(game: str, index: int = 0) -> str:
    engine_game = games[game]
    deck = list(engine_game.starter_decks().values())[index]
    return deck.to_text(engine_game.commander_label)


def make_deck(owner: User, game: str = "tempofront", *, index: int = 0, pilot: str = "random",
              name: str | None = None, ladder: bool = False) -> Deck:
    return deck_register(owner=owner, game=game, name=name or f"{owner.username} {game} {index}",
                         decklist=starter_text(game, index % len(games[game].starter_decks())), pilot=pilot,
                         ladder=ladder)


def finish(decks: Sequence[Deck], places: Sequence[int], *, kind: str = "challenge",
           pilots: Sequence[str] | None = None) -> Match:
    """A match of ``decks`` (entry order) recorded as finished with ``places`` by entry."""
    game = decks[0].game
    with transaction.atomic():
        match = Match.objects.create(game=game, kind=kind, status=Match.Status.RUNNING, best_of=1, seed=1)
        MatchSeat.objects.bulk_create([
            MatchSeat(match=match, seat=i, deck_version=d.latest_version,
                      pilot=(pilots[i] if pilots else d.latest_version.pilot))
            for i, d in enumerate(decks)
        ])
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match.pk)
        winners = [i for i, p in enumerate(places) if p == 1]
        match.status = Match.Status.DONE
        match.finished = timezone.now()
        match.winner_seat = winners[0] if len(winners) == 1 else None
        match.result = {"winner": match.winner_seat, "wins": [int(p == 1) for p in places], "draws": 0, "games": 1,
                        "places": list(places)}
        match.save()
        match_finished.send(sender=Match, match=match)
    return match
