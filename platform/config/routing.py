"""WebSocket routes, the counterpart of ``urls.py`` for ``ws://`` connections.

Later apps append their consumers' routes to ``websocket_urlpatterns`` here.
"""

from web.routing import websocket_urlpatterns as web_websocket_urlpatterns

websocket_urlpatterns = [
    *web_websocket_urlpatterns,
]
