"""Why an action is illegal: the message and the rule it breaks.

Legality itself is defined in one place, ``TempoState.legal_actions``; this module only
runs when ``apply`` refuses an action, to tell the player, bot author or test *why*, with
the name of the rule ("T3 Time costs", "Exact rule: Shift").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.core import Action, IllegalAction
from engine.tempofront.cards import ATTACHMENT, CARDS, ENTITY, REACTION, SITE, TACTIC, TYPE_TITLES
from engine.tempofront.state import ADJACENT, FRONT_INDEX, ROW_INDEX, SEAT, parse_pos

if TYPE_CHECKING:  # pragma: no cover
    from engine.tempofront.state import TempoState

_CARD_KINDS = {"deploy": ENTITY, "play": TACTIC, "attach": ATTACHMENT, "site": SITE, "react": REACTION}
_KNOWN = {"keep", "mulligan", "pass", "deploy", "play", "attach", "site", "strike", "shift", "activate", "leader",
          "prepare", "react", "take"}
_PARAMS = {
    "keep": set(), "mulligan": set(), "pass": set(), "leader": {"target"}, "prepare": {"card"},
    "take": {"card"}, "deploy": {"card", "front", "row", "target"}, "play": {"card", "target"},
    "attach": {"card", "target"}, "site": {"card", "front", "target"}, "react": {"card", "target"},
    "strike": {"front", "row", "target"}, "shift": {"front", "row", "to_front", "to_row"},
    "activate": {"front", "row", "target"},
}


def explain(state: TempoState, seat: int, action: Action) -> IllegalAction:
    """An :class:`IllegalAction` for an action that ``legal_actions(seat)`` does not list."""
    if state.outcome is not None:
        return IllegalAction("the match is over", "T10 End")
    if seat not in (0, 1):
        return IllegalAction(f"there is no seat {seat} in this match", "seats")
    kind = action.kind
    if kind not in _KNOWN:
        return IllegalAction(f"'{kind}' is not a TempoFront action", "actions")
    extra = {k for k, _ in action.params} - _PARAMS[kind]
    if extra:
        return IllegalAction(f"'{kind}' takes no parameter {', '.join(sorted(extra))}", "actions")
    phase = state.phase
    acting = state.to_act()
    if seat not in acting:
        if phase in ("response", "counter"):
            return IllegalAction(f"{SEAT[acting[0]]} decides now whether to respond", "T5 Reactions")
        if phase == "mulligan":
            return IllegalAction(f"{SEAT[acting[0]]} decides on a mulligan first", "T1 Setup")
        if phase == "scout":
            return IllegalAction(f"{SEAT[acting[0]]} is choosing a scouted card", "Exact rule: Scout")
        return IllegalAction(f"it is {SEAT[acting[0]]}'s turn to act: less Time acts first, ties to the "
                             "Initiative holder", "T4 Who acts")
    if phase == "mulligan":
        return IllegalAction("choose 'keep' or 'mulligan' first", "T1 Setup")
    if phase == "scout":
        if kind != "take":
            return IllegalAction("choose one of the scouted cards to take", "Exact rule: Scout")
        return IllegalAction(f"{action.get('card')!r} is not among the cards you are looking at", "Exact rule: Scout")
    if phase in ("response", "counter"):
        if kind not in ("react", "pass"):
            return IllegalAction("in a response window you may only play a Reaction or pass", "T5 Reactions")
        return _explain_card(state, seat, action, reaction=True)
    if kind in ("keep", "mulligan"):
        return IllegalAction("the mulligan is over", "T1 Setup")
    if kind == "take":
        return IllegalAction("you are not scouting", "Exact rule: Scout")
    if kind == "react":
        return IllegalAction("Reactions are played only in a response window", "T5 Reactions")
    if kind in _CARD_KINDS or kind == "prepare":
        return _explain_card(state, seat, action, reaction=False)
    if kind in ("strike", "shift", "activate"):
        return _explain_unit(state, seat, action)
    if kind == "leader":
        ability = state.players[seat].leader.activated
        if ability is None:
            return IllegalAction("your Leader has no activated ability", "T16 Leaders")
        if ability.once and state.players[seat].leader_used:
            return IllegalAction("your Leader's ability was already used this Cycle", "T16 Leaders")
        return _costs(state, seat, ability.focus, ability.time) or _bad_target(action)
    return IllegalAction(f"{action} is not legal now", "legal actions")


def _a(word: str) -> str:
    return ("an " if word[0] in "AEIOU" else "a ") + word


def _costs(state: TempoState, seat: int, focus: int, time: int) -> IllegalAction | None:
    p = state.players[seat]
    if focus > p.focus:
        return IllegalAction(f"it costs {focus} Focus and you have {p.focus}", "Exact rule: Focus")
    if p.time + time > state.params.timeline:
        return IllegalAction(f"it needs {time} Time and you are at {p.time} of {state.params.timeline}",
                             "T3 Time costs")
    return None


def _bad_target(action: Action) -> IllegalAction:
    return IllegalAction(f"{action.get('target')!r} is not a legal target for this action", "targets")


def _explain_card(state: TempoState, seat: int, action: Action, *, reaction: bool) -> IllegalAction:
    p = state.players[seat]
    kind = action.kind
    cid = action.get("card")
    card = CARDS.get(cid) if isinstance(cid, str) else None
    if card is None:
        return IllegalAction(f"there is no card with id {cid!r}", "cards")
    if cid not in p.hand and cid not in p.reserve:
        return IllegalAction(f"you have no {card.name} in hand or in your Reserve", "cards")
    if kind == "prepare":
        if cid not in p.hand:
            return IllegalAction(f"you have no {card.name} in hand to Prepare", "Exact rule: Prepare")
        if not card.preparable:
            return IllegalAction(f"{card.name} has no printed Prepare discount", "T15 Prepare")
        return _costs(state, seat, 0, state.params.prepare_time) or IllegalAction(f"{action} is not legal now",
                                                                               "legal actions")
    expected = _CARD_KINDS[kind]
    if card.type != expected:
        rule = "T5 Reactions" if REACTION in (card.type, expected) else "card types"
        return IllegalAction(f"{card.name} is {_a(TYPE_TITLES[card.type])}, not {_a(TYPE_TITLES[expected])}", rule)
    focus, time, _ = state._cost(p, card)
    problem = _costs(state, seat, focus, time)
    if problem:
        return IllegalAction(problem.message, "T5 Reactions" if reaction and problem.rule == "T3 Time costs"
                             else problem.rule)
    if reaction:
        pending = state.chain[-1]
        if card.react_to is not None and pending.kind not in card.react_to:
            return IllegalAction(f"{card.name} cannot respond to {state.item_words(pending)}",
                                 "Exact rule: Response")
        if card.needs_actor:
            return IllegalAction(f"{card.name} needs an acting Entity on the board", "Exact rule: Response")
        return _bad_target(action)
    if kind == "deploy":
        front, row = action.get("front"), action.get("row")
        if front not in FRONT_INDEX or row not in ROW_INDEX:
            return IllegalAction(f"{front!r} {row!r} is not a slot (left/center/right, vanguard/support)",
                                 "Exact rule: Fronts")
        if state.board[seat][FRONT_INDEX[front] * 2 + ROW_INDEX[row]] is not None:
            return IllegalAction(f"your {front} {row} slot is taken", "Exact rule: Deploy")
    if kind == "site" and action.get("front") not in FRONT_INDEX:
        return IllegalAction(f"{action.get('front')!r} is not a Front", "T13 Sites")
    if kind == "attach":
        where = parse_pos(action.get("target"))
        if where is None or where[0] != "unit" or state.board[where[1]][where[2]] is None:
            return IllegalAction(f"{action.get('target')!r} is not an Entity to attach to", "T14 Attachments")
        wanted = seat if card.attach_to == "friendly" else 1 - seat
        if where[1] != wanted:
            return IllegalAction(f"{card.name} attaches to {card.attach_to} Entities only", "T14 Attachments")
    return _bad_target(action)


def _explain_unit(state: TempoState, seat: int, action: Action) -> IllegalAction:
    kind = action.kind
    front, row = action.get("front"), action.get("row")
    rule = {"strike": "Exact rule: Strike", "shift": "Exact rule: Shift", "activate": "activated abilities"}[kind]
    if front not in FRONT_INDEX or row not in ROW_INDEX:
        return IllegalAction(f"{front!r} {row!r} is not a slot (left/center/right, vanguard/support)", rule)
    slot = FRONT_INDEX[front] * 2 + ROW_INDEX[row]
    unit = state.board[seat][slot]
    if unit is None:
        return IllegalAction(f"you have no Entity in your {front} {row} slot", rule)
    name = unit.card.name
    prm = state.params
    if kind == "strike":
        if unit.structure:
            return IllegalAction(f"{name} is a Structure and cannot Strike", "Exact rule: Structure")
        if unit.stun:
            return IllegalAction(f"{name} is Stunned and cannot Strike", "Exact rule: Stun")
        if not unit.ready:
            return IllegalAction(f"{name} is not ready (deployed or struck this Cycle)", "T6 Readiness")
        if slot & 1 and not unit.ranged:
            return IllegalAction(f"{name} is in Support and is not Ranged", "Exact rule: Ranged")
        if unit.power <= 0:
            return IllegalAction(f"{name} has no Power to strike with", "Exact rule: Strike")
        return _costs(state, seat, 0, prm.strike_time) or IllegalAction(
            f"{action.get('target')!r} is not the target: a Strike hits the nearest enemy (Vanguard, then Support, "
            "then the Leader); only a Ranged Entity picks an Entity", "Exact rule: Strike")
    if kind == "shift":
        if unit.structure:
            return IllegalAction(f"{name} is a Structure and cannot Shift", "Exact rule: Structure")
        if unit.root:
            return IllegalAction(f"{name} is Rooted and cannot Shift", "Exact rule: Root")
        if unit.shifted:
            return IllegalAction(f"{name} has already Shifted this Cycle", "T17 Shift")
        to_front, to_row = action.get("to_front"), action.get("to_row")
        if to_front not in FRONT_INDEX or to_row not in ROW_INDEX:
            return IllegalAction(f"{to_front!r} {to_row!r} is not a slot", "T17 Shift")
        if FRONT_INDEX[to_front] not in ADJACENT[slot >> 1]:
            return IllegalAction(f"the {to_front} Front is not adjacent to the {front} Front", "T17 Shift")
        if state.board[seat][FRONT_INDEX[to_front] * 2 + ROW_INDEX[to_row]] is not None:
            return IllegalAction(f"your {to_front} {to_row} slot is taken", "T17 Shift")
        cost = prm.shift_time_mobile if unit.mobile else prm.shift_time
        return _costs(state, seat, 0, cost) or IllegalAction(f"{action} is not legal now", "Exact rule: Shift")
    ability = unit.card.activated
    if ability is None:
        return IllegalAction(f"{name} has no activated ability", rule)
    if unit.silence:
        return IllegalAction(f"{name} is Silenced: its abilities do not activate", "Exact rule: Silence")
    if unit.stun:
        return IllegalAction(f"{name} is Stunned: its abilities cannot be used", "Exact rule: Stun")
    if ability.once and unit.used:
        return IllegalAction(f"{name}'s ability was already used this Cycle", rule)
    return _costs(state, seat, ability.focus, ability.time) or _bad_target(action)
