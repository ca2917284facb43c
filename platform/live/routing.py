"""WebSocket routes of the live app."""

from django.urls import path

from live.consumers import LiveMatchConsumer, NotifyConsumer

websocket_urlpatterns = [
    path("ws/live/<int:match_id>/", LiveMatchConsumer.as_asgi()),
    path("ws/notify/", NotifyConsumer.as_asgi()),
]
