"""The loaded card pool, shared by every match: loaded and validated once, on import."""

from __future__ import annotations

from engine.conquest.cards import CELESTIAL, CardDef, load_pool

POOL: list[CardDef] = load_pool()
BY_ID: dict[str, CardDef] = {card.id: card for card in POOL}
BY_NAME: dict[str, CardDef] = {card.name: card for card in POOL}
CELESTIALS: list[CardDef] = [card for card in POOL if card.type == CELESTIAL]
DECK_CARDS: list[CardDef] = [card for card in POOL if card.type != CELESTIAL]
