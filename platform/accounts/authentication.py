"""How a program proves it is a bot: ``Authorization: Bearer bot_...`` (docs/bots-api.md).

The token authenticates as the bot's own account, never as its owner; a revoked token, or
a bot whose account was deactivated, is refused with 401 at once (nothing is cached).
"""

from __future__ import annotations

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from accounts.selectors import bot_token_find
from accounts.services import BOT_TOKEN_PREFIX, bot_token_touch

#: The longest header value looked at: a token is ``bot_`` and 43 characters.
MAX_TOKEN_LENGTH = 200


def token_from_header(value: bytes | str) -> str | None:
    """The bot token of an ``Authorization`` header value, or None when it holds none (another
    scheme, or a bearer value that is not a bot token)."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    scheme, _, secret = value.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret.startswith(BOT_TOKEN_PREFIX):
        return None
    return secret[:MAX_TOKEN_LENGTH]


class BotTokenAuthentication(BaseAuthentication):
    """DRF authentication by a bot token; ``request.auth`` is the :class:`BotToken`."""

    keyword = "Bearer"

    def authenticate(self, request):
        secret = token_from_header(get_authorization_header(request))
        if secret is None:
            return None
        token = bot_token_find(secret=secret)
        if token is None:
            raise AuthenticationFailed("Unknown or revoked bot token.")
        bot_token_touch(token=token)
        return token.bot.user, token

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="bots"'
