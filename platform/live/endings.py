"""Endings that do not come from the game's own play: time-outs, no-shows, a round's limit.

:func:`live_enforce_clock` (run by the ``live.tick`` beat task and by a check scheduled for
the next deadline) ends the match for a seat out of time (it concedes; in a game that plays
on without it, ``Game.plays_on_without``, the seat's remaining decisions are taken by the
random bot instead and it ranks last); a seat that never showed up forfeits. The endings a tournament round asks
for: :func:`live_forfeit` (seats that never showed up), :func:`live_adjudicate` (the
round's hard time limit: the game's own end condition, else a draw) and
:func:`live_link_next` (the next game of a series, offered on the finished board).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from engine import games as engine_games
from engine.core import CONCEDE, IllegalAction, Outcome, State
from live import engine_state
from live.broadcasts import send_after_commit
from live.clock import next_deadline, remaining_ms
from live.errors import LiveError
from live.models import LiveMatch, LiveSeat
from live.moves import apply_action
from live.queries import attach_seat_details, locked_active
from live.results import finish

#: The reason the log gives the concession of a seat that never showed up.
NO_SHOW = "no-show"


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
    listed seat last, sharing the last place (``live.results.final_outcome``,
    ``forfeited``), and the match's game, result and ratings follow it. The seats are sent their final views
    after commit, as for any move. Locks the live match row. Returns None, changing
    nothing, for a match that does not exist or is already over; raises
    ``ValidationError`` (``seats``) naming a seat the match does not have. ``now`` (default:
    the present) is when the concession is logged and the clocks stop.
    """
    with transaction.atomic():
        try:
            live, rows = locked_active(match_id)
        except LiveError:
            return None
        gone = _check_seats_of(rows, seats)
        apply_action(live, rows, gone[0], {"kind": CONCEDE, "reason": str(reason)}, None, forfeited=gone, now=now)
    return live


def _scores_now(game, state: State) -> tuple[Any, ...]:
    """The per-seat scores the engine would record if the match ended now: those of a
    concession on a copy of the state (every game accepts one at any moment and records
    the scores as they stand, whatever the game counts). The state itself is not changed; empty if the game refuses."""
    probe = state.clone()
    try:
        probe.apply(next(iter(probe.to_act()), 0), game.action_from_json({"kind": CONCEDE, "reason": "stopped"}))
    except IllegalAction:
        return ()
    return tuple(probe.outcome.scores) if probe.outcome is not None else ()


def live_adjudicate(*, match_id: int, reason: str = "round time limit",
                    now: datetime | None = None) -> LiveMatch | None:
    """End the active live match ``match_id`` now, at a round's hard time limit.

    The places are the game's own verdict on the position (``Game.adjudicate``, such as a
    ranking by the points scored so far) or, for a game without one, a draw (every seat
    first). The stored game and the match's result take them, with reason
    ``"adjudicated"``, the scores as they stand and ``detail["adjudicated"] = reason``
    (seats out of time still rank below the others, ``live.results.final_outcome``); the replay
    keeps the log as played and no outcome of its own, so it verifies as an unfinished
    game. Clocks stop; the seats get their final views after commit. Locks the live match
    row. Returns None, changing nothing, for a match that does not exist or is over.
    """
    now = now or timezone.now()
    with transaction.atomic():
        try:
            live, rows = locked_active(match_id)
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
            finish(live, rows, state, now, outcome=outcome)
            live.save(update_fields=["status", "outcome", "replay", "finished", "next_deadline"])
            for row in rows:
                LiveSeat.objects.filter(pk=row.pk).update(remaining_ms=row.remaining_ms, running_since=None)
            send_after_commit(live, rows, state)
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
            attach_seat_details(live, rows)
            with engine_state.state_of(live) as state:
                send_after_commit(live, rows, state)


def live_enforce_clock(*, match_id: int, now: datetime | None = None) -> list[int]:
    """Apply the clock to live match ``match_id``: every seat whose time ran out by ``now``
    loses. Returns the seats that ran out.

    Locks the match row. A seat whose player never opened their board nor moved
    (``connected_at`` empty) did not show up, whatever their clock says: the match ends
    as :func:`live_forfeit` ends it, every such seat forfeiting (reason ``no-show``;
    unrated, and a tournament counts the absence). Otherwise the seat concedes (the
    concession is in the log, reason ``out of time``), unless its game plays on without it
    at this seat count (``Game.plays_on_without``): then the seat is handed to the random bot,
    which takes its remaining decisions, and it ranks last when the match ends
    (``live.results.final_outcome``).
    """
    now = now or timezone.now()
    out: list[int] = []
    with transaction.atomic():
        try:
            live, rows = locked_active(match_id)
        except LiveError:
            return out
        late = [r for r in rows
                if r.running_since is not None and r.timed_out_at is None and remaining_ms(r, now) <= 0]
        absent = [r.seat for r in rows if r.user_id is not None and r.connected_at is None]
        no_show = [r.seat for r in late if r.seat in absent]
        if no_show:
            gone = [*no_show, *(s for s in absent if s not in no_show)]
            apply_action(live, rows, gone[0], {"kind": CONCEDE, "reason": NO_SHOW}, None, forfeited=gone, now=now)
            return [r.seat for r in late]
        for row in late:
            out.append(row.seat)
            if engine_games[live.game].plays_on_without(len(rows)):
                row.remaining_ms = 0
                row.running_since = None
                row.timed_out_at = now
                row.save(update_fields=["remaining_ms", "running_since", "timed_out_at"])
                continue
            apply_action(live, rows, row.seat, {"kind": CONCEDE, "reason": "out of time"}, None)
            return out
        if out:
            live.next_deadline = next_deadline(rows)
            live.save(update_fields=["next_deadline"])
            with engine_state.state_of(live) as state:
                send_after_commit(live, rows, state)
    return out


def live_enforce_clocks(*, now: datetime | None = None) -> list[int]:
    """Enforce the clock of every live match with a deadline before ``now``."""
    now = now or timezone.now()
    due = list(LiveMatch.objects.filter(status=LiveMatch.Status.ACTIVE, next_deadline__lte=now)
               .values_list("match_id", flat=True))
    return [match_id for match_id in due if live_enforce_clock(match_id=match_id, now=now)]
