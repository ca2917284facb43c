"""Celery tasks of the matches app (queue ``matches``): play a match, break a tie, sweep.

Tasks take ids and re-read their rows; each is safe to run twice, because the broker may
deliver a message twice (``acks_late`` with ``reject_on_worker_lost``) and the sweeper
re-enqueues matches whose worker died. The services do the writes and the locking.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import traceback
from typing import Any

from celery import shared_task

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
    match_claim,
    match_complete,
    match_fail,
    match_record_game,
    match_renew_lease,
    match_sweep_expired,
    match_tiebreak_resolve,
)
from matches.streaming import BoardStreamer

logger = logging.getLogger(__name__)


def _worker_id(task: Any) -> str:
    """Who holds a lease: the worker's hostname, its process and the task's id."""
    host = getattr(task.request, "hostname", None) or "local"
    return f"{host}/{os.getpid()}/{task.request.id or 'eager'}"


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
        from django.db import connection

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


def _play(match: Match, worker: str, keeper: LeaseKeeper | None = None) -> str:
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


@shared_task(name="matches.run_match", bind=True)
def run_match(self, match_id: int) -> str:
    """Play match ``match_id`` to its end (or to a tie that waits for ``run_tiebreak``).

    Returns at once, playing nothing, when the match is done or failed or another worker
    holds its lease. While it plays, a :class:`LeaseKeeper` thread renews the lease. Goes
    on from the first game not yet recorded, so a match taken over from a dead worker is
    not replayed from the start. An error raised while playing (an engine or data problem,
    which a retry would meet again) fails the match with the traceback's last line in
    ``error``.
    """
    worker = _worker_id(self)
    match = match_claim(match_id=match_id, worker=worker)
    if match is None:
        logger.info("match %s: not claimed by %s (done, failed or held by another worker)", match_id, worker)
        return "skipped"
    try:
        with LeaseKeeper(match_id, worker) as keeper:
            outcome = _play(match, worker, keeper)
    except LeaseLost as exc:
        logger.warning("match %s: %s; stopping without writing", match_id, exc)
        return "lease lost"
    except Exception as exc:
        logger.exception("match %s failed", match_id)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        match_fail(match_id=match_id, worker=worker, error=f"playing the match raised {detail}")
        return "failed"
    logger.info("match %s: %s", match_id, outcome)
    return outcome


@shared_task(name="matches.run_tiebreak")
def run_tiebreak(game_id: int) -> str:
    """Break game ``game_id``'s tie with Match the Twos, then move its match on.

    A tie already broken is left alone, so a second delivery changes nothing.
    """
    row = match_tiebreak_resolve(game_id=game_id)
    return "resolved" if row is not None else "nothing to do"


@shared_task(name="matches.sweep")
def sweep() -> dict[str, list[int]]:
    """Re-queue matches whose worker's lease expired, fail those out of attempts, and
    resend ``run_match`` for matches left queued too long."""
    report = match_sweep_expired()
    if report.requeued or report.failed or report.resent:
        logger.warning("sweeper: re-queued %s, failed %s, resent %s", report.requeued, report.failed, report.resent)
    return report.to_json()
