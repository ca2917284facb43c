"""Swiss pods for multiplayer Conquest: pods of 4 (or 3), within score groups."""

from __future__ import annotations

from collections.abc import Sequence

from .types import DEFAULT_POINTS, Pairing, Player, PointsTable, Result


def pod_sizes(n: int, pod_size: int = 4) -> list[int]:
    """How ``n`` players split into pods, largest first (a 1 is a bye).

    pod_size 4: pods of 4, and pods of 3 where the numbers demand (n = 4a + 3b with the
    fewest pods of 3); 5 players make a pod of 3 and a pod of 2; 2 players a pod of 2;
    1 player a bye. pod_size 3: pods of 3; a remainder of 1 or 2 players plays in pods of 2
    (two pods of 2 for a remainder of 1, one for 2); 1 player alone gets a bye.
    """
    raise NotImplementedError


def pod_pairings(players: Sequence[Player], results: Sequence[Result], round_number: int, *, seed: int = 0,
                 pod_size: int = 4, points: PointsTable = DEFAULT_POINTS) -> list[Pairing]:
    """The pods of round ``round_number``.

    Round 1: seeds are spread so the top seeds sit in different pods (pod k gets seeds k,
    k + P, k + 2P, ... for P pods). Later rounds: players ranked by match points (``points``
    by place, default 3/2/1/0; see DEFAULT_POINTS for pods of 3 and 2), then seed; pods are
    filled in rank order, so they stay within score groups, choosing among the next
    players those who have not shared a pod with anyone already in it (repeat pod-mates only
    when there is no other way). Pods of 3 and 2 go to the bottom of the standings. A
    one-player pairing is a bye (lowest-ranked player without one).
    """
    raise NotImplementedError
