"""The sockets of the live app: a live match's, ``/ws/live/<match_id>/`` (:class:`LiveMatchConsumer`),
and a signed-in player's notices on every page, ``/ws/notify/`` (:class:`NotifyConsumer`).

A seated player's socket receives its own seat's view (with its legal actions); anyone
else is a spectator and receives the public view (``state.view(None)`` only, delayed by
the match's ``spectator_delay``). Every socket of a match joins the match's group, whose
one message per move carries the views of every seat and of spectators; the consumer
forwards its own (the seat's group key, or the public one) and nothing else. A seated player's
first connection records that they showed up (``LiveSeat.connected_at``). Frames from the client:

- ``{"type": "act", "action": {...}, "index": n}``: play an action on the view at ``index``;
- ``{"type": "resign"}``; ``{"type": "ping"}`` (answered ``{"type": "pong"}``).

A seated player's first connection to a match being played is also sent to every other
socket of the match as ``{"type": "presence", "seat": n, "present": true}`` (the board
shows who has not come yet): to the other seats at once, to spectators after the match's
spectator delay.

Anything wrong gets ``{"type": "error", "code", "message"}`` and changes nothing (a frame
longer than ``web.sockets.MAX_FRAME_CHARS`` or nested deeper than ``config.api.MAX_JSON_DEPTH``
is refused before it is decoded, as on every socket of the site); a flood
of frames is rate-limited by a token bucket per connection, and a connection that keeps
flooding is closed with code 4429. The consumer computes no rules: moves go through
``live.moves.live_act``, and the new views come back through the channel layer (the
consumer that made the move collects them, ``web.effects.collecting``, and sends them from
its event loop after the commit, ``web.effects.asend``).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.services import FAILURES_OFFLINE, bot_record_error, bot_seen, token_group
from config.api import MAX_JSON_DEPTH, JSONTooDeep, check_json_depth
from live import broadcasts, errors, moves, queries, selectors
from live.models import LiveMatch
from live.notify import matches_waiting, user_group
from web import effects
from web.sockets import MAX_FRAME_CHARS

#: Token bucket per connection: BURST frames at once, refilled at RATE a second.
BURST = 20
RATE = 10.0
#: Frames refused for lack of tokens before the connection is closed with 4429.
ABUSE_LIMIT = 40
#: Largest text frame accepted, in characters: the one bound of every socket of the site.
MAX_FRAME = MAX_FRAME_CHARS
CLOSE_NOT_FOUND = 4404
CLOSE_NOT_SIGNED_IN = 4401
CLOSE_ABUSE = 4429


def _collected(service, **kwargs) -> list:
    with effects.collecting() as sends:
        service(**kwargs)
    return sends


#: A move runs its database work on a thread of the event loop's pool, not on the one
#: thread Channels keeps for synchronous code: moves of different matches then overlap
#: (one waits for PostgreSQL while another computes), and moves of the same match are
#: still serialized by the match row's lock. Each pool thread keeps its own connection
#: (``CONN_MAX_AGE``); ``database_sync_to_async`` closes stale ones around every call.
_run_move = database_sync_to_async(_collected, thread_sensitive=False)


def _seat_and_opening(match_id: int, user) -> tuple[int | None, dict, int | None]:
    """The user's seat (None: a spectator), the opening view it gets and, when this is the
    seat's first connection to a match still being played, the match's spectator delay
    (else None), in one trip to a database thread; a seated player's first connection
    records that they showed up (``moves.live_seats_present``). Raises
    ``LiveMatch.DoesNotExist``."""
    found = queries.live_read(match_id=match_id)
    if found is None:
        raise LiveMatch.DoesNotExist(f"there is no live match {match_id}")
    live, rows = found
    seat = selectors.seat_of(rows=rows, user=user)
    arrived = False
    if seat is not None:
        arrived = moves.live_seats_present(rows=rows, user=user, now=timezone.now())
    opening = selectors.opening_payload(match_id=match_id, seat=seat, live=live, rows=rows)
    return seat, opening, (live.spectator_delay if arrived and live.status == LiveMatch.Status.ACTIVE else None)


# Opening a board reads on the pool threads, as moves run (``_run_move``), not on the one
# thread for synchronous code: when a round of a live event starts, hundreds of boards open
# at once, and their reads wait for PostgreSQL side by side instead of one after another.
_read_opening = database_sync_to_async(_seat_and_opening, thread_sensitive=False)
_read_view = database_sync_to_async(
    lambda match_id, seat: selectors.opening_payload(match_id=match_id, seat=seat), thread_sensitive=False)


async def _join_token_group(consumer) -> None:
    """A bot's socket (``scope["bot_token"]``, accounts/ws_auth.py) listens for its token's
    revocation, which closes it."""
    token = consumer.scope.get("bot_token")
    if token is not None:
        async with effects.layer_gate():
            await consumer.channel_layer.group_add(token_group(token), consumer.channel_name)


_record_bot_error = database_sync_to_async(bot_record_error, thread_sensitive=False)
_bot_seen = database_sync_to_async(bot_seen, thread_sensitive=False)


async def _bot_failed(consumer, code: str, message: str) -> None:
    """A bot's frame was refused: kept for its owner's log; after ``FAILURES_OFFLINE`` in a
    row (no action accepted between them) the bot is taken offline and the socket closed."""
    await _record_bot_error(user_id=consumer.user.pk, match_id=getattr(consumer, "match_id", None), code=code,
                            message=message)
    consumer.failures = getattr(consumer, "failures", 0) + 1
    if consumer.failures == FAILURES_OFFLINE:
        reason = f"{FAILURES_OFFLINE} refused frames in a row (the last: {code})"
        await _bot_seen(user_id=consumer.user.pk, online=False, reason=reason)
        await consumer.send_json({"type": "error", "code": "offline", "message": f"taken offline: {reason}"})
        await consumer.close(code=CLOSE_ABUSE)


async def _leave_token_group(consumer) -> None:
    token = consumer.scope.get("bot_token")
    if token is not None:
        async with effects.layer_gate():
            await consumer.channel_layer.group_discard(token_group(token), consumer.channel_name)


class LiveMatchConsumer(AsyncJsonWebsocketConsumer):
    """One player's or spectator's connection to one live match."""

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.user = self.scope.get("user")
        self.tokens = float(BURST)
        self.refilled = time.monotonic()
        self.refused = 0
        self.pending: set[asyncio.TimerHandle] = set()
        # Join the match's group before reading the position: a move committed in between
        # then arrives after the opening view (clients skip a view older than the one they
        # have) instead of being lost. The group's messages carry every seat's view; only
        # this socket's own (``self.group``) is ever sent to the client. Messages are
        # handled one at a time, so none is handled before this method returns.
        self.match_group = broadcasts.group_match(self.match_id)
        async with effects.layer_gate():
            await self.channel_layer.group_add(self.match_group, self.channel_name)
        await _join_token_group(self)
        try:
            self.seat, opening, arrived = await _read_opening(self.match_id, self.user)
        except LiveMatch.DoesNotExist:
            # Accepted first so that the client reads why (a refused handshake is a bare 403).
            await self.accept()
            await self.error("not_found", f"there is no live match {self.match_id}")
            await self.close(code=CLOSE_NOT_FOUND)
            return
        self.group = (broadcasts.group_public(self.match_id) if self.seat is None
                      else broadcasts.group_for_seat(self.match_id, self.seat))
        await self.accept()
        await self.send_json(opening)
        if arrived is not None:
            # The others at the table see at once that this player has come, rather than at
            # the next move's view; spectators as late as they see the moves.
            await effects.asend([(self.match_group, {"type": "live.presence", "seat": self.seat, "delay": arrived})])


    async def dispatch(self, message: dict) -> None:
        # Channels' dispatch first closes stale connections of the thread for synchronous
        # code, a hop to that one thread for every frame in and every view out. This
        # consumer never uses the ORM on the event loop: every query runs in
        # ``database_sync_to_async``, which closes stale connections itself, in the thread
        # that runs it. So messages go straight to their handler.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def disconnect(self, code: int) -> None:
        for handle in self.pending:
            handle.cancel()
        group = getattr(self, "match_group", None)
        if group:
            async with effects.layer_gate():
                await self.channel_layer.group_discard(group, self.channel_name)
        await _leave_token_group(self)

    # ------------------------------------------------------------------ frames in

    def _take_token(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.refilled) * RATE)
        self.refilled = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    async def error(self, code: str, message: str) -> None:
        await self.send_json({"type": "error", "code": code, "message": message})
        if self.scope.get("bot_token") is not None and code != "token_revoked":
            await _bot_failed(self, code, message)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if self.refused >= ABUSE_LIMIT:
            return  # closed for abuse: frames already on their way are ignored
        if not self._take_token():
            self.refused += 1
            if self.refused >= ABUSE_LIMIT:
                await self.error("rate_limited", "too many frames; the connection is closed")
                await self.close(code=CLOSE_ABUSE)
            elif self.refused == 1 or self.refused % 10 == 0:
                await self.error("rate_limited", f"too many frames: at most {RATE:g} a second; this one was ignored")
            return
        if bytes_data is not None:
            await self.error("binary_frame", "binary frames are not accepted; send JSON text")
            return
        if text_data is None or len(text_data) > MAX_FRAME:
            await self.error("frame_too_large", f"a frame is at most {MAX_FRAME} characters")
            return
        try:
            # Counted before decoding: the decoder recurses once per level, and a frame of
            # brackets would end in a RecursionError that drops the socket.
            check_json_depth(text_data)
        except JSONTooDeep:
            await self.error("too_deep", f"a frame nests arrays and objects at most {MAX_JSON_DEPTH} levels deep")
            return
        try:
            content = json.loads(text_data)
        except ValueError as exc:
            await self.error("malformed_json", f"the frame is not JSON: {exc}")
            return
        if not isinstance(content, dict):
            await self.error("malformed_frame", "a frame must be a JSON object with a 'type'")
            return
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs) -> None:
        kind = content.get("type")
        if kind == "ping":
            await self.send_json({"type": "pong"})
        elif kind == "act":
            await self._act(content)
        elif kind == "resign":
            await self._call(moves.live_resign, match_id=self.match_id, user=self.user)
        elif kind == "view":
            await self.send_json(await _read_view(self.match_id, self.seat))
        else:
            await self.error("unknown_type", f"unknown frame type {kind!r}; expected act, resign, ping or view")

    async def _act(self, content: dict) -> None:
        if "action" not in content:
            await self.error("malformed_frame", "an 'act' frame needs an 'action' object")
            return
        index = content.get("index")
        seat = content.get("seat")
        await self._call(moves.live_act, match_id=self.match_id, user=self.user, action_json=content["action"],
                         expected_index=index, seat=seat)

    async def _call(self, service, **kwargs) -> None:
        try:
            messages = await _run_move(service, **kwargs)
        except errors.LiveError as exc:
            await self.error(exc.code, exc.message)
        except ValidationError as exc:
            await self.error("invalid", "; ".join(exc.messages))
        else:
            self.failures = 0
            # Sent from the event loop once the move has committed, so the thread that ran
            # it is already free for the next one.
            await effects.asend(messages)

    # ------------------------------------------------------------------ views out

    async def live_views(self, event: dict) -> None:
        """A move's views for the whole match: forward this socket's own, nothing else."""
        payload = event["views"].get(self.group)
        if payload is not None:
            await self.live_view({"payload": payload})

    async def live_presence(self, event: dict) -> None:
        """A seat's player has connected for the first time: say so to everyone else (to
        spectators after the match's spectator delay, as its views)."""
        if event.get("seat") == self.seat:
            return
        frame = {"type": "presence", "seat": event["seat"], "present": True}
        delay = event.get("delay") or 0
        if self.seat is None and delay:
            loop = asyncio.get_running_loop()
            handle = loop.call_later(delay, lambda: asyncio.ensure_future(self._send_later(frame)))
            self.pending.add(handle)
            return
        await self.send_json(frame)

    async def live_view(self, event: dict) -> None:
        payload = event["payload"]
        delay = payload.pop("delay", 0) if self.seat is None else 0
        if delay and payload.get("status") != LiveMatch.Status.DONE:
            loop = asyncio.get_running_loop()
            handle = loop.call_later(delay, lambda: asyncio.ensure_future(self._send_later(payload)))
            self.pending.add(handle)
            return
        await self.send_json(payload)

    async def token_revoked(self, event: dict) -> None:
        """The bot token this socket was opened with was revoked (``accounts.services.
        bot_token_revoke``): told why, then closed."""
        await self.error("token_revoked", "the bot token of this connection was revoked")
        await self.close(code=CLOSE_NOT_SIGNED_IN)

    async def _send_later(self, payload: dict) -> None:
        try:
            await self.send_json(payload)
        except Exception:  # the socket closed meanwhile
            pass


# --------------------------------------------------------------------------- notices on every page


class NotifyConsumer(AsyncJsonWebsocketConsumer):
    """``/ws/notify/``: a signed-in player's notices, on every page.

    On connect (signed in): joins :func:`live.notify.user_group`, then sends ``{"type":
    "notify.matches", "matches": [...]}`` (:func:`live.notify.matches_waiting`); a match
    announced in between arrives after it, never lost. Then forwards each ``notify.match`` of the group
    as ``{"type": "notify.match", "match": {...}}``. Anonymous: accepted, told
    ``{"type": "error", "code": "not_signed_in"}`` and closed with 4401.

    The only frame a client sends is ``{"type": "ping"}`` (answered ``{"type": "pong"}``);
    anything else gets an error frame and changes nothing. Frames are bounded exactly as on
    the match socket: its frame size, token bucket and abuse limit (code 4429) are reused,
    not copied.
    """

    # The match socket's frame checks and rate limiting, and its dispatch (this consumer
    # too never uses the ORM on the event loop: its one query runs in database_sync_to_async).
    receive = LiveMatchConsumer.receive
    _take_token = LiveMatchConsumer._take_token
    error = LiveMatchConsumer.error
    dispatch = LiveMatchConsumer.dispatch

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.group = None
        self.tokens = float(BURST)
        self.refilled = time.monotonic()
        self.refused = 0
        if self.user is None or not self.user.is_authenticated:
            # Accepted first so that the client reads why (a refused handshake is a bare 403).
            await self.accept()
            await self.error("not_signed_in", "sign in to be told when your live matches start")
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.group = user_group(self.user.pk)
        async with effects.layer_gate():
            await self.channel_layer.group_add(self.group, self.channel_name)
        await _join_token_group(self)
        if self.scope.get("bot_token") is not None:
            # Online before the program sees its socket open: it may be paired at once.
            await _bot_seen(user_id=self.user.pk, online=True)
        await self.accept()
        await self.send_json({"type": "notify.matches", "matches": await self._waiting()})

    @database_sync_to_async
    def _waiting(self) -> list[dict[str, Any]]:
        return matches_waiting(user=self.user)

    async def disconnect(self, code: int) -> None:
        if self.group:
            async with effects.layer_gate():
                await self.channel_layer.group_discard(self.group, self.channel_name)
            if self.scope.get("bot_token") is not None:
                await _bot_seen(user_id=self.user.pk, online=False, reason="disconnected")
        await _leave_token_group(self)

    async def receive_json(self, content, **kwargs) -> None:
        kind = content.get("type")
        if kind == "ping":
            await self.send_json({"type": "pong"})
            if self.scope.get("bot_token") is not None:
                await _bot_seen(user_id=self.user.pk, online=True)
        else:
            await self.error("unknown_type", f"unknown frame type {kind!r}; this socket takes only ping")

    async def notify_match(self, event: dict) -> None:
        """A match announced by :func:`live.notify.live_notify_seats`: forwarded as it is."""
        await self.send_json({"type": "notify.match", "match": event["match"]})

    token_revoked = LiveMatchConsumer.token_revoked

    async def notify_challenge(self, event: dict) -> None:
        """A challenge made to this player (:func:`live.notify.live_notify_challenge`):
        forwarded as it is."""
        await self.send_json({"type": "notify.challenge", "challenge": event["challenge"]})
