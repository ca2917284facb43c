"""Every move of a live match, a person's or a bot's, and who showed up.

Every move goes through one door, :func:`live_act` (bots: :func:`live_bot_move`, which ends
in the same code, :func:`apply_action`): it locks the live match row
(``live.queries.locked_active``), rebuilds or loads the engine state, checks the seat and
the action with the engine, appends the action to the log, runs the clocks
(``live.clock``), records the end if the action ends the match (``live.results``), and
**after commit** sends every seat its own view and the spectators the public view, and the
next bot decision on the ``live`` queue (``live.broadcasts``). An illegal or malformed move
raises :class:`~live.errors.LiveError` and changes nothing.

A move proves presence; :func:`live_seat_present` and :func:`live_seats_present` record
it when a seated player's socket connects. :func:`live_resend_bot_moves` sends again a bot
decision whose message was lost.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from engine import games as engine_games
from engine.bots import make_bot
from engine.core import CONCEDE, IllegalAction, Rng, State
from engine.runner import decide
from live import conf, engine_state
from live.broadcasts import BOT_ACT, QUEUE, send_after_commit
from live.clock import clock_fields, epoch_ms, run_clocks
from live.errors import LiveError
from live.models import LiveMatch, LiveSeat
from live.queries import locked_active, write_move
from live.results import finish
from web import effects

logger = logging.getLogger(__name__)


#: The reason the log gives a person's concession (``live_act``, ``live_resign``).
RESIGNED = "resigned"


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
        live, rows = locked_active(match_id)
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
        apply_action(live, rows, row.seat, action_json, expected_index)
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
    (``rows``, ``live.queries.live_read``): one UPDATE of the user's rows still without
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
                live, rows = locked_active(match_id)
                if len(live.log) != length:
                    continue
                try:
                    apply_action(live, rows, seat, payload, length, strict=True)
                except LiveError as exc:
                    if exc.code != "illegal_action":
                        raise
                    apply_action(live, rows, seat,
                                 {"kind": CONCEDE, "reason": f"{row.pilot} chose an illegal action"}, None)
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


def _acted_since(log: list, seat: int, index: int) -> bool:
    return any(entry[0] == seat for entry in log[max(0, index):])


def apply_action(live: LiveMatch, rows: list[LiveSeat], seat: int, action_json: Any, expected_index: int | None,
                 *, strict: bool = False, forfeited: Sequence[int] = (), now: datetime | None = None) -> None:
    """Check and apply one action of ``seat`` on the locked ``live``; schedule the effects.
    ``forfeited``: the seats that rank last if this action ends the match
    (``live.endings.live_forfeit``)."""
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
    clocks_before = {r.pk: clock_fields(r) for r in rows}
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
        live.log = [*live.log, [seat, action.to_json(), epoch_ms(now)]]
        run_clocks(live, rows, state, seat, before, now)
        fields = ["log", "next_deadline"]
        if state.outcome is not None:
            finish(live, rows, state, now, forfeited=forfeited)
            fields += ["status", "outcome", "replay", "finished"]
        # Only the seats whose clock changed are written (usually two: the seat that acted
        # and the next one), with the match row, in one statement on PostgreSQL.
        write_move(live, fields, [row for row in rows if clock_fields(row) != clocks_before[row.pk]])
        send_after_commit(live, rows, state, events=events, acting=seat)
        match_id, length = live.match_id, len(live.log)
        transaction.on_commit(lambda: engine_state.remember(match_id, length, state))


def live_resend_bot_moves(*, now: datetime | None = None, idle_seconds: float = 30.0) -> list[int]:
    """Send ``live.bot_act`` again for every active match whose bot seat is to act and
    nothing happened for ``idle_seconds`` (its message was lost: a broker restart, a worker
    killed). A duplicate is harmless: the task checks the seat has not acted since."""
    now = now or timezone.now()
    cutoff = epoch_ms(now) - int(idle_seconds * 1000)
    resent: list[int] = []
    candidates = (LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE)
                  .filter(Q(seats__bot__gt="") | Q(seats__timed_out_at__isnull=False)).distinct()
                  .select_related("match"))
    for live in candidates:
        last = live.log[-1][2] if live.log else epoch_ms(live.created)
        if last > cutoff:
            continue
        bots = {r.seat for r in live.seats.all() if r.is_bot}
        with engine_state.state_of(live) as state:
            due = [seat for seat in state.to_act() if seat in bots]
        for seat in due:
            effects.send_task(BOT_ACT, args=[live.match_id, seat, len(live.log)], queue=QUEUE)
        if due:
            resent.append(live.match_id)
    return resent
