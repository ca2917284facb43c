"""The seats' time banks: how a move runs them, when the next one runs out, what is left.

Every seat has a time bank (``LiveSeat.remaining_ms``) that runs while the seat is to act
(``running_since``); an action adds the match's increment. This module is the arithmetic
of those banks on rows already read (it reads and writes nothing); a move runs it
(``live.moves``), and a bank that ran out is enforced by ``live.endings.live_enforce_clock``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from engine.core import State
from live.models import LiveMatch, LiveSeat


def epoch_ms(moment: datetime) -> int:
    """``moment`` in milliseconds since the epoch (how the action log stamps a move)."""
    return int(moment.timestamp() * 1000)


def clock_fields(row: LiveSeat) -> tuple:
    """What a move may change on a seat's clock (a seat whose fields changed is written)."""
    return row.remaining_ms, row.running_since, row.timed_out_at


def run_clocks(live: LiveMatch, rows: list[LiveSeat], state: State, acting: int, before: set[int], now) -> None:
    """Run the clocks for seat ``acting``'s action at ``now`` (``state`` is after it): the
    seats that stop acting are charged their time, the acting seat gets the increment
    unless the match ended, the seats now to act start running; sets ``next_deadline``."""
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
    live.next_deadline = next_deadline(rows)


def next_deadline(rows: Sequence[LiveSeat]) -> datetime | None:
    """When the first running clock of ``rows`` runs out (None: none runs)."""
    deadlines = [r.running_since + timedelta(milliseconds=r.remaining_ms) for r in rows
                 if r.running_since is not None and r.timed_out_at is None]
    return min(deadlines) if deadlines else None


def remaining_ms(row: LiveSeat, now: datetime) -> int:
    """The seat's time left at ``now``."""
    if row.running_since is None:
        return max(0, row.remaining_ms)
    return max(0, row.remaining_ms - int((now - row.running_since).total_seconds() * 1000))
