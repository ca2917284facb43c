"""The user of a WebSocket, read on the event loop's pool threads.

Channels' ``AuthMiddlewareStack`` reads the session and the user on the one thread it
keeps for synchronous code (``database_sync_to_async`` is thread-sensitive by default), so
every socket opened in a process waits for that thread in turn. When a live event's round
starts, hundreds of boards open within a second, and their handshakes queued there one
after another behind each other's session and user queries (bench/RESULTS.md, "Live Swiss
of people"). :class:`PoolAuthMiddleware` reads them with Django's own ``auth.get_user``
(the session's user, checked against its session hash) on the pool threads instead, as the
boards' own reads run: the queries of different sockets wait for PostgreSQL side by side.
Each pool thread keeps its own database connection (``CONN_MAX_AGE``);
``database_sync_to_async`` closes stale ones around every call. The live board's socket
reads its user in the same trip to a pool thread as its match (:data:`READ_BY_CONSUMER`):
one hop and one connection check fewer for every board opened.
"""

from __future__ import annotations

from types import SimpleNamespace

from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.contrib import auth
from django.utils.functional import SimpleLazyObject


def _user_of(session):
    # auth.get_user reads only ``request.session`` (and flushes it when the user's
    # password changed since it was made, as a page request would).
    return auth.get_user(SimpleNamespace(session=session))


_read_user = database_sync_to_async(_user_of, thread_sensitive=False)


#: Sockets whose consumer reads the user in its own first trip to a pool thread (the live
#: board reads its match there): their ``scope["user"]`` is read on first use, which must
#: then be in synchronous code (the ORM refuses it on the event loop, loudly).
READ_BY_CONSUMER = ("/ws/live/",)


class PoolAuthMiddleware(AuthMiddleware):
    """``scope["user"]`` from the session, read on a pool thread (an ``AnonymousUser``
    when there is none); for the paths of :data:`READ_BY_CONSUMER`, read on first use."""

    async def resolve_scope(self, scope) -> None:
        if str(scope.get("path", "")).startswith(READ_BY_CONSUMER):
            session = scope["session"]
            scope["user"] = SimpleLazyObject(lambda: _user_of(session))
            return
        scope["user"]._wrapped = await _read_user(scope["session"])


def PoolAuthMiddlewareStack(inner):  # noqa: N802 (named as Channels' AuthMiddlewareStack)
    """Cookies, then the session, then the user, as ``channels.auth.AuthMiddlewareStack``."""
    return CookieMiddleware(SessionMiddleware(PoolAuthMiddleware(inner)))
