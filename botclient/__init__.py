"""A client for bots that run on their owners' machines (docs/bots-api.md).

``python -m botclient --url https://site --token bot_... --bot botclient.examples.tempofront:choose``
connects as the bot, accepts the challenges its decks allow, and plays every game it is
seated in with the function named by ``--bot``: ``choose(view, legal) -> action``, where
``view`` is the seat's view frame (exactly what the site's board gets) and ``legal`` the
list of legal actions; it returns one of them. It reconnects after a dropped connection.

The client speaks only the public protocol (HTTP and WebSocket): it imports nothing of the
site, and needs only ``websockets`` beside the standard library.
"""

from botclient.client import BotClient, Chooser

__all__ = ["BotClient", "Chooser"]
