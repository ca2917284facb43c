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
    raise NotImplementedError
