"""Watching bot matches as they are played: a running match's public board, streamed.

The worker playing a bot match (``matches.run_match``) calls a :class:`BoardStreamer` from
the match runner's ``on_action(n, state, events)`` callback. It sends the spectators' view
(``state.view(None)``, public information only) and the public events since the last frame
to the match's group (``match.<id>``, the socket of the match page) as
``{"type": "match.board", "match_id", "game", "seat_order", "actions", "view", "events",
"over"}`` (``seat_order[s]`` is the match entry playing engine seat ``s`` in this game),
at most one frame per ``interval`` seconds (default 0.5) so that a page can show the board
moving at a watchable pace without the worker flooding the channel layer; the last
position of a game is always sent. Sending never raises into the worker.
"""

from __future__ import annotations

import time
from typing import Any

from web import effects


class BoardStreamer:
    """Throttled public-board frames of one game of a running match."""

    def __init__(self, *, match_id: int, game: int, seat_order: list[int] | None = None, interval: float = 0.5,
                 clock=time.monotonic):
        self.match_id = match_id
        self.game = game
        self.seat_order = list(seat_order) if seat_order is not None else None
        self.interval = interval
        self.clock = clock
        self.last_sent: float | None = None
        self.pending_events: list[dict[str, Any]] = []

    def __call__(self, actions: int, state, events) -> bool:
        """Record one applied action; send a frame if one is due. Returns whether it sent."""
        self.pending_events.extend({"kind": e.kind, "text": e.text} for e in events if e.visible_to(None))
        over = state.outcome is not None
        now = self.clock()
        if not over and self.last_sent is not None and now - self.last_sent < self.interval:
            return False
        self.last_sent = now
        frame = {"type": "match.board", "match_id": self.match_id, "game": self.game,
                 "seat_order": self.seat_order, "actions": actions,
                 "view": state.view(None), "events": self.pending_events, "over": over}
        self.pending_events = []
        effects.group_send(f"match.{self.match_id}", frame)  # never raises: a failure is logged
        return True
