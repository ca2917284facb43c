"""The loaded card pool, shared by every match: loaded and validated once, on import."""

from __future__ import annotations

from engine.conquest.cards import CELESTIAL, CardDef, load_pool
from engine.conquest.params import SAFETY, reachable_range
from engine.core import CardDataError


def param_changes(pool: list[CardDef]) -> dict[str, tuple[int, int]]:
    """For each rules parameter, (sum of decreases, sum of increases) of every card's changes."""
    out: dict[str, tuple[int, int]] = {}
    for card in pool:
        for field in ("on_reveal", "end_of_battle", "when_destroyed", "effects"):
            for eff in getattr(card, field):
                if eff.name == "change_param":
                    down, up = out.get(eff.param, (0, 0))
                    out[eff.param] = (down + max(0, -eff.amount), up + max(0, eff.amount))
    return out


#: Parameters with no natural floor: card text must not reach their low safety bound either.
NO_FLOOR = ("plague_value",)


def check_safety(pool: list[CardDef]) -> dict[str, tuple[int, int]]:
    """Refuse a pool whose card text could reach a parameter's safety bound; returns the reach.

    The low end of a count is its natural floor (no fewer than 0 cards drawn, 1 Battle):
    card text may take a count there, and it stops there."""
    changes = param_changes(pool)
    reach = {}
    for name, (low, high) in SAFETY.items():
        lowest, highest = reachable_range(name, changes)
        if highest >= high or (name in NO_FLOOR and lowest <= low):
            raise CardDataError(f"the pool's changes to '{name}' reach {lowest}..{highest}, which touches the "
                                f"safety bound {low}..{high}: fewer or smaller changes are needed")
        reach[name] = (max(lowest, low), highest)
    return reach


POOL: list[CardDef] = load_pool()
BY_ID: dict[str, CardDef] = {card.id: card for card in POOL}
BY_NAME: dict[str, CardDef] = {card.name: card for card in POOL}
CELESTIALS: list[CardDef] = [card for card in POOL if card.type == CELESTIAL]
DECK_CARDS: list[CardDef] = [card for card in POOL if card.type != CELESTIAL]
#: What card text can make of each card-changeable parameter in one match (R-Param).
REACH: dict[str, tuple[int, int]] = check_safety(POOL)
