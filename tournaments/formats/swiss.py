"""Swiss pairing for two-player matches: score groups, no rematch while avoidable, one bye;
and the Swiss format (:class:`Swiss`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain, groupby
from typing import Any

import networkx as nx

from .registry import EventState, GroupFormat, PairSpec, dropped_ids, specs
from .types import DEFAULT_POINTS, Pairing, Player, PointsTable, Result, place_points


def swiss_recommended_rounds(n: int) -> int:
    """ceil(log2(n)) rounds for ``n`` entries, at least 1."""
    return max(1, math.ceil(math.log2(n))) if n > 1 else 1


def swiss_pairings(players: Sequence[Player], results: Sequence[Result], round_number: int, *,
                   seed: int = 0) -> list[Pairing]:
    """The pairings of Swiss round ``round_number`` from every earlier round's ``results``.

    Pass every entry, dropped ones marked: a dropped player is left out of the pairings,
    but its results still count for its opponents. Round 1 (no results yet): players in seed order, top half
    against bottom half (seed 1 v seed n/2+1, ...). Later rounds: players ranked by match
    points, then seed; paired within score groups, top half of a group against its bottom
    half, floating the lowest player of an odd group down; never a rematch while a pairing
    without one exists. An odd field gives one bye to the lowest-ranked player who has not
    had one (record it with :func:`bye_result`). The higher-ranked player is listed first;
    tables are numbered from the top. ``seed`` is accepted for a future random choice: the
    same inputs always give the same pairings.

    Priorities, strongest first: everyone active plays once or has the bye; nobody gets a
    second bye while an active player has had none; no rematch while avoidable; players
    meet within their score group, floating as few and as little as possible.
    """
    del seed  # see the docstring: the pairing is a function of the field and the results
    active = _active(players, round_number)
    if not active:
        return []
    history = History.of(results, {p.id for p in players})
    order = [p.id for p in sorted(active, key=lambda p: (-history.points.get(p.id, 0), p.seed))]
    bye: int | None = None
    if len(order) % 2:
        pairs, bye = _with_bye(order, history)
    else:
        pairs = pair_ranked(order, history)
    return _tables(pairs, bye, order)


def _active(players: Sequence[Player], round_number: int) -> list[Player]:
    if round_number < 1:
        raise ValueError(f"rounds count from 1, not {round_number}")
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("a player appears twice in the field")
    seeds = [p.seed for p in players]
    if len(set(seeds)) != len(seeds):
        raise ValueError("two players share a seed: seeds must be distinct")
    return [p for p in players if not p.dropped]


class History:
    """What pairing needs from earlier rounds: points, who met whom, byes."""

    __slots__ = ("points", "met", "byes")

    def __init__(self) -> None:
        self.points: dict[int, int] = {}
        self.met: dict[int, set[int]] = {}
        self.byes: dict[int, int] = {}

    @classmethod
    def of(cls, results: Sequence[Result], field: set[int], table: PointsTable = DEFAULT_POINTS) -> History:
        h = cls()
        points, met, byes = h.points, h.met, h.byes
        scored: dict[tuple[int, ...], tuple[int, ...]] = {}  # places -> points, computed once each
        for r in results:
            players = r.players
            if not field.issuperset(players):
                unknown = [pid for pid in players if pid not in field]
                raise ValueError(f"round {r.round} result names players not in the field: {unknown}")
            pts = scored.get(r.places)
            if pts is None:
                pts = scored[r.places] = place_points(r.places, table)
            for pid, got in zip(players, pts, strict=True):
                points[pid] = points.get(pid, 0) + got
            if r.bye:
                byes[players[0]] = byes.get(players[0], 0) + 1
            for a in players:
                mine = met.get(a)
                if mine is None:
                    mine = met[a] = set()
                mine.update(players)
                mine.discard(a)
        return h

    def rematch(self, a: int, b: int) -> bool:
        met = self.met.get(a)
        return met is not None and b in met


def _with_bye(order: list[int], history: History) -> tuple[list[tuple[int, int]], int]:
    """Give the bye to the lowest-ranked player without one whose absence leaves a
    rematch-free pairing; failing that, the candidate leaving the fewest rematches."""
    fewest = min(history.byes.get(p, 0) for p in order)
    candidates = [p for p in reversed(order) if history.byes.get(p, 0) == fewest]
    limit = len(candidates) if len(order) <= 64 else 8
    best: tuple[int, list[tuple[int, int]], int] | None = None
    for cand in candidates[:limit]:
        rest = [p for p in order if p != cand]
        pairs = pair_ranked(rest, history)
        rematches = sum(history.rematch(a, b) for a, b in pairs)
        if best is None or rematches < best[0]:
            best = (rematches, pairs, cand)
        if rematches == 0:
            break
    assert best is not None
    return best[1], best[2]


def _tables(pairs: list[tuple[int, int]], bye: int | None, order: list[int]) -> list[Pairing]:
    rank = {pid: i for i, pid in enumerate(order)}
    pairs = sorted(((a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs), key=lambda ab: rank[ab[0]])
    out = [Pairing(table=i + 1, players=pair) for i, pair in enumerate(pairs)]
    if bye is not None:
        out.append(Pairing(table=len(out) + 1, players=(bye,)))
    return out


def pair_ranked(order: list[int], history: History) -> list[tuple[int, int]]:
    """Pair an even list of players given best first, within score groups.

    Score groups are paired from the top; each is paired top half against bottom half
    (greedy, sliding down the bottom half past rematches, then repaired by swaps, then an
    exact matching on small groups); whoever is left floats down into the next group. If
    players are left at the bottom, the pairing widens upward: the lowest pairs are undone
    and re-paired with them by an exact matching, doubling the number undone until a
    rematch-free pairing appears; on the whole field it settles for the fewest rematches.
    """
    if len(order) % 2:
        raise ValueError("pair_ranked needs an even number of players")
    pairs: list[tuple[int, int]] = []
    carry: list[int] = []
    for _, group in groupby(order, key=lambda p: history.points.get(p, 0)):
        got, carry = _pair_group(carry, list(group), history)
        pairs.extend(got)
    if not carry:
        return pairs
    rank = {pid: i for i, pid in enumerate(order)}
    undo = max(1, len(carry) // 2)
    while True:
        undo = min(undo, len(pairs))
        kept, redo = pairs[: len(pairs) - undo], pairs[len(pairs) - undo :]
        pool = sorted(carry + [p for pair in redo for p in pair], key=rank.__getitem__)
        whole = undo == len(pairs)
        got, left = _exact(pool, history, allow_rematch=whole)
        if not left:
            return kept + got
        undo *= 2


def _pair_group(floaters: list[int], group: list[int],
                history: History) -> tuple[list[tuple[int, int]], list[int]]:
    """Pair one score group, best first, after the floaters from above (each meets the
    best player of the group it has not met). Returns the pairs and the players left over
    (one for an odd pool when all goes well), best first."""
    pool = floaters + group
    m = len(pool)
    if m < 2:
        return [], pool
    floated: list[tuple[int, int]] = []
    free = list(group)
    for f in floaters:
        for j, g in enumerate(free):
            if not history.rematch(f, g):
                floated.append((f, g))
                del free[j]
                break
    paired = {a for a, _ in floated}
    pool = [f for f in floaters if f not in paired] + free
    got, left = _dutch(pool, history)
    if len(left) > 1 and m <= EXACT_LIMIT:
        return _exact(floaters + group, history, allow_rematch=False)
    return floated + got, left


def _dutch(pool: list[int], history: History) -> tuple[list[tuple[int, int]], list[int]]:
    m = len(pool)
    if m < 2:
        return [], pool
    half = m // 2
    top, bottom = pool[:half], pool[half:]
    used = [False] * len(bottom)
    pairs: list[tuple[int, int]] = []
    unpaired_top: list[int] = []
    for i, a in enumerate(top):
        order = chain(range(i, len(bottom)), range(i - 1, -1, -1))
        for j in order:
            if not used[j] and not history.rematch(a, bottom[j]):
                used[j] = True
                pairs.append((a, bottom[j]))
                break
        else:
            unpaired_top.append(a)
    left = unpaired_top + [b for j, b in enumerate(bottom) if not used[j]]
    if len(left) <= 1:
        return pairs, left
    return pairs, _pair_leftovers(left, pairs, history)


#: Largest pool handed to the exact matching (networkx's blossom algorithm) in one piece.
EXACT_LIMIT = 300


def _pair_leftovers(left: list[int], pairs: list[tuple[int, int]], history: History) -> list[int]:
    """Pair leftovers with each other, else by swapping partners with a pair already made
    (a and b left, (c, d) paired: a-c and b-d, or a-d and b-c). Mutates ``pairs``."""
    left = list(left)
    progress = True
    while len(left) > 1 and progress:
        progress = False
        for x in range(len(left)):
            for y in range(x + 1, len(left)):
                a, b = left[x], left[y]
                if not history.rematch(a, b):
                    pairs.append((a, b))
                    left = [p for p in left if p not in (a, b)]
                    progress = True
                    break
                for k in range(len(pairs) - 1, -1, -1):
                    c, d = pairs[k]
                    if not history.rematch(a, c) and not history.rematch(b, d):
                        pairs[k] = (c, a)
                        pairs.append((d, b))
                        left = [p for p in left if p not in (a, b)]
                        progress = True
                        break
                    if not history.rematch(a, d) and not history.rematch(b, c):
                        pairs[k] = (c, b)
                        pairs.append((a, d))
                        left = [p for p in left if p not in (a, b)]
                        progress = True
                        break
                if progress:
                    break
            if progress:
                break
    return left


def _exact(pool: list[int], history: History, *, allow_rematch: bool) -> tuple[list[tuple[int, int]], list[int]]:
    """Maximum matching of ``pool`` (best first), by networkx's maximum-weight matching.

    Weights, in strict priority: no rematch (rematch edges exist only when allowed), then
    the smallest score differences, then leaving the lowest-ranked player out of an odd
    pool, then top half against bottom half. Returns pairs and the unmatched, best first.
    """
    n = len(pool)
    half = n // 2
    pts = [history.points.get(p, 0) for p in pool]
    spread = max(pts) - min(pts) if pts else 0
    c = n * n + 1  # leaving the lowest out beats any shape
    b = c * 4 * n * n + 1  # a smaller score difference beats both
    a = b * (spread + 1) * n + 1  # a rematch avoided beats everything
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            repeat = history.rematch(pool[i], pool[j])
            if repeat and not allow_rematch:
                continue
            weight = (0 if repeat else a) - b * abs(pts[i] - pts[j]) + c * (2 * n - i - j) - abs(j - i - half)
            graph.add_edge(i, j, weight=weight + a * 2)  # keep every weight positive
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = [(pool[min(i, j)], pool[max(i, j)]) for i, j in matching]
    matched = {p for pair in pairs for p in pair}
    at = {p: i for i, p in enumerate(pool)}
    pairs.sort(key=lambda ab: at[ab[0]])
    return pairs, [p for p in pool if p not in matched]


class Swiss(GroupFormat):
    """Swiss (:func:`swiss_pairings`): ``rounds`` rounds, or ceil(log2 n); late entries
    welcome for ``late_entry_rounds`` rounds."""

    key = "swiss"
    label = "Swiss"
    stage = "swiss"
    settings = ("rounds", "late_entry_rounds")
    takes_late_entries = True

    def rounds_for(self, field_size: int, settings: Mapping[str, Any]) -> int:
        return settings.get("rounds") or swiss_recommended_rounds(field_size)

    def group_pairings(self, state: EventState, round_number: int) -> list[PairSpec]:
        pairings = swiss_pairings(list(state.players), state.group_results(), round_number, seed=state.seed)
        return specs(pairings, dropped_ids(state))
