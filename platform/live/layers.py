"""A channel layer that crosses processes with nothing installed: a SQLite file as the bus.

The embedded default (no ``REDIS_URL``) runs web, worker and beat as separate processes
on one machine. Channels' in-memory layer lives inside one process, so a message a worker
sends (a bot's move, a clock time-out, a match result) never reaches the sockets the web
process holds. This layer keeps the in-memory layer's delivery inside a process and adds
a bus between processes:

- ``group_send`` and ``send`` to another process's channel append one row to a SQLite
  file (``var/channels.sqlite3`` by default, WAL mode);
- a process that receives (a web process with sockets) polls the file every
  ``poll_interval`` seconds (default 0.05) from a background task and delivers the new
  rows to its own group members and channels;
- rows older than ``retention`` seconds (default 60) are deleted;
- every row's target is named under ``prefix`` (setting ``SITE_PREFIX``), and a process
  reads only the rows of its own prefix: two sites sharing one file never hear each other,
  as on a shared Redis.

Channel names carry their process's id, so a message for a channel goes only to the
process that owns it. Group membership is local: a process only delivers a group message
to the sockets it holds. Messages are JSON, as with Redis (where they are msgpack).

Why not a package: ``channels-postgres`` needs PostgreSQL, and the SQLite layers on PyPI
(``channels-lite``, ``channels-sqlite``) are early alphas that need their own database
alias, router and migrations (and pull in Daphne). This is the smallest thing that
works, and Redis replaces it as soon as ``REDIS_URL`` is set.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
import time
import uuid
from pathlib import Path

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

SCHEMA = """
CREATE TABLE IF NOT EXISTS bus (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    origin TEXT NOT NULL,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bus_created ON bus (created);
"""


class SQLiteBusChannelLayer(InMemoryChannelLayer):
    """In-memory delivery within a process, a SQLite file between processes."""

    def __init__(self, path: str | os.PathLike = "var/channels.sqlite3", poll_interval: float = 0.05,
                 retention: float = 60.0, prefix: str = "", **kwargs):
        super().__init__(**kwargs)
        self.prefix = str(prefix)
        self.path = Path(path)
        self.poll_interval = float(poll_interval)
        self.retention = float(retention)
        self.process_id = uuid.uuid4().hex[:12]
        self._local = threading.local()
        self._last_id: int | None = None
        self._poller: asyncio.Task | None = None
        self._poller_loop: asyncio.AbstractEventLoop | None = None
        self._last_cleanup = 0.0

    # ------------------------------------------------------------------ the file

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=10, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(SCHEMA)
            self._local.conn = conn
        return conn

    def _write(self, kind: str, target: str, message: dict) -> None:
        conn = self._connection()
        now = time.time()
        conn.execute("INSERT INTO bus (created, origin, kind, target, body) VALUES (?, ?, ?, ?, ?)",
                     (now, self.process_id, kind, self.prefix + target, json.dumps(message, separators=(",", ":"))))
        if now - self._last_cleanup > 10:
            self._last_cleanup = now
            conn.execute("DELETE FROM bus WHERE created < ?", (now - self.retention,))

    def _read(self) -> list[tuple[int, float, str, str, str]]:
        conn = self._connection()
        if self._last_id is None:
            self._last_id = conn.execute("SELECT COALESCE(MAX(id), 0) FROM bus").fetchone()[0]
            return []
        rows = conn.execute("SELECT id, created, kind, target, body FROM bus WHERE id > ? AND origin != ? "
                            "ORDER BY id", (self._last_id, self.process_id)).fetchall()
        if rows:
            self._last_id = rows[-1][0]
        size = len(self.prefix)
        return [(i, created, kind, target[size:], body) for i, created, kind, target, body in rows
                if target.startswith(self.prefix)]

    # ------------------------------------------------------------------ layer API

    async def new_channel(self, prefix: str = "specific.") -> str:
        name = await super().new_channel(prefix)
        return name.replace(".inmemory!", f".{self.process_id}!", 1)

    def _is_local(self, channel: str) -> bool:
        return f".{self.process_id}!" in channel or "!" not in channel

    async def send(self, channel: str, message: dict) -> None:
        if self._is_local(channel):
            await super().send(channel, message)
        else:
            await asyncio.to_thread(self._write, "channel", channel, message)

    async def group_send(self, group: str, message: dict) -> None:
        self.require_valid_group_name(group)
        await asyncio.to_thread(self._write, "group", group, message)
        await super().group_send(group, message)

    async def receive(self, channel: str) -> dict:
        self._ensure_poller()
        return await super().receive(channel)

    async def flush(self) -> None:
        await super().flush()

    async def _group_send_as_of(self, group: str, message: dict, published: float) -> None:
        """Deliver a group message another process wrote at ``published`` to this process's
        members of ``group`` that had joined by then, as Redis pub/sub would: the poller
        reads it up to ``poll_interval`` later, and a socket that joined meanwhile (a board
        opening just after a move, which its opening view already shows) must not get it
        after its opening view. (A match's final view sent before a board opened, arriving
        after the view that links the next game, took that link off the board.)"""
        members = self.groups.get(group) or {}
        for channel, joined in list(members.items()):
            if joined > published:
                continue
            try:
                await super().send(channel, message)
            except ChannelFull:
                pass

    # ------------------------------------------------------------------ the poller

    def _ensure_poller(self) -> None:
        loop = asyncio.get_running_loop()
        if self._poller is not None and not self._poller.done() and self._poller_loop is loop:
            return
        self._poller_loop = loop
        self._poller = loop.create_task(self._poll_forever())

    async def _poll_forever(self) -> None:
        while True:
            try:
                rows = await asyncio.to_thread(self._read)
                for _id, created, kind, target, body in rows:
                    message = json.loads(body)
                    if kind == "group":
                        await self._group_send_as_of(target, message, created)
                    elif self._is_local(target):
                        await super().send(target, message)
            except asyncio.CancelledError:
                raise
            except Exception:  # a locked or missing file: try again on the next tick
                pass
            await asyncio.sleep(self.poll_interval)
