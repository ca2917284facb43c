"""The values the tournament formats take and return: plain frozen dataclasses, no Django.

Every id in here is a tournament *entry* id (an int chosen by the caller); the formats never
see users, decks or matches, only entries, their seeds and finished results.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: Match points by finishing place, per number of players in the match (the bye is a
#: "match" of one). Two players: a win is 3, a loss 0; a draw shares places 1-2 and so scores
#: the rounded-down average of 3 and 0, that is 1 (see :func:`place_points`). Pods
#: of 4 score 3/2/1/0 (the default); pods of 3 score 3/1/0 (first and last score as
#: in a pod of 4, the middle place gets the 1 that a pod of 4's third place gets).
DEFAULT_POINTS: Mapping[int, tuple[int, ...]] = {1: (3,), 2: (3, 0), 3: (3, 1, 0), 4: (3, 2, 1, 0)}

#: Multiplayer events use the same table; an organiser may pass another one.
PointsTable = Mapping[int, tuple[int, ...]]


@dataclass(frozen=True)
class Player:
    """An entry in the event.

    ``seed``: 1 is the top seed; seeds are distinct (the caller orders by rating where the
    ladder has one, else randomly from the tournament seed). ``dropped``: a dropped entry
    is never paired again; its finished results stand.
    """

    id: int
    seed: int
    dropped: bool = False


@dataclass(frozen=True)
class Result:
    """One finished pairing: two players, a pod of 2-4, or a bye (one player).

    ``places`` runs parallel to ``players``: 1 is first; equal places are a draw / a shared
    place, ranked "1, 1, 3" (the place after a shared one skips); every player last
    ("2, 2") is a table nobody won (both players forfeited a live match): a loss for each.
    ``game_wins``: games won by each player in the match; ``games``: games played (a drawn
    two-player game counts in ``games`` but in nobody's ``game_wins``).
    ``score``: the game's standings score (``Game.standings_score_label``) each player
    made over the match; None for a game without one.
    ``match_key``: the bracket key ("W1-3") for elimination matches, "" otherwise.
    A bye is ``Result(round=r, players=(p,), places=(1,), game_wins=(2,), games=2, bye=True)``;
    :func:`bye_result` builds one.
    """

    round: int
    players: tuple[int, ...]
    places: tuple[int, ...]
    game_wins: tuple[int, ...]
    games: int
    bye: bool = False
    score: tuple[int, ...] | None = None
    match_key: str = ""

    def __post_init__(self) -> None:
        n = len(self.players)
        if n < 1 or n > 4:
            raise ValueError(f"a result has 1 to 4 players, not {n}")
        if len(set(self.players)) != n:
            raise ValueError(f"a player appears twice in one result: {self.players}")
        if len(self.places) != n or len(self.game_wins) != n:
            raise ValueError("places and game_wins must have one entry per player")
        if self.score is not None and len(self.score) != n:
            raise ValueError("score must have one entry per player")
        if any(p < 1 or p > n for p in self.places):
            raise ValueError(f"places run from 1 to {n}: {self.places}")
        # Everybody last (2, 2): a table nobody won, such as both players forfeiting.
        nobody_won = n > 1 and all(p == n for p in self.places)
        if not nobody_won and any(sum(1 for q in self.places if q < p) != p - 1 for p in self.places):
            raise ValueError(f"places are ranked 1, 1, 3, 4 style (equal places share, the next skips): {self.places}")
        if self.games < 0 or any(w < 0 for w in self.game_wins) or sum(self.game_wins) > max(self.games, 0):
            raise ValueError(f"game wins {self.game_wins} do not fit in {self.games} games")
        if self.bye != (n == 1):
            raise ValueError("a bye is exactly a result with one player")

    @property
    def winner(self) -> int | None:
        """The player alone in first place, or None (a draw or a shared first place)."""
        firsts = [p for p, place in zip(self.players, self.places, strict=True) if place == 1]
        return firsts[0] if len(firsts) == 1 else None


def bye_result(round_number: int, player: int, *, match_key: str = "") -> Result:
    """The result of a bye: a match win, 2-0 in games."""
    return Result(round=round_number, players=(player,), places=(1,), game_wins=(2,), games=2, bye=True,
                  match_key=match_key)


@dataclass(frozen=True)
class Pairing:
    """One match to play: ``table`` numbers from 1 (top table first).

    One player is a bye (record :func:`bye_result` for it; nothing is played). In a
    bracket, ``key`` names the match ("W1-1", "L2-3", "GF", "GF-reset", "3rd").
    """

    table: int
    players: tuple[int, ...]
    key: str = ""

    @property
    def bye(self) -> bool:
        return len(self.players) == 1


@dataclass(frozen=True)
class Standing:
    """One line of the standings, in display order.

    ``position`` 1..n is unique (display order); ``rank`` is shared by entries still tied
    after every tiebreaker (``tied_with`` lists the others). Percentages are floats in 0..1
    for display; comparisons inside :func:`standings` use exact fractions.
    ``h2h`` is the head-to-head score inside the entry's tied group (0 when it did not apply).
    """

    position: int
    rank: int
    player: int
    seed: int
    points: int
    matches: int
    wins: int
    draws: int
    losses: int
    byes: int
    game_wins: int
    games: int
    mwp: float
    omw: float
    gwp: float
    ogw: float
    score: int
    h2h: int
    dropped: bool
    tied_with: tuple[int, ...] = ()


def place_points(places: tuple[int, ...], table: PointsTable = DEFAULT_POINTS) -> tuple[int, ...]:
    """Match points for each finishing place of one match.

    Players sharing a place split the points of the places they cover, rounded down: a
    two-player draw (places 1, 1) scores (3 + 0) // 2 = 1 each; two players sharing first
    in a pod of 4 score (3 + 2) // 2 = 2 each.
    """
    n = len(places)
    row = table.get(n)
    if row is None:
        raise ValueError(f"the points table has no row for matches of {n} players")
    if len(row) != n:
        raise ValueError(f"the points table for {n} players must have {n} entries, not {row}")
    out = []
    for place in places:
        shared = sum(1 for q in places if q == place)
        covered = row[place - 1 : place - 1 + shared]
        out.append(sum(covered) // shared)
    return tuple(out)
