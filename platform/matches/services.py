"""Writes of the matches app: challenges, claims and leases, games, tiebreaks, the sweeper.

The lifecycle (docs/matches.md has the whole story):

- :func:`match_challenge` creates a queued match and, on commit, enqueues
  ``matches.run_match`` on the ``matches`` queue.
- A worker's :func:`match_claim` turns it running under a *lease* (``lease_owner``,
  ``lease_expires``) that the worker renews while it plays (:func:`match_renew_lease`).
- Each finished game is written with its replay and bot errors by
  :func:`match_record_game`; the last one, with the match's result, by
  :func:`match_complete`, in one transaction. Both refuse to write for a worker whose lease
  is gone (:class:`LeaseLost`), so a worker that was presumed dead can never write twice.
- A tied game, when its game leaves ties to a task of their own (``Game.defer_ties``),
  waits for ``matches.run_tiebreak``: the match's lease is handed to the tiebreak
  (``lease_owner = "tiebreak:<game id>"``) and :func:`match_tiebreak_resolve` asks the game
  to break the tie (``Game.break_ties``), then completes the match or hands it back to
  ``run_match`` for the next game.
- :func:`match_sweep_expired` (run by beat) re-queues matches whose lease expired, gives
  up on them as failed after ``MATCHES_MAX_ATTEMPTS`` starts, and sends ``run_match``
  again for a match left queued too long (its message may have been lost).

Every function that changes a match locks its row (``select_for_update``) for the whole
transaction; its tasks and broadcasts are sent only after commit, through ``web.effects``
(``send_task_on_commit``, ``broadcast_on_commit``; nothing for a transaction that rolls
back).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.utils.encoders import JSONEncoder

from decks.models import DeckVersion
from engine import core as engine_core
from engine import games as engine_games
from engine.core import Game, Outcome, Replay
from matches import conf, fairness, queries, signals
from matches.models import Match, MatchGame, MatchSeat
from matches.scoring import entry_places, standing
from matches.selectors import match_get
from matches.serializers import MatchDetailSerializer
from web import effects
from web.apperrors import AppError
from web.games import seat_counts_text

logger = logging.getLogger(__name__)

RUN_MATCH = "matches.run_match"
RUN_TIEBREAK = "matches.run_tiebreak"
SWEEP = "matches.sweep"
TIEBREAK_LEASE_PREFIX = "tiebreak:"
#: Longest error text kept on a failed match.
ERROR_MAX_CHARS = 4000


class LeaseLost(Exception):
    """The caller no longer holds the match's lease: another worker (or the sweeper) took it."""


@dataclass
class PlayedGame:
    """A game a worker has played and not yet written."""

    number: int
    seat_order: list[int]
    outcome: Outcome
    replay: Replay
    bot_errors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def needs_tiebreak(self) -> bool:
        return bool(self.outcome.detail.get("tiebreak_pending"))


def group_name(match_id: int) -> str:
    """The channel-layer group of one match's live status."""
    return f"match.{match_id}"


# --------------------------------------------------------------------------- challenge


def match_challenge(
    *,
    created_by: AbstractBaseUser | None,
    deck_versions: Sequence[DeckVersion],
    best_of: int,
    params: Mapping[str, Any] | None = None,
    seed: int | None = None,
    kind: str = Match.Kind.CHALLENGE,
) -> Match:
    """Create a queued match of ``deck_versions`` (entry 0 first) and enqueue it on commit.

    Validates everything at once and raises ``ValidationError`` whose ``message_dict`` has
    ``decks``, ``best_of`` and ``params`` messages: every deck for the same game, a seat
    count the game allows (``Game.min_seats`` to ``max_seats``), no archived deck, ``best_of``
    1, 3 or 5, and parameters and decks the engine accepts (its bounded checks; no game is
    set up here). ``seed`` defaults to a random one; a fresh salt and the public commitment
    to the seed are stored with it (``matches.fairness``). Each entry is played by the
    pilot of its deck version. A player's challenge (``kind`` challenge with
    ``created_by``) over ``MATCHES_MAX_OPEN_CHALLENGES`` queued or running ones raises
    :class:`TooManyOpenChallenges`, nothing written; the count is taken under the
    challenger's user row lock.
    """
    versions = list(deck_versions)
    game_name, clean_params, seed = _validated(versions, best_of=best_of, params=params, seed=seed)

    salt = fairness.new_salt()
    with transaction.atomic():
        if created_by is not None and kind == Match.Kind.CHALLENGE:
            _check_open_challenges(created_by)
        match = Match.objects.create(
            game=game_name, kind=kind, best_of=best_of, seed=seed, params=clean_params, created_by=created_by,
            seed_salt=salt, seed_commitment=fairness.seed_commitment(seed=seed, salt=salt),
            lease_expires=timezone.now() + timedelta(seconds=conf.resend_seconds()),
        )
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=i, deck_version=v, pilot=v.pilot) for i, v in enumerate(versions)]
        )
        match_id = match.pk
        queue = conf.queue_for(match.kind)
        effects.send_task_on_commit(RUN_MATCH, args=[match_id], queue=queue)
    return match


def reserved_params(engine_game: Game | None) -> list[str]:
    """The parameters the platform sets itself (``ParamSpec.organiser`` false: a game's
    own tiebreak setting, which ``Game.defer_ties`` sets); a challenge or an event may not
    choose them."""
    if engine_game is None:
        return []
    return [name for name, spec in engine_game.param_specs().items() if not spec.organiser]


def _validated(versions: list[DeckVersion], *, best_of: int, params: Mapping[str, Any] | None,
               seed: int | None) -> tuple[str, dict[str, Any], int]:
    """The game, the parameters and the seed (random when None) of a match of ``versions``;
    raises ``ValidationError`` with every problem (see :func:`match_challenge`)."""
    errors: dict[str, list[str]] = {}
    game_names = sorted({v.deck.game for v in versions})
    if not versions:
        errors.setdefault("decks", []).append(
            f"a challenge needs decks, as many as its game seats ({seat_counts_text()})")
    elif len(game_names) > 1:
        listed = ", ".join(f"{v.deck.name} ({v.deck.get_game_display()})" for v in versions)
        errors.setdefault("decks", []).append(f"every deck must be for the same game, but these are not: {listed}")
    for version in versions:
        if version.deck.archived:
            errors.setdefault("decks", []).append(f"deck '{version.deck.name}' was deleted and cannot play")
    engine_game = engine_games[game_names[0]] if len(game_names) == 1 else None
    if engine_game is not None and not engine_game.min_seats <= len(versions) <= engine_game.max_seats:
        seats = (f"{engine_game.min_seats}" if engine_game.min_seats == engine_game.max_seats
                 else f"{engine_game.min_seats} to {engine_game.max_seats}")
        errors.setdefault("decks", []).append(
            f"{engine_game.title} is played by {seats} decks, not {len(versions)}")
    if isinstance(best_of, bool) or best_of not in (1, 3, 5):
        errors["best_of"] = [f"best_of must be 1, 3 or 5, not {best_of!r}"]
    clean_params: dict[str, Any] = {}
    if params is not None and not isinstance(params, Mapping):
        errors["params"] = ["params must be an object of rules parameter names and values"]
    elif params:
        clean_params = dict(params)
        for name in reserved_params(engine_game):
            if name in clean_params:
                errors.setdefault("params", []).append(f"'{name}' is set by the platform and cannot be chosen")
    if seed is None:
        seed = secrets.randbits(53)  # exact as a JavaScript number
    if engine_game is not None and "decks" not in errors and "params" not in errors:
        _check_with_engine(engine_game, versions, clean_params, errors)
    if errors:
        raise ValidationError(errors)
    return game_names[0], clean_params, seed


#: ``lease_owner`` of a live match: played by people through the live app, never by a
#: worker; its ``lease_expires`` stays null, so neither the sweeper nor a claim touch it.
LIVE_LEASE_OWNER = "live"


@dataclass(frozen=True)
class LiveMatchSpec:
    """One live match for :func:`match_create_live_many` (the arguments of
    :func:`match_create_live`)."""

    created_by: Any
    deck_versions: Sequence[DeckVersion]
    pilots: Sequence[str]
    params: Mapping[str, Any] | None = None
    seed: int | None = None
    #: A ladder match played live (an external bot's deck on the ladder, docs/bots-api.md).
    ladder: bool = False


def match_create_live(
    *,
    created_by: AbstractBaseUser | None,
    deck_versions: Sequence[DeckVersion],
    pilots: Sequence[str],
    params: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> Match:
    """Create a running live match (best of 1) whose entries are ``deck_versions``, played
    by ``pilots`` (``"human"`` or a bot spec, one per entry); no task is sent.

    Validated like :func:`match_challenge` (``ValidationError``, plus ``pilots`` when their
    count differs), with the same secret seed, salt and public commitment. The match is
    running under ``lease_owner = "live"`` with no expiry, so the sweeper and
    :func:`match_claim` leave it alone; :func:`match_record_live_game` finishes it.
    """
    return match_create_live_many([LiveMatchSpec(created_by=created_by, deck_versions=deck_versions, pilots=pilots,
                                                 params=params, seed=seed)])[0]


def match_create_live_many(specs: Sequence[LiveMatchSpec]) -> list[Match]:
    """:func:`match_create_live` for many matches, in their order: each is validated (the
    first problem raises, and nothing is written), then the matches are written in one
    statement and their seats in another."""
    checked = []
    for spec in specs:
        versions, pilots = list(spec.deck_versions), [str(p) for p in spec.pilots]
        if len(pilots) != len(versions):
            raise ValidationError({"pilots": [f"one pilot per deck: {len(versions)} decks but {len(pilots)} pilots"]})
        game_name, clean_params, seed = _validated(versions, best_of=1, params=spec.params, seed=spec.seed)
        salt = fairness.new_salt()
        match = Match(
            game=game_name, kind=Match.Kind.LIVE, status=Match.Status.RUNNING, best_of=1, seed=seed,
            ladder=spec.ladder,
            params=clean_params, created_by=spec.created_by, started=timezone.now(), lease_owner=LIVE_LEASE_OWNER,
            lease_expires=None, seed_salt=salt, seed_commitment=fairness.seed_commitment(seed=seed, salt=salt),
        )
        checked.append((match, versions, pilots))
    # Inserts that stand or fall together; no savepoint inside a caller's transaction.
    with transaction.atomic(savepoint=False):
        matches = [match for match, _, _ in checked]
        if connection.features.can_return_rows_from_bulk_insert:
            Match.objects.bulk_create(matches)
        else:  # a database that does not return the keys of a bulk insert: one at a time
            for match in matches:
                match.save(force_insert=True)
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=i, deck_version=v, pilot=p)
             for match, (_, versions, pilots) in zip(matches, checked, strict=True)
             for i, (v, p) in enumerate(zip(versions, pilots, strict=True))]
        )
    return matches


def match_record_live_game(*, match_id: int, replay: Replay, seat_order: Sequence[int],
                           bot_errors: Sequence[Mapping[str, Any]] = (), outcome: Outcome | None = None) -> Match:
    """Write the one game of live match ``match_id`` (its replay) and the match's result
    in one transaction, under the match's row lock; the match is then done
    (``match_finished`` is sent inside the transaction; the page hears of it on commit). A
    match already done is returned as it is. Raises ``ValueError`` for a match that is not
    a running live match, or a replay without an outcome when no ``outcome`` is given.

    ``outcome`` is the game's result when the live app ranks it otherwise than the engine
    did (a seat that ran out of time or forfeited ranks last), or when the game was stopped
    before its end and adjudicated (its replay then has no outcome: the log as played,
    which still verifies as an unfinished game): the game's places, the match's result and
    so the ratings follow it, while the replay keeps the engine's own outcome. It must
    place as many seats as the replay has. Default: the replay's.
    """
    if replay.outcome is None and outcome is None:
        raise ValueError(f"live match {match_id}: the replay has no outcome; the game is not over")
    seats = len(replay.outcome.places) if replay.outcome is not None else len(replay.decks)
    if outcome is not None and len(outcome.places) != seats:
        raise ValueError(f"live match {match_id}: the outcome places {len(outcome.places)} seats, the replay "
                         f"{seats}")
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.DONE:
            return match
        if match.kind != Match.Kind.LIVE or match.status != Match.Status.RUNNING:
            raise ValueError(f"match {match_id} is not a running live match ({match.kind}, {match.status})")
        if not match.games.filter(number=1).exists():
            _write_game(match, PlayedGame(number=1, seat_order=list(seat_order), outcome=outcome or replay.outcome,
                                          replay=replay, bot_errors=[dict(e) for e in bot_errors]))
        _finish(match)
    return match


def _check_with_engine(engine_game, versions: Sequence[DeckVersion], params: dict[str, Any],
                       errors: dict[str, list[str]]) -> None:
    """Check the parameters (``Game.check_params``: declared types and bounds) and every
    deck under them (:func:`match_deck_problems`) with the engine's own bounded checks; no
    game is set up."""
    try:
        engine_game.check_params(params)
    except ValueError as exc:
        errors.setdefault("params", []).append(str(exc))
        return
    problems = match_deck_problems(deck_versions=versions, params=params)
    if problems:
        errors.setdefault("decks", []).extend(problems)


def match_deck_problems(*, deck_versions: Sequence[DeckVersion], params: Mapping[str, Any] | None) -> list[str]:
    """Every problem of each deck of ``deck_versions`` under the rules that ``params`` make
    (a match's or an event's own parameters; None: the game's defaults), each naming its
    deck ("deck 'Iron Tide': 30 cards; deck_size is 20 here, so a deck has exactly 20 ...").
    Empty: every deck may play a match with these parameters, so the worker's ``new_match``
    will not refuse it.

    The one place where the platform checks decks against parameters: challenges, live
    matches, queues and tournament entries all call it before anything is written.
    Raises ``ValueError`` naming a parameter the engine refuses. Writes nothing; no game
    is set up.
    """
    problems: list[str] = []
    for version in deck_versions:
        engine_game = engine_games[version.deck.game]
        for problem in engine_game.validate_deck(version.to_engine(), params):
            problems.append(f"deck '{version.deck.name}': {problem}")
    return problems


class TooManyOpenChallenges(AppError):
    """The challenger already has ``MATCHES_MAX_OPEN_CHALLENGES`` challenges queued or running."""

    code = "too_many_open_challenges"

    def __init__(self, cap: int, open_now: int):
        self.cap, self.open_now = cap, open_now
        super().__init__(
            f"You already have {open_now} challenges queued or running; at most {cap} may be open at once "
            f"(MATCHES_MAX_OPEN_CHALLENGES). Wait for one to finish.",
            fields={"decks": [f"at most {cap} open challenges per player"]},
        )


def _check_open_challenges(user: AbstractBaseUser) -> None:
    """Refuse a challenge over the per-player cap. Locks the challenger's user row, so two
    challenges sent at once by one player are counted one after the other."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    cap = conf.max_open_challenges()
    open_now = Match.objects.filter(
        created_by=user, kind=Match.Kind.CHALLENGE, status__in=(Match.Status.QUEUED, Match.Status.RUNNING)
    ).count()
    if open_now >= cap:
        raise TooManyOpenChallenges(cap, open_now)


# --------------------------------------------------------------------------- claim and lease


def match_claim(*, match_id: int, worker: str) -> Match | None:
    """Take match ``match_id`` for ``worker`` under a fresh lease; None if it is not free.

    Locks the match row. A queued match becomes running (one more attempt); a running
    match may be taken only when its lease has expired (one more attempt) or was released
    after a tiebreak (the same attempt goes on). A done or failed match, or one whose lease
    someone else still holds, is never taken: a completed match is never played twice.
    """
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().filter(pk=match_id).first()
        if match is None or match.is_finished:
            return None
        if match.status == Match.Status.RUNNING and match.lease_owner and (
                match.lease_expires is None or match.lease_expires > now):
            return None  # held by a live worker, or a live match (no expiry) that no worker plays
        if match.status == Match.Status.QUEUED or match.lease_owner:
            if match.attempts >= conf.max_attempts():
                _fail(match, now, _gave_up_message(match))
                return None
            match.attempts += 1
        match.status = Match.Status.RUNNING
        match.started = match.started or now
        match.lease_owner = worker
        match.lease_expires = now + timedelta(seconds=conf.lease_seconds())
        match.save(update_fields=["status", "started", "lease_owner", "lease_expires", "attempts"])
        effects.broadcast_on_commit(group_name(match_id), partial(match_update, match_id=match_id))
    return match


def match_renew_lease(*, match_id: int, worker: str, game: int | None = None, actions: int | None = None) -> None:
    """Extend ``worker``'s lease; raises :class:`LeaseLost` when it no longer holds it.

    One conditional UPDATE, so it never waits for a lock another transaction holds for
    long. With ``game`` and ``actions`` it also broadcasts how far the current game is.
    """
    expires = timezone.now() + timedelta(seconds=conf.lease_seconds())
    updated = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_owner=worker).update(
        lease_expires=expires
    )
    if not updated:
        raise LeaseLost(f"match {match_id}: {worker} no longer holds the lease")
    if game is not None:
        effects.group_send(group_name(match_id),
                           {"type": "match.progress", "match_id": match_id, "game": game, "actions": actions})


def _locked_for(match_id: int, worker: str) -> Match:
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.status != Match.Status.RUNNING or match.lease_owner != worker:
        raise LeaseLost(f"match {match_id}: {worker} no longer holds the lease (now {match.status}, "
                        f"held by {match.lease_owner or 'nobody'})")
    return match


# --------------------------------------------------------------------------- games and results


def _write_game(match: Match, played: PlayedGame) -> MatchGame:
    order = list(played.seat_order)
    outcome = played.outcome.to_json()
    outcome["entry_places"] = entry_places(played.outcome.places, order)
    return MatchGame.objects.create(
        match=match,
        number=played.number,
        seat_order=order,
        outcome=outcome,
        replay=MatchGame.compress(played.replay),
        actions=len(played.replay.actions),
        bot_errors=list(played.bot_errors),
        tiebreak=MatchGame.Tiebreak.PENDING if played.needs_tiebreak else MatchGame.Tiebreak.NONE,
    )


def match_record_game(*, match_id: int, worker: str, game: PlayedGame) -> MatchGame:
    """Write one finished game (its replay and bot errors) and count it in ``progress``.

    Locks the match row and checks that ``worker`` still holds the lease (else
    :class:`LeaseLost`, nothing written). A game already written under the same number is
    returned as it is. A game left tied for Match the Twos hands the match's lease to the
    tiebreak and enqueues ``matches.run_tiebreak`` on commit; otherwise the lease is renewed.
    """
    with transaction.atomic():
        match = _locked_for(match_id, worker)
        existing = match.games.filter(number=game.number).first()
        if existing is not None:
            return existing
        row = _write_game(match, game)
        match.progress = match.games.count()
        now = timezone.now()
        if row.tiebreak == MatchGame.Tiebreak.PENDING:
            match.lease_owner = f"{TIEBREAK_LEASE_PREFIX}{row.pk}"
            game_id, queue = row.pk, conf.queue_for(match.kind)
            effects.send_task_on_commit(RUN_TIEBREAK, args=[game_id], queue=queue)
        match.lease_expires = now + timedelta(seconds=conf.lease_seconds())
        match.save(update_fields=["progress", "lease_owner", "lease_expires"])
        effects.broadcast_on_commit(group_name(match_id), partial(match_update, match_id=match_id))
    return row


def match_await_tiebreak(*, match_id: int, worker: str, game_id: int) -> None:
    """Hand the match's lease to the pending tiebreak of game ``game_id`` and enqueue it.

    Used when a worker takes over a match whose tiebreak task was lost. Locks the match.
    """
    with transaction.atomic():
        match = _locked_for(match_id, worker)
        match.lease_owner = f"{TIEBREAK_LEASE_PREFIX}{game_id}"
        match.lease_expires = timezone.now() + timedelta(seconds=conf.lease_seconds())
        match.save(update_fields=["lease_owner", "lease_expires"])
        queue = conf.queue_for(match.kind)
        effects.send_task_on_commit(RUN_TIEBREAK, args=[game_id], queue=queue)


def match_complete(*, match_id: int, worker: str, games: Sequence[PlayedGame] = ()) -> Match:
    """Write the last ``games`` and the match's result, in one transaction.

    Locks the match row and checks the lease (else :class:`LeaseLost`, nothing written).
    Every game, with its outcome, replay and bot errors, and the result (``winner_seat``,
    ``result``: wins, draws, places by entry) land together; on commit the match page
    hears of it.
    """
    with transaction.atomic():
        match, written, entries = _locked_with_games(match_id, worker)
        for played in games:
            if played.number not in written:
                row = _write_game(match, played)
                written[row.number] = row.outcome["entry_places"]
        _finish(match, places=[written[n] for n in sorted(written)], entries=entries)
    return match


def _locked_with_games(match_id: int, worker: str) -> tuple[Match, dict[int, list[int]], int | None]:
    """:func:`_locked_for`, with what finishing the match needs: its written games'
    places by entry (``{number: entry_places}``) and its seat count.

    On PostgreSQL one prepared statement (``queries.lock_match_with_games``): the games and the count are
    subqueries of the locking ``SELECT ... FOR UPDATE``. They are read from the
    statement's snapshot, taken before it waited for the lock; that is the same as
    reading them after it, because every write of a match's games is made by the holder
    of its lease under its row lock, and the caller is that holder (checked on the locked
    row): nobody else can have added or changed a game meanwhile. Elsewhere (SQLite, one
    writer at a time) two queries after the lock. The count is None when it is to be
    read later (no games yet).
    """
    if connection.vendor != "postgresql":
        match = _locked_for(match_id, worker)
        written = {number: outcome["entry_places"] for number, outcome in
                   match.games.order_by("number").values_list("number", "outcome")}
        return match, written, None
    locked = queries.lock_match_with_games(match_id)
    if locked is None:
        raise Match.DoesNotExist(f"there is no match {match_id}")
    match = locked.match
    if match.status != Match.Status.RUNNING or match.lease_owner != worker:
        raise LeaseLost(f"match {match_id}: {worker} no longer holds the lease (now {match.status}, "
                        f"held by {match.lease_owner or 'nobody'})")
    return match, locked.games, locked.entries


def _finish(match: Match, *, places: list[list[int]] | None = None, entries: int | None = None) -> None:
    """Mark the (locked) match done from its games; broadcast on commit.

    ``places`` (each game's places by entry, in game order) and ``entries`` (the seat
    count) are read here unless the caller has them already; callers that pass ``places``
    have no forfeited game (only live games are forfeited, and they are read here).

    A game decided by forfeit (a no-show: its outcome's ``detail.forfeited``) puts the
    entries that forfeited in the result's ``forfeited``: the match then says so, and the
    ladder does not rate it (nothing was played to rate)."""
    forfeited: set[int] = set()
    if places is None:
        games = list(match.games.order_by("number").only("outcome", "seat_order"))
        places = [g.outcome["entry_places"] for g in games]
        for game in games:
            forfeited.update(game.forfeited_entries)
    if entries is None:
        entries = match.seats.count()
    result = standing(best_of=match.best_of, entries=entries, games=places)
    now = timezone.now()
    match.status = Match.Status.DONE
    match.finished = now
    match.progress = len(places)
    match.winner_seat = result.winner
    match.result = result.to_json()
    if forfeited:
        match.result["forfeited"] = sorted(forfeited)
    match.lease_owner = ""
    match.lease_expires = None
    match.error = ""
    if connection.vendor == "postgresql":
        queries.write_finished(match)
    else:
        match.save(update_fields=["status", "finished", "progress", "winner_seat", "result", "lease_owner",
                                  "lease_expires", "error"])
    signals.match_finished.send(sender=Match, match=match)
    match_id = match.pk
    effects.broadcast_on_commit(group_name(match_id), partial(match_update, match_id=match_id))


def match_fail(*, match_id: int, worker: str, error: str) -> Match | None:
    """Give up on a match ``worker`` holds because playing it raised ``error``.

    An engine or data error would happen again on every retry, so the match is failed at
    once rather than re-queued. Locks the match; None when ``worker`` lost the lease.
    """
    with transaction.atomic():
        try:
            match = _locked_for(match_id, worker)
        except LeaseLost:
            return None
        _fail(match, timezone.now(), error)
    return match


def _fail(match: Match, now: datetime, error: str) -> None:
    match.status = Match.Status.FAILED
    match.finished = now
    match.error = error[:ERROR_MAX_CHARS]
    match.lease_owner = ""
    match.lease_expires = None
    match.save(update_fields=["status", "finished", "error", "lease_owner", "lease_expires"])
    signals.match_failed.send(sender=Match, match=match)
    match_id = match.pk
    effects.broadcast_on_commit(group_name(match_id), partial(match_update, match_id=match_id))


def _gave_up_message(match: Match) -> str:
    return (f"gave up after {match.attempts} attempt{'s' if match.attempts != 1 else ''}: the worker playing "
            f"the match stopped renewing its lease each time (last held by {match.lease_owner or 'nobody'})")


# --------------------------------------------------------------------------- tiebreak


def match_tiebreak_resolve(*, game_id: int) -> MatchGame | None:
    """Apply Match the Twos to game ``game_id``'s pending tie; then move the match on.

    Locks the match row. The tiebreak is a function of the game's seed and decks
    (the game's ``break_ties``), so running it twice gives the same answer; a game
    whose tie is already broken is left alone (None is returned). The reveals go into the
    replay's ``meta`` and the final outcome into the game's ``outcome``. If the match was
    waiting for this tiebreak, it is then completed when decided, or handed back to
    ``matches.run_match`` (lease released, task enqueued on commit) for its next game.
    """
    with transaction.atomic():
        row = MatchGame.objects.select_related("match").filter(pk=game_id).first()
        if row is None:
            return None
        match = Match.objects.select_for_update().get(pk=row.match_id)
        row.refresh_from_db()
        if row.tiebreak != MatchGame.Tiebreak.PENDING:
            return None
        replay = row.load_replay()
        final = engine_games[match.game].break_ties(replay.outcome, replay.decks, replay.seed)
        replay.meta["match_the_twos"] = list(final.detail.get("match_the_twos", []))
        outcome = final.to_json()
        outcome["entry_places"] = entry_places(final.places, row.seat_order)
        row.outcome = outcome
        row.replay = MatchGame.compress(replay)
        row.tiebreak = MatchGame.Tiebreak.DONE
        row.verified_at = None
        row.save(update_fields=["outcome", "replay", "tiebreak", "verified_at"])
        waiting = match.status == Match.Status.RUNNING and match.lease_owner == f"{TIEBREAK_LEASE_PREFIX}{game_id}"
        if waiting:
            games = [g.outcome["entry_places"] for g in match.games.order_by("number")]
            if standing(best_of=match.best_of, entries=match.seats.count(), games=games).decided:
                _finish(match)
            else:
                # Released to whichever worker takes the run_match sent now; if nobody does
                # within a lease period, the sweeper re-queues the match.
                match.lease_owner = ""
                match.lease_expires = timezone.now() + timedelta(seconds=conf.lease_seconds())
                match.save(update_fields=["lease_owner", "lease_expires"])
                match_id, queue = match.pk, conf.queue_for(match.kind)
                effects.send_task_on_commit(RUN_MATCH, args=[match_id], queue=queue)
                effects.broadcast_on_commit(group_name(match_id), partial(match_update, match_id=match_id))
    return row


# --------------------------------------------------------------------------- sweeper


@dataclass
class SweepReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    resent: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, list[int]]:
        return {"requeued": self.requeued, "failed": self.failed, "resent": self.resent}


def match_sweep_expired(*, now: datetime | None = None) -> SweepReport:
    """Re-queue every running match whose lease expired before ``now``; fail those that
    were already started ``MATCHES_MAX_ATTEMPTS`` times; send ``run_match`` again for
    matches still queued ``MATCHES_RESEND_SECONDS`` after they were queued.

    Each match is handled in its own transaction under its row lock, re-checked after
    locking (its worker may have renewed in the meantime). A re-queued match goes back to
    ``queued`` with its recorded games kept, and ``matches.run_match`` is enqueued on
    commit; the next worker goes on from the first unplayed game. (For a queued match,
    ``lease_expires`` is when the sweeper next checks that a worker took it.)
    """
    now = now or timezone.now()
    report = SweepReport()
    candidates = list(
        Match.objects.filter(status__in=(Match.Status.RUNNING, Match.Status.QUEUED), lease_expires__lt=now)
        .order_by("pk").values_list("pk", flat=True)
    )
    for match_id in candidates:
        with transaction.atomic():
            match = Match.objects.select_for_update().get(pk=match_id)
            if match.lease_expires is None or match.lease_expires >= now:
                continue
            if match.status == Match.Status.QUEUED:
                match.lease_expires = now + timedelta(seconds=conf.resend_seconds())
                match.save(update_fields=["lease_expires"])
                queue = conf.queue_for(match.kind)
                effects.send_task_on_commit(RUN_MATCH, args=[match_id], queue=queue)
                report.resent.append(match_id)
                continue
            if match.status != Match.Status.RUNNING:
                continue
            if match.attempts >= conf.max_attempts():
                _fail(match, now, _gave_up_message(match))
                report.failed.append(match_id)
                continue
            logger.warning("match %s: lease of %s expired at %s; re-queued", match_id, match.lease_owner,
                           match.lease_expires.isoformat())
            match.status = Match.Status.QUEUED
            match.lease_owner = ""
            match.lease_expires = now + timedelta(seconds=conf.resend_seconds())
            match.save(update_fields=["status", "lease_owner", "lease_expires"])
            queue = conf.queue_for(match.kind)
            effects.send_task_on_commit(RUN_MATCH, args=[match_id], queue=queue)
            effects.broadcast_on_commit(group_name(match_id), partial(match_update, match_id=match_id))
        report.requeued.append(match_id)
    return report


# --------------------------------------------------------------------------- replays


def match_game_verify(*, game: MatchGame) -> list[str]:
    """Replay the stored log with the engine (``verify_replay``); return every problem.

    The first successful verification is recorded in ``verified_at`` and not repeated; a
    failed one is recorded in ``verify_error`` and tried again next time (the engine may
    have been fixed since). Writes one row with a conditional UPDATE, no lock held.
    """
    if game.verified_at is not None:
        return []
    try:
        problems = engine_core.verify_replay(game.load_replay())
    except Exception as exc:  # a replay the engine cannot even load is a failed verification
        problems = [f"the engine could not replay it: {type(exc).__name__}: {exc}"]
    now = timezone.now()
    if problems:
        game.verify_error = "\n".join(problems)
        MatchGame.objects.filter(pk=game.pk).update(verify_error=game.verify_error)
    else:
        game.verified_at, game.verify_error = now, ""
        MatchGame.objects.filter(pk=game.pk, verified_at__isnull=True).update(verified_at=now, verify_error="")
    return problems


# --------------------------------------------------------------------------- broadcasts


def match_update(*, match_id: int) -> dict[str, Any] | None:
    """The ``match.update`` event of match ``match_id`` as it is now: what its page shows
    (``MatchDetailSerializer``; the seed only once the match is over). None when the match
    is gone, and (logged) when building it fails: the broadcast of a committed change
    must not fail the change.

    Every change of a match sends it to the match's group (:func:`group_name`) after
    commit, built then from the committed rows: ``effects.broadcast_on_commit(group_name(
    match_id), partial(match_update, match_id=match_id))``.
    """

    def event() -> dict[str, Any] | None:
        try:
            match = match_get(match_id=match_id)
        except Match.DoesNotExist:
            return None
        return {"type": "match.update", "match": json_ready(MatchDetailSerializer(match).data)}

    return effects.built(event, f"match {match_id}")


def match_broadcast(*, match_id: int) -> None:
    """Send the match's current status (:func:`match_update`) to its group now; never
    raises. For a caller outside a transaction (the services send it on commit)."""
    effects.group_send(group_name(match_id), partial(match_update, match_id=match_id))


def json_ready(value: Any) -> Any:
    """Serializer output as plain JSON types (the channel layer serializes with msgpack)."""
    return json.loads(json.dumps(value, cls=JSONEncoder))
