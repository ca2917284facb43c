"""The bot client: one notify socket for events, one live socket per game, REST for answers.

- ``/ws/notify/`` tells of challenges (``notify.challenge``) and of matches where the bot
  holds a seat (``notify.matches`` on connect, ``notify.match`` when one starts).
- A challenge of a game the bot has a deck for is accepted with that deck
  (``POST /api/live/challenges/<id>/``); any other is declined.
- Each match is played on ``/ws/live/<id>/``: on every view where the bot's seat has legal
  actions, ``choose(view, legal)`` picks one, sent with the view's ``index``. An error frame
  is logged; the next view asks again. The game ends with ``status: done``.
- A dropped socket is opened again after a growing pause (0.5 s to 8 s); a game's socket
  reopened receives the opening frame, so nothing is lost but time on the clock.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

logger = logging.getLogger("botclient")

Chooser = Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]

#: Close codes after which reconnecting is pointless: the token is refused or the match gone.
FINAL_CLOSE_CODES = {4401, 4404}
BACKOFF_FIRST, BACKOFF_MAX = 0.5, 8.0
#: Least time between two actions on one game's socket: the site takes at most 10 frames a
#: second from a socket (docs/live.md, "Flooding"), from programs as from people.
ACT_INTERVAL = 0.11
#: How often the events socket says the bot is still there (the site's window is 60 s).
PING_SECONDS = 20.0


class TokenRefused(RuntimeError):
    """The site refused the token (unknown or revoked)."""


class BotClient:
    """Plays as one bot. ``decks``: game key -> deck id to play it with (the bot's own decks;
    by default its newest deck of each game, read from the API at start)."""

    def __init__(self, *, url: str, token: str, choose: Chooser, decks: dict[str, int] | None = None,
                 accept: bool = True, max_games: int | None = None, challenges: list[tuple[str, str]] = ()):
        parts = urlsplit(url.rstrip("/"))
        self.http = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
        self.ws = urlunsplit(("wss" if parts.scheme == "https" else "ws", parts.netloc, "", "", ""))
        self.token, self.choose, self.accept = token, choose, accept
        self.decks = dict(decks or {})
        self.max_games = max_games
        #: (username, game) to challenge once online.
        self.challenges = list(challenges)
        self.name = ""
        self.games: dict[int, asyncio.Task] = {}
        self.finished: dict[int, dict[str, Any]] = {}
        self.errors: list[dict[str, Any]] = []
        #: Set while the notify socket is open: the bot is online and hears of challenges.
        self.online = threading.Event()
        self._stop = asyncio.Event()

    # ------------------------------------------------------------------ HTTP

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.http + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
            "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")
            if exc.code == 401:
                raise TokenRefused(text) from None
            raise RuntimeError(f"{method} {path}: {exc.code} {text}") from None

    async def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return await asyncio.to_thread(self._request, method, path, body)

    async def setup(self) -> None:
        """Who the bot is, and its deck for each game it was not given one for."""
        self.name = (await self.api("GET", "/api/accounts/me/"))["username"]
        page = await self.api("GET", f"/api/decks/?owner={self.name}&page_size=100")
        for deck in page.get("results", []):
            self.decks.setdefault(deck["game"], deck["id"])
        logger.info("%s: decks %s", self.name, self.decks)

    # ------------------------------------------------------------------ running

    def stop(self) -> None:
        """Stop playing; from the client's own event loop, or from any thread."""
        loop = getattr(self, "_loop", None)
        if loop is not None and loop.is_running():
            try:
                if asyncio.get_running_loop() is loop:
                    self._stop.set()
                    return
            except RuntimeError:  # no loop in this thread
                pass
            loop.call_soon_threadsafe(self._stop.set)
        else:
            self._stop.set()

    async def run(self) -> None:
        """Connect and play until :meth:`stop` (or ``max_games`` games are over)."""
        self._loop = asyncio.get_running_loop()
        await self.setup()
        notify = asyncio.create_task(self._notify_loop())
        await self._stop.wait()
        notify.cancel()
        for task in list(self.games.values()):
            task.cancel()
        await asyncio.gather(notify, *self.games.values(), return_exceptions=True)

    async def _connect(self, path: str):
        return connect(self.ws + path, additional_headers={"Authorization": f"Bearer {self.token}"},
                       open_timeout=20, max_size=2**22)

    async def _notify_loop(self) -> None:
        pause = BACKOFF_FIRST
        while not self._stop.is_set():
            try:
                async with await self._connect("/ws/notify/") as socket:
                    pause = BACKOFF_FIRST
                    self.online.set()
                    pinging = asyncio.create_task(self._ping(socket))
                    try:
                        # Challenges made while the bot was away are still there to answer.
                        await self._answer_waiting()
                        while self.challenges:
                            username, game = self.challenges.pop(0)
                            made = await self.challenge(username, game)
                            logger.info("%s: challenged %s (challenge %s)", self.name, username, made["id"])
                        async for text in socket:
                            await self._on_notice(json.loads(text))
                    finally:
                        pinging.cancel()
                        self.online.clear()
            except InvalidStatus as exc:
                if exc.response.status_code == 403:
                    logger.error("%s: the site refused the token", self.name)
                    self.stop()
                    return
            except ConnectionClosed as exc:
                if exc.rcvd is not None and exc.rcvd.code in FINAL_CLOSE_CODES:
                    logger.error("%s: closed by the site (%s)", self.name, exc.rcvd.reason or exc.rcvd.code)
                    self.stop()
                    return
            except (OSError, TimeoutError) as exc:
                logger.warning("%s: notify socket: %s", self.name, exc)
            await asyncio.sleep(pause + random.random() * pause / 2)
            pause = min(BACKOFF_MAX, pause * 2)

    async def challenge(self, username: str, game: str) -> dict[str, Any]:
        """Challenge player or bot ``username`` to a live match of ``game`` with the bot's deck
        of that game; the match is played once they accept (``notify.match``)."""
        if game not in self.decks:
            raise ValueError(f"{self.name} has no deck of {game}")
        return await self.api("POST", "/api/live/challenges/", {"username": username, "deck": self.decks[game]})

    async def _ping(self, socket) -> None:
        """A sign of life every PING_SECONDS: the site lists the bot as online while it hears one."""
        while True:
            await asyncio.sleep(PING_SECONDS)
            await socket.send(json.dumps({"type": "ping"}))

    async def _answer_waiting(self) -> None:
        listed = await self.api("GET", "/api/live/challenges/")
        for challenge in listed.get("received", []):
            await self._answer(challenge["id"], challenge["game"])
        for challenge in listed.get("accepted", []):
            if challenge.get("match"):
                self._play(challenge["match"])

    async def _on_notice(self, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "notify.challenge":
            await self._answer(frame["challenge"]["id"], frame["challenge"]["game"])
        elif kind == "notify.match":
            self._play(frame["match"]["id"])
        elif kind == "notify.matches":
            for match in frame.get("matches", []):
                self._play(match["id"])
        elif kind == "error":
            logger.warning("%s: notify error %s", self.name, frame)
        # "pong" answers the pings: nothing to do.

    async def _answer(self, challenge_id: int, game: str) -> None:
        deck = self.decks.get(game)
        full = self.max_games is not None and len(self.games) + len(self.finished) >= self.max_games
        body = {"accept": True, "deck": deck} if self.accept and deck and not full else {"accept": False}
        try:
            answer = await self.api("POST", f"/api/live/challenges/{challenge_id}/", body)
        except RuntimeError as exc:  # expired or cancelled meanwhile
            logger.info("%s: challenge %s: %s", self.name, challenge_id, exc)
            return
        logger.info("%s: challenge %s %s", self.name, challenge_id, "accepted" if body["accept"] else "declined")
        if answer.get("match"):
            self._play(answer["match"])

    def _play(self, match_id: int) -> None:
        if match_id in self.games or match_id in self.finished:
            return
        self.games[match_id] = asyncio.create_task(self._game_loop(match_id))

    async def _game_loop(self, match_id: int) -> None:
        pause = BACKOFF_FIRST
        while not self._stop.is_set():
            try:
                async with await self._connect(f"/ws/live/{match_id}/") as socket:
                    pause = BACKOFF_FIRST
                    if await self._play_on(socket, match_id):
                        return
            except InvalidStatus as exc:
                logger.warning("%s: match %s refused: %s", self.name, match_id, exc)
                return
            except ConnectionClosed as exc:
                if exc.rcvd is not None and exc.rcvd.code in FINAL_CLOSE_CODES:
                    return
            except (OSError, TimeoutError) as exc:
                logger.warning("%s: match %s: %s", self.name, match_id, exc)
            await asyncio.sleep(pause + random.random() * pause / 2)
            pause = min(BACKOFF_MAX, pause * 2)

    async def _play_on(self, socket, match_id: int) -> bool:
        """Plays on an open socket; True once the match is over."""
        newest, acted, last_act = -1, -1, 0.0
        waiting_for: int | None = None
        async for text in socket:
            frame = json.loads(text)
            if frame.get("type") == "error":
                self.errors.append({"match": match_id, **frame})
                logger.warning("%s: match %s: %s", self.name, match_id, frame)
                waiting_for = None  # the action was refused: the next view may be acted on
                acted = -1
                continue
            if frame.get("type") != "view" or frame.get("index", -1) < newest:
                continue
            newest = frame["index"]
            if frame.get("status") == "done":
                self.finished[match_id] = frame.get("outcome") or {}
                self.games.pop(match_id, None)
                if self.max_games is not None and len(self.finished) >= self.max_games:
                    self.stop()
                return True
            legal = frame.get("legal") or []
            # One action per position (the same view may come twice: the opening frame and a
            # move's broadcast), and none on a view that does not count the last action sent
            # yet: when several seats act at once, views of their moves arrive in between.
            count = frame.get("acted")
            if legal and frame["index"] > acted and (waiting_for is None or count is None or count >= waiting_for):
                acted = frame["index"]
                waiting_for = None if count is None else count + 1
                action = await asyncio.to_thread(self.choose, frame, legal)
                wait = last_act + ACT_INTERVAL - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                last_act = time.monotonic()
                await socket.send(json.dumps({"type": "act", "action": action, "index": frame["index"]}))
        return False
