"""Helpers of the tournaments tests: players with decks, events, and playing an event to
its end inside the test process (matches played by ``matches.tasks.run_match`` eagerly,
the event advanced by the service), for tests that do not need real workers."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from decks.models import Deck
from decks.services import deck_register
from engine import games
from matches.models import Match
from tournaments.models import Pairing, Tournament
from tournaments.services import tournament_advance, tournament_create, tournament_enter


def starter_text(game: str, index: int = 0) -> str:
    engine_game = games[game]
    decks = list(engine_game.starter_decks().values())
    return decks[index % len(decks)].to_text(engine_game.commander_label)


def make_player(name: str) -> User:
    return User.objects.create_user(name, password=f"pw-{name}-123")


def make_deck(owner: User, game: str, *, index: int = 0, pilot: str = "random") -> Deck:
    return deck_register(owner=owner, game=game, name=f"{owner.username} {game} {index}",
                         decklist=starter_text(game, index), pilot=pilot)


def make_event(organiser: User, **values) -> Tournament:
    values.setdefault("game", "tempofront")
    values.setdefault("name", "Test event")
    values.setdefault("starts_at", timezone.now() + timedelta(hours=1))
    values.setdefault("format", "swiss")
    values.setdefault("best_of", 1)
    return tournament_create(organiser=organiser, **values)


def fill(tournament: Tournament, count: int, *, prefix: str = "p") -> list:
    """``count`` new players, each entering a random-bot deck."""
    entries = []
    for i in range(count):
        player = make_player(f"{prefix}{tournament.pk}x{i}")
        deck = make_deck(player, tournament.game, index=i)
        entries.append(tournament_enter(tournament_id=tournament.pk, player=player, deck_id=deck.pk))
    return entries


def play_out(tournament: Tournament, *, limit: int = 2000) -> Tournament:
    """Play every queued match of the event in this process and advance it, until it
    finishes or nothing is left to play."""
    from django.db.models import Q

    from matches.models import MatchGame
    from matches.tasks import run_match
    from matches.tasks import run_tiebreak as run_match_tiebreak
    from tournaments.models import Tiebreak
    from tournaments.services import tournament_tiebreak_resolve

    for _ in range(limit):
        tournament.refresh_from_db()
        if tournament.state != Tournament.State.RUNNING:
            return tournament
        queued = list(Match.objects.filter(tournament_pairings__round__tournament=tournament)
                      .filter(Q(status=Match.Status.QUEUED) | Q(status=Match.Status.RUNNING, lease_owner=""))
                      .values_list("pk", flat=True))
        for match_id in queued:
            run_match.apply(args=[match_id])
        # A tied Conquest game waits for its Match the Twos task: run it here too.
        for game_id in MatchGame.objects.filter(match__tournament_pairings__round__tournament=tournament,
                                                tiebreak=MatchGame.Tiebreak.PENDING).values_list("pk", flat=True):
            run_match_tiebreak.apply(args=[game_id])
        for tiebreak_id in Tiebreak.objects.filter(tournament=tournament, status="pending").values_list("pk",
                                                                                                       flat=True):
            tournament_tiebreak_resolve(tiebreak_id=tiebreak_id)
        tournament_advance(tournament_id=tournament.pk)
        if not queued and not Pairing.objects.filter(round__tournament=tournament,
                                                     status=Pairing.Status.PLAYING).exists():
            tournament.refresh_from_db()
            if tournament.state == Tournament.State.RUNNING:
                continue
    tournament.refresh_from_db()
    return tournament


def finished_double_elim(organiser: User, *, reset: bool, players: int = 4, best_of: int = 3,
                         prefix: str = "de", attempts: int = 60) -> Tournament:
    """A double elimination played to its end whose grand final needed a bracket reset
    (``reset=True``: the losers-bracket player won the grand final) or did not. The
    tournament seed decides every match, so seeds 1, 2, ... are tried in turn until one
    gives the wanted final; the same code always finds the same event."""
    for attempt in range(1, attempts + 1):
        event = make_event(organiser, name=f"Double {prefix} {attempt}", format="double_elim", best_of=best_of)
        fill(event, players, prefix=f"{prefix}{attempt}-")
        Tournament.objects.filter(pk=event.pk).update(seed=attempt)
        from tournaments.services import tournament_start

        tournament_start(tournament_id=event.pk, by=organiser)
        event = play_out(event)
        assert event.state == Tournament.State.FINISHED, event.state
        if Pairing.objects.filter(round__tournament=event, key="GF-reset").exists() == reset:
            return event
    raise AssertionError(f"no seed of 1 to {attempts} gave a double elimination with reset={reset}")
