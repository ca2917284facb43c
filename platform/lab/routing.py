"""WebSocket routes of the deck lab."""

from django.urls import path

from lab.consumers import LabRunConsumer

websocket_urlpatterns = [
    path("ws/lab/<int:run_id>/", LabRunConsumer.as_asgi()),
]
