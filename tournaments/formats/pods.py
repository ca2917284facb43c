"""Swiss pods for a multiplayer game: pods of 4 (or 3), within score groups; and the pods
format (:class:`Pods`, stored under its first key ``conquest_pods``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from engine import games

from .registry import EventState, GroupFormat, PairSpec, dropped_ids, specs
from .swiss import History, _active
from .types import DEFAULT_POINTS, Pairing, Player, PointsTable, Result


def pod_sizes(n: int, pod_size: int = 4) -> list[int]:
    """How ``n`` players split into pods, largest first (a 1 is a bye).

    pod_size 4: pods of 4, and pods of 3 where the numbers demand (n = 4a + 3b with the
    fewest pods of 3); 5 players make a pod of 3 and a pod of 2; 2 players a pod of 2;
    1 player a bye. pod_size 3: pods of 3; a remainder of 1 or 2 players plays in pods of 2
    (two pods of 2 for a remainder of 1, one for 2); 1 player alone gets a bye.
    """
    if pod_size not in (3, 4):
        raise ValueError(f"pods hold 3 or 4 players, not {pod_size}")
    if n <= 0:
        return []
    if n <= 2:
        return [n]
    if pod_size == 4:
        if n == 5:
            return [3, 2]
        threes = (4 - n % 4) % 4
        return [4] * ((n - 3 * threes) // 4) + [3] * threes
    if n % 3 == 0:
        return [3] * (n // 3)
    if n % 3 == 2:
        return [3] * (n // 3) + [2]
    return [3] * ((n - 4) // 3) + [2, 2]


def pod_pairings(players: Sequence[Player], results: Sequence[Result], round_number: int, *, seed: int = 0,
                 pod_size: int = 4, points: PointsTable = DEFAULT_POINTS) -> list[Pairing]:
    """The pods of round ``round_number``. Pass every entry, dropped ones marked (they
    are left out of the pods; their results still count).

    Round 1: seeds are spread so the top seeds sit in different pods (pod k gets seeds k,
    k + P, k + 2P, ... for P pods). Later rounds: players ranked by match points (``points``
    by place, default 3/2/1/0; see DEFAULT_POINTS for pods of 3 and 2), then seed; pods are
    filled in rank order, so they stay within score groups: each pod takes the best player
    left, then from the next 3 x pod_size players those who have shared a pod with the
    fewest of its members; then players are swapped between nearby pods (up to 3 tables
    apart) while that lowers the number of repeat pod-mates. Repeats are avoided, not
    forbidden: a small field over many rounds has to repeat. Pods of 3 and 2 go to the
    bottom of the standings. The only bye is a field of one.
    """
    del seed  # the pods are a function of the field and the results
    active = _active(players, round_number)
    if not active:
        return []
    history = History.of(results, {p.id for p in players}, points)
    sizes = pod_sizes(len(active), pod_size)
    if not any(p.id in history.met or p.id in history.points for p in active):
        by_seed = [p.id for p in sorted(active, key=lambda p: p.seed)]
        pods: list[list[int]] = [[] for _ in sizes]
        i = 0
        while i < len(by_seed):  # deal the seeds round the pods, skipping full ones
            for k, size in enumerate(sizes):
                if len(pods[k]) < size and i < len(by_seed):
                    pods[k].append(by_seed[i])
                    i += 1
    else:
        order = [p.id for p in sorted(active, key=lambda p: (-history.points.get(p.id, 0), p.seed))]
        pods = _fill(order, sizes, history)
        _improve(pods, history)
        rank = {pid: i for i, pid in enumerate(order)}
        for pod in pods:
            pod.sort(key=rank.__getitem__)
    return [Pairing(table=t + 1, players=tuple(pod)) for t, pod in enumerate(pods)]


def _repeats(pod: list[int], history: History) -> int:
    return sum(history.rematch(a, b) for i, a in enumerate(pod) for b in pod[i + 1 :])


def _fill(order: list[int], sizes: list[int], history: History) -> list[list[int]]:
    """Fill the pods in rank order, each from the best player left and the next few."""
    left = list(order)
    pods = []
    for size in sizes:
        pod = [left.pop(0)]
        while len(pod) < size:
            window = left[: 3 * size]
            pick = min(range(len(window)), key=lambda j: (sum(history.rematch(window[j], q) for q in pod), j))
            pod.append(left.pop(pick))
        pods.append(pod)
    return pods


def _improve(pods: list[list[int]], history: History, reach: int = 3, passes: int = 4) -> None:
    """Swap players between nearby pods while that lowers the number of repeat pod-mates."""
    for _ in range(passes):
        better = False
        for k, pod in enumerate(pods):
            if not _repeats(pod, history):
                continue
            for other in range(max(0, k - reach), min(len(pods), k + reach + 1)):
                if other == k:
                    continue
                q = pods[other]
                for x in range(len(pod)):
                    for y in range(len(q)):
                        before = _repeats(pod, history) + _repeats(q, history)
                        pod[x], q[y] = q[y], pod[x]
                        if _repeats(pod, history) + _repeats(q, history) < before:
                            better = True
                        else:
                            pod[x], q[y] = q[y], pod[x]
        if not better:
            return


def pod_rounds(n: int, pod_size: int) -> int:
    """Recommended pod rounds: enough for one player to stay unbeaten alone in a field of
    ``n`` with pods of ``pod_size`` (ceil(log_pod(n))), plus one; at least 2."""
    if n <= pod_size:
        return 2
    return max(2, math.ceil(math.log(n) / math.log(pod_size)) + 1)


class Pods(GroupFormat):
    """Pods (:func:`pod_pairings`): multiplayer games of 3 or 4, paired
    like a Swiss; ``rounds`` rounds or :func:`pod_rounds`; late entries welcome."""

    #: The key events have been stored under since the format was first offered.
    key = "conquest_pods"
    label = "Pods"
    stage = "pods"
    settings = ("rounds", "players_per_game", "late_entry_rounds")
    seats = (3, 4)
    takes_late_entries = True

    def check(self, values: Mapping[str, Any], clean: dict[str, Any], errors: dict[str, list[str]]) -> None:
        # Pods need a game that seats three or more at a table; the game says how many it seats.

        game = games.get(values.get("game"))
        if game is not None and game.max_seats < min(self.seats):
            errors["format"] = [f"pods need a game that seats {min(self.seats)} or more at a table; "
                                f"{game.title} seats at most {game.max_seats}"]

    def seats_error(self, per_game: Any) -> str:
        return f"pods seat 3 or 4 players per game, not {per_game!r}"

    def rounds_for(self, field_size: int, settings: Mapping[str, Any]) -> int:
        return settings.get("rounds") or pod_rounds(field_size, settings["players_per_game"])

    def group_pairings(self, state: EventState, round_number: int) -> list[PairSpec]:
        pairings = pod_pairings(list(state.players), state.group_results(), round_number, seed=state.seed,
                                pod_size=state.settings["players_per_game"])
        return specs(pairings, dropped_ids(state))
