"""WebSocket routes of the site app."""

from django.urls import path

from web.consumers import SiteConsumer

websocket_urlpatterns = [
    path("ws/site/", SiteConsumer.as_asgi()),
]
