"""Demo data of the tournaments app, loaded by ``manage.py load_demo`` (after the decks and
matches apps): so that a newcomer sees standings, a bracket and replays at once.

- "Demo Winter Swiss": a finished Swiss of 8 players, 3 rounds, with a top 4 cut and a
  third-place match;
- "Demo <title> Pod Night": a finished pod event of 8 players in pods of 4, of the first
  game that seats four;
- "Demo Friday Swiss": an open Swiss with 6 entries that starts 5 minutes after the demo
  was loaded (beat's tick starts it; the worker plays it);
- "Demo Live Mixed": an open live Swiss of people and bots (bots up to
  ``greedy``) starting 20 minutes after the demo was loaded, with three demo bot entries
  already in: a newcomer enters, checks in and plays the rounds live on the board.

The Swiss events play the first game of the registry (``engine.games``) that two can play.

The finished events are played here, synchronously, by random bots (they take seconds),
with fixed tournament seeds. Entrants are demo players (``demo-<name>``, no usable
password) each with a copy of a starter deck. Idempotent: an event that exists is left
alone; the open one is created again only when no demo event is open.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from decks.models import Deck
from decks.services import deck_register
from engine import games
from matches.models import Match, MatchGame
from matches.tasks import run_match
from matches.tasks import run_tiebreak as run_match_tiebreak
from tournaments.models import Entry, Tiebreak, Tournament
from tournaments.services import tournament_advance, tournament_create, tournament_start, tournament_tiebreak_resolve
from web.demo import DEMO_USERNAME

PLAYERS = ("ana", "bo", "cyd", "dee", "eli", "fay", "gus", "hal")
SWISS = "Demo Winter Swiss"
OPEN = "Demo Friday Swiss"
LIVE = "Demo Live Mixed"


def _two_player_game() -> str:
    """The game of the demo's Swiss events: the first registered game two can play."""
    return next(name for name in games if games[name].min_seats <= 2 <= games[name].max_seats)


def _pod_game() -> str | None:
    """The game of the demo's pod event: the first registered game four can play, or None."""
    return next((name for name in games if games[name].min_seats <= 4 <= games[name].max_seats), None)


def _pods_name() -> str:
    game = _pod_game()
    return f"Demo {games[game].title} Pod Night" if game is not None else ""


#: The pod event's name ("Demo <title> Pod Night"), empty when no game seats four.
PODS = _pods_name()


def _player(name: str):
    user, created = get_user_model().objects.get_or_create(username=f"demo-{name}",
                                                           defaults={"first_name": name.title()})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _deck(user, game: str, index: int, *, upcoming: bool = False) -> Deck:
    """The player's demo deck; ``upcoming``: a deck of its own for an upcoming event (a deck
    entered in an event is hidden everywhere until the event publishes its decklists, so
    the finished events' decks stay on show)."""
    engine_game = games[game]
    starters = list(engine_game.starter_decks().items())
    name, decklist = starters[index % len(starters)]
    decks = Deck.objects.filter(owner=user, game=game, archived=False)
    deck_name = f"{user.first_name}'s {name}" + (" (next event)" if upcoming else "")
    deck = decks.filter(name=deck_name).first() if upcoming else decks.exclude(name__endswith=" (next event)").first()
    if deck is None:
        deck = deck_register(owner=user, game=game, name=deck_name,
                             decklist=decklist.to_text(engine_game.commander_label), pilot="random")
    return deck


def _entrants(tournament: Tournament, count: int, *, names=PLAYERS, upcoming: bool = False) -> None:
    for index, name in enumerate(names[:count]):
        user = _player(name)
        deck = _deck(user, tournament.game, index, upcoming=upcoming)
        Entry.objects.get_or_create(tournament=tournament, player=user,
                                    defaults={"deck": deck, "deck_version": deck.latest_version,
                                              "plays": Entry.Plays.BOT})


def _play(tournament: Tournament, log: Callable[[str], None]) -> None:
    """Play the event to its end in this process: each queued match by the match task
    itself, run eagerly, then the event advanced."""
    for _ in range(200):
        tournament.refresh_from_db()
        if tournament.state != Tournament.State.RUNNING:
            break
        queued = list(Match.objects.filter(tournament_pairings__round__tournament=tournament)
                      .filter(Q(status=Match.Status.QUEUED) | Q(status=Match.Status.RUNNING, lease_owner=""))
                      .values_list("pk", flat=True))
        for match_id in queued:
            run_match.apply(args=[match_id])
        # A game whose ties are broken after it (Game.defer_ties) waits for its Match the
        # Twos task: run it here too.
        for game_id in MatchGame.objects.filter(match__tournament_pairings__round__tournament=tournament,
                                                tiebreak=MatchGame.Tiebreak.PENDING).values_list("pk", flat=True):
            run_match_tiebreak.apply(args=[game_id])
        for tiebreak_id in Tiebreak.objects.filter(tournament=tournament, status=Tiebreak.Status.PENDING) \
                .values_list("pk", flat=True):
            tournament_tiebreak_resolve(tiebreak_id=tiebreak_id)
        tournament_advance(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    winner = tournament.winner.player.username if tournament.winner else "nobody"
    log(f"played '{tournament.name}' to the end: {tournament.current_round} rounds, won by {winner}")


def load_demo_data(*, log: Callable[[str], None]) -> None:
    organiser = get_user_model().objects.filter(username=DEMO_USERNAME).first()
    if organiser is None:
        log(f"no '{DEMO_USERNAME}' user: no demo tournaments")
        return
    now = timezone.now()
    two, four = _two_player_game(), _pod_game()
    finished = [
        (SWISS, {"game": two, "format": "swiss_cut", "rounds": 3, "top_cut": 4, "third_place": True,
                 "description": "Eight decks, three Swiss rounds, then a top 4 cut with a third-place match."},
         2026_12),
    ]
    if four is not None:
        finished.append(
            (PODS, {"game": four, "format": "conquest_pods", "players_per_game": 4, "rounds": 2,
                    "description": f"Four-player {games[four].title} pods: 3/2/1/0 points by place, two rounds."},
             2026_13))
    for name, settings, seed in finished:
        if Tournament.objects.filter(name=name, organiser=organiser).exists():
            log(f"'{name}' already exists")
            continue
        event = tournament_create(organiser=organiser, name=name, starts_at=now - timedelta(hours=1), best_of=1,
                                  **settings)
        Tournament.objects.filter(pk=event.pk).update(seed=seed)
        _entrants(event, len(PLAYERS))
        tournament_start(tournament_id=event.pk, now=now)
        _play(event, log)
    _open_live_event(organiser, now, log, game=two)
    if Tournament.objects.filter(name=OPEN, organiser=organiser, state=Tournament.State.OPEN).exists():
        log(f"'{OPEN}' is already open")
        return
    event = tournament_create(organiser=organiser, name=OPEN, game=two, format="swiss", best_of=3,
                              starts_at=now + timedelta(minutes=5), entry_limit=16,
                              description="Starts five minutes after the demo loads: enter a deck and watch it run.")
    _entrants(event, 6, upcoming=True)
    log(f"'{OPEN}' is open with 6 entries and starts at {event.starts_at:%H:%M} UTC")


def _open_live_event(organiser, now, log: Callable[[str], None], *, game: str) -> None:
    if Tournament.objects.filter(name=LIVE, organiser=organiser, state=Tournament.State.OPEN).exists():
        log(f"'{LIVE}' is already open")
        return
    event = tournament_create(
        organiser=organiser, name=LIVE, game=game, format="swiss", best_of=1, rounds=2,
        starts_at=now + timedelta(minutes=20), entry_limit=16, entrants=Tournament.Entrants.MIXED, bot_cap="greedy",
        check_in_minutes=15, clock_initial=300, clock_increment=5, no_show_minutes=3, round_limit_minutes=30,
        description="Played live: enter with your own deck, check in during the 15 minutes before the start, "
                    "and play two rounds on the board. Three demo bots (random pilots) are already in.")
    _entrants(event, 3, names=("ivy", "jon", "kit"), upcoming=True)
    log(f"'{LIVE}' is open for people and bots and starts at {event.starts_at:%H:%M} UTC")
