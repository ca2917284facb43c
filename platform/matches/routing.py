"""WebSocket routes of the matches app."""

from django.urls import path

from matches.consumers import MatchConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
]
