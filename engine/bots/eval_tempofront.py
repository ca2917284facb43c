"""The hand-written evaluation of a TempoFront position, for the greedy and search bots.

A match is won at 6 Dominion (two Fronts held at a Cycle's scoring) or by breaking the
enemy Leader's Integrity. A seat's score adds, in points of roughly "one Dominion = 3":

- Dominion: ``DOMINION`` per point;
- Integrity: ``INTEGRITY`` per point, and ``DANGER`` more per point below ``DANGER_LINE``
  (the last points are the ones that lose the match);
- Presence per Front: ``FRONT`` x tanh(margin / 2) for each Front, where margin is the
  seat's Presence there minus the opponent's; plus ``HOLD_TWO`` when the seat holds at
  least two Fronts, which would score a Dominion at the Cycle's end;
- board strength: per Entity, ``BODY`` plus ``POWER`` per Power, ``VITALITY`` per
  Vitality left (after damage), ``ARMOR`` per Armor and ``BARRIER`` for a Barrier;
- pressure: ``THREAT`` per Power of each Entity that could Strike the enemy Leader
  (on a Front where the enemy has no Entity, from the Vanguard or Ranged);
- cards: ``CARD`` per card in hand or Reserve.

Before scoring, pending windows are settled: a declared action waiting for a Response or
a Counter-Response resolves with both seats passing, a Scout takes its first card, so the
action's effect is what gets scored.

The evaluation reads a determinized sample's full state: it never sees more than the
sample holds.
"""

from __future__ import annotations

import math

from engine.bots.evaluation import play_out
from engine.core import Action
from engine.tempofront import GAME
from engine.tempofront.state import KEEP, PASS, TempoState

DOMINION = 3.0
INTEGRITY = 0.5
DANGER = 0.8
DANGER_LINE = 8
FRONT = 0.8
HOLD_TWO = 1.5
BODY = 0.5
POWER = 0.35
VITALITY = 0.2
ARMOR = 0.4
BARRIER = 0.4
THREAT = 0.3
CARD = 0.7

_WINDOWS = ("response", "counter", "scout", "mulligan")


class TempoFrontEvaluator:
    """Per-seat scores; see the module docstring for the terms."""

    scale = 3.0

    def settle(self, state: TempoState) -> TempoState:
        """Close open windows (everyone passes) so that declared actions resolve."""
        return play_out(state, self.policy, lambda s: s.phase in _WINDOWS)

    def observed(self, actor: int, action: Action) -> object:
        """What the other seat sees of ``actor`` taking ``action``: the game's own answer
        (``TempoFrontGame.observed_action``)."""
        return GAME.observed_action(actor, action)

    def policy(self, state: TempoState, seat: int, legal: list[Action]) -> Action:
        """Pass in windows, keep opening hands, take the first card scouted."""
        if PASS in legal:
            return PASS
        if KEEP in legal:
            return KEEP
        return legal[0]

    def scores(self, state: TempoState) -> list[float]:
        params = state.params
        presence = state.presence()
        out = []
        for seat in (0, 1):
            foe = 1 - seat
            me = state.players[seat]
            score = DOMINION * me.dominion
            score += INTEGRITY * me.integrity + DANGER * min(0, me.integrity - DANGER_LINE)
            held = 0
            for front in range(3):
                margin = presence[seat][front] - presence[foe][front]
                score += FRONT * math.tanh(margin / 2)
                held += margin > 0
            if held >= params.fronts_for_dominion:
                score += HOLD_TWO
            enemy = state.board[foe]
            for unit in state.board[seat]:
                if unit is None:
                    continue
                score += (BODY + POWER * unit.power + VITALITY * max(0, unit.vitality - unit.damage)
                          + ARMOR * unit.armor + (BARRIER if unit.barrier else 0.0))
                front = unit.slot >> 1
                if (unit.power > 0 and not unit.structure and (not unit.slot & 1 or unit.ranged)
                        and enemy[2 * front] is None and enemy[2 * front + 1] is None):
                    score += THREAT * unit.power
            score += CARD * (len(me.hand) + len(me.reserve))
            out.append(score)
        return out


EVALUATOR = TempoFrontEvaluator()
