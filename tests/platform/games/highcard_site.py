"""The site's ASGI application with Highcard registered: served by uvicorn
(``highcard_site:application``, this folder on ``PYTHONPATH``) as a deployment of a game
of its own would serve it, with the one registry line before the site loads."""

import tiny_game_registered  # noqa: F401  (registers Highcard)

from config.asgi import application  # noqa: F401
