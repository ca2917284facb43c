"""Demo data of the decks app, loaded by ``manage.py load_demo``: every starter deck of
both games, owned by the site's ``starter`` player.

Idempotent: a starter deck already registered is left alone, or gets a new version when
the engine's starter list has changed since.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import get_user_model

from decks.models import Deck, GameName
from decks.services import deck_register, deck_update
from engine import games
from engine.bots import bot_names

#: The player who owns the starter decks. It has no usable password: nobody logs in as it.
STARTER_USERNAME = "starter"


def starter_pilot() -> str:
    """The bot that pilots starter decks: greedy, or random where greedy is not available."""
    return "greedy" if "greedy" in bot_names() else "random"


def load_demo_data(*, log: Callable[[str], None]) -> None:
    """Register (or bring up to date) every starter deck of every game."""
    user_model = get_user_model()
    owner, created = user_model.objects.get_or_create(username=STARTER_USERNAME, defaults={"first_name": "Starter"})
    if created:
        owner.set_unusable_password()
        owner.save(update_fields=["password"])
        log(f"created user '{STARTER_USERNAME}' (no password: owner of the starter decks)")
    pilot = starter_pilot()
    for game in GameName.values:
        engine_game = games[game]
        for name, decklist in engine_game.starter_decks().items():
            text = decklist.to_text(engine_game.commander_label)
            deck = Deck.objects.filter(owner=owner, game=game, name=name, is_starter=True, archived=False).first()
            if deck is None:
                deck_register(owner=owner, game=game, name=name, decklist=text, pilot=pilot, is_starter=True)
                log(f"registered starter deck {game}/{name} (pilot {pilot})")
                continue
            before = deck.latest_version.number
            version = deck_update(deck=deck, actor=owner, decklist=text)
            if version.number != before:
                log(f"starter deck {game}/{name}: the engine's list changed, now version {version.number}")
            else:
                log(f"starter deck {game}/{name} already registered (version {version.number})")
