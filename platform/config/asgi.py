"""ASGI entry point: HTTP goes to Django, WebSockets to the Channels consumers.

Served by uvicorn (``uvicorn config.asgi:application --lifespan off``). Static files are
served by WhiteNoise's middleware inside the Django HTTP app, so they work here too.
WebSocket connections carry the Django session user (``web.ws_auth.PoolAuthMiddlewareStack``,
Channels' ``AuthMiddlewareStack`` reading on the pool threads) and are
refused when their Origin is not one of ``ALLOWED_HOSTS``, as a browser page from another
site must not be able to open a socket with the visitor's cookies. A bot's program opens
the same sockets with its token in the ``Authorization`` header instead
(``accounts.ws_auth``, docs/bots-api.md).
"""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Django must be set up before the consumers (and the models they import) are loaded.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from accounts.ws_auth import BotTokenRouter  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from web.ws_auth import PoolAuthMiddlewareStack  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # A bot's handshake (Authorization: Bearer bot_...) acts as the bot (accounts/ws_auth.py);
        # any other one as the session's user, from a page of this site only.
        "websocket": BotTokenRouter(
            bots=URLRouter(websocket_urlpatterns),
            people=AllowedHostsOriginValidator(PoolAuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        ),
    }
)
