"""Standings with tiebreakers, and the ties that are left for Match the Twos."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from itertools import groupby

from engine import games

from .types import DEFAULT_POINTS, Player, PointsTable, Result, Standing, place_points


def standings(players: Sequence[Player], results: Sequence[Result], *, game: str,
              points: PointsTable = DEFAULT_POINTS, decided: Sequence[Sequence[int]] = ()) -> list[Standing]:
    """Every player's standing, best first, in this tiebreak order:

    1. match points (``points`` by place; a bye scores first place, 3);
    2. opponents' match-win % (OMW): the mean, over every opponent met (byes are not
       opponents), of that opponent's match-win %, each floored at 1/3;
    3. game-win % (GW): (3 x games won + games drawn) / (3 x games played), byes as 2-0;
    4. opponents' game-win % (OGW): as OMW, with each opponent's GW floored at 1/3;
    5. for a game with a standings score (``Game.standings_score_label``), the total of
       ``Result.score`` over the event;
    6. head-to-head: inside a group still tied, if every two of them have met, the one with
       more wins than losses against the others of the group ranks higher;
    7. ``decided``: orders fixed by Match the Twos, each a list of player ids best first;
    then still tied: shared ``rank``, ``tied_with`` filled, displayed by seed.

    Dropped players keep their standing (marked ``dropped``).
    """
    if game not in games:
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(games)}")
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("a player appears twice in the field")
    seeds = {p.id: p.seed for p in players}
    stats = {pid: _Stats() for pid in ids}
    for r in results:
        unknown = [pid for pid in r.players if pid not in stats]
        if unknown:
            raise ValueError(f"round {r.round} result names players not in the field: {unknown}")
        pts = place_points(r.places, points)
        best = points[len(r.players)][0]
        n = len(r.players)
        game_draws = r.games - sum(r.game_wins) if n == 2 else 0
        for i, pid in enumerate(r.players):
            st = stats[pid]
            st.points += pts[i]
            st.max_points += best
            st.matches += 1
            shared_first = r.places[i] == 1 and r.places.count(1) > 1
            if r.places[i] == 1 and not shared_first:
                st.wins += 1
            elif shared_first:
                st.draws += 1
            else:
                st.losses += 1
            st.byes += r.bye
            st.game_wins += r.game_wins[i]
            st.game_draws += game_draws
            st.games += r.games
            if r.score is not None:
                st.score += r.score[i]
            for j, other in enumerate(r.players):
                if j != i:
                    st.opponents.append(other)
                    if r.places[i] < r.places[j]:
                        st.beat[other] = st.beat.get(other, 0) + 1
                    elif r.places[i] > r.places[j]:
                        st.beat[other] = st.beat.get(other, 0) - 1
    # Exact percentages without a Fraction per opponent: every percentage is an integer
    # over one common denominator (the lcm of all of them, a multiple of 3 for the floor).
    mw_den = math.lcm(3, *(st.max_points for st in stats.values() if st.max_points))
    gw_den = math.lcm(3, *(3 * st.games for st in stats.values() if st.games))
    mw_num = {pid: st.points * (mw_den // st.max_points) if st.max_points else 0 for pid, st in stats.items()}
    gw_num = {pid: (3 * st.game_wins + st.game_draws) * (gw_den // (3 * st.games)) if st.games else 0
              for pid, st in stats.items()}
    mwp = {pid: Fraction(num, mw_den) for pid, num in mw_num.items()}
    gwp = {pid: Fraction(num, gw_den) for pid, num in gw_num.items()}

    def mean_floored(nums: dict[int, int], den: int, opponents: list[int]) -> Fraction:
        if not opponents:
            return Fraction(0)
        floor = den // 3
        return Fraction(sum(max(nums[o], floor) for o in opponents), den * len(opponents))

    omw = {pid: mean_floored(mw_num, mw_den, st.opponents) for pid, st in stats.items()}
    ogw = {pid: mean_floored(gw_num, gw_den, st.opponents) for pid, st in stats.items()}
    scored = games[game].standings_score_label is not None

    # Sort on integer ranks of the exact values: the same order, much cheaper to compare.
    omw_rank, gwp_rank, ogw_rank = (_dense_rank(values) for values in (omw, gwp, ogw))
    keys = {pid: (-st.points, -omw_rank[pid], -gwp_rank[pid], -ogw_rank[pid], -st.score if scored else 0)
            for pid, st in stats.items()}
    key = keys.__getitem__

    decided_rank: dict[tuple[int, int], int] = {}
    for order in decided:
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                decided_rank[(a, b)] = -1
                decided_rank[(b, a)] = 1

    ordered = sorted(ids, key=lambda pid: (key(pid), seeds[pid]))
    met = {pid: set(st.opponents) for pid, st in stats.items()}
    dropped = {p.id for p in players if p.dropped}
    h2h = dict.fromkeys(ids, 0)
    lines: list[tuple[int, list[int]]] = []  # (rank, group still tied) in display order
    position = 0
    for _, group_iter in groupby(ordered, key=key):
        group = list(group_iter)
        if len(group) > 1 and all(b in met[a] for a in group for b in group if a != b):
            for a in group:
                h2h[a] = sum(stats[a].beat.get(b, 0) for b in group if b != a)
        group.sort(key=lambda pid: (-h2h[pid], seeds[pid]))
        for _, sub_iter in groupby(group, key=lambda pid: h2h[pid]):
            sub = list(sub_iter)
            for piece in _split_by_decided(sub, decided_rank, seeds):
                lines.append((position + 1, piece))
                position += len(piece)

    table = []
    position = 0
    for rank, piece in lines:
        for pid in piece:
            position += 1
            st = stats[pid]
            table.append(Standing(
                position=position, rank=rank, player=pid, seed=seeds[pid], points=st.points, matches=st.matches,
                wins=st.wins, draws=st.draws, losses=st.losses, byes=st.byes, game_wins=st.game_wins,
                games=st.games, mwp=float(mwp[pid]), omw=float(omw[pid]), gwp=float(gwp[pid]),
                ogw=float(ogw[pid]), score=st.score, h2h=h2h[pid], dropped=pid in dropped,
                tied_with=tuple(o for o in piece if o != pid),
            ))
    return table


def _dense_rank(values: dict[int, Fraction]) -> dict[int, int]:
    """Each player's rank among the distinct values (0 = lowest): equal values, equal ranks."""
    rank = {v: i for i, v in enumerate(sorted(set(values.values())))}
    return {pid: rank[v] for pid, v in values.items()}


class _Stats:
    __slots__ = ("points", "max_points", "matches", "wins", "draws", "losses", "byes", "game_wins", "game_draws",
                 "games", "score", "opponents", "beat")

    def __init__(self) -> None:
        self.points = self.max_points = self.matches = self.wins = self.draws = self.losses = self.byes = 0
        self.game_wins = self.game_draws = self.games = self.score = 0
        self.opponents: list[int] = []
        self.beat: dict[int, int] = {}


def _split_by_decided(group: list[int], decided_rank: dict[tuple[int, int], int],
                      seeds: dict[int, int]) -> list[list[int]]:
    """Order a tied group by the Match the Twos orders given; what they leave tied stays together."""
    if len(group) == 1 or not decided_rank:
        return [group]
    # A player's place inside the group = how many of the group were decided above it.
    above = {a: sum(1 for b in group if decided_rank.get((b, a)) == -1) for a in group}
    fully = all((a, b) in decided_rank for a in group for b in group if a != b)
    if fully:
        return [[pid] for pid in sorted(group, key=lambda pid: above[pid])]
    ordered = sorted(group, key=lambda pid: (above[pid], seeds[pid]))
    return [list(g) for _, g in groupby(ordered, key=lambda pid: above[pid])]


def unresolved_ties(table: Sequence[Standing], lines: Iterable[int]) -> list[list[int]]:
    """Groups of player ids still tied across one of ``lines``, in display order.

    Dropped players never take a place that matters: they are left out, and a line ``k``
    lies between the k-th and the (k+1)-th player who has not dropped. For a top cut of 8
    pass ``[8]``; for prizes for 1st, 2nd and 3rd pass ``[1, 2, 3]``. A tied group (its
    players who have not dropped) matters when it holds both the k-th and the (k+1)-th
    place for some line k. The caller breaks each group with Match the Twos and passes the
    order back through ``standings(..., decided=...)``.
    """
    lines = set(lines)
    live = [s for s in sorted(table, key=lambda s: s.position) if not s.dropped]
    place = {s.player: i + 1 for i, s in enumerate(live)}
    groups: list[list[int]] = []
    seen: set[int] = set()
    for st in live:
        if st.player in seen:
            continue
        members = [st.player, *(o for o in st.tied_with if o in place)]
        seen.update(members)
        if len(members) < 2:
            continue
        low, high = min(place[m] for m in members), max(place[m] for m in members)
        if any(low <= k < high for k in lines):
            groups.append(sorted(members, key=place.__getitem__))
    return groups
