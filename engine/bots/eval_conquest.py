"""The hand-written evaluation of a Conquest position, for the greedy and search bots.

Conquest is a race for Conquest: at the end of each Battle every seat adds the CQ of its
face-up units to its Conquest Pool, and the match ranks by Pool. A seat's score is its
Pool plus what is likely to reach it, each term weighted by how sure it is:

- Pool: the Conquest already won (weight 1);
- CQ at stake per Location: the current CQ of each face-up unit (Ongoing abilities
  included; a Plagued unit counts its plague value), as it would score now (``BOARD``);
- face-down units and the picks of a placement being built: the card's estimated worth
  (``HIDDEN``);
- hand: the best units it can still place before the match ends (``HAND`` each, at most
  as many as there are Locations left to fill), Lightspeed cards (``LIGHTSPEED`` each)
  and Black Energy Fragments, which upload at the End of Battle (``FRAGMENT`` each);
- uploaded Fragments, which card text counts (``UPLOAD`` each);
- a Celestial: unplayed, a flat ``CELESTIAL_UNPLAYED`` (so that playing it must gain more
  than that); played, the worth of its Ongoing abilities for each Battle left
  (``ONGOING_PER_BATTLE`` times the abilities' estimated worth), since they last the match.

A card's estimated worth is its printed CQ plus a bonus per ability, from the kind of
effect, its amount and whether it helps its owner or hurts the opponents (:func:`worth`).

Before scoring, the position is settled: the current Skirmish is played out with a fast
default policy (:meth:`ConquestEvaluator.policy`: keep the opening hand, hold the Celestial,
place the unit of highest estimated worth at each Location, answer a revealed enemy unit
worth ``ANSWER_AT`` or more with the mildest Lightspeed card that destroys, mutes, plagues
or weakens it, else pass), so that face-down
units are revealed and their On Reveal abilities resolved against what is really there,
and at the end of a Battle the CQ is really added to the Pool.

The evaluation reads the state's public structure and, in a determinized sample, the
sampled hidden cards: it never sees more than the sample holds.
"""

from __future__ import annotations

from engine.bots.evaluation import play_out
from engine.conquest import GAME
from engine.conquest.cards import CardDef
from engine.conquest.pool import BY_ID, POOL
from engine.conquest.state import (
    CELESTIAL,
    IS_FRAGMENT,
    IS_LIGHTSPEED,
    IS_UNIT,
    KEEP_ACTION,
    MULLIGAN,
    PASS_ACTION,
    PLACEMENT,
    RESPONSE,
    ConquestState,
)
from engine.core import Action

BOARD = 1.0
HIDDEN = 0.85
HAND = 0.45
LIGHTSPEED = 1.2
FRAGMENT = 0.5
UPLOAD = 0.5
CELESTIAL_UNPLAYED = 1.0
ONGOING_PER_BATTLE = 1.0

# Worth of one effect, per unit of its amount, by who it touches: (helps you, hurts them).
_EFFECT_WORTH = {
    "destroy": 2.2,
    "mute": 1.2,
    "plague": 2.0,
    "move": 0.8,
    "add_cq": 1.0,
    "set_cq": 2.0,
    "create_location": 0.3,
    "draw": 0.7,
    "discard": 0.7,
    "change_param": 0.0,
    "upload": 0.5,
    "gain_conquest": 1.0,
}
# Counters ("for each ...") are worth about this many of the effect's amount.
_PER_COUNT = 1.5
# "allies" selectors reach about this many units; one unit for the singular ones.
_AREA = 1.5
# Abilities by kind, scaled: When Destroyed rarely fires; End of Battle always does.
_KIND = {"on_reveal": 1.0, "ongoing": 1.0, "end_of_battle": 1.0, "when_destroyed": 0.3, "effects": 1.0}


def _effect_worth(eff) -> float:
    base = _EFFECT_WORTH.get(eff.name, 0.0)
    amount = abs(eff.amount) if eff.name in ("add_cq", "draw", "discard", "gain_conquest") else 1
    value = base * amount * (_PER_COUNT if eff.per else 1.0)
    target = eff.target or ""
    if target in ("self", "revealed"):
        spread = 1.0
    elif target.startswith(("strongest", "weakest")):
        spread = 1.0
    elif target:
        spread = _AREA
    else:
        spread = 1.0
    value *= spread
    # Who gains: an effect on enemies or opponents helps when it harms; on allies when it helps.
    harmful = eff.name in ("destroy", "mute", "plague", "set_cq", "discard", "move") or (
        eff.name == "add_cq" and eff.amount < 0)
    on_enemy = "enemy" in target or "enemies" in target or eff.who == "opponents"
    if eff.name == "move" and target == "self":
        return 0.0
    if eff.who == "each":
        return 0.0
    if target == "self" and eff.name == "add_cq":
        return value if eff.amount > 0 else -value
    return value if harmful == on_enemy else -value


def worth(card: CardDef) -> float:
    """A unit's estimated CQ: printed CQ plus its abilities' bonuses."""
    total = float(card.cq or 0)
    for kind, factor in _KIND.items():
        for eff in getattr(card, kind, ()):
            total += factor * _effect_worth(eff)
    return total


WORTH = [worth(card) if card.type == "unit" else 0.0 for card in POOL]
# Lightspeed cards that answer the revealed unit: card index -> (strength, max CQ or None).
ANSWERS: dict[int, tuple[float, int | None]] = {}
for _card in POOL:
    if _card.type == "lightspeed":
        for _eff in _card.effects:
            if _eff.target == "revealed" and (_eff.name in ("destroy", "mute", "plague")
                                              or (_eff.name == "add_cq" and _eff.amount < 0)):
                ANSWERS[_card.index] = (_effect_worth(_eff), _eff.max_cq)
                break
#: The settling policy answers a revealed enemy unit worth at least this much.
ANSWER_AT = 4.0
# The worth of a Celestial's Ongoing abilities for one Battle.
ONGOING = [sum(_effect_worth(eff) for eff in card.ongoing) if card.type == "celestial" else 0.0 for card in POOL]


def _slots_left(state: ConquestState, seat: int) -> int:
    """Locations ``seat`` can still fill before the match ends (a bound for hand value)."""
    params = state.params
    future = (params.battles - state.battle) * params.total_locations
    if state.phase == PLACEMENT and not state.submitted[seat]:
        now = len(state.place_locs[seat]) - len(state.picks[seat])
        if state.skirmish == 0:
            now += params.rear_locations
    elif state.skirmish == 0 and state.phase in (MULLIGAN, CELESTIAL):
        now = params.total_locations
    elif state.skirmish == 0:
        now = params.rear_locations
    elif state.phase == CELESTIAL:
        now = params.rear_locations
    else:
        now = 0
    return now + future


class ConquestEvaluator:
    """Per-seat scores in Conquest points; see the module docstring for the terms."""

    scale = 4.0
    #: The policy below is a fair model of a whole opponent (search may let others follow it).
    models_opponents = True

    def settle(self, state: ConquestState) -> ConquestState:
        """Play out the current Skirmish (of the current Battle) with :meth:`policy`."""
        mark = (state.battle, state.skirmish)
        return play_out(state, self.policy, lambda s: (s.battle, s.skirmish) == mark)

    def observed(self, actor: int, action: Action) -> object:
        """What the other seats see of ``actor`` taking ``action``: the game's own answer
        (``ConquestGame.observed_action``: a pick shows only whether a unit goes there)."""
        return GAME.observed_action(actor, action)

    def policy(self, state: ConquestState, seat: int, legal: list[Action]) -> Action:
        """Keep, hold the Celestial, place the best unit, pass: fast and deterministic."""
        phase = state.phase
        if phase == PLACEMENT:
            best = legal[0]
            best_worth = 0.0
            for action in legal[1:]:
                value = WORTH[BY_ID[action.params[0][1]].index]
                if value > best_worth:
                    best, best_worth = action, value
            return best
        if phase == MULLIGAN:
            return KEEP_ACTION
        if phase == RESPONSE and len(legal) > 1:
            return self._answer(state, legal)
        return PASS_ACTION if PASS_ACTION in legal else legal[0]

    def _answer(self, state: ConquestState, legal: list[Action]) -> Action:
        """Answer a revealed unit worth ``ANSWER_AT`` or more with the mildest card that does."""
        unit = state.locations[state.win_loc].slots[state.win_seat]
        if unit is None or WORTH[unit.card] < ANSWER_AT:
            return PASS_ACTION
        best = PASS_ACTION
        best_strength = 0.0
        for action in legal:
            if action.kind != "respond":
                continue
            answer = ANSWERS.get(BY_ID[action.params[0][1]].index)
            if answer is None or (answer[1] is not None and (POOL[unit.card].cq or 0) > answer[1]):
                continue
            if best is PASS_ACTION or answer[0] < best_strength:
                best, best_strength = action, answer[0]
        return best

    def scores(self, state: ConquestState) -> list[float]:
        table = state.cq_table()
        plague = state.params.plague_value
        scores = [float(p.conquest) for p in state.players]
        battles_left = state.params.battles - state.battle + (0.5 if state.skirmish else 1.0)
        for loc in state.locations:
            for seat, unit in enumerate(loc.slots):
                if unit is None:
                    continue
                if unit.face_up:
                    scores[seat] += BOARD * (plague if unit.plagued else table[unit.uid])
                else:
                    scores[seat] += HIDDEN * WORTH[unit.card]
        for seat, player in enumerate(state.players):
            if state.phase == PLACEMENT:
                for card in state.picks[seat]:
                    if card >= 0:
                        scores[seat] += HIDDEN * WORTH[card]
            picked = [c for c in state.picks[seat] if c >= 0] if state.phase == PLACEMENT else []
            units = []
            extra = 0.0
            for card in player.hand:
                if IS_UNIT[card]:
                    if card in picked:
                        picked.remove(card)
                        continue
                    units.append(WORTH[card])
                elif IS_LIGHTSPEED[card]:
                    extra += LIGHTSPEED
                elif IS_FRAGMENT[card]:
                    extra += FRAGMENT
            units.sort(reverse=True)
            scores[seat] += HAND * sum(units[:_slots_left(state, seat)]) + extra
            scores[seat] += UPLOAD * len(player.uploads)
            if not player.celestial_played:
                scores[seat] += CELESTIAL_UNPLAYED
            elif ONGOING[player.celestial]:
                scores[seat] += ONGOING_PER_BATTLE * ONGOING[player.celestial] * battles_left
        return scores


EVALUATOR = ConquestEvaluator()
