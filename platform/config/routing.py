"""WebSocket routes, the counterpart of ``urls.py`` for ``ws://`` connections.

Later apps append their consumers' routes to ``websocket_urlpatterns`` here.
"""

from lab.routing import websocket_urlpatterns as lab_websocket_urlpatterns
from live.routing import websocket_urlpatterns as live_websocket_urlpatterns
from matches.routing import websocket_urlpatterns as matches_websocket_urlpatterns
from tournaments.routing import websocket_urlpatterns as tournaments_websocket_urlpatterns
from web.routing import websocket_urlpatterns as web_websocket_urlpatterns

websocket_urlpatterns = [
    *web_websocket_urlpatterns,
    *matches_websocket_urlpatterns,
    *live_websocket_urlpatterns,
    *tournaments_websocket_urlpatterns,
    *lab_websocket_urlpatterns,
]
