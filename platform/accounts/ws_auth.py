"""A bot's WebSocket: ``Authorization: Bearer bot_...`` on the handshake (docs/bots-api.md).

A program opens the same sockets a person's pages open (``/ws/notify/``, ``/ws/live/<id>/``),
with its bot token in the ``Authorization`` header instead of a session cookie. The
connection then acts as the bot's account alone: ``scope["user"]`` is the bot, and
``scope["bot_token"]`` the id of the token, whose revocation closes the socket.

A handshake carrying a bearer token skips the Origin check that guards cookie sessions: a
browser page cannot set that header on a WebSocket, so no page of another site can borrow a
bot's identity this way, and programs send no Origin. It never falls back to the session: an
unknown, revoked or malformed bot token is refused (HTTP 403 to the handshake), whatever
cookies come with it.
"""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.security.websocket import WebsocketDenier

from accounts.authentication import token_from_header
from accounts.selectors import bot_token_find
from accounts.services import BOT_TOKEN_PREFIX, bot_token_touch


def _authenticate(secret: str):
    token = bot_token_find(secret=secret)
    if token is not None:
        bot_token_touch(token=token)
    return token


_find = database_sync_to_async(_authenticate, thread_sensitive=False)


def _bearer(scope) -> str | None:
    """The handshake's bot token; ``""`` for a bearer header that is not a valid bot token
    (refused), None when the handshake has no bearer header at all."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = value.decode("latin-1").strip()
            if text[:7].lower() == "bearer ":
                return token_from_header(value) or ""
            return None
    return None


class BotTokenRouter:
    """Sends a handshake with a bot token to ``bots`` (as the bot) and any other to
    ``people`` (Origin check, session, user)."""

    def __init__(self, bots, people):
        self.bots, self.people = bots, people

    async def __call__(self, scope, receive, send):
        secret = _bearer(scope)
        if secret is None:
            return await self.people(scope, receive, send)
        token = await _find(secret) if secret.startswith(BOT_TOKEN_PREFIX) else None
        if token is None:
            return await WebsocketDenier()(scope, receive, send)
        scope = dict(scope, user=token.bot.user, bot_token=token.pk)
        return await self.bots(scope, receive, send)
