"""The figures of a lab run, from its matches alone (pure: no database, no Django).

A match scores 1 for a win, 1/2 for a draw and 0 for a loss; a *win rate* is the mean
score. Its 95% interval is Wilson's score interval, which stays inside [0, 1] and is
honest for small samples and rates near 0 or 1, where the normal approximation is not.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054
#: An interval wider than this (10 points) says "needs more games".
WIDE = 0.10

SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def wilson(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for ``score`` successes in ``n`` trials: ``(low, high)``;
    ``(0.0, 1.0)`` for no trial."""
    if n <= 0:
        return 0.0, 1.0
    p = score / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    """Matches, wins, draws, losses and the win rate with its interval."""

    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, outcome: str) -> None:
        self.matches += 1
        if outcome == "win":
            self.wins += 1
        elif outcome == "draw":
            self.draws += 1
        else:
            self.losses += 1

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2

    @property
    def win_rate(self) -> float | None:
        return self.score / self.matches if self.matches else None

    def to_json(self) -> dict[str, Any]:
        low, high = wilson(self.score, self.matches)
        return {"matches": self.matches, "wins": self.wins, "draws": self.draws, "losses": self.losses,
                "win_rate": self.win_rate, "low": low if self.matches else None,
                "high": high if self.matches else None,
                "needs_more_games": high - low > WIDE}


def run_figures(rows: Iterable[Mapping[str, Any]], *, deck_cards: Sequence[str]) -> dict[str, Any]:
    """Every figure of a run from its match rows (each with ``outcome``, ``deck_seat``,
    ``opponent_version_id``, ``actions``, ``ending`` and ``usage``).

    ``overall`` and ``by_seat`` (``play``: seat 0, ``draw``: the others) and
    ``by_opponent`` (keyed by opponent version id) are :class:`Tally` JSON; ``cards`` lists
    each of ``deck_cards`` (the deck's card names, in decklist order) with the games in
    which it was drawn and played, the win rates then, and each minus the overall win rate
    (``improvement_drawn``, ``improvement_played``); ``average_actions`` and ``endings``
    (how many games ended each way, the most common first)."""
    overall = Tally()
    seats = {"play": Tally(), "draw": Tally()}
    opponents: dict[int, Tally] = {}
    drawn: dict[str, Tally] = {card: Tally() for card in deck_cards}
    played: dict[str, Tally] = {card: Tally() for card in deck_cards}
    endings: Counter[str] = Counter()
    actions = 0
    for row in rows:
        outcome = row["outcome"]
        overall.add(outcome)
        seats["play" if row["deck_seat"] == 0 else "draw"].add(outcome)
        opponents.setdefault(row["opponent_version_id"], Tally()).add(outcome)
        usage = (row.get("usage") or {}).get("deck") or {}
        for card in usage.get("drawn") or ():
            drawn.setdefault(card, Tally()).add(outcome)
        for card in usage.get("played") or ():
            played.setdefault(card, Tally()).add(outcome)
        endings[row.get("ending") or "unknown"] += 1
        actions += row.get("actions") or 0
    mean = overall.win_rate

    def improvement(tally: Tally) -> float | None:
        return None if mean is None or tally.win_rate is None else tally.win_rate - mean

    cards = []
    for card in dict.fromkeys([*deck_cards, *drawn, *played]):
        d, p = drawn.get(card, Tally()), played.get(card, Tally())
        cards.append({"card": card, "drawn": d.matches, "played": p.matches,
                      "win_rate_drawn": d.win_rate, "win_rate_played": p.win_rate,
                      "improvement_drawn": improvement(d), "improvement_played": improvement(p)})
    return {
        "overall": overall.to_json(),
        "by_seat": {name: tally.to_json() for name, tally in seats.items()},
        "by_opponent": {key: tally.to_json() for key, tally in opponents.items()},
        "cards": cards,
        "average_actions": actions / overall.matches if overall.matches else None,
        "endings": [{"ending": ending, "matches": n} for ending, n in endings.most_common()],
    }
