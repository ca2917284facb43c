"""Conquest's effect vocabulary: every card ability is a list of these, implemented once.

A card file names effects with parameters (``{ effect = "destroy", target =
"weakest_enemy_here" }``). This module holds, for each effect, the parameters it takes,
the function that performs it and the words that describe it; for each *target selector*
the units it picks; for each *counter* ("for each Fragment in your Upload Zone") what it
counts. Nothing chooses targets: a selector names them (see engine/conquest/site/rules.md,
ruling R-Targets), so abilities resolve without questions to the players.

Effect functions have the signature ``fn(state, ctx, effect, events)``; ``ctx`` says who
controls the ability, which unit is its source, at which Location it resolves and, for a
Lightspeed response, which unit was revealed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - imports for type names only
    from engine.conquest.state import ConquestState, Unit

# --------------------------------------------------------------------------- context


class Ctx:
    """Who and where an ability resolves for.

    ``seat``: the controller ("you"). ``unit``: the source unit (None for Lightspeed,
    Celestials and When Destroyed, whose source has left the board). ``loc``: the index of
    the Location "here" means (None for Celestials). ``revealed``: the unit whose reveal
    opened the response window (Lightspeed only).
    """

    __slots__ = ("seat", "unit", "loc", "revealed")

    def __init__(self, seat: int, unit: Unit | None = None, loc: int | None = None, revealed: Unit | None = None):
        self.seat = seat
        self.unit = unit
        self.loc = loc
        self.revealed = revealed


# --------------------------------------------------------------------------- selectors

# name -> (pick, side, scope). pick: all | strongest | weakest | self | revealed;
# side: ally | enemy | any; scope: here | battle | forward | rear | extra.
SELECTORS: dict[str, tuple[str, str, str]] = {
    "self": ("self", "ally", "here"),
    "revealed": ("revealed", "any", "here"),
    "allies_here": ("all", "ally", "here"),
    "enemies_here": ("all", "enemy", "here"),
    "others_here": ("all", "any", "here"),
    "strongest_enemy_here": ("strongest", "enemy", "here"),
    "weakest_enemy_here": ("weakest", "enemy", "here"),
    "all_allies": ("all", "ally", "battle"),
    "all_enemies": ("all", "enemy", "battle"),
    "strongest_enemy": ("strongest", "enemy", "battle"),
    "weakest_enemy": ("weakest", "enemy", "battle"),
    "forward_allies": ("all", "ally", "forward"),
    "forward_enemies": ("all", "enemy", "forward"),
    "strongest_forward_enemy": ("strongest", "enemy", "forward"),
    "weakest_forward_enemy": ("weakest", "enemy", "forward"),
    "rear_allies": ("all", "ally", "rear"),
    "rear_enemies": ("all", "enemy", "rear"),
    "strongest_rear_enemy": ("strongest", "enemy", "rear"),
    "weakest_rear_enemy": ("weakest", "enemy", "rear"),
    "extra_allies": ("all", "ally", "extra"),
    "extra_enemies": ("all", "enemy", "extra"),
}

_SCOPE_WORDS = {"here": " here", "battle": "", "forward": " in the Forward Skirmish",
                "rear": " in the Rear Skirmish", "extra": " at Extra Locations"}


def selector_text(name: str, *, has_source: bool) -> str:
    """The words for a selector: "the weakest enemy unit here", "your other units"."""
    pick, side, scope = SELECTORS[name]
    where = _SCOPE_WORDS[scope]
    if pick == "self":
        return "this unit"
    if pick == "revealed":
        return "the revealed unit"
    if pick in ("strongest", "weakest"):
        return f"the {pick} enemy unit{where}"
    if side == "ally":
        return f"your {'other ' if has_source else ''}units{where}"
    if side == "enemy":
        return f"enemy units{where}"
    return f"every other unit{where}" if has_source else f"every unit{where}"


def is_singular(name: str) -> bool:
    return SELECTORS[name][0] in ("self", "revealed", "strongest", "weakest")


def select(state: ConquestState, ctx: Ctx, name: str) -> list[Unit]:
    """The face-up units a selector picks, in board order (Location, then turn order)."""
    pick, side, scope = SELECTORS[name]
    if pick == "self":
        unit = ctx.unit
        return [unit] if unit is not None and unit.on_board and unit.face_up else []
    if pick == "revealed":
        unit = ctx.revealed
        return [unit] if unit is not None and unit.on_board and unit.face_up else []
    if scope == "here":
        if ctx.loc is None:
            return []
        locations = (state.locations[ctx.loc],)
    elif scope == "battle":
        locations = state.locations
    else:
        locations = [loc for loc in state.locations if loc.kind == scope]
    seat = ctx.seat
    source = ctx.unit
    found = []
    for location in locations:
        for unit in location.ordered(state.order):
            if unit is None or not unit.face_up or unit is source:
                continue
            if side == "ally" and unit.owner != seat:
                continue
            if side == "enemy" and unit.owner == seat:
                continue
            found.append(unit)
    if pick == "all" or len(found) <= 1:
        return found
    table = state.cq_table()
    if pick == "strongest":
        best = max(table[u.uid] for u in found)
    else:
        best = min(table[u.uid] for u in found)
    for unit in found:  # board order breaks ties: lowest Location, then turn order
        if table[unit.uid] == best:
            return [unit]
    return []


# --------------------------------------------------------------------------- counters

COUNTERS: dict[str, str] = {
    "uploaded_fragments": "Fragment in your Upload Zone",
    "all_uploaded_fragments": "Fragment in every Upload Zone",
    "allies_here": "other unit of yours here",
    "enemies_here": "enemy unit here",
    "plagued_enemies": "Plagued enemy unit",
    "extra_locations": "Extra Location",
}


def count(state: ConquestState, ctx: Ctx, name: str) -> int:
    """The number a counter stands for, seen from ``ctx``."""
    if name == "uploaded_fragments":
        return len(state.players[ctx.seat].uploads)
    if name == "all_uploaded_fragments":
        return sum(len(p.uploads) for p in state.players)
    if name == "extra_locations":
        return sum(1 for loc in state.locations if loc.kind == "extra")
    if name == "plagued_enemies":
        return sum(1 for loc in state.locations for u in loc.slots
                   if u is not None and u.face_up and u.plagued and u.owner != ctx.seat)
    if ctx.loc is None:
        return 0
    units = [u for u in state.locations[ctx.loc].slots if u is not None and u.face_up and u is not ctx.unit]
    if name == "allies_here":
        return sum(1 for u in units if u.owner == ctx.seat)
    return sum(1 for u in units if u.owner != ctx.seat)


# --------------------------------------------------------------------------- compiled effects


class Effect:
    """One effect of an ability, validated and ready to run."""

    __slots__ = ("name", "fn", "target", "amount", "per", "who", "to", "param", "max_cq", "text", "key")

    def __init__(self, name: str, spec: dict[str, Any], *, has_source: bool):
        self.name = name
        self.fn: Callable[..., None] = EFFECTS[name]
        self.target: str | None = spec.get("target")
        self.amount: int = spec.get("amount", spec.get("count", 1))
        self.per: str | None = spec.get("per")
        self.who: str = spec.get("who", "you")
        self.to: str | None = spec.get("to")
        self.param: str | None = spec.get("param")
        self.max_cq: int | None = spec.get("max_cq")
        self.text = describe(name, spec, has_source=has_source)
        # "card-id:field:index", set when the card is parsed: R-Param counts changes by it
        self.key = ""

    def scaled(self, state: ConquestState, ctx: Ctx) -> int:
        """``amount``, times the counter when the effect says "for each"."""
        if self.per is None:
            return self.amount
        return self.amount * count(state, ctx, self.per)

    def run(self, state: ConquestState, ctx: Ctx, events: list) -> None:
        self.fn(state, ctx, self, events)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"effect": self.name}
        for key in ("target", "per", "to", "param", "max_cq"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.name in _TAKES_AMOUNT:
            out["amount"] = self.amount
        if self.name in _TAKES_WHO:
            out["who"] = self.who
        return out


def _seats(state: ConquestState, ctx: Ctx, who: str) -> list[int]:
    if who == "you":
        return [ctx.seat]
    if who == "opponents":
        return [s for s in state.order if s != ctx.seat]
    return list(state.order)


def fx_destroy(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for unit in select(state, ctx, eff.target):
        if not unit.on_board:
            continue
        if eff.max_cq is not None and state.cq_of(unit) > eff.max_cq:
            events.append(state.event("fizzle", f"{state.label(unit)} has CQ above {eff.max_cq}: not destroyed",
                                      unit=unit))
            continue
        state.destroy(unit, events)


def fx_mute(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for unit in select(state, ctx, eff.target):
        unit.muted = True
        events.append(state.event("mute", f"{state.label(unit)} is muted", unit=unit))


def fx_plague(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for unit in select(state, ctx, eff.target):
        unit.plagued = True
        events.append(state.event("plague", f"{state.label(unit)} is Plagued", unit=unit))


def fx_move(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for unit in select(state, ctx, eff.target):
        state.move(unit, eff.to, events)


def fx_add_cq(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    amount = eff.scaled(state, ctx)
    if amount == 0:
        return
    for unit in select(state, ctx, eff.target):
        unit.cq_bonus += amount
        events.append(state.event("cq", f"{state.label(unit)} gets {amount:+d} CQ", unit=unit, amount=amount))


def fx_set_cq(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for unit in select(state, ctx, eff.target):
        unit.cq_set = eff.amount
        unit.cq_bonus = 0
        events.append(state.event("cq", f"{state.label(unit)} has its CQ set to {eff.amount}", unit=unit,
                                  amount=eff.amount))


def fx_create_location(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for _ in range(eff.amount):
        state.create_extra_location(events)


def fx_draw(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    amount = eff.scaled(state, ctx)
    for seat in _seats(state, ctx, eff.who):
        state.draw(seat, amount, events)


def fx_discard(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for seat in _seats(state, ctx, eff.who):
        state.discard_random(seat, eff.amount, events)


def fx_change_param(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    """R-Param: each card changes a rules number at most once per match for each player."""
    key = (ctx.seat, eff.key)
    if key in state.param_changes:
        events.append(state.event("fizzle", f"{PARAM_WORDS[eff.param]} stays {getattr(state.params, eff.param)}: "
                                  f"this card has already changed it for Seat {ctx.seat} this match",
                                  param=eff.param, seat=ctx.seat))
        return
    state.param_changes.add(key)
    was = getattr(state.params, eff.param)
    value = state.params.change(eff.param, eff.amount)
    events.append(state.event("param", f"{PARAM_WORDS[eff.param]} is now {value} (was {was})",
                              param=eff.param, value=value, was=was, seat=ctx.seat))


def fx_upload(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    for seat in _seats(state, ctx, eff.who):
        state.upload_fragments(seat, events)


def fx_gain_conquest(state: ConquestState, ctx: Ctx, eff: Effect, events: list) -> None:
    amount = eff.scaled(state, ctx)
    if amount == 0:
        return
    for seat in _seats(state, ctx, eff.who):
        state.players[seat].conquest += amount
        events.append(state.event("conquest", f"Seat {seat} gains {amount} Conquest", seat=seat, amount=amount))


EFFECTS: dict[str, Callable[..., None]] = {
    "destroy": fx_destroy,
    "mute": fx_mute,
    "plague": fx_plague,
    "move": fx_move,
    "add_cq": fx_add_cq,
    "set_cq": fx_set_cq,
    "create_location": fx_create_location,
    "draw": fx_draw,
    "discard": fx_discard,
    "change_param": fx_change_param,
    "upload": fx_upload,
    "gain_conquest": fx_gain_conquest,
}

# --------------------------------------------------------------------------- parameters and words

# effect -> {param: (kind, required)}; kinds: target, int, nonneg, pos, per, who, to, param.
SPECS: dict[str, dict[str, tuple[str, bool]]] = {
    "destroy": {"target": ("target", True), "max_cq": ("int", False)},
    "mute": {"target": ("target", True)},
    "plague": {"target": ("target", True)},
    "move": {"target": ("target", True), "to": ("to", True)},
    "add_cq": {"target": ("target", True), "amount": ("int", True), "per": ("per", False)},
    "set_cq": {"target": ("target", True), "amount": ("nonneg", True)},
    "create_location": {"count": ("pos", False)},
    "draw": {"amount": ("pos", True), "who": ("who", False), "per": ("per", False)},
    "discard": {"amount": ("pos", True), "who": ("who", False)},
    "change_param": {"param": ("param", True), "amount": ("int", True)},
    "upload": {"who": ("who", False)},
    "gain_conquest": {"amount": ("int", True), "who": ("who", False), "per": ("per", False)},
}
_TAKES_AMOUNT = {"add_cq", "set_cq", "create_location", "draw", "discard", "change_param", "gain_conquest"}
_TAKES_WHO = {"draw", "discard", "upload", "gain_conquest"}

MOVE_DESTINATIONS = {
    "extra": "an Extra Location",
    "forward": "the lowest Forward Location",
    "rear": "the lowest Rear Location",
}
WHO = ("you", "opponents", "each")
PARAM_WORDS = {
    "battles": "The number of Battles",
    "draw_per_battle": "The number of cards drawn each Battle",
    "forward_locations": "The number of Forward Locations",
    "rear_locations": "The number of Rear Locations",
    "max_extra_locations": "The number of Extra Locations a Battle may hold",
    "mulligans": "The number of mulligans",
    "mulligan_battles": "The number of Battles that allow mulligans",
    "responses_per_window": "The number of responses each opponent may make in a window",
    "plague_value": "What a Plagued unit counts",
}

_PARAM_CHANGE_WORDS = {
    "battles": ("the match lasts {n} more Battle{s}", "the match lasts {n} fewer Battle{s}"),
    "draw_per_battle": ("each player draws {n} more card{s} at the start of each Battle",
                        "each player draws {n} fewer card{s} at the start of each Battle"),
    "max_extra_locations": ("a Battle may hold {n} more Extra Location{s}",
                            "a Battle may hold {n} fewer Extra Location{s}"),
    "forward_locations": ("the Forward Skirmish has {n} more Location{s} from the next Battle",
                          "the Forward Skirmish has {n} fewer Location{s} from the next Battle"),
    "rear_locations": ("the Rear Skirmish has {n} more Location{s} from the next Battle",
                       "the Rear Skirmish has {n} fewer Location{s} from the next Battle"),
    "mulligans": ("each player may mulligan {n} more time{s}", "each player may mulligan {n} fewer time{s}"),
    "mulligan_battles": ("mulligans are allowed in {n} more Battle{s}", "mulligans are allowed in {n} fewer Battle{s}"),
    "responses_per_window": ("each opponent may make {n} more response{s} in each response window",
                             "each opponent may make {n} fewer response{s} in each response window"),
    "plague_value": ("a Plagued unit counts {n} more at scoring", "a Plagued unit counts {n} less at scoring"),
}


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _per_words(spec: dict[str, Any]) -> str:
    per = spec.get("per")
    return f" for each {COUNTERS[per]}" if per else ""


def describe(name: str, spec: dict[str, Any], *, has_source: bool) -> str:
    """The rules text of one effect, generated from its parameters."""
    target = spec.get("target")
    what = selector_text(target, has_source=has_source) if target else ""
    who = spec.get("who", "you")
    if name == "destroy":
        cond = f" if its CQ is {spec['max_cq']} or less" if "max_cq" in spec and is_singular(target) else ""
        if "max_cq" in spec and not is_singular(target):
            cond = f" with CQ {spec['max_cq']} or less"
        return f"destroy {what}{cond}"
    if name == "mute":
        return f"mute {what}"
    if name == "plague":
        return f"Plague {what}"
    if name == "move":
        return f"move {what} to {MOVE_DESTINATIONS[spec['to']]} where its owner has no unit"
    if name == "add_cq":
        verb = "gets" if is_singular(target) else "get"
        return f"{what} {verb} {spec['amount']:+d} CQ{_per_words(spec)}"
    if name == "set_cq":
        return f"set the CQ of {what} to {spec['amount']}"
    if name == "create_location":
        n = spec.get("count", 1)
        return "create an Extra Location" if n == 1 else f"create {n} Extra Locations"
    if name == "draw":
        subject = {"you": "draw", "opponents": "each opponent draws", "each": "each player draws"}[who]
        return f"{subject} {_cards(spec['amount'])}{_per_words(spec)}"
    if name == "discard":
        subject = {"you": "discard", "opponents": "each opponent discards", "each": "each player discards"}[who]
        return f"{subject} {_cards(spec['amount'])} at random"
    if name == "change_param":
        amount = spec["amount"]
        more, fewer = _PARAM_CHANGE_WORDS[spec["param"]]
        template = more if amount >= 0 else fewer
        return template.format(n=abs(amount), s="" if abs(amount) == 1 else "s") + " (once per match per player)"
    if name == "upload":
        subject = {"you": "upload the Fragments in your hand",
                   "opponents": "each opponent uploads the Fragments in their hand",
                   "each": "each player uploads the Fragments in their hand"}[who]
        return subject
    if name == "gain_conquest":
        subject = {"you": "gain", "opponents": "each opponent gains", "each": "each player gains"}[who]
        return f"{subject} {spec['amount']} Conquest{_per_words(spec)}"
    raise KeyError(name)
