"""Reads of the card pools: every card of a game as a :class:`CardFace`, search and lookup.

The engine owns the card data (``GAME.cards()``) and says which of its numbers a face shows
(``web.games.card_fields``); this module only turns each card's JSON into what a card face
shows — name, costs, type line, keywords, rules text, stats — the same way for every game,
so one template draws every card. Pools are read once per
process: card data changes only with a new engine release.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from decks.cards.art import art_seed
from engine import games
from web.games import GAME_TITLES, card_fields

#: Words for the targets a reaction or attachment names.
_ATTACH_WORDS = {"friendly": "a friendly Entity", "enemy": "an enemy Entity", "any": "any Entity"}


@dataclass(frozen=True)
class Figure:
    """One number printed on a face: ``Focus 3``, ``CQ 2``."""

    key: str
    label: str
    short: str
    value: int
    signed: bool = False

    @property
    def display(self) -> str:
        """The number as printed: ``3``, or ``+2`` for a bonus."""
        return f"{self.value:+d}" if self.signed else str(self.value)


@dataclass(frozen=True)
class CardFace:
    """Everything a card face shows, for one card of one game."""

    game: str
    id: str
    name: str
    type: str
    type_title: str
    type_line: str
    costs: tuple[Figure, ...]
    stats: tuple[Figure, ...]
    keywords: tuple[str, ...]
    text: str
    flavor: str
    is_commander: bool
    data: Mapping[str, Any] = field(repr=False, compare=False)

    @property
    def game_title(self) -> str:
        return GAME_TITLES.get(self.game, self.game)

    @property
    def type_rest(self) -> str:
        """The type line after the type's own name: `` — responds to any action``."""
        return self.type_line[len(self.type_title):]

    @property
    def art_url(self) -> str:
        """The card's generated picture (``/cards/<game>/<id>/art.svg``), versioned by the
        data it is drawn from, so that it can be cached for a long time."""
        return reverse("cards:art", args=[self.game, self.id]) + f"?v={art_seed(self.data, self.game)[:10]}"

    @property
    def rules_lines(self) -> list[str]:
        """The rules text split into its sentences' lines, for a readable face."""
        return [line.strip() for line in self.text.splitlines() if line.strip()]

    def matches(self, query: str) -> bool:
        """Case-insensitive match of every word of ``query`` against name, type, keywords and text."""
        haystack = " ".join((self.name, self.type_line, " ".join(self.keywords), self.text)).casefold()
        return all(word in haystack for word in query.casefold().split())

    def to_json(self) -> dict[str, Any]:
        """The card as the API returns it: the engine's data plus the face's type line."""
        return {
            "game": self.game,
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "type_line": self.type_line,
            "costs": {f.key: f.value for f in self.costs},
            "stats": {f.key: f.value for f in self.stats},
            "keywords": list(self.keywords),
            "text": self.text,
            "flavor": self.flavor,
            "is_commander": self.is_commander,
            "data": dict(self.data),
        }


def _figures(data: Mapping[str, Any], fields: Iterable[tuple[str, str, str]]) -> tuple[Figure, ...]:
    return tuple(
        Figure(key=key, label=label, short=short, value=int(data[key]))
        for key, label, short in fields
        if isinstance(data.get(key), int) and not isinstance(data.get(key), bool)
    )


def _type_line(game: str, data: Mapping[str, Any], title: str) -> str:
    """``Entity``, ``Reaction — responds to any action``, ``Attachment — attach to a friendly Entity``."""
    parts = [title]
    if data.get("type") == "reaction":
        reacts = data.get("react_to")
        parts.append("responds to " + (", ".join(str(r).replace("_", " ") for r in reacts) if reacts else "any action"))
    elif data.get("type") == "attachment" and data.get("attach_to"):
        parts.append("attach to " + _ATTACH_WORDS.get(str(data["attach_to"]), str(data["attach_to"])))
    return " — ".join(parts)


def face_from_json(game: str, data: Mapping[str, Any], *, commander_type: str) -> CardFace:
    """The face of one card given its engine JSON."""
    card_type = str(data.get("type", ""))
    title = str(data.get("type_name") or card_type.replace("_", " ").title())
    fields = card_fields(game)
    stats = _figures(data, fields.stats)
    if card_type == "attachment":
        # An Attachment's numbers are bonuses to its Entity: only the ones it gives, signed.
        stats = tuple(Figure(f.key, f.label, f.short, f.value, signed=True) for f in stats if f.value)
    else:
        # Armor 0 is no Armor: it is not printed (the keyword line says "Armor N" when there is some).
        stats = tuple(f for f in stats if f.key != "armor" or f.value)
    return CardFace(
        game=game,
        id=str(data["id"]),
        name=str(data["name"]),
        type=card_type,
        type_title=title,
        type_line=_type_line(game, data, title),
        costs=_figures(data, fields.costs),
        stats=stats,
        keywords=tuple(str(k) for k in data.get("keywords") or ()),
        text=str(data.get("text") or ""),
        flavor=str(data.get("flavor") or ""),
        is_commander=card_type == commander_type,
        data=dict(data),
    )


def commander_type(game: str) -> str:
    """The card type of a game's commander: its ``commander_label`` in lower case ('leader')."""
    return games[game].commander_label.lower()


@functools.cache
def card_pool(game: str) -> tuple[CardFace, ...]:
    """Every card of ``game``, commanders first, then by type (the game's ``card_type_order``) and name.
    ``KeyError`` for an unknown game."""
    if game not in GAME_TITLES:
        raise KeyError(game)
    kind = commander_type(game)
    faces = [face_from_json(game, data, commander_type=kind) for data in games[game].cards()]
    return tuple(sorted(faces, key=lambda f: (not f.is_commander, type_rank(f.type, game=game), f.name.casefold())))


def type_rank(card_type: str, *, game: str) -> tuple[int, str]:
    """Sort key of a card type: its place in the game's ``card_type_order``, unknown types
    last by name."""
    order = card_fields(game).type_order
    return (order.index(card_type), "") if card_type in order else (len(order), card_type)


def card_get(*, game: str, card_id: str) -> CardFace | None:
    """One card by game and id, or None."""
    if game not in GAME_TITLES:
        return None
    return next((face for face in card_pool(game) if face.id == card_id), None)


def card_by_name(*, game: str, name: str) -> CardFace | None:
    """One card by its name as a decklist spells it (case-insensitive), or None."""
    folded = name.casefold()
    return next((face for face in card_pool(game) if face.name.casefold() == folded), None)


def card_search(*, game: str | None = None, q: str | None = None, card_type: str | None = None) -> list[CardFace]:
    """Cards of one game (or every game), filtered by type and by the words of ``q``."""
    chosen = [game] if game else list(GAME_TITLES)
    out: list[CardFace] = []
    for key in chosen:
        for face in card_pool(key):
            if card_type and face.type != card_type:
                continue
            if q and not face.matches(q):
                continue
            out.append(face)
    return out


def card_types(*, game: str | None = None) -> list[tuple[str, str]]:
    """The card types of one game (or every game) as ``(type, title)``, in pool order."""
    seen: dict[str, str] = {}
    for face in card_search(game=game):
        seen.setdefault(face.type, face.type_title)
    return list(seen.items())


def commanders(*, game: str) -> list[CardFace]:
    """The commanders (Leaders, Celestials, ...) a deck of ``game`` may choose."""
    return [face for face in card_pool(game) if face.is_commander]
