"""Bot tournaments: many matches with seats and decks rotated evenly, and win rates.

``run_arena`` is what ``python -m engine arena`` and the benchmarks call. Games come in
blocks of one deal each (one seed, one deck per seat); within a block the bots rotate
through every seat, so each bot plays the same deal from every seat and with every deck
of the deal. Decks change from block to block:

- ``mirror`` (the default): every seat plays the same deck, the pool's decks in turn. This
  measures the bots, not the decks: a bot never wins because it drew the stronger deck.
- ``mixed``: seat ``s`` of block ``b`` plays deck ``(b + s * (b // D)) % D`` of a pool of
  ``D``, which runs through every combination of deck offsets (mirrors included) every
  ``D * D`` blocks.

With ``games`` a multiple of seats x decks (mirror) or seats x decks x decks (mixed),
every bot plays every seat and every deck equally often.

"Win" means alone in first place; "draw" means sharing first place; anything else is a
loss. Win rates carry a 95% Wilson score interval.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots import make_bot
from engine.core import Decklist, Game
from engine.runner import MatchResult, play_match

Z95 = 1.959963984540054


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (``(0, 1)`` when there are no trials)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class BotRecord:
    """One bot's results over an arena (summed over every seat it held)."""

    bot: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    decisions: int = 0
    decision_seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def mean_decision_seconds(self) -> float:
        return self.decision_seconds / self.decisions if self.decisions else 0.0

    def to_json(self) -> dict[str, Any]:
        low, high = self.ci95
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "win_rate": round(self.win_rate, 4),
            "ci95": [round(low, 4), round(high, 4)],
            "forfeits": self.forfeits,
            "decisions": self.decisions,
            "mean_decision_seconds": round(self.mean_decision_seconds, 6),
        }


@dataclass
class ArenaResult:
    game: str
    players: int
    seed: int
    bots: list[str]
    records: dict[str, BotRecord]
    matchups: str = "mirror"
    games: int = 0
    actions: int = 0
    seconds: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "matchups": self.matchups,
            "seat_bots": self.bots,
            "bots": {name: record.to_json() for name, record in self.records.items()},
            "mean_actions": round(self.actions / self.games, 1) if self.games else 0.0,
            "seconds": round(self.seconds, 2),
            "reasons": dict(sorted(self.reasons.items())),
            "errors": self.errors,
        }

    def to_text(self) -> str:
        per_game = self.actions / max(self.games, 1)
        lines = [f"{self.game}, {self.players} players, {self.matchups} decks, {self.games} games from seed "
                 f"{self.seed} ({self.seconds:.1f} s, {per_game:.0f} actions per game)"]
        width = max(len(name) for name in self.records)
        for name, r in self.records.items():
            low, high = r.ci95
            lines.append(f"  {name:<{width}}  {r.wins:>4} wins {r.draws:>3} draws {r.losses:>4} losses "
                         f"in {r.games:>4}: {100 * r.win_rate:5.1f}% (95% CI {100 * low:.1f}-{100 * high:.1f}%), "
                         f"{r.mean_decision_seconds * 1000:.2f} ms per decision")
        if self.reasons:
            lines.append("  ended by: " + ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items())))
        for error in self.errors:
            lines.append(f"  error: {error}")
        return "\n".join(lines)


MATCHUPS = ("mirror", "mixed")


def seating(index: int, players: int, deck_count: int, matchups: str = "mirror") -> tuple[
        int, list[int], list[int]]:
    """For game ``index``: (block, entry at each seat, deck index at each seat).

    Entry ``e`` is the e-th bot of the arena's list. Within a block (one deal) entries
    rotate through the seats while the decks stay with the seats (see the module docstring).
    """
    block, turn = divmod(index, players)
    entries = [(seat + turn) % players for seat in range(players)]
    if matchups == "mirror":
        decks = [block % deck_count] * players
    elif matchups == "mixed":
        step = block // deck_count
        decks = [(block + seat * step) % deck_count for seat in range(players)]
    else:
        raise ValueError(f"matchups must be one of {', '.join(MATCHUPS)}, not {matchups!r}")
    return block, entries, decks


def run_arena(
    game: Game,
    bots: Sequence[str],
    *,
    games: int,
    seed: int = 1,
    players: int | None = None,
    decks: Sequence[Decklist] | None = None,
    params: Mapping[str, Any] | None = None,
    decision_seconds: float | None = None,
    matchups: str = "mirror",
    on_game: Callable[[int, MatchResult], None] | None = None,
    jobs: int = 1,
) -> ArenaResult:
    """Play ``games`` matches of ``game`` between the bot specs ``bots`` and tally results.

    ``players`` defaults to the number of bots; when it is larger the list is repeated
    (``["search:strong", "greedy"]`` for 4 players is search, greedy, search, greedy).
    ``decks`` defaults to the game's starter decks; ``matchups`` is "mirror" or "mixed"
    (see the module docstring). ``on_game(index, result)`` is called after every match
    (progress reporting), in game order.

    ``jobs`` > 1 plays the matches in that many worker processes (0: one per core). Every
    match depends only on its index, so the results are the same as with one job; the
    decision times are measured inside the workers.
    """
    players = players or len(bots)
    if not game.min_seats <= players <= game.max_seats:
        raise ValueError(f"{game.title} is played by {game.min_seats} to {game.max_seats} players, not {players}")
    if not bots or len(bots) > players:
        raise ValueError(f"{len(bots)} bots given for {players} players")
    if games < 1:
        raise ValueError("an arena needs at least one game")
    if matchups not in MATCHUPS:
        raise ValueError(f"matchups must be one of {', '.join(MATCHUPS)}, not {matchups!r}")
    if jobs < 0:
        raise ValueError("jobs must be 0 (one per core) or more")
    entries = [bots[i % len(bots)] for i in range(players)]
    instances = [make_bot(spec) for spec in entries]
    names = [bot.name for bot in instances]
    deck_pool = list(decks) if decks else list(game.starter_decks().values())
    records = {name: BotRecord(name) for name in dict.fromkeys(names)}
    result = ArenaResult(game=game.name, players=players, seed=seed, bots=names, records=records, matchups=matchups)
    setup = _Setup(game, entries, deck_pool, players, matchups, seed, params, decision_seconds)
    jobs = min(jobs or os.cpu_count() or 1, games)
    started = time.perf_counter()
    if jobs <= 1:
        matches = (setup.play(index, instances) for index in range(games))
        pool = None
    else:
        pool = _context().Pool(jobs, initializer=_init_worker, initargs=(setup,))
        matches = pool.imap(_play_in_worker, range(games))
    try:
        for index, match in enumerate(matches):
            seat_entries = seating(index, players, len(deck_pool), matchups)[1]
            _tally(result, match, [names[e] for e in seat_entries])
            if on_game is not None:
                on_game(index, match)
    finally:
        if pool is not None:
            pool.terminate()
    result.seconds = time.perf_counter() - started
    return result


@dataclass
class _Setup:
    """What one arena match needs besides its index (sent once to each worker process)."""

    game: Game
    entries: list[str]
    deck_pool: list[Decklist]
    players: int
    matchups: str
    seed: int
    params: Mapping[str, Any] | None
    decision_seconds: float | None

    def play(self, index: int, instances: list[Any]) -> MatchResult:
        block, seat_entries, seat_decks = seating(index, self.players, len(self.deck_pool), self.matchups)
        return play_match(
            self.game,
            [self.deck_pool[d] for d in seat_decks],
            [instances[e] for e in seat_entries],
            seed=self.seed + block,
            params=self.params,
            decision_seconds=self.decision_seconds,
        )


_WORKER: tuple[_Setup, list[Any]] | None = None


def _context():
    """Fork where the platform has it (workers start at once, with the parent's registries)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _init_worker(setup: _Setup) -> None:
    global _WORKER
    _WORKER = (setup, [make_bot(spec) for spec in setup.entries])


def _play_in_worker(index: int) -> MatchResult:
    assert _WORKER is not None
    setup, instances = _WORKER
    return setup.play(index, instances)


def _tally(result: ArenaResult, match: MatchResult, seat_names: list[str]) -> None:
    outcome = match.outcome
    result.games += 1
    result.actions += match.actions
    result.reasons[outcome.reason] = result.reasons.get(outcome.reason, 0) + 1
    firsts = sum(1 for p in outcome.places if p == 1)
    for seat, name in enumerate(seat_names):
        record = result.records[name]
        record.games += 1
        if outcome.places[seat] == 1:
            if firsts == 1:
                record.wins += 1
            else:
                record.draws += 1
        else:
            record.losses += 1
        record.decisions += match.decisions[seat]
        record.decision_seconds += match.decision_seconds[seat]
    for error in match.errors:
        result.records[seat_names[error.seat]].forfeits += 1
        result.errors.append(f"seed {match.replay.seed}: {error}")
