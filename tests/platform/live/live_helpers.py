"""Helpers of the live tests: decks built from the games' starter decks."""

from __future__ import annotations

from django.contrib.auth.models import User

from decks.services import deck_register
from engine import games


def starter_text(game: str, index: int = 0) -> str:
    engine_game = games[game]
    deck = list(engine_game.starter_decks().values())[index]
    return deck.to_text(engine_game.commander_label)


def make_deck(owner: User, game: str, *, index: int = 0, pilot: str = "random", starter: bool = False):
    return deck_register(owner=owner, game=game, name=f"{owner.username} {game} {index}",
                         decklist=starter_text(game, index), pilot=pilot, is_starter=starter)
