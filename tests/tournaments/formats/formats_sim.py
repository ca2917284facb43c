"""Helpers for the formats tests: random results, drops, and exact (brute-force) checks."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from tournaments.formats import Pairing, Player, Result, bye_result


def random_two_player_result(rng: random.Random, round_number: int, a: int, b: int, *, best_of: int = 3,
                             draws: bool = True, match_key: str = "") -> Result:
    """A random finished match of best-of-``best_of`` games (drawn games allowed)."""
    need = best_of // 2 + 1
    wins = [0, 0]
    games = 0
    while max(wins) < need and games < best_of:
        games += 1
        x = rng.random()
        if draws and x < 0.1:
            continue  # a drawn game
        wins[0 if x < 0.55 else 1] += 1
    if wins[0] == wins[1]:
        if not draws:
            wins[0] += 1
            games += 1
            places = (1, 2)
        else:
            places = (1, 1)
    else:
        places = (1, 2) if wins[0] > wins[1] else (2, 1)
    return Result(round=round_number, players=(a, b), places=places, game_wins=(wins[0], wins[1]), games=games,
                  match_key=match_key)


def random_pod_result(rng: random.Random, round_number: int, pod: Sequence[int]) -> Result:
    """A random pod of 2-4 players: a random finishing order, one game, Conquest scored."""
    order = list(pod)
    rng.shuffle(order)
    place = {p: i + 1 for i, p in enumerate(order)}
    conquest = tuple(rng.randint(0, 12) for _ in pod)
    return Result(round=round_number, players=tuple(pod), places=tuple(place[p] for p in pod),
                  game_wins=tuple(1 if place[p] == 1 else 0 for p in pod), games=1, score=conquest)


def play_round(rng: random.Random, round_number: int, pairings: Sequence[Pairing]) -> list[Result]:
    out = []
    for p in pairings:
        if p.bye:
            out.append(bye_result(round_number, p.players[0]))
        elif len(p.players) == 2:
            out.append(random_two_player_result(rng, round_number, *p.players))
        else:
            out.append(random_pod_result(rng, round_number, p.players))
    return out


def drop_some(rng: random.Random, players: list[Player], rate: float) -> list[Player]:
    return [Player(p.id, p.seed, True) if not p.dropped and rng.random() < rate else p for p in players]


def met_pairs(results: Sequence[Result]) -> set[frozenset[int]]:
    return {frozenset((a, b)) for r in results for i, a in enumerate(r.players) for b in r.players[i + 1 :]}


def perfect_matching_exists(ids: Sequence[int], allowed: Callable[[int, int], bool]) -> bool:
    """Brute force: can ``ids`` be split into pairs that are all ``allowed``?"""
    ids = list(ids)
    if not ids:
        return True
    first, rest = ids[0], ids[1:]
    for i, other in enumerate(rest):
        if allowed(first, other) and perfect_matching_exists(rest[:i] + rest[i + 1 :], allowed):
            return True
    return False
