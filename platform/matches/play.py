"""The play loop of a claimed match: its games played one after another by the match's
pilots, each recorded by the services, until the match is decided or a game waits for
its tiebreak. ``matches.tasks.run_match`` claims the match and calls
:func:`play_until_decided`; the services do the writes and the locking.

A worker's lease is renewed from a thread of its own (:class:`LeaseKeeper`) and, with
the game's progress, from the engine's per-action callback, so the sweeper hands a match
to another worker only when this one has died or its bot is stuck.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.db import connection

from engine import games as engine_games
from engine.bots import make_bot
from engine.core import seed_from
from engine.runner import play_match
from matches import conf
from matches.models import Match, MatchGame
from matches.scoring import entry_places, seat_order, standing
from matches.services import (
    LeaseLost,
    PlayedGame,
    match_await_tiebreak,
    match_complete,
    match_record_game,
    match_renew_lease,
)
from matches.streaming import BoardStreamer

logger = logging.getLogger(__name__)


def game_seed(match_seed: int, number: int) -> int:
    """Game ``number``'s seed: a function of the match seed alone, so a game replayed by
    another worker after a crash is dealt exactly the same. Kept below 2**53 so that
    JavaScript clients read it exactly."""
    return seed_from(match_seed, "game", number) >> 11


def game_params(match: Match) -> dict[str, Any]:
    """The match's parameters, with the ties the game defers (``Game.defer_ties``) left
    for ``run_tiebreak``."""
    return engine_games[match.game].defer_ties(match.params or {})


class LeaseKeeper:
    """Renews a worker's lease on a match from a small thread, independently of actions.

    A long setup or one long bot decision produces no action for a while; the lease must
    not expire meanwhile, or the sweeper would hand a healthy worker's match to another.
    The thread renews every third of a lease period until :meth:`stop`. It stops renewing
    (and the lease then expires, so the sweeper takes over) when the game has made no
    progress (:meth:`touch`) for longer than a stuck bot could take: twice the decision
    budget plus one lease period; with no decision budget it renews while the worker lives.
    A renewal that finds the lease gone sets :attr:`lost`, which :meth:`check` turns into
    :class:`LeaseLost` in the playing thread.
    """

    def __init__(self, match_id: int, worker: str):
        self.match_id, self.worker = match_id, worker
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._last_progress = time.monotonic()
        budget = conf.decision_seconds()
        self._stall_seconds = None if budget is None else 2 * budget + conf.lease_seconds()
        self._thread = threading.Thread(target=self._run, name=f"lease-{match_id}", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def touch(self) -> None:
        """The game moved on (an action was applied)."""
        self._last_progress = time.monotonic()

    def check(self) -> None:
        if self.lost.is_set():
            raise LeaseLost(f"match {self.match_id}: {self.worker} no longer holds the lease")

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=30)

    def _run(self) -> None:
        try:
            while not self._stop.wait(conf.renew_every_seconds()):
                quiet = time.monotonic() - self._last_progress
                if self._stall_seconds is not None and quiet > self._stall_seconds:
                    logger.warning("match %s: no progress for %.0f s; no longer renewing the lease of %s",
                                   self.match_id, quiet, self.worker)
                    return
                try:
                    match_renew_lease(match_id=self.match_id, worker=self.worker)
                except LeaseLost:
                    self.lost.set()
                    return
                except Exception:  # a database hiccup: try again at the next period
                    logger.exception("match %s: could not renew the lease of %s", self.match_id, self.worker)
        finally:
            connection.close()


def play_game(match: Match, number: int, *, worker: str, keeper: LeaseKeeper | None = None) -> PlayedGame:
    """Play game ``number`` of ``match`` with its entries' pilots.

    ``keeper`` (the match's :class:`LeaseKeeper`) renews the lease from its own thread;
    each action tells it the game moves on, and stops the game with :class:`LeaseLost` once
    a renewal found the lease gone. Progress is broadcast (with a renewal) every third of
    a lease period from the engine's per-action callback, and the public board is streamed
    to the match page (:class:`~matches.streaming.BoardStreamer`, at most one frame every
    ``MATCHES_STREAM_SECONDS``).
    """
    seats = list(match.seats.select_related("deck_version", "deck_version__deck").order_by("seat"))
    order = seat_order(entries=len(seats), number=number)
    decks = [seats[entry].deck_version.to_engine() for entry in order]
    bots = [make_bot(seats[entry].pilot) for entry in order]
    every = conf.renew_every_seconds()
    last = time.monotonic()
    interval = conf.stream_seconds()
    streamer = BoardStreamer(match_id=match.pk, game=number, seat_order=order, interval=interval) if interval else None

    def on_action(actions: int, state, events) -> None:
        nonlocal last
        if keeper is not None:
            keeper.touch()
            keeper.check()
        if streamer is not None:
            streamer(actions, state, events)
        now = time.monotonic()
        if now - last >= every:
            last = now
            match_renew_lease(match_id=match.pk, worker=worker, game=number, actions=actions)

    result = play_match(
        engine_games[match.game], decks, bots,
        seed=game_seed(match.seed, number), params=game_params(match),
        decision_seconds=conf.decision_seconds(), on_action=on_action,
    )
    return PlayedGame(number=number, seat_order=order, outcome=result.outcome, replay=result.replay,
                      bot_errors=[error.to_json() for error in result.errors])


def play_until_decided(match: Match, worker: str, keeper: LeaseKeeper | None = None) -> str:
    """Play the claimed ``match`` from its first unrecorded game until it is decided or a
    game waits for its tiebreak; return what happened, for the worker's log."""
    recorded = list(match.games.order_by("number"))
    pending = [g for g in recorded if g.tiebreak == MatchGame.Tiebreak.PENDING]
    if pending:
        match_await_tiebreak(match_id=match.pk, worker=worker, game_id=pending[0].pk)
        return f"waiting for the tiebreak of game {pending[0].number}"
    places = [g.outcome["entry_places"] for g in recorded]
    entries = match.seats.count()
    while not standing(best_of=match.best_of, entries=entries, games=places).decided:
        number = len(places) + 1
        played = play_game(match, number, worker=worker, keeper=keeper)
        if keeper is not None:
            keeper.check()
        if not played.needs_tiebreak:
            after = places + [entry_places(played.outcome.places, played.seat_order)]
            if standing(best_of=match.best_of, entries=entries, games=after).decided:
                match_complete(match_id=match.pk, worker=worker, games=[played])
                return f"done after {number} game(s)"
        row = match_record_game(match_id=match.pk, worker=worker, game=played)
        if row.tiebreak == MatchGame.Tiebreak.PENDING:
            return f"game {number} tied: waiting for its tiebreak"
        places.append(row.outcome["entry_places"])
    match_complete(match_id=match.pk, worker=worker)
    return "done"
