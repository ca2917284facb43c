"""What a committed change of a live match sends, and to which groups.

Every socket of a match joins its group (:func:`group_match`); one message per move carries
the views of every seat and of spectators (``live.views``), keyed by :func:`group_for_seat`
/ :func:`group_public`, and each socket forwards only its own. :func:`send_after_commit`
computes those views in the transaction and, once it commits, sends them through
``web.effects`` with the next bot decisions and clock check (the ``live`` queue's tasks).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from engine.core import State
from live.models import LiveMatch, LiveSeat
from live.selectors import view_payload
from web import effects

#: The queue of every live task: a worker of its own, so a bot's move never waits behind a bot match.
QUEUE = "live"
BOT_ACT = "live.bot_act"
CHECK_CLOCK = "live.check_clock"
#: A clock check is scheduled with the exact countdown when the deadline is this close;
#: later deadlines are caught by ``live.tick``.
CHECK_HORIZON_SECONDS = 300.0
#: Clock checks of one batch (a round of a live event starts a hundred games at once) due
#: within this many seconds of each other go as one ``live.check_clock`` message with
#: their matches (``web.effects.send_task(merge=...)``), due with the last of them.
CHECK_MERGE_SECONDS = 0.5


def group_for_seat(match_id: int, seat: int) -> str:
    return f"live.{match_id}.seat.{seat}"


def group_public(match_id: int) -> str:
    return f"live.{match_id}.public"


def group_match(match_id: int) -> str:
    """The channel-layer group every socket of the match joins: one message per move
    carries the views of every seat and of spectators (``live.views``), keyed by
    :func:`group_for_seat` / :func:`group_public`, and each socket forwards only its own."""
    return f"live.{match_id}"


def send_after_commit(live: LiveMatch, rows: list[LiveSeat], state: State, *, events=(),
                      acting: int | None = None, views: bool = True) -> None:
    """Compute what every seat and the spectators are sent, and send it after commit,
    with the next bot decisions and clock check (``views`` False: only those)."""
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
    views_message = {"type": "live.views", "views": dict(messages)} if messages else None

    def send() -> None:
        if views_message is not None:
            # One group send per move: the views of all its seats and of spectators together.
            effects.group_send(group_match(match_id), views_message)
        for seat in bots:
            effects.send_task(BOT_ACT, args=[match_id, seat, index], queue=QUEUE)
        if deadline is not None:
            seconds = (deadline - timezone.now()).total_seconds()
            if seconds < CHECK_HORIZON_SECONDS:
                effects.send_task(CHECK_CLOCK, args=[match_id], queue=QUEUE, countdown=max(0.0, seconds) + 0.25,
                                  merge=CHECK_MERGE_SECONDS)

    transaction.on_commit(send)
