"""Round robin by the circle method."""

from __future__ import annotations

from collections.abc import Sequence

from .types import Pairing, Player


def round_robin_schedule(players: Sequence[Player]) -> list[list[Pairing]]:
    """Every round of a round robin: n - 1 rounds for even n, n rounds for odd n.

    Circle method over the non-dropped players in seed order. With an odd field each player
    sits out exactly once: that round lists them as a one-player Pairing. Record no Result
    for a round-robin sit-out (everyone has one, so scoring it would only shift everybody).
    """
    ids = [p.id for p in sorted((p for p in players if not p.dropped), key=lambda p: p.seed)]
    if len(set(ids)) != len(ids):
        raise ValueError("a player appears twice in the field")
    if len(ids) < 2:
        return []
    slots: list[int | None] = list(ids) + ([None] if len(ids) % 2 else [])
    n = len(slots)
    rounds = []
    for r in range(n - 1):
        pairs: list[tuple[int, ...]] = []
        sitting: list[tuple[int, ...]] = []
        for i in range(n // 2):
            a, b = slots[i], slots[n - 1 - i]
            if a is None or b is None:
                sitting.append((a if b is None else b,))  # type: ignore[arg-type]
            else:
                # Alternate who is listed first so nobody always takes seat 1.
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        rounds.append([Pairing(table=t + 1, players=pl) for t, pl in enumerate(pairs + sitting)])
        slots = [slots[0], slots[-1], *slots[1:-1]]  # the first stays, the rest turn
    return rounds
