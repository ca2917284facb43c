"""Bot benchmarks: strength (who beats whom, how often) and speed (decision time, games/hour).

:func:`bot_benchmarks` runs every measurement that issue 5 names and returns a dict whose
``"markdown"`` entry is a ready-made section for the results file; ``make bench`` calls it.
Each strength pairing records the exact ``python -m engine arena`` command that reproduces
it. Strength pairings may play their matches in several worker processes (``jobs``; the
results are the same as in one); decision speed and games per hour are measured in one
process on one core, one match after another.

Strength targets (win = alone in first place):

- greedy beats random in at least 90% of games (each game, 2 players);
- search:strong beats greedy in at least 70% of games (each game, 2 players);
- in Conquest with 4 players, search:strong against three greedy wins clearly more often
  than one game in four: the lower end of its 95% interval is above 25%.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import games as game_registry
from engine.bots.arena import run_arena
from engine.core import Game

#: Bot levels timed for decision speed and games per hour.
SPEED_LEVELS = ("random", "greedy", "search:fast", "search:strong")


@dataclass(frozen=True)
class Pairing:
    """One strength measurement: ``bots[0]`` is measured against the rest."""

    game: str
    bots: tuple[str, ...]
    target: float
    #: "rate": the win rate must reach ``target``; "lower": the 95% interval's lower end must exceed it.
    test: str = "rate"
    #: Games for this pairing when it must differ from the run's ``games_per_pairing`` (at most that).
    games: int | None = None

    @property
    def players(self) -> int:
        return len(self.bots)

    def command(self, games: int, seed: int, jobs: int = 1) -> str:
        return (f"python -m engine arena --game {self.game} --bots {','.join(self.bots)} "
                f"--games {games} --seed {seed}" + (f" --jobs {jobs}" if jobs != 1 else ""))

    def describe(self) -> str:
        opponents = self.bots[1:]
        against = opponents[0] if len(opponents) == 1 else f"{len(opponents)} x {opponents[0]}"
        goal = f">= {self.target:.0%}" if self.test == "rate" else f"95% CI above {self.target:.0%}"
        return f"{self.bots[0]} vs {against} ({self.players} players): win rate {goal}"


PAIRINGS = (
    Pairing("tempofront", ("greedy", "random"), 0.90),
    Pairing("tempofront", ("search:strong", "greedy"), 0.70),
    Pairing("conquest", ("greedy", "random"), 0.90),
    Pairing("conquest", ("search:strong", "greedy"), 0.70),
    # A four-player game costs search:strong about 130 decisions of about a second each: 96
    # games (every seat with every starter deck six times) take about 2 h 10 min on two cores.
    # Fewer games leave the 95% interval too wide to clear 25% even at a 38% win rate.
    Pairing("conquest", ("search:strong", "greedy", "greedy", "greedy"), 0.25, test="lower", games=96),
)


def bot_benchmarks(
    *,
    games_per_pairing: int = 100,
    speed_games: int = 4,
    seed: int = 1,
    game_names: Sequence[str] = ("tempofront", "conquest"),
    progress: Callable[[str], None] | None = None,
    pairings: Sequence[Pairing] = PAIRINGS,
    registry: Mapping[str, Game] | None = None,
    jobs: int = 1,
) -> dict[str, Any]:
    """Run the strength pairings and the speed measurements; return results and Markdown.

    ``games_per_pairing``: matches per strength pairing (use a multiple of players x starter
    decks for perfectly even seating). ``speed_games``: self-play matches per bot level and
    game for games per hour (random plays at least 20). ``progress(line)`` gets one line
    per finished measurement. ``jobs``: worker processes per strength pairing (0: one per
    core).

    Returns ``{"pairings": [...], "speed": [...], "all_targets_met": bool, "markdown": str}``;
    each pairing holds its description, command, target, whether it was met, and the
    arena's JSON result; each speed row holds game, bot, games, mean decision seconds,
    decisions per game (both seats together) and games per hour.
    """
    say = progress or (lambda line: None)
    registry = registry if registry is not None else game_registry
    rows = []
    for pairing in pairings:
        if pairing.game not in game_names:
            continue
        count = min(pairing.games or games_per_pairing, games_per_pairing)
        arena = run_arena(registry[pairing.game], list(pairing.bots), games=count, seed=seed, jobs=jobs)
        record = arena.records[pairing.bots[0]]
        low, _ = record.ci95
        met = record.win_rate >= pairing.target if pairing.test == "rate" else low > pairing.target
        row = {
            "game": pairing.game,
            "players": pairing.players,
            "measure": pairing.describe(),
            "command": pairing.command(count, seed, jobs),
            "games": count,
            "target": pairing.target,
            "test": pairing.test,
            "met": met,
            "win_rate": round(record.win_rate, 4),
            "ci95": [round(x, 4) for x in record.ci95],
            "arena": arena.to_json(),
        }
        rows.append(row)
        say(f"{pairing.game}: {pairing.describe()}: {record.win_rate:.1%} "
            f"(95% CI {record.ci95[0]:.1%}-{record.ci95[1]:.1%}) {'met' if met else 'NOT met'}")
    speed = []
    for name in game_names:
        game = registry[name]
        for level in SPEED_LEVELS:
            count = max(speed_games, 20) if level == "random" else speed_games
            started = time.perf_counter()
            arena = run_arena(game, [level, level], games=count, seed=seed)
            elapsed = time.perf_counter() - started
            record = arena.records[level]
            row = {
                "game": name,
                "bot": level,
                "games": count,
                "mean_decision_seconds": round(record.mean_decision_seconds, 6),
                "decisions_per_game": round(record.decisions / count, 1),
                "seconds_per_game": round(elapsed / count, 3),
                "games_per_hour": round(3600 * count / elapsed),
                "command": f"python -m engine arena --game {name} --bots {level},{level} "
                           f"--games {count} --seed {seed}",
            }
            speed.append(row)
            say(f"{name}: {level} self-play: {row['mean_decision_seconds'] * 1000:.2f} ms per decision, "
                f"{row['games_per_hour']} games per hour")
    result = {
        "games_per_pairing": games_per_pairing,
        "seed": seed,
        "jobs": jobs,
        "pairings": rows,
        "speed": speed,
        "all_targets_met": all(p["met"] for p in rows),
    }
    result["markdown"] = benchmarks_markdown(result)
    return result


def benchmarks_markdown(result: dict[str, Any]) -> str:
    """A Markdown section from :func:`bot_benchmarks`'s result."""
    lines = ["## Bots", "", "### Strength", "",
             f"Games from seed {result['seed']}, seats and starter decks rotated evenly (mirror matches). "
             "A win is first place alone; draws count as not won. Matches played in parallel worker "
             "processes give the same results as in one.", "",
             "| game | measure | games | win rate | 95% CI | target met | command |",
             "|---|---|---|---|---|---|---|"]
    for p in result["pairings"]:
        low, high = p["ci95"]
        lines.append(f"| {p['game']} | {p['measure']} | {p['games']} | {p['win_rate']:.1%} | {low:.1%}-{high:.1%} | "
                     f"{'yes' if p['met'] else 'NO'} | `{p['command']}` |")
    lines += ["", "### Speed (one core, self-play, 2 players)", "",
              "| game | bot | mean decision | decisions per game (both seats) | games per hour | command |",
              "|---|---|---|---|---|---|"]
    for s in result["speed"]:
        lines.append(f"| {s['game']} | {s['bot']} | {s['mean_decision_seconds'] * 1000:.2f} ms | "
                     f"{s['decisions_per_game']} | {s['games_per_hour']:,} | `{s['command']}` |")
    return "\n".join(lines) + "\n"
