"""Round robin by the circle method, and the round-robin format (:class:`RoundRobin`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .registry import EventState, GroupFormat, PairSpec, dropped_ids, specs
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


class RoundRobin(GroupFormat):
    """Round robin (:func:`round_robin_schedule`): everyone meets everyone once, in a
    field of at most ``max_entries``."""

    key = "round_robin"
    label = "Round robin"
    stage = "round_robin"
    max_entries = 16

    def rounds_for(self, field_size: int, settings: Mapping[str, Any]) -> int:
        return field_size - 1 if field_size % 2 == 0 else field_size

    def group_pairings(self, state: EventState, round_number: int) -> list[PairSpec]:
        # The schedule is fixed at the start: computed over every seeded entry as if none
        # had dropped, so dropping cannot reshuffle later rounds.
        schedule = round_robin_schedule([Player(id=p.id, seed=p.seed) for p in state.players])
        pairings = schedule[round_number - 1] if round_number <= len(schedule) else []
        dropped = dropped_ids(state)
        return [spec for spec in specs(pairings, dropped, sit_out=True)
                if spec.walkover is None or not all(e in dropped for e in spec.entries)]
