"""ASGI entry point: HTTP goes to Django, WebSockets to the Channels consumers.

Served by uvicorn (``uvicorn config.asgi:application --lifespan off``). Static files are
served by WhiteNoise's middleware inside the Django HTTP app, so they work here too.
WebSocket connections carry the Django session user (``AuthMiddlewareStack``) and are
refused when their Origin is not one of ``ALLOWED_HOSTS``, as a browser page from another
site must not be able to open a socket with the visitor's cookies.
"""

from __future__ import annotations

import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# The event loop (every socket's frames, every channel-layer message) shares the
# interpreter lock with the pool threads that run database work (moves, board opens,
# requests). A thread keeps the lock up to the switch interval (Python's default: 5 ms)
# each time the loop wants it back, so under a burst of database work each step of the
# loop could wait that long: a round of a live event opening hundreds of boards delayed
# its players' notices by seconds. A shorter interval hands the lock back sooner.
# ``WEB_SWITCH_INTERVAL`` (seconds) sets it; bench/RESULTS.md has the measurements.
sys.setswitchinterval(float(os.environ.get("WEB_SWITCH_INTERVAL", "0.001")))

# Django must be set up before the consumers (and the models they import) are loaded.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
