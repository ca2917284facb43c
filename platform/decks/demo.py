"""Demo data of the decks app, loaded by ``manage.py load_demo``: every starter deck of
both games, owned by the site's ``starter`` player, and one deck per game for the demo
player ``demo`` (a copy of that game's first starter deck), so that its first challenge
has something to play.

Idempotent: a starter deck already registered is left alone, or gets a new version when
the engine's starter list has changed since; the demo player's decks are made once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from django.contrib.auth import get_user_model

from decks.models import Deck
from decks.selectors import starter_decks
from decks.services import deck_register, deck_update
from engine import games
from engine.bots import bot_names
from web.games import GAME_TITLES, game_names

#: The player who owns the starter decks. It has no usable password: nobody logs in as it.
STARTER_USERNAME = "starter"
#: The demo player (created by the web app's demo data).
DEMO_USERNAME = "demo"


class _DemoDeckNames(Mapping[str, str]):
    """Game key -> the name of the demo player's deck of that game (``Demo's <title> deck``),
    for every registered game."""

    def __getitem__(self, game: str) -> str:
        if game not in GAME_TITLES:
            raise KeyError(game)
        return f"Demo's {GAME_TITLES[game]} deck"

    def __iter__(self) -> Iterator[str]:
        return iter(GAME_TITLES)

    def __len__(self) -> int:
        return len(GAME_TITLES)


#: The name of the demo player's deck per game.
DEMO_DECK_NAMES: Mapping[str, str] = _DemoDeckNames()


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
    for game in game_names():
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
    _load_demo_player_decks(log=log, pilot=pilot)


def demo_deck(*, game: str) -> Deck | None:
    """The demo player's deck of ``game``, or None."""
    return Deck.objects.filter(owner__username=DEMO_USERNAME, game=game, name=DEMO_DECK_NAMES[game],
                               archived=False).first()


def _load_demo_player_decks(*, log: Callable[[str], None], pilot: str) -> None:
    """Give ``demo`` a copy of each game's first starter deck (by name), once."""
    user = get_user_model().objects.filter(username=DEMO_USERNAME).first()
    if user is None:  # the web app's demo data makes it first; without it there is nothing to do
        return
    for game, name in DEMO_DECK_NAMES.items():
        if demo_deck(game=game) is not None:
            log(f"{DEMO_USERNAME}'s {game} deck already registered")
            continue
        source = starter_decks(game=game).order_by("name").first()
        if source is None:
            log(f"no {game} starter deck to copy for {DEMO_USERNAME}")
            continue
        deck_register(owner=user, game=game, name=name, decklist=source.latest_version.decklist, pilot=pilot)
        log(f"registered {DEMO_USERNAME}'s {game} deck (a copy of {source.name})")
