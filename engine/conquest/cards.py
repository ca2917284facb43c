"""Conquest's card pool: TOML data files under ``cards/``, validated on load.

Every file holds ``[[card]]`` tables. The fields (engine/conquest/site/rules.md, "Card files"):

- ``name`` (text, unique), ``type`` ("unit", "lightspeed", "fragment", "celestial"),
  optional ``flavor`` (text);
- units: ``cq`` (integer >= 0) and any of the ability lists ``on_reveal``, ``ongoing``,
  ``end_of_battle``, ``when_destroyed``;
- Lightspeed cards: ``effects`` (what the response does);
- Celestials: ``effects`` (what happens when played) and/or ``ongoing``;
- Fragments: nothing else.

An ability list is an array of effect tables, ``{ effect = "...", ...parameters }``, from
the vocabulary of :mod:`engine.conquest.effects`. A problem raises
:class:`engine.core.CardDataError` naming the file, the card and the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine.conquest import effects as fx
from engine.conquest.params import CARD_CHANGEABLE
from engine.core import CardDataError, card_tables

CARDS_DIR = Path(__file__).parent / "cards"

UNIT, LIGHTSPEED, FRAGMENT, CELESTIAL = "unit", "lightspeed", "fragment", "celestial"
TYPES = (UNIT, LIGHTSPEED, FRAGMENT, CELESTIAL)
TYPE_WORDS = {UNIT: "Unit", LIGHTSPEED: "Lightspeed", FRAGMENT: "Black Energy Fragment", CELESTIAL: "Celestial"}

# The ability lists each card type may carry, in the order they are printed.
ABILITY_FIELDS = {
    UNIT: ("on_reveal", "ongoing", "end_of_battle", "when_destroyed"),
    LIGHTSPEED: ("effects",),
    FRAGMENT: (),
    CELESTIAL: ("effects", "ongoing"),
}
ABILITY_WORDS = {
    "on_reveal": "On Reveal",
    "ongoing": "Ongoing",
    "end_of_battle": "At the End of Battle",
    "when_destroyed": "When Destroyed",
}


def slug(name: str) -> str:
    """A card id: the name in lower case, runs of other characters turned into one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class CardDef:
    """One card of the pool. ``index`` is its position in the pool, sorted by id."""

    __slots__ = ("index", "id", "name", "type", "cq", "on_reveal", "ongoing", "end_of_battle",
                 "when_destroyed", "effects", "flavor", "text", "source", "ability_text")

    def __init__(self, name: str, type_: str, cq: int | None, abilities: dict[str, tuple[fx.Effect, ...]],
                 flavor: str, source: str):
        self.index = -1
        self.id = slug(name)
        self.name = name
        self.type = type_
        self.cq = cq
        self.on_reveal = abilities.get("on_reveal", ())
        self.ongoing = abilities.get("ongoing", ())
        self.end_of_battle = abilities.get("end_of_battle", ())
        self.when_destroyed = abilities.get("when_destroyed", ())
        self.effects = abilities.get("effects", ())
        self.flavor = flavor
        self.source = source
        self.ability_text = {key: _sentence(getattr(self, key))
                             for key in ("on_reveal", "ongoing", "end_of_battle", "when_destroyed", "effects")
                             if getattr(self, key)}
        self.text = self._rules_text()

    def _rules_text(self) -> str:
        parts = []
        if self.type == LIGHTSPEED and self.effects:
            parts.append("Lightspeed: " + _sentence(self.effects))
        if self.type == CELESTIAL and self.effects:
            parts.append("When played: " + _sentence(self.effects))
        if self.type == FRAGMENT:
            parts.append("Cannot be placed. At the End of Battle, uploads from your hand to your Upload Zone.")
        for key in ("on_reveal", "ongoing", "end_of_battle", "when_destroyed"):
            effects = getattr(self, key)
            if effects:
                parts.append(f"{ABILITY_WORDS[key]}: " + _sentence(effects))
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "type": self.type,
                               "type_name": TYPE_WORDS[self.type], "cq": self.cq,
                               "keywords": self.keywords(), "text": self.text}
        for key in ("on_reveal", "ongoing", "end_of_battle", "when_destroyed", "effects"):
            effects = getattr(self, key)
            if effects:
                out[key] = [e.to_json() for e in effects]
        if self.flavor:
            out["flavor"] = self.flavor
        return out

    def keywords(self) -> list[str]:
        words = [ABILITY_WORDS[k] for k in ("on_reveal", "ongoing", "end_of_battle", "when_destroyed")
                 if getattr(self, k)]
        if self.type == LIGHTSPEED:
            words.insert(0, "Lightspeed")
        names = {e.name for k in ("on_reveal", "ongoing", "end_of_battle", "when_destroyed", "effects")
                 for e in getattr(self, k)}
        if "plague" in names:
            words.append("Plague")
        if "mute" in names:
            words.append("Mute")
        if "create_location" in names:
            words.append("Extra Location")
        return words

    def __repr__(self) -> str:
        return f"<CardDef {self.name}>"


def _sentence(effects: tuple[fx.Effect, ...]) -> str:
    text = "; then ".join(e.text for e in effects)
    return text[0].upper() + text[1:] + "."


# --------------------------------------------------------------------------- validation


def _check_effect(where: str, field: str, i: int, raw: Any, *, card_type: str) -> fx.Effect:
    label = f"{where}: field '{field}[{i}]'"
    if not isinstance(raw, dict):
        raise CardDataError(f"{label} must be a table like {{ effect = \"destroy\", target = \"...\" }}")
    name = raw.get("effect")
    if name not in fx.SPECS:
        raise CardDataError(f"{label}: unknown effect {name!r} (known: {', '.join(sorted(fx.SPECS))})")
    spec = fx.SPECS[name]
    for key in raw:
        if key != "effect" and key not in spec:
            raise CardDataError(f"{label}: effect '{name}' takes no parameter '{key}' "
                                f"(it takes: {', '.join(spec) or 'nothing'})")
    for key, (kind, required) in spec.items():
        if key not in raw:
            if required:
                raise CardDataError(f"{label}: effect '{name}' needs parameter '{key}'")
            continue
        _check_value(f"{label}: parameter '{key}'", kind, raw[key])
    has_source = card_type == UNIT and field != "when_destroyed"
    target = raw.get("target")
    if target is not None:
        pick, _, scope = fx.SELECTORS[target]
        if pick == "self" and not has_source:
            raise CardDataError(f"{label}: target 'self' needs a unit on the board as the source")
        if pick == "revealed" and card_type != LIGHTSPEED:
            raise CardDataError(f"{label}: target 'revealed' is for Lightspeed responses only")
        if scope == "here" and card_type == CELESTIAL:
            raise CardDataError(f"{label}: a Celestial is at no Location, so target '{target}' means nothing")
        if card_type == UNIT and target == "allies_here":
            raise CardDataError(f"{label}: a player has one unit per Location, so a unit's "
                                "'allies_here' is always empty")
        if field == "ongoing" and pick in ("strongest", "weakest"):
            raise CardDataError(f"{label}: an Ongoing ability cannot target '{target}' (it depends on CQ)")
    per = raw.get("per")
    if per == "allies_here" and card_type == UNIT:
        raise CardDataError(f"{label}: a player has one unit per Location, so a unit's "
                            "'per = \"allies_here\"' is always 0")
    if per in ("allies_here", "enemies_here") and card_type == CELESTIAL:
        raise CardDataError(f"{label}: a Celestial is at no Location, so 'per = \"{per}\"' means nothing")
    if field == "ongoing" and name != "add_cq":
        raise CardDataError(f"{label}: an Ongoing ability can only be 'add_cq', not '{name}'")
    params = {k: v for k, v in raw.items() if k != "effect"}
    return fx.Effect(name, params, has_source=has_source)


def _check_value(label: str, kind: str, value: Any) -> None:
    if kind == "target":
        if value not in fx.SELECTORS:
            raise CardDataError(f"{label} must be a target selector (one of: {', '.join(fx.SELECTORS)})")
    elif kind in ("int", "nonneg", "pos"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise CardDataError(f"{label} must be an integer")
        if kind == "nonneg" and value < 0:
            raise CardDataError(f"{label} must be an integer >= 0")
        if kind == "pos" and value < 1:
            raise CardDataError(f"{label} must be an integer >= 1")
    elif kind == "per":
        if value not in fx.COUNTERS:
            raise CardDataError(f"{label} must be a counter (one of: {', '.join(fx.COUNTERS)})")
    elif kind == "who":
        if value not in fx.WHO:
            raise CardDataError(f"{label} must be one of: {', '.join(fx.WHO)}")
    elif kind == "to":
        if value not in fx.MOVE_DESTINATIONS:
            raise CardDataError(f"{label} must be one of: {', '.join(fx.MOVE_DESTINATIONS)}")
    elif kind == "param":
        if value not in CARD_CHANGEABLE:
            raise CardDataError(f"{label} must be a rules parameter cards may change "
                                f"(one of: {', '.join(CARD_CHANGEABLE)})")


def parse_card(where_file: str, raw: Any, position: int) -> CardDef:
    """Validate one ``[[card]]`` table; raises :class:`CardDataError` naming file, card, field."""
    if not isinstance(raw, dict):
        raise CardDataError(f"{where_file}: card #{position} must be a table")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise CardDataError(f"{where_file}: card #{position}: field 'name' must be non-empty text "
                            "without surrounding spaces")
    where = f"{where_file}: card '{name}'"
    card_type = raw.get("type")
    if card_type not in TYPES:
        raise CardDataError(f"{where}: field 'type' must be one of: {', '.join(TYPES)}")
    allowed = {"name", "type", "flavor", *ABILITY_FIELDS[card_type]}
    if card_type == UNIT:
        allowed.add("cq")
    for key in raw:
        if key not in allowed:
            raise CardDataError(f"{where}: field '{key}' is not allowed on a {card_type} card "
                                f"(allowed: {', '.join(sorted(allowed))})")
    cq = None
    if card_type == UNIT:
        cq = raw.get("cq")
        if isinstance(cq, bool) or not isinstance(cq, int) or cq < 0:
            raise CardDataError(f"{where}: field 'cq' must be an integer >= 0")
    flavor = raw.get("flavor", "")
    if not isinstance(flavor, str):
        raise CardDataError(f"{where}: field 'flavor' must be text")
    abilities: dict[str, tuple[fx.Effect, ...]] = {}
    for field in ABILITY_FIELDS[card_type]:
        if field not in raw:
            continue
        value = raw[field]
        if not isinstance(value, list) or not value:
            raise CardDataError(f"{where}: field '{field}' must be a non-empty array of effect tables")
        abilities[field] = tuple(_check_effect(where, field, i, item, card_type=card_type)
                                 for i, item in enumerate(value))
        for i, eff in enumerate(abilities[field]):
            eff.key = f"{slug(name)}:{field}:{i}"
    if card_type == LIGHTSPEED and "effects" not in abilities:
        raise CardDataError(f"{where}: field 'effects' is required on a Lightspeed card")
    if card_type == CELESTIAL and not abilities:
        raise CardDataError(f"{where}: a Celestial needs field 'effects' or 'ongoing'")
    return CardDef(name, card_type, cq, abilities, flavor, where_file)


def load_pool(directory: Path = CARDS_DIR) -> list[CardDef]:
    """Every card of every ``*.toml`` file in ``directory``, sorted by id (the pool order)."""
    cards: list[CardDef] = []
    seen: dict[str, str] = {}
    for where_file, position, raw in card_tables(directory):
        card = parse_card(where_file, raw, position)
        if card.id in seen:
            raise CardDataError(f"{where_file}: card '{card.name}': field 'name' repeats a card of "
                                f"{seen[card.id]} (same id '{card.id}')")
        seen[card.id] = where_file
        cards.append(card)
    cards.sort(key=lambda c: c.id)
    for index, card in enumerate(cards):
        card.index = index
    return cards
