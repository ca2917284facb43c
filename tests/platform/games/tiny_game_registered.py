"""Imported by a worker (``--include tiny_game_registered``): Highcard is registered there."""

import tiny_game

tiny_game.register()
