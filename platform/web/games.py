"""The platform's one door to the games: ``engine.games`` as models, forms and pages use it.

The platform never names a game. A game's key, title, seats and hooks come from the
engine's registry (the Game contract, engine/core.py), read when they are used, so a game
registered there is offered by every model, form, API and page with no platform edit and
no migration: :class:`GameField` keeps its choices out of the migrations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from django.db import models

from engine import Game, games


def game_choices() -> list[tuple[str, str]]:
    """``(key, title)`` of every registered game, in the order the site lists them."""
    return games.choices()


def game_names() -> list[str]:
    """The key of every registered game."""
    return list(games)


def game_title(name: str) -> str:
    """The game's title for people, as the game spells it; the key itself for an unknown game
    (a row of a game that is no longer registered still shows something)."""
    return games[name].title or name if name in games else name


def seat_counts_text() -> str:
    """Each game's seat counts for people: ``<title> 2, <title> 2 to 4``."""
    parts = []
    for name in games:
        game = games[name]
        seats = str(game.min_seats) if game.min_seats == game.max_seats else f"{game.min_seats} to {game.max_seats}"
        parts.append(f"{game.title or name} {seats}")
    return ", ".join(parts)


def get_game(name: str) -> Game:
    """The engine's game; ``KeyError`` naming the known games for an unknown one."""
    return games[name]


#: One number a card face prints: ``(key in the card JSON, label, short label)``.
Figure = tuple[str, str, str]


@dataclass(frozen=True)
class CardFields:
    """What a game's card pages show: the costs in a face's corner, the stats along its
    bottom, and the order its card types are listed in."""

    costs: tuple[Figure, ...] = ()
    stats: tuple[Figure, ...] = ()
    type_order: tuple[str, ...] = ()


def card_fields(name: str) -> CardFields:
    """The card fields game ``name`` declares (``card_costs``, ``card_stats`` and
    ``card_type_order`` on its Game); a game that declares none shows name, type and text."""
    game = games[name]
    return CardFields(
        costs=tuple(getattr(game, "card_costs", ())),
        stats=tuple(getattr(game, "card_stats", ())),
        type_order=tuple(getattr(game, "card_type_order", ())),
    )


class _Titles(Mapping[str, str]):
    """Game key -> title, read from the registry at every use."""

    def __getitem__(self, name: str) -> str:
        if name not in games:
            raise KeyError(name)
        return game_title(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(games))

    def __len__(self) -> int:
        return len(games)


#: Game key -> title of every registered game (a live view of ``engine.games``).
GAME_TITLES: Mapping[str, str] = _Titles()


class GameField(models.CharField):
    """The game of a row: a key of ``engine.games`` (20 characters at most).

    Its choices are the registry's, read when used (a callable), and are left out of the
    field's deconstruction: migrations see a plain ``CharField``, so registering a game
    never needs one."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_length", 20)
        kwargs["choices"] = game_choices
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        kwargs.pop("choices", None)
        return name, "django.db.models.CharField", args, kwargs
