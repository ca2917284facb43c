"""The effect vocabulary of TempoFront cards: one function per effect name.

Each function takes ``(state, ctx, effect, events)``: the match state, the context of the
source (its controller, source Entity, Front, chosen target, pending chain item), the
effect's parameters (:class:`engine.tempofront.cards.Effect`) and the event list to append
to. Targets come from ``state.targets(ctx, effect.target)``: Entities (``Unit``) and Leaders
(plain ``int`` seats). Defeats and Integrity are checked by the caller after each effect.

``scout`` is not here: it asks its player to choose, so the state machine runs it itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.core import Event

if TYPE_CHECKING:  # pragma: no cover - imports for annotations only
    from engine.tempofront.cards import Effect
    from engine.tempofront.state import Ctx, TempoState

PERMANENT = 1_000_000
"""The expiry Cycle of a status that lasts permanently."""


def expiry(state: TempoState, duration: str) -> int:
    """The Cycle at whose end a status with ``duration`` expires (T12)."""
    if duration == "this_cycle":
        return state.cycle
    if duration == "next_cycle":
        return state.cycle + 1
    return PERMANENT


def _until(state: TempoState, duration: str) -> str:
    if duration == "permanent":
        return "permanently"
    return "until the end of this Cycle" if duration == "this_cycle" else "until the end of the next Cycle"


def deal_damage(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for target in state.targets(ctx, effect.target):
        if type(target) is int:
            state.hurt_leader(target, effect.amount, ctx.name, events)
        else:
            state.hurt_unit(target, effect.amount, f"{ctx.name} dealt", events)


def stun(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    until = expiry(state, effect.duration)
    for unit in state.targets(ctx, effect.target):
        unit.stun = max(unit.stun, until)
        events.append(Event("status", f"{ctx.name}: {unit.card.name} is Stunned {_until(state, effect.duration)}",
                            {"status": "stun", "unit": state.pos_of(unit), "until": until}))


def root(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    until = expiry(state, effect.duration)
    for unit in state.targets(ctx, effect.target):
        unit.root = max(unit.root, until)
        events.append(Event("status", f"{ctx.name}: {unit.card.name} is Rooted {_until(state, effect.duration)}",
                            {"status": "root", "unit": state.pos_of(unit), "until": until}))


def silence(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    until = expiry(state, effect.duration)
    for unit in state.targets(ctx, effect.target):
        unit.silence = max(unit.silence, until)
        # Barrier is a keyword (T8): Silence removes it for good (engine/tempofront/site/rules.md, R8).
        unit.barrier = False
        state.dirty = True
        events.append(Event("status", f"{ctx.name}: {unit.card.name} is Silenced {_until(state, effect.duration)}",
                            {"status": "silence", "unit": state.pos_of(unit), "until": until}))


def expose(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for unit in state.targets(ctx, effect.target):
        unit.exposed += effect.amount
        events.append(Event("status", f"{ctx.name}: {unit.card.name} is Exposed {unit.exposed}",
                            {"status": "expose", "unit": state.pos_of(unit), "amount": unit.exposed}))


def protect(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for unit in state.targets(ctx, effect.target):
        unit.protected += effect.amount
        events.append(Event("status", f"{ctx.name}: {unit.card.name} is Protected {unit.protected}",
                            {"status": "protect", "unit": state.pos_of(unit), "amount": unit.protected}))


def barrier(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for unit in state.targets(ctx, effect.target):
        if unit.silence:
            # A Silenced Entity has no keywords, so it cannot gain Barrier.
            events.append(Event("status", f"{ctx.name}: {unit.card.name} is Silenced and gains no Barrier",
                                {"status": "barrier", "unit": state.pos_of(unit), "gained": False}))
            continue
        unit.barrier = True
        events.append(Event("status", f"{ctx.name}: {unit.card.name} gains Barrier",
                            {"status": "barrier", "unit": state.pos_of(unit), "gained": True}))


def draw(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    seat = ctx.seat if effect.who == "self" else 1 - ctx.seat
    state.draw(seat, effect.amount, events)


def gain_focus(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    seat = ctx.seat if effect.who == "self" else 1 - ctx.seat
    player = state.players[seat]
    # Focus never rises above the Cycle's maximum (engine/tempofront/site/rules.md, R10).
    player.focus = min(player.max_focus, player.focus + effect.amount)
    events.append(Event("focus", f"{ctx.name}: Seat {seat} has {player.focus} Focus",
                        {"seat": seat, "focus": player.focus}))


def gain_time(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    seat = ctx.seat if effect.who == "self" else 1 - ctx.seat
    player = state.players[seat]
    player.time = min(state.params.timeline, player.time + effect.amount)
    events.append(Event("time", f"{ctx.name}: Seat {seat} gains {effect.amount} Time (now {player.time})",
                        {"seat": seat, "time": player.time}))


def lose_time(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    seat = ctx.seat if effect.who == "self" else 1 - ctx.seat
    player = state.players[seat]
    player.time = max(0, player.time - effect.amount)
    events.append(Event("time", f"{ctx.name}: Seat {seat} loses {effect.amount} Time (now {player.time})",
                        {"seat": seat, "time": player.time}))


def cancel_pending(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    item = ctx.item
    if item is None or item.answers < 0:
        return
    pending = state.chain[item.answers]
    pending.cancelled = True
    events.append(Event("cancel", f"{ctx.name} cancelled {state.item_words(pending)}",
                        {"seat": pending.seat, "kind": pending.kind}))


def move(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for unit in state.targets(ctx, effect.target):
        state.move_row(unit, ctx.name, events)


def destroy(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    doomed = state.targets(ctx, effect.target)
    if doomed:
        events.append(Event("destroy", f"{ctx.name} destroyed {', '.join(u.card.name for u in doomed)}",
                            {"units": [state.pos_of(u) for u in doomed]}))
        state.defeat(doomed, events)


def ready(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for unit in state.targets(ctx, effect.target):
        unit.ready = True
        events.append(Event("ready", f"{ctx.name}: {unit.card.name} is ready", {"unit": state.pos_of(unit)}))


def buff(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for unit in state.targets(ctx, effect.target):
        unit.buff_power += effect.power
        unit.buff_vitality += effect.vitality
        state.dirty = True
        events.append(Event("buff", f"{ctx.name}: {unit.card.name} gets {effect.power:+d}/{effect.vitality:+d}",
                            {"unit": state.pos_of(unit), "power": effect.power, "vitality": effect.vitality}))


def heal(state: TempoState, ctx: Ctx, effect: Effect, events: list[Event]) -> None:
    for target in state.targets(ctx, effect.target):
        if type(target) is int:
            player = state.players[target]
            # Healing never lifts a Leader above its starting Integrity.
            player.integrity = min(state.params.integrity, player.integrity + effect.amount)
            events.append(Event("heal", f"{ctx.name}: Seat {target}'s Leader is at {player.integrity} Integrity",
                                {"seat": target, "integrity": player.integrity}))
        elif target.damage:
            target.damage = max(0, target.damage - effect.amount)
            events.append(Event("heal", f"{ctx.name}: {target.card.name} has {target.damage} damage",
                                {"unit": state.pos_of(target), "damage": target.damage}))


EFFECT_FUNCTIONS: dict[str, Callable[[TempoState, Ctx, Effect, list[Event]], None]] = {
    "deal_damage": deal_damage,
    "stun": stun,
    "root": root,
    "silence": silence,
    "expose": expose,
    "protect": protect,
    "barrier": barrier,
    "draw": draw,
    "gain_focus": gain_focus,
    "gain_time": gain_time,
    "lose_time": lose_time,
    "cancel_pending": cancel_pending,
    "move": move,
    "destroy": destroy,
    "ready": ready,
    "buff": buff,
    "heal": heal,
}
