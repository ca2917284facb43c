"""Helpers of the metagame tests: decks from the starter lists, real bot matches played
in-process by the matches app's own task, and results recorded as the matches app records
them (for exact, hand-computed places)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from decks.models import Deck
from decks.services import deck_register
from engine import games
from matches.models import Match, MatchSeat
from matches.services import match_challenge
from matches.signals import match_finished
from matches.tasks import run_match


def starter_text(game: str, index: int = 0) -> str:
    engine_game = games[game]
    deck = list(engine_game.starter_decks().values())[index % len(engine_game.starter_decks())]
    return deck.to_text(engine_game.commander_label)


def make_deck(owner: User, game: str = "tempofront", *, index: int = 0, pilot: str = "random",
              name: str | None = None) -> Deck:
    return deck_register(owner=owner, game=game, name=name or f"{owner.username} {game} {index}",
                         decklist=starter_text(game, index), pilot=pilot)


def play(decks: Sequence[Deck], *, kind: str = Match.Kind.LADDER, best_of: int = 1, seed: int = 1) -> Match:
    """A real match of ``decks`` (their latest versions and pilots), played to its end by
    ``matches.run_match`` in this process; returns it reloaded."""
    match = match_challenge(created_by=None, deck_versions=[d.latest_version for d in decks], best_of=best_of,
                            seed=seed, kind=kind)
    assert run_match.apply(args=[match.pk]).get().startswith("done")
    match.refresh_from_db()
    assert match.status == Match.Status.DONE
    return match


def record(decks: Sequence[Deck], places: Sequence[int], *, kind: str = Match.Kind.LADDER,
           finished: datetime | None = None, forfeited: Sequence[int] = ()) -> Match:
    """A match of ``decks`` recorded as finished with ``places`` (by entry), as the matches
    app records a result (no games: only the matchups and entries count it)."""
    with transaction.atomic():
        match = Match.objects.create(game=decks[0].game, kind=kind, status=Match.Status.RUNNING, best_of=1, seed=1)
        MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=i, deck_version=d.latest_version,
                                                 pilot=d.latest_version.pilot) for i, d in enumerate(decks)])
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match.pk)
        winners = [i for i, p in enumerate(places) if p == 1]
        match.status = Match.Status.DONE
        match.finished = finished or timezone.now()
        match.winner_seat = winners[0] if len(winners) == 1 else None
        match.result = {"winner": match.winner_seat, "wins": [int(p == 1) for p in places], "draws": 0, "games": 1,
                        "places": list(places)}
        if forfeited:
            match.result["forfeited"] = list(forfeited)
        match.save()
        match_finished.send(sender=Match, match=match)
    return match
