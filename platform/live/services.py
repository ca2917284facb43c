"""Writes of the live app: creating live matches, every move, clocks, matchmaking, challenges.

Every move of a live match, a person's or a bot's, goes through one door,
:func:`live_act` (bots: :func:`live_bot_move`, which ends in the same code): it locks the
live match row (``select_for_update``), rebuilds or loads the engine state, checks the
seat and the action with the engine, appends the action to the log, runs the clocks, and
**after commit** sends every seat its own view and the spectators the public view through
the channel layer, and enqueues the next bot decision on the ``live`` queue. An
illegal or malformed move raises :class:`LiveError` and changes nothing.

Clocks: every seat has a time bank (``LiveSeat.remaining_ms``) that runs while the seat is
to act (``running_since``); an action adds the increment. ``live_enforce_clock`` (run by
the ``live.tick`` beat task and by a check scheduled for the next deadline) ends the
match for a seat out of time (it concedes; in a Conquest match of three or four the
seat's remaining decisions are taken by the random bot instead and it ranks last).

Endings a tournament round asks for: :func:`live_forfeit` (seats that never showed up,
:func:`live_seat_present` records who did), :func:`live_adjudicate` (the round's hard time
limit: the game's own end condition, else a draw) and :func:`live_link_next` (the next
game of a series, offered on the finished board).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from decks.models import Deck, DeckVersion
from engine import games as engine_games
from engine.bots import clean_platform_spec, make_bot
from engine.core import CONCEDE, DeckError, IllegalAction, Outcome, Rng, State
from engine.runner import decide
from live import conf, engine_state
from live.models import TITLE_MAX, LiveChallenge, LiveMatch, LiveQueue, LiveSeat, QueueEntry
from matches import services as match_services
from web import effects
from web.apperrors import AppError
from web.sql import Columns

logger = logging.getLogger(__name__)

BOT_ACT = "live.bot_act"
CHECK_CLOCK = "live.check_clock"
#: A clock check is scheduled with the exact countdown when the deadline is this close;
#: later deadlines are caught by ``live.tick``.
CHECK_HORIZON_SECONDS = 300.0
#: Clock checks of one batch (a round of a live event starts a hundred games at once) due
#: within this many seconds of each other go as one ``live.check_clock`` message with
#: their matches (``web.effects.send_task(merge=...)``), due with the last of them.
CHECK_MERGE_SECONDS = 0.5
HUMAN = "human"
#: The reason the log gives a person's concession (``live_act``, ``live_resign``).
RESIGNED = "resigned"
#: The reason the log gives the concession of a seat that never showed up.
NO_SHOW = "no-show"


class LiveError(AppError):
    """A move or request that cannot be done; ``code`` is stable, ``message`` for people.

    ``status`` is the HTTP status an API answers with; a 400 is about the ``action``.
    """

    def __init__(self, code: str, message: str, *, status: int = 409):
        super().__init__(message, code=code, status=status, fields={"action": [message]} if status == 400 else None)


@dataclass(frozen=True)
class SeatSpec:
    """Who plays one seat: a user, or a bot spec, with a deck version."""

    deck_version: DeckVersion
    user: Any = None
    bot: str = ""


def group_for_seat(match_id: int, seat: int) -> str:
    return f"live.{match_id}.seat.{seat}"


def group_public(match_id: int) -> str:
    return f"live.{match_id}.public"


def group_match(match_id: int) -> str:
    """The channel-layer group every socket of the match joins: one message per move
    carries the views of every seat and of spectators (``live.views``), keyed by
    :func:`group_for_seat` / :func:`group_public`, and each socket forwards only its own."""
    return f"live.{match_id}"


def _match_group_of(group: str) -> str:
    return ".".join(group.split(".")[:2])


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


# --------------------------------------------------------------------------- creating a match


@dataclass
class LivePlan:
    """A live match checked and dealt, not yet written (:func:`live_plan`); one or many
    are written by :func:`live_create_many`."""

    specs: list[SeatSpec]
    game: str
    state: State
    rows: list[LiveSeat]
    created_by: Any
    params: dict[str, Any]
    seed: int
    initial_ms: int
    increment_ms: int
    spectator_delay: int
    title: str = ""


def clean_title(title: Any) -> str:
    """``title`` with its runs of white space made single spaces; raises ``ValidationError``
    (``title``) for one that is not text or is longer than ``TITLE_MAX`` characters."""
    if not isinstance(title, str):
        raise ValidationError({"title": [f"the title must be text, not {type(title).__name__}"]})
    title = " ".join(title.split())
    if len(title) > TITLE_MAX:
        raise ValidationError({"title": [f"the title has {len(title)} characters; at most {TITLE_MAX}"]})
    return title


def live_plan(
    *,
    seats: Sequence[SeatSpec],
    created_by=None,
    initial_ms: int | None = None,
    increment_ms: int | None = None,
    spectator_delay: int | None = None,
    seed: int | None = None,
    params: dict[str, Any] | None = None,
    title: str = "",
) -> LivePlan:
    """Check and deal a live match as :func:`live_create` would, writing nothing; raises
    the same ``ValidationError``. ``title`` is what the board and the players' banner call
    the match (:func:`clean_title`)."""
    title = clean_title(title)
    errors: dict[str, list[str]] = {}
    specs = list(seats)
    game_names = sorted({s.deck_version.deck.game for s in specs})
    if len(game_names) != 1:
        raise ValidationError({"seats": ["every seat must play a deck of the same game"]})
    game = engine_games[game_names[0]]
    if not game.min_seats <= len(specs) <= game.max_seats:
        errors.setdefault("seats", []).append(
            f"{game.title} is played by {game.min_seats} to {game.max_seats} seats, not {len(specs)}")
    for index, spec in enumerate(specs):
        if spec.deck_version.deck.archived:
            errors.setdefault("seats", []).append(f"deck '{spec.deck_version.deck.name}' was deleted")
        if (spec.user is None) == (not spec.bot):
            errors.setdefault("seats", []).append(f"seat {index} needs either a player or a bot")
        if spec.bot:
            try:
                clean_platform_spec(spec.bot)
            except ValueError as exc:
                errors.setdefault("seats", []).append(str(exc))
    clean_params = dict(params or {})
    if seed is None:
        seed = secrets.randbits(53)
    if not errors:
        # Every seat's deck against the match's own parameters, each problem naming its
        # deck and the parameter, before a game is set up or a row written.
        try:
            problems = match_services.match_deck_problems(deck_versions=[s.deck_version for s in specs],
                                                          params=clean_params)
        except ValueError as exc:
            errors.setdefault("params", []).append(str(exc))
        else:
            if problems:
                errors.setdefault("seats", []).extend(problems)
    if not errors:
        try:
            from matches.tasks import game_seed

            state = game.new_match([s.deck_version.to_engine() for s in specs], game_seed(seed, 1), clean_params)
        except DeckError as exc:
            errors.setdefault("seats", []).extend(exc.problems)
        except ValueError as exc:
            errors.setdefault("params", []).append(str(exc))
    if errors:
        raise ValidationError(errors)
    default_initial, default_increment = conf.clock_for(game.name, len(specs))
    initial_ms = default_initial if initial_ms is None else int(initial_ms)
    increment_ms = default_increment if increment_ms is None else int(increment_ms)
    spectator_delay = conf.spectator_delay() if spectator_delay is None else int(spectator_delay)
    now = timezone.now()
    to_act = set(state.to_act())
    rows = [
        LiveSeat(seat=i, user=s.user, bot=s.bot, deck_version=s.deck_version,
                 remaining_ms=initial_ms, running_since=now if i in to_act else None)
        for i, s in enumerate(specs)
    ]
    return LivePlan(specs=specs, game=game.name, state=state, rows=rows, created_by=created_by,
                    params=clean_params, seed=seed, initial_ms=initial_ms, increment_ms=increment_ms,
                    spectator_delay=spectator_delay, title=title)


def live_create(
    *,
    seats: Sequence[SeatSpec],
    created_by=None,
    initial_ms: int | None = None,
    increment_ms: int | None = None,
    spectator_delay: int | None = None,
    seed: int | None = None,
    params: dict[str, Any] | None = None,
    title: str = "",
) -> LiveMatch:
    """Create a live match (a ``Match`` of kind ``live`` and its :class:`LiveMatch`),
    called ``title`` on its board and in its players' banner (:func:`clean_title`; empty:
    "Live match").

    Validates at once and raises ``ValidationError`` (``seats``, ``params``): every deck
    for the same game, a seat count the game allows, each seat played by a user or a
    known bot, decks and parameters the engine accepts. The seats that act first have
    their clocks started; on commit the first bot decisions are enqueued.
    """
    return live_create_many([live_plan(seats=seats, created_by=created_by, initial_ms=initial_ms,
                                       increment_ms=increment_ms, spectator_delay=spectator_delay, seed=seed,
                                       params=params, title=title)])[0]


def live_create_many(plans: Sequence[LivePlan]) -> list[LiveMatch]:
    """Write the live matches of ``plans`` (:func:`live_plan`), in their order: four
    statements for them all (the matches, their seats, the live matches, their seats),
    so that a round of a live event starts a hundred tables in about the time of one."""
    plans = list(plans)
    if not plans:
        return []
    # No savepoint of its own: everything that can be refused was checked by live_plan, so
    # inside a caller's transaction (a tournament round creates its matches in one) a
    # failure here fails the caller's transaction anyway.
    with transaction.atomic(savepoint=False):
        matches = match_services.match_create_live_many([
            match_services.LiveMatchSpec(created_by=plan.created_by, deck_versions=[s.deck_version for s in plan.specs],
                                         pilots=[s.bot or HUMAN for s in plan.specs], params=plan.params,
                                         seed=plan.seed)
            for plan in plans])
        lives = [LiveMatch(match=match, game=plan.game, initial_ms=plan.initial_ms, increment_ms=plan.increment_ms,
                           spectator_delay=plan.spectator_delay, next_deadline=_next_deadline(plan.rows),
                           title=plan.title)
                 for plan, match in zip(plans, matches, strict=True)]
        if connection.features.can_return_rows_from_bulk_insert:
            LiveMatch.objects.bulk_create(lives)
        else:  # a database that does not return the keys of a bulk insert: one at a time
            for live in lives:
                live.save(force_insert=True)
        for plan, live in zip(plans, lives, strict=True):
            for row in plan.rows:
                row.live = live
        LiveSeat.objects.bulk_create([row for plan in plans for row in plan.rows])
        for plan, live in zip(plans, lives, strict=True):
            engine_state.remember(live.match_id, 0, plan.state)
            # No views are broadcast for a new match: no socket can have joined its group
            # before it existed, and a board's opening view is read when it connects.
            _after_commit(live, plan.rows, plan.state, views=False)
    return lives


# --------------------------------------------------------------------------- moves


def live_act(*, match_id: int, user, action_json: Any, expected_index: int | None = None,
             seat: int | None = None) -> LiveMatch:
    """Play ``action_json`` for the seat ``user`` holds in live match ``match_id``.

    ``expected_index`` is the log length of the view the player acted on: the move is
    refused as stale if the seat has acted since (a double click, a second tab).
    ``seat``, when given, must be the user's own seat. A ``concede`` action (resigning) is
    accepted at any moment, as ``{"kind": "concede"}`` and nothing more: the reason of a
    concession is the server's to write (a person's is ``resigned``, :func:`live_resign`;
    ``out of time`` and ``no-show`` only the clock and the no-show rule write), so a
    concession naming any other field is refused as ``malformed_action``. Locks the live
    match row; raises :class:`LiveError` (nothing changes) for a match that does not exist
    or is over, a user not seated, another seat, a seat not to act, a malformed or
    illegal action.
    """
    if isinstance(action_json, dict) and action_json.get("kind") == CONCEDE:
        extra = sorted(str(key) for key in action_json if key != "kind")
        if extra:
            raise LiveError("malformed_action", "a concession is just {\"kind\": \"concede\"}: the server writes "
                            f"its reason; remove {', '.join(repr(k) for k in extra)}", status=400)
        action_json = {"kind": CONCEDE, "reason": RESIGNED}
    if user is None or not getattr(user, "is_authenticated", False):
        raise LiveError("not_seated", "sign in and take a seat to play", status=403)
    with transaction.atomic():
        live, rows = _locked(match_id)
        mine = [r for r in rows if r.user_id == user.pk]
        if not mine:
            raise LiveError("not_seated", "you do not hold a seat in this match", status=403)
        if seat is not None:
            if isinstance(seat, bool) or not isinstance(seat, int) or seat not in [r.seat for r in mine]:
                raise LiveError("not_your_seat", f"seat {seat!r} is not yours; you play seat "
                                f"{', '.join(str(r.seat) for r in mine)}", status=403)
            row = next(r for r in mine if r.seat == seat)
        else:
            row = mine[0]
        if row.timed_out_at is not None:
            raise LiveError("timed_out", "your time ran out; the random bot plays your seat now")
        absent = [r for r in mine if r.connected_at is None]
        if absent:
            # A move proves presence. Only a first move (or one made without the socket)
            # finds the field empty on the rows already loaded, so other moves add no query.
            now = timezone.now()
            LiveSeat.objects.filter(pk__in=[r.pk for r in absent], connected_at__isnull=True).update(connected_at=now)
            for r in absent:
                r.connected_at = now
        _apply(live, rows, row.seat, action_json, expected_index)
    return live


def live_seat_present(*, match_id: int, user, now: datetime | None = None) -> bool:
    """Record that ``user`` showed up in live match ``match_id``: every seat they hold there
    whose ``connected_at`` is still empty gets ``now``, in one UPDATE (no lock: the first
    time wins, and a later call changes nothing). True if it set one; False for a user not
    seated there, signed out, or already present. Called when a seated player's socket
    connects, and by :func:`live_act` for a move."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    updated = LiveSeat.objects.filter(live__match_id=match_id, user_id=user.pk, connected_at__isnull=True).update(
        connected_at=now or timezone.now())
    return updated > 0


def live_seats_present(*, rows: Sequence[LiveSeat], user, now: datetime) -> bool:
    """:func:`live_seat_present` for a caller that has just read the match's seats
    (``rows``, :func:`live_read`): one UPDATE of the user's rows still without
    ``connected_at``, by key, written out (a board opened runs it). Sets ``connected_at`` on
    the rows it updated; True if there was one."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    mine = [r for r in rows if r.user_id == user.pk and r.connected_at is None]
    if not mine:
        return False
    quote = connection.ops.quote_name
    column = quote(LiveSeat._meta.get_field("connected_at").column)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(LiveSeat._meta.db_table)} SET {column} = %s "
            f"WHERE {quote(LiveSeat._meta.pk.column)} IN ({', '.join(['%s'] * len(mine))}) AND {column} IS NULL",
            [connection.ops.adapt_datetimefield_value(now), *(r.pk for r in mine)])
        updated = cursor.rowcount
    if updated:
        for row in mine:
            row.connected_at = now
    return updated > 0


def live_resign(*, match_id: int, user) -> LiveMatch:
    """The user's seat concedes the match (the engine's concession: it ranks last)."""
    with transaction.atomic():
        live = live_act(match_id=match_id, user=user, action_json={"kind": CONCEDE})
        LiveSeat.objects.filter(live=live, user=user).update(resigned=True)
    return live


def live_bot_move(*, match_id: int, seat: int, index: int) -> str:
    """Let seat ``seat``'s bot choose and play, if it still has to act since ``index``.

    Called by the ``live.bot_act`` task on a worker. The decision is computed outside the
    row lock from the seat's observation only, within the live decision limit
    (:func:`_bot_decision`: a decision stopped at the limit is replaced by a random legal
    move), then played through the same checks as a person's move; if the log moved
    meanwhile it is recomputed. A bot that raises or answers illegally concedes, as in the
    match runner. Returns what happened.
    """
    for _attempt in range(5):
        live = LiveMatch.objects.select_related("match").filter(match_id=match_id).first()
        if live is None or live.is_over:
            return "over"
        row = live.seats.filter(seat=seat).first()
        if row is None or not row.is_bot:
            return "not a bot"
        if _acted_since(live.log, seat, index):
            return "already acted"
        length = len(live.log)
        with engine_state.state_of(live) as state:
            if seat not in state.to_act():
                return "not to act"
            payload = _bot_decision(live, row, state, seat, length)
        try:
            with transaction.atomic():
                live, rows = _locked(match_id)
                if len(live.log) != length:
                    continue
                try:
                    _apply(live, rows, seat, payload, length, strict=True)
                except LiveError as exc:
                    if exc.code != "illegal_action":
                        raise
                    _apply(live, rows, seat, {"kind": CONCEDE, "reason": f"{row.pilot} chose an illegal action"},
                           None)
            return "acted"
        except LiveError as exc:
            if exc.code in ("finished", "stale"):
                return exc.code
            raise
    return "gave up: the log kept moving"


def _bot_decision(live: LiveMatch, row: LiveSeat, state: State, seat: int, length: int) -> dict[str, Any]:
    """The JSON action of bot seat ``seat`` after ``length`` actions, decided through the
    engine's one door (``engine.runner.decide``) within ``conf.bot_decision_seconds()``.

    A decision stopped at the limit is replaced by a legal move drawn at random from the
    seat's own stream (the match goes on: a person is playing it); a bot that cannot be
    built, raises or answers with something that is not an action concedes."""
    seed = engine_state.game_seed(live.match)
    try:
        bot = make_bot(row.pilot)
    except ValueError as exc:
        logger.error("bot %s of live match %s cannot play: %s", row.pilot, live.match_id, exc)
        return {"kind": CONCEDE, "reason": f"{row.pilot} cannot play ({exc})"}
    decision = decide(bot, state, seat, Rng(seed).fork("live-bot", seat, length),
                      limit=conf.bot_decision_seconds(), action_number=length + 1)
    if decision.action is not None:
        return decision.action.to_json()
    if decision.overrun:
        logger.warning("bot %s of live match %s %s at action %s: a random legal move replaces it",
                       row.pilot, live.match_id, decision.failure, length + 1)
        return Rng(seed).fork("live-bot-fallback", seat, length).choice(state.legal_actions(seat)).to_json()
    logger.error("bot %s of live match %s %s at action %s", row.pilot, live.match_id, decision.failure, length + 1)
    return {"kind": CONCEDE, "reason": f"{row.pilot} {decision.failure}"}


def _locked(match_id: int) -> tuple[LiveMatch, list[LiveSeat]]:
    # Only the live match row is locked (the Match row is read lazily when a state must be
    # rebuilt, and locked by whoever finishes the match).
    found = live_read(match_id=match_id, lock=True)
    if found is None:
        raise LiveError("not_found", f"there is no live match {match_id}", status=404)
    live, rows = found
    if live.is_over:
        raise LiveError("finished", "the match is over")
    return live, rows


def live_read(*, match_id: int, lock: bool = False) -> tuple[LiveMatch, list[LiveSeat]] | None:
    """The live match ``match_id`` and its seats (each with its user and deck version), or
    None; ``lock`` locks the live match row.

    Written out (``web.sql.Columns``): this runs on every move and every board opened, and
    building it with the query compiler cost more than running it; the seats' users and
    decks are kept per process. A read is one statement (the match joined to its seats). A
    locked read is two, the seats read after the lock is held: a statement that waited for
    the lock sees the locked row as it was committed, but its other rows as they were when
    it began, and the clocks must be the ones the last move wrote."""
    quote = connection.ops.quote_name
    live_columns, seat_columns = _live_columns()
    by_match = f"l.{quote(LiveMatch._meta.get_field('match').column)} = %s"
    seat_live = f"s.{quote(LiveSeat._meta.get_field('live').column)}"
    seat_order = f"s.{quote(LiveSeat._meta.get_field('seat').column)}"
    with connection.cursor() as cursor:
        if lock:
            lock_sql = " FOR UPDATE" if connection.features.has_select_for_update else ""
            cursor.execute(f"SELECT {live_columns.sql} FROM {quote(LiveMatch._meta.db_table)} l "
                           f"WHERE {by_match}{lock_sql}", [match_id])
            found = cursor.fetchone()
            if found is None:
                return None
            live = live_columns.make(found)
            cursor.execute(f"SELECT {seat_columns.sql} FROM {quote(LiveSeat._meta.db_table)} s "
                           f"WHERE {seat_live} = %s ORDER BY {seat_order}", [live.pk])
            rows = [seat_columns.make(values) for values in cursor.fetchall()]
        else:
            cursor.execute(f"SELECT {live_columns.sql}, {seat_columns.sql} FROM {quote(LiveMatch._meta.db_table)} l "
                           f"LEFT JOIN {quote(LiveSeat._meta.db_table)} s ON {seat_live} = "
                           f"l.{quote(LiveMatch._meta.pk.column)} WHERE {by_match} ORDER BY {seat_order}", [match_id])
            found = cursor.fetchall()
            if not found:
                return None
            width = live_columns.width
            live = live_columns.make(found[0][:width])
            rows = [row for row in (seat_columns.make(values[width:]) for values in found) if row is not None]
    _attach_seat_details(live, rows)
    return live, rows


_columns: tuple[Columns, Columns] | None = None


def _live_columns() -> tuple[Columns, Columns]:
    global _columns
    if _columns is None:
        _columns = (Columns(LiveMatch, "l"), Columns(LiveSeat, "s"))
    return _columns


#: Per process: the user and deck version of every seat of recent matches (they never
#: change once a match is created), so that a move reads its seats' clocks without joins.
_seat_details: OrderedDict[int, dict[int, tuple[Any, DeckVersion]]] = OrderedDict()
_seat_details_lock = threading.Lock()
_details_query: tuple[str, list[Columns]] | None = None


def _seat_details_sql() -> tuple[str, list[Columns]]:
    """One statement for every seat of a live match: its number, the match, the user (none
    for a bot), the deck version and its deck; built once per process."""
    global _details_query
    if _details_query is None:
        from matches.models import Match

        User = get_user_model()
        quote = connection.ops.quote_name
        columns = [Columns(Match, "m"), Columns(User, "u"), Columns(DeckVersion, "v"), Columns(Deck, "d")]

        def table(model, alias: str) -> str:
            return f"{quote(model._meta.db_table)} {alias}"

        def pk(alias: str, model) -> str:
            return f"{alias}.{quote(model._meta.pk.column)}"

        seat_field = LiveSeat._meta.get_field
        _details_query = (
            f"SELECT s.{quote(seat_field('seat').column)}, {', '.join(c.sql for c in columns)} "
            f"FROM {table(LiveSeat, 's')} "
            f"JOIN {table(LiveMatch, 'l')} ON {pk('l', LiveMatch)} = s.{quote(seat_field('live').column)} "
            f"JOIN {table(Match, 'm')} ON {pk('m', Match)} = l.{quote(LiveMatch._meta.get_field('match').column)} "
            f"LEFT JOIN {table(User, 'u')} ON {pk('u', User)} = s.{quote(seat_field('user').column)} "
            f"JOIN {table(DeckVersion, 'v')} ON {pk('v', DeckVersion)} = s.{quote(seat_field('deck_version').column)} "
            f"JOIN {table(Deck, 'd')} ON {pk('d', Deck)} = v.{quote(DeckVersion._meta.get_field('deck').column)} "
            f"WHERE s.{quote(seat_field('live').column)} = %s",
            columns,
        )
    return _details_query


def _read_seat_details(live: LiveMatch) -> dict[int, tuple[Any, DeckVersion]]:
    """Every seat's user and deck version, in one statement; keeps the match's opening
    (``engine_state.keep_opening``) dealt from the decks it read."""
    sql, columns = _seat_details_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [live.pk])
        found = cursor.fetchall()
    details: dict[int, tuple[Any, DeckVersion]] = {}
    match = None
    for row in found:
        at, made = 1, []
        for part in columns:
            made.append(part.make(row[at:at + part.width]))
            at += part.width
        match, user, version, deck = made
        version.deck = deck
        details[row[0]] = (user, version)
    if match is not None:
        engine_state.keep_opening(live, match, [details[seat][1].to_engine() for seat in sorted(details)])
    return details


def _attach_seat_details(live: LiveMatch, rows: list[LiveSeat]) -> None:
    with _seat_details_lock:
        details = _seat_details.get(live.pk)
        if details is not None:
            _seat_details.move_to_end(live.pk)
    # Checked against the rows: a match's id used again (SQLite, after a rollback) is read anew.
    if details is None or any(r.seat not in details or details[r.seat][1].pk != r.deck_version_id
                              or getattr(details[r.seat][0], "pk", None) != r.user_id for r in rows):
        details = _read_seat_details(live)
        with _seat_details_lock:
            _seat_details[live.pk] = details
            while len(_seat_details) > engine_state.CACHE_SIZE:
                _seat_details.popitem(last=False)
    for row in rows:
        user, deck_version = details[row.seat]
        if row.user_id is not None:
            row.user = user
        row.deck_version = deck_version


def _acted_since(log: list, seat: int, index: int) -> bool:
    return any(entry[0] == seat for entry in log[max(0, index):])


def _apply(live: LiveMatch, rows: list[LiveSeat], seat: int, action_json: Any, expected_index: int | None,
           *, strict: bool = False, forfeited: Sequence[int] = (), now: datetime | None = None) -> None:
    """Check and apply one action of ``seat`` on the locked ``live``; schedule the effects.
    ``forfeited``: the seats that rank last if this action ends the match (:func:`live_forfeit`)."""
    length = len(live.log)
    if expected_index is not None:
        if isinstance(expected_index, bool) or not isinstance(expected_index, int):
            raise LiveError("bad_index", f"'index' must be the integer index of the view acted on, not "
                            f"{expected_index!r}", status=400)
        if expected_index > length or expected_index < 0 or (strict and expected_index != length):
            raise LiveError("stale", f"index {expected_index} is not a position of this match (it has {length} "
                            "actions); reload the view")
        if _acted_since(live.log, seat, expected_index):
            raise LiveError("stale", "you have already acted since that view; here is the current one")
    game = engine_games[live.game]
    try:
        action = game.action_from_json(action_json)
    except IllegalAction as exc:
        raise LiveError("malformed_action", f"malformed action: {exc.message}", status=400) from None
    now = now or timezone.now()
    clocks_before = {r.pk: _clock_fields(r) for r in rows}
    with engine_state.state_of(live) as state:
        if action.kind != CONCEDE and seat not in state.to_act():
            waiting = ", ".join(f"seat {s}" for s in state.to_act()) or "nobody"
            raise LiveError("not_your_turn", f"it is not seat {seat}'s turn to act (waiting for {waiting})")
        before = set(state.to_act())
        try:
            events = state.apply(seat, action)
        except IllegalAction as exc:
            raise LiveError("illegal_action", f"illegal action {action}: {exc}") from None
        # The cached state is ahead of the stored log until this transaction commits.
        engine_state.forget(live.match_id)
        live.log = [*live.log, [seat, action.to_json(), _ms(now)]]
        _run_clocks(live, rows, state, seat, before, now)
        fields = ["log", "next_deadline"]
        if state.outcome is not None:
            _finish(live, rows, state, now, forfeited=forfeited)
            fields += ["status", "outcome", "replay", "finished"]
        live.save(update_fields=fields)
        # Only the seats whose clock changed are written (usually two: the seat that acted
        # and the next one), each by a plain UPDATE.
        for row in rows:
            if _clock_fields(row) != clocks_before[row.pk]:
                LiveSeat.objects.filter(pk=row.pk).update(remaining_ms=row.remaining_ms,
                                                          running_since=row.running_since,
                                                          timed_out_at=row.timed_out_at)
        _after_commit(live, rows, state, events=events, acting=seat)
        match_id, length = live.match_id, len(live.log)
        transaction.on_commit(lambda: engine_state.remember(match_id, length, state))


def _clock_fields(row: LiveSeat) -> tuple:
    return row.remaining_ms, row.running_since, row.timed_out_at


def _run_clocks(live: LiveMatch, rows: list[LiveSeat], state: State, acting: int, before: set[int], now) -> None:
    after = set(state.to_act()) if state.outcome is None else set()
    for row in rows:
        running = row.running_since is not None
        if running and (row.seat == acting or row.seat not in after):
            row.remaining_ms = max(0, row.remaining_ms - int((now - row.running_since).total_seconds() * 1000))
            row.running_since = None
        if row.seat == acting and state.outcome is None:
            row.remaining_ms += live.increment_ms
        if row.seat in after and row.running_since is None and row.timed_out_at is None:
            row.running_since = now
    live.next_deadline = _next_deadline(rows)


def _next_deadline(rows: Sequence[LiveSeat]) -> datetime | None:
    deadlines = [r.running_since + timedelta(milliseconds=r.remaining_ms) for r in rows
                 if r.running_since is not None and r.timed_out_at is None]
    return min(deadlines) if deadlines else None


def remaining_ms(row: LiveSeat, now: datetime) -> int:
    """The seat's time left at ``now``."""
    if row.running_since is None:
        return max(0, row.remaining_ms)
    return max(0, row.remaining_ms - int((now - row.running_since).total_seconds() * 1000))


def final_outcome(outcome: Outcome, rows: Sequence[LiveSeat], *, forfeited: Sequence[int] = ()) -> dict[str, Any]:
    """The engine's (or the adjudicated) outcome with the platform's own rankings applied:
    seats that ran out of time (and were played by the random bot since) rank below the
    others, the earliest time-out lowest; seats that forfeited (``forfeited``, did not show
    up) rank last of all and share the last place, which is the number of seats (so two
    seats that both forfeit a two-seat match both lose: places ``[2, 2]``). The other seats
    keep their order among themselves, ties shared.

    With either, ``engine_places`` keeps the outcome's own places, and ``timed_out`` lists
    the late seats, earliest first, ``forfeited`` the seats that forfeited, each only when
    there are some (also in ``detail``, so that the game's stored outcome says why its
    places differ from its replay's)."""
    out = outcome.to_json()
    gone = list(dict.fromkeys(int(s) for s in forfeited))
    timed_out = sorted((r for r in rows if r.timed_out_at is not None and r.seat not in gone),
                       key=lambda r: (r.timed_out_at, r.seat))
    if not timed_out and not gone:
        return out
    count = len(outcome.places)
    late = {r.seat for r in timed_out}
    others = sorted((s for s in range(count) if s not in late and s not in gone), key=lambda s: outcome.places[s])
    places = [0] * count
    for rank, s in enumerate(others):
        if rank and outcome.places[s] == outcome.places[others[rank - 1]]:
            places[s] = places[others[rank - 1]]
        else:
            places[s] = rank + 1
    for offset, row in enumerate(reversed(timed_out)):
        places[row.seat] = len(others) + offset + 1
    for s in gone:
        places[s] = count
    marks: dict[str, Any] = {}
    if timed_out:
        marks["timed_out"] = [r.seat for r in timed_out]
    if gone:
        marks["forfeited"] = gone
    ranked = Outcome(places=tuple(places), scores=outcome.scores, reason=outcome.reason,
                     detail={**outcome.detail, **marks, "engine_places": list(outcome.places)})
    return {**ranked.to_json(), "engine_places": list(outcome.places), **marks}


def _finish(live: LiveMatch, rows: list[LiveSeat], state: State, now, *, outcome: Outcome | None = None,
            forfeited: Sequence[int] = ()) -> None:
    """Record the end on the locked ``live`` and its match: outcome, replay, result.

    The match's game, result and ratings (through ``match_finished``) follow the final
    outcome (:func:`final_outcome`: seats out of time or forfeited rank last), while the
    replay keeps the engine's own outcome, so that it still verifies. ``outcome``, when
    given, replaces the engine's (an adjudicated game: the engine's is then None, and so
    is the replay's)."""
    live.status = LiveMatch.Status.DONE
    live.finished = now
    live.next_deadline = None
    for row in rows:
        row.running_since = None
    final = final_outcome(outcome or state.outcome, rows, forfeited=forfeited)
    live.outcome = final
    replay = engine_state.replay_of(live, state.outcome)
    live.replay = replay.to_json()
    ranked = Outcome.from_json(final) if outcome is not None or "engine_places" in final else None
    match_services.match_record_live_game(match_id=live.match_id, replay=replay,
                                          seat_order=list(range(len(rows))), outcome=ranked)


# --------------------------------------------------------------------------- endings a round asks for


def _check_seats_of(rows: Sequence[LiveSeat], seats: Any) -> list[int]:
    numbers = [r.seat for r in rows]
    if not isinstance(seats, list | tuple) or not seats:
        raise ValidationError({"seats": [f"name at least one seat to forfeit (a list of seat numbers), not {seats!r}"]})
    wrong = [s for s in seats if isinstance(s, bool) or not isinstance(s, int) or s not in numbers]
    if wrong:
        raise ValidationError({"seats": [f"no seat {', '.join(map(repr, wrong))} in this match; its seats are "
                                         f"{', '.join(map(str, numbers))}"]})
    return list(dict.fromkeys(seats))


def live_forfeit(*, match_id: int, seats: list[int], reason: str = NO_SHOW,
                 now: datetime | None = None) -> LiveMatch | None:
    """End the active live match ``match_id`` because ``seats`` did not show up.

    The first listed seat concedes through the engine (a ``concede`` action with
    ``reason`` in the log, so the replay verifies); the final outcome then ranks every
    listed seat last, sharing the last place (:func:`final_outcome`, ``forfeited``), and
    the match's game, result and ratings follow it. The seats are sent their final views
    after commit, as for any move. Locks the live match row. Returns None, changing
    nothing, for a match that does not exist or is already over; raises
    ``ValidationError`` (``seats``) naming a seat the match does not have. ``now`` (default:
    the present) is when the concession is logged and the clocks stop.
    """
    with transaction.atomic():
        try:
            live, rows = _locked(match_id)
        except LiveError:
            return None
        gone = _check_seats_of(rows, seats)
        _apply(live, rows, gone[0], {"kind": CONCEDE, "reason": str(reason)}, None, forfeited=gone, now=now)
    return live


def _scores_now(game, state: State) -> tuple[Any, ...]:
    """The per-seat scores the engine would record if the match ended now: those of a
    concession on a copy of the state (every game accepts one at any moment and records
    the scores as they stand: a Conquest seat's pool, a TempoFront seat's Dominion and
    Integrity). The state itself is not changed; empty if the game refuses."""
    probe = state.clone()
    try:
        probe.apply(next(iter(probe.to_act()), 0), game.action_from_json({"kind": CONCEDE, "reason": "stopped"}))
    except IllegalAction:
        return ()
    return tuple(probe.outcome.scores) if probe.outcome is not None else ()


def live_adjudicate(*, match_id: int, reason: str = "round time limit",
                    now: datetime | None = None) -> LiveMatch | None:
    """End the active live match ``match_id`` now, at a round's hard time limit.

    The places are the game's own verdict on the position (``Game.adjudicate``: Conquest
    ranks by the Conquest Pool so far) or, for a game without one, a draw (every seat
    first). The stored game and the match's result take them, with reason
    ``"adjudicated"``, the scores as they stand and ``detail["adjudicated"] = reason``
    (seats out of time still rank below the others, :func:`final_outcome`); the replay
    keeps the log as played and no outcome of its own, so it verifies as an unfinished
    game. Clocks stop; the seats get their final views after commit. Locks the live match
    row. Returns None, changing nothing, for a match that does not exist or is over.
    """
    now = now or timezone.now()
    with transaction.atomic():
        try:
            live, rows = _locked(match_id)
        except LiveError:
            return None
        game = engine_games[live.game]
        with engine_state.state_of(live) as state:
            places = game.adjudicate(state)
            if places is None:
                places = (1,) * len(rows)
            outcome = Outcome(places=tuple(places), scores=_scores_now(game, state), reason="adjudicated",
                              detail={"adjudicated": str(reason)})
            for row in rows:
                if row.running_since is not None:
                    row.remaining_ms = remaining_ms(row, now)
            _finish(live, rows, state, now, outcome=outcome)
            live.save(update_fields=["status", "outcome", "replay", "finished", "next_deadline"])
            for row in rows:
                LiveSeat.objects.filter(pk=row.pk).update(remaining_ms=row.remaining_ms, running_since=None)
            _after_commit(live, rows, state)
    return live


def live_link_next(*, match_id: int, next_match_id: int) -> None:
    """Make ``next_match_id`` the next game after live match ``match_id`` (a series: a
    best-of-three round), so that the finished board offers it (``next_url`` in every
    seat's and the spectators' view, :func:`live.selectors.view_payload`).

    Idempotent: linking the same game again changes nothing and sends nothing. Linking a
    finished match sends every socket of it its final view again after commit, now with
    the link; an active match carries it in its final views when it ends. Locks the live
    match row. Raises :class:`LiveError` for a live match or a next live match that does
    not exist or one already linked to another game, ``ValidationError`` (``next_match_id``)
    for an id that is not one or names the match itself.
    """
    with transaction.atomic():
        live = LiveMatch.objects.select_for_update().select_related("match").filter(match_id=match_id).first()
        if live is None:
            raise LiveError("not_found", f"there is no live match {match_id}", status=404)
        if isinstance(next_match_id, bool) or not isinstance(next_match_id, int):
            raise ValidationError({"next_match_id": [f"the next game is a match id, not {next_match_id!r}"]})
        if next_match_id == match_id:
            raise ValidationError({"next_match_id": [f"match {match_id} cannot be its own next game"]})
        # The board sends the players to /live/<id>/: the next game must be a live match.
        if not LiveMatch.objects.filter(match_id=next_match_id).exists():
            raise LiveError("not_found", f"there is no live match {next_match_id} to play next", status=404)
        if live.next_match_id == next_match_id:
            return
        if live.next_match_id is not None:
            raise LiveError("already_linked", f"live match {match_id} already leads to match {live.next_match_id}")
        live.next_match_id = next_match_id
        live.save(update_fields=["next_match"])
        if live.is_over:
            rows = list(LiveSeat.objects.filter(live=live).order_by("seat"))
            _attach_seat_details(live, rows)
            with engine_state.state_of(live) as state:
                _after_commit(live, rows, state)


# --------------------------------------------------------------------------- clocks


def live_enforce_clock(*, match_id: int, now: datetime | None = None) -> list[int]:
    """Apply the clock to live match ``match_id``: every seat whose time ran out by ``now``
    loses. Returns the seats that ran out.

    Locks the match row. A seat whose player never opened their board nor moved
    (``connected_at`` empty) did not show up, whatever their clock says: the match ends
    as :func:`live_forfeit` ends it, every such seat forfeiting (reason ``no-show``;
    unrated, and a tournament counts the absence). Otherwise, in TempoFront and in
    two-seat Conquest the seat concedes (the concession is in the log, reason ``out of
    time``); in a Conquest match of three or four the seat is handed to the random bot,
    which takes its remaining decisions, and it ranks last when the match ends
    (:func:`final_outcome`).
    """
    now = now or timezone.now()
    out: list[int] = []
    with transaction.atomic():
        try:
            live, rows = _locked(match_id)
        except LiveError:
            return out
        late = [r for r in rows
                if r.running_since is not None and r.timed_out_at is None and remaining_ms(r, now) <= 0]
        absent = [r.seat for r in rows if r.user_id is not None and r.connected_at is None]
        no_show = [r.seat for r in late if r.seat in absent]
        if no_show:
            gone = [*no_show, *(s for s in absent if s not in no_show)]
            _apply(live, rows, gone[0], {"kind": CONCEDE, "reason": NO_SHOW}, None, forfeited=gone, now=now)
            return [r.seat for r in late]
        for row in late:
            out.append(row.seat)
            if engine_games[live.game].plays_on_without(len(rows)):
                row.remaining_ms = 0
                row.running_since = None
                row.timed_out_at = now
                row.save(update_fields=["remaining_ms", "running_since", "timed_out_at"])
                continue
            _apply(live, rows, row.seat, {"kind": CONCEDE, "reason": "out of time"}, None)
            return out
        if out:
            live.next_deadline = _next_deadline(rows)
            live.save(update_fields=["next_deadline"])
            with engine_state.state_of(live) as state:
                _after_commit(live, rows, state)
    return out


def live_enforce_clocks(*, now: datetime | None = None) -> list[int]:
    """Enforce the clock of every live match with a deadline before ``now``."""
    now = now or timezone.now()
    due = list(LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE, next_deadline__lte=now)
               .values_list("match_id", flat=True))
    return [match_id for match_id in due if live_enforce_clock(match_id=match_id, now=now)]


def live_resend_bot_moves(*, now: datetime | None = None, idle_seconds: float = 30.0) -> list[int]:
    """Send ``live.bot_act`` again for every active match whose bot seat is to act and
    nothing happened for ``idle_seconds`` (its message was lost: a broker restart, a worker
    killed). A duplicate is harmless: the task checks the seat has not acted since."""
    now = now or timezone.now()
    cutoff = _ms(now) - int(idle_seconds * 1000)
    resent: list[int] = []
    candidates = (LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE)
                  .filter(Q(seats__bot__gt="") | Q(seats__timed_out_at__isnull=False)).distinct()
                  .select_related("match"))
    for live in candidates:
        last = live.log[-1][2] if live.log else _ms(live.created)
        if last > cutoff:
            continue
        bots = {r.seat for r in live.seats.all() if r.is_bot}
        with engine_state.state_of(live) as state:
            due = [seat for seat in state.to_act() if seat in bots]
        for seat in due:
            _enqueue(BOT_ACT, [live.match_id, seat, len(live.log)])
        if due:
            resent.append(live.match_id)
    return resent


# --------------------------------------------------------------------------- side effects


def _after_commit(live: LiveMatch, rows: list[LiveSeat], state: State, *, events=(), acting: int | None = None,
                  views: bool = True) -> None:
    """Compute what every seat and the spectators are sent, and send it after commit,
    with the next bot decisions and clock check (``views`` False: only those)."""
    from live.selectors import view_payload

    match_id = live.match_id
    messages = []
    if views:
        messages = [(group_for_seat(match_id, r.seat), view_payload(live, rows, state, r.seat, events=events,
                                                                     acting=acting)) for r in rows]
        public = view_payload(live, rows, state, None, events=events, acting=acting)
        messages.append((group_public(match_id), {**public, "delay": live.spectator_delay}))
    bots = [] if live.is_over else [r.seat for r in rows if r.is_bot and r.seat in state.to_act()]
    index = len(live.log)
    deadline = live.next_deadline

    def send() -> None:
        collector = getattr(_collecting, "messages", None)
        if collector is not None:
            collector.extend(messages)
        elif messages:
            broadcast(messages)
        for seat in bots:
            _enqueue(BOT_ACT, [match_id, seat, index])
        if deadline is not None:
            seconds = (deadline - timezone.now()).total_seconds()
            if seconds < CHECK_HORIZON_SECONDS:
                _enqueue(CHECK_CLOCK, [match_id], countdown=max(0.0, seconds) + 0.25, merge=CHECK_MERGE_SECONDS)

    transaction.on_commit(send)


#: Per thread: where :func:`collect_broadcasts` gathers the views committed meanwhile.
_collecting = threading.local()


@contextmanager
def collect_broadcasts() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Gather, instead of sending, the views that moves committed in this thread while in
    the block; the caller then sends them itself with :func:`abroadcast` (the socket
    consumer does, on its event loop, so that the thread of synchronous code is free for
    the next move as soon as the transaction has committed). Only committed moves add
    views: a move that fails sends nothing."""
    previous = getattr(_collecting, "messages", None)
    messages: list[tuple[str, dict[str, Any]]] = []
    _collecting.messages = messages
    try:
        yield messages
    finally:
        _collecting.messages = previous


#: At most this many channel-layer calls of one process are in flight at once: the Redis layer's
#: connection pool (redis-py: 100 connections) raises instead of waiting when it runs out.
BROADCASTS_IN_FLIGHT = 32
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()


def layer_gate() -> asyncio.Semaphore:
    """The running loop's bound on channel-layer calls in flight (group sends, and the
    sockets' group joins and leaves: a thousand sockets closing at once must not ask the
    Redis pool for a thousand connections)."""
    loop = asyncio.get_running_loop()
    gate = _gates.get(loop)
    if gate is None:
        gate = _gates[loop] = asyncio.Semaphore(BROADCASTS_IN_FLIGHT)
    return gate


async def abroadcast(messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Send ``(group, message)`` pairs through the channel layer, all at once; never raises."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    gate = layer_gate()
    # One group send per match: the views of all its seats and of spectators together.
    by_match: dict[str, dict[str, dict[str, Any]]] = {}
    for group, message in messages:
        by_match.setdefault(_match_group_of(group), {})[group] = message

    async def send(match_group: str, views: dict[str, dict[str, Any]]) -> None:
        async with gate:
            await layer.group_send(match_group, {"type": "live.views", "views": views})

    results = await asyncio.gather(*(send(group, views) for group, views in by_match.items()),
                                   return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            logger.error("could not broadcast a live view", exc_info=result)


def broadcast(messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Send ``(group, message)`` pairs through the channel layer from synchronous code
    (workers, HTTP views), one group send per match (``web.effects``); never raises."""
    by_match: dict[str, dict[str, dict[str, Any]]] = {}
    for group, message in messages:
        by_match.setdefault(_match_group_of(group), {})[group] = message
    for match_group, views in by_match.items():
        effects.group_send(match_group, {"type": "live.views", "views": views})


def _enqueue(task: str, args: list[Any], *, countdown: float | None = None, queue: str = "live",
             merge: float | None = None) -> None:
    effects.send_task(task, args=args, queue=queue, countdown=countdown, merge=merge)


# --------------------------------------------------------------------------- matchmaking


def rating_of(*, user, game: str) -> float:
    """The player's rating in the human pool of the ladder (``ladder.selectors.human_rating``)."""
    from ladder import selectors as ladder_selectors

    return float(ladder_selectors.human_rating(user_id=user.pk, game=game))


def _own_deck(user, deck_version: DeckVersion, field: str = "deck") -> None:
    if deck_version.deck.owner_id != user.pk:
        raise ValidationError({field: [f"deck '{deck_version.deck.name}' is not yours"]})
    if deck_version.deck.archived:
        raise ValidationError({field: [f"deck '{deck_version.deck.name}' was deleted"]})


def _check_fits(deck_version: DeckVersion) -> None:
    """Refuse, before anything is written or paired, a deck that the live match it asks
    for would refuse. Queues, challenges and bot games take no parameters: their matches
    are played under the game's defaults (``params`` None)."""
    problems = match_services.match_deck_problems(deck_versions=[deck_version], params=None)
    if problems:
        raise ValidationError({"deck": problems})


def _check_seats(game: str, seats: Any) -> int:
    if game not in engine_games:
        raise ValidationError({"game": [f"unknown game '{game}'"]})
    allowed = engine_games[game].queue_seats
    if isinstance(seats, bool) or seats not in allowed:
        raise ValidationError({"seats": [f"{engine_games[game].title} queues have "
                                         f"{' or '.join(map(str, allowed))} seats, not {seats!r}"]})
    return seats


def live_queue_join(*, user, deck_version: DeckVersion, seats: int = 2, now: datetime | None = None) -> QueueEntry:
    """Put ``user`` in the queue of the deck's game (and seat count) and pair at once if
    players of similar rating wait. A player waits in one queue at a time: joining again
    replaces the earlier entry. Locks the queue's row."""
    _own_deck(user, deck_version)
    _check_fits(deck_version)
    game = deck_version.deck.game
    seats = _check_seats(game, seats)
    now = now or timezone.now()
    with transaction.atomic():
        QueueEntry.objects.filter(user=user, match__isnull=True).delete()
        QueueEntry.objects.filter(user=user).delete()
        queue, _ = LiveQueue.objects.get_or_create(game=game, seats=seats)
        queue = LiveQueue.objects.select_for_update().get(pk=queue.pk)
        entry = QueueEntry.objects.create(queue=queue, user=user, deck_version=deck_version,
                                          rating=rating_of(user=user, game=game), joined=now)
        _pair(queue, now)
        entry.refresh_from_db()
    return entry


def live_queue_leave(*, user) -> bool:
    """Take ``user`` out of any queue; True if they were waiting."""
    deleted, _ = QueueEntry.objects.filter(user=user, match__isnull=True).delete()
    return bool(deleted)


def live_queue_release() -> int:
    """Delete the queue entries of matches no longer being played; returns how many.

    A paired entry only says "your match is ready"; once that match is over it would
    keep the player in a match that has ended (readers already ignore it,
    ``selectors.queue_status``). Run by ``live.tick`` through :func:`live_pair_queues`."""
    deleted, _ = (QueueEntry.objects.filter(match__isnull=False)
                  .exclude(match__live__status=LiveMatch.Status.ACTIVE).delete())
    return deleted


def live_pair_queues(*, now: datetime | None = None) -> list[int]:
    """Release the entries of finished matches, then pair every queue again (windows
    widen as players wait); returns new match ids."""
    now = now or timezone.now()
    live_queue_release()
    created: list[int] = []
    for queue_id in LiveQueue.objects.filter(entries__match__isnull=True).values_list("pk", flat=True).distinct():
        with transaction.atomic():
            queue = LiveQueue.objects.select_for_update().get(pk=queue_id)
            created.extend(_pair(queue, now))
    return created


def _pair(queue: LiveQueue, now: datetime) -> list[int]:
    """Match waiting entries of the locked ``queue``, oldest first, in groups of
    ``queue.seats`` whose ratings are all within each other's window."""
    waiting = list(queue.entries.filter(match__isnull=True).select_related("user", "deck_version__deck"))
    created: list[int] = []

    def window(entry: QueueEntry) -> float:
        return conf.rating_window((now - entry.joined).total_seconds())

    while len(waiting) >= queue.seats:
        group: list[QueueEntry] | None = None
        for anchor in waiting:
            chosen = [anchor]
            for other in waiting:
                if other is anchor or any(other.user_id == c.user_id for c in chosen):
                    continue
                if all(abs(other.rating - c.rating) <= min(window(other), window(c)) for c in chosen):
                    chosen.append(other)
                    if len(chosen) == queue.seats:
                        break
            if len(chosen) == queue.seats:
                group = chosen
                break
        if group is None:
            break
        group.sort(key=lambda e: (e.joined, e.pk))
        live = live_create(seats=[SeatSpec(deck_version=e.deck_version, user=e.user) for e in group],
                           created_by=None)
        QueueEntry.objects.filter(pk__in=[e.pk for e in group]).update(match=live.match)
        created.append(live.match_id)
        # Its players hear of it on any page, not only on /live/ (once this commits).
        _notify(live.match_id, "Matchmaking: your live match is ready")
        waiting = [e for e in waiting if e not in group]
    return created


# --------------------------------------------------------------------------- challenges and bots


def live_challenge(*, challenger, challenged_username: str, deck_version: DeckVersion,
                   now: datetime | None = None) -> LiveChallenge:
    """Invite a named player to a two-seat live match with the challenger's deck; the
    invitation expires after ``LIVE_CHALLENGE_SECONDS`` and replaces the challenger's
    earlier one of the same player that still waits (it is cancelled)."""
    _own_deck(challenger, deck_version)
    _check_fits(deck_version)
    User = get_user_model()
    target = User.objects.filter(username__iexact=str(challenged_username or "").strip()).first()
    if target is None:
        raise ValidationError({"username": [f"there is no player named '{challenged_username}'"]})
    if target.pk == challenger.pk:
        raise ValidationError({"username": ["you cannot challenge yourself"]})
    now = now or timezone.now()
    with transaction.atomic():
        # A new challenge of the same player replaces the one still waiting, so that the
        # challenged player's list holds one line per challenger.
        LiveChallenge.objects.filter(challenger=challenger, challenged=target,
                                     status=LiveChallenge.Status.PENDING).update(
            status=LiveChallenge.Status.CANCELLED)
        return LiveChallenge.objects.create(challenger=challenger, challenged=target, game=deck_version.deck.game,
                                            deck_version=deck_version,
                                            expires=now + timedelta(seconds=conf.challenge_seconds()))


def live_challenge_answer(*, challenge_id: int, user, accept: bool, deck_version: DeckVersion | None = None,
                          now: datetime | None = None) -> LiveChallenge:
    """Accept (with one of the user's decks of the same game) or decline a challenge made
    to ``user``; the challenger may cancel it. Accepting a challenge ``user`` already
    accepted returns it with its match (no second match). Locks the challenge row."""
    now = now or timezone.now()
    LiveChallenge.objects.filter(pk=challenge_id, status=LiveChallenge.Status.PENDING, expires__lte=now).update(
        status=LiveChallenge.Status.EXPIRED)
    with transaction.atomic():
        challenge = LiveChallenge.objects.select_for_update().filter(pk=challenge_id).first()
        if challenge is None:
            raise LiveError("not_found", f"there is no challenge {challenge_id}", status=404)
        if user.pk not in (challenge.challenged_id, challenge.challenger_id):
            raise LiveError("permission_denied", "this challenge is not yours to answer", status=403)
        if (accept and user.pk == challenge.challenged_id and challenge.status == LiveChallenge.Status.ACCEPTED
                and challenge.match_id is not None):
            # Accepting twice (a double click, a retry) answers with the match the first made.
            return challenge
        if challenge.status != LiveChallenge.Status.PENDING:
            raise LiveError("not_pending", f"the challenge is {challenge.get_status_display().lower()}")
        if user.pk == challenge.challenger_id:
            if accept:
                raise LiveError("permission_denied", "only the challenged player can accept", status=403)
            challenge.status = LiveChallenge.Status.CANCELLED
        elif not accept:
            challenge.status = LiveChallenge.Status.DECLINED
        else:
            if deck_version is None:
                raise ValidationError({"deck": ["choose one of your decks to accept with"]})
            _own_deck(user, deck_version)
            if deck_version.deck.game != challenge.game:
                raise ValidationError({"deck": [f"the challenge is for {engine_games[challenge.game].title}"]})
            _check_fits(deck_version)
            live = live_create(seats=[SeatSpec(deck_version=challenge.deck_version, user=challenge.challenger),
                                      SeatSpec(deck_version=deck_version, user=user)],
                               created_by=challenge.challenger)
            challenge.match = live.match
            challenge.status = LiveChallenge.Status.ACCEPTED
            # The challenger hears of it on any page (the banner; once this commits).
            _notify(live.match_id, f"{user.username} accepted your challenge")
        challenge.save(update_fields=["status", "match"])
    return challenge


def _notify(match_id: int, title: str) -> None:
    from live.notify import live_notify_seats

    live_notify_seats(match_id=match_id, title=title)


def live_expire_challenges(*, now: datetime | None = None) -> int:
    now = now or timezone.now()
    return LiveChallenge.objects.filter(status=LiveChallenge.Status.PENDING, expires__lte=now).update(
        status=LiveChallenge.Status.EXPIRED)


def live_play_bot(*, user, deck_version: DeckVersion, bot: str, seats: int = 2,
                  initial_ms: int | None = None, increment_ms: int | None = None) -> LiveMatch:
    """Start a live match of ``user`` (seat 0) against ``seats - 1`` bots ``bot`` (a spec
    such as ``greedy`` or ``search:fast``) playing the game's starter decks."""
    _own_deck(user, deck_version)
    _check_fits(deck_version)
    game = deck_version.deck.game
    seats = _check_seats(game, seats)
    try:
        bot = clean_platform_spec(bot)
    except ValueError as exc:
        raise ValidationError({"bot": [str(exc)]}) from None
    starters = list(Deck.objects.filter(game=game, is_starter=True, archived=False).order_by("pk"))
    versions = [v for v in (d.latest_version for d in starters) if v is not None]
    if not versions:
        raise ValidationError({"bot": [f"there are no starter decks of {engine_games[game].title} for a bot to play"]})
    specs = [SeatSpec(deck_version=deck_version, user=user)]
    specs += [SeatSpec(deck_version=versions[i % len(versions)], bot=bot) for i in range(seats - 1)]
    return live_create(seats=specs, created_by=user, initial_ms=initial_ms, increment_ms=increment_ms)
