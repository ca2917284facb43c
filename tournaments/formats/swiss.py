"""Swiss pairing for two-player matches: score groups, no rematch while avoidable, one bye."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .types import Pairing, Player, Result


def swiss_recommended_rounds(n: int) -> int:
    """ceil(log2(n)) rounds for ``n`` entries, at least 1."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


def swiss_pairings(players: Sequence[Player], results: Sequence[Result], round_number: int, *,
                   seed: int = 0) -> list[Pairing]:
    """The pairings of Swiss round ``round_number`` from every earlier round's ``results``.

    Dropped players are left out. Round 1 (no results yet): players in seed order, top half
    against bottom half (seed 1 v seed n/2+1, ...). Later rounds: players ranked by match
    points, then seed; paired within score groups, top half of a group against its bottom
    half, floating the lowest player of an odd group down; never a rematch while a pairing
    without one exists. An odd field gives one bye to the lowest-ranked player who has not
    had one (record it with :func:`bye_result`). The higher-ranked player is listed first;
    tables are numbered from the top. ``seed`` is accepted for a future random choice: the
    same inputs always give the same pairings.
    """
    raise NotImplementedError
