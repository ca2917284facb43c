"""Build small TempoFront positions from card names, for tests and examples.

    position(
        p0={"left vanguard": "Ironclad Sentry with 2 damage", "hand": ["Ashen Drake"]},
        p1={"left vanguard": "Ashen Drake, stunned, exposed 1", "site center": "Ancient Keep"},
        focus=5, time=(0, 2), cycle=3,
    )

A side is a mapping. Slot keys are "<front> <row>" in either order ("left vanguard",
"support right"); "site <front>" puts a Site of that player on the shared slot. Other keys:
``leader`` (default Lyss of the Veil, whose ability only adds an option), ``hand``,
``deck`` (top card first), ``discard``, ``reserve`` (lists of names), ``integrity``,
``focus``, ``max_focus``, ``time``, ``dominion``, ``fatigue``, ``passed``, ``leader_used``.
Decks are empty unless given, so a Cycle end draws from empty decks (fatigue).

A unit is "<Card Name>" followed by modifiers, separated by commas, in any order:
"with N damage" / "N damage", "stunned", "rooted", "silenced" (until the end of this
Cycle; add "until next cycle" or "permanently"), "exposed N", "protected N", "barrier",
"no barrier", "exhausted" (not ready; units are ready by default), "shifted", "used"
(its once-per-Cycle ability), "power +N", "vitality +N", "attached Runed Plate"
(an Attachment of the same player) and "attached by enemy Shackles".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.core import Rng
from engine.tempofront.cards import BY_NAME, LEADER, SITE, Card
from engine.tempofront.effects import PERMANENT
from engine.tempofront.params import make_params
from engine.tempofront.state import FRONT_INDEX, ROW_INDEX, Player, TempoState, Unit

DEFAULT_LEADER = "Lyss of the Veil"
_SIDE_KEYS = {"leader", "hand", "deck", "discard", "reserve", "integrity", "focus", "max_focus", "time",
              "dominion", "fatigue", "passed", "leader_used"}


def card(name: str) -> Card:
    """The card called ``name``; a KeyError names the unknown card."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"no TempoFront card is called {name!r}") from None


def _slot(key: str) -> int | None:
    words = key.lower().split()
    if len(words) != 2:
        return None
    fronts = [w for w in words if w in FRONT_INDEX]
    rows = [w for w in words if w in ROW_INDEX]
    if len(fronts) != 1 or len(rows) != 1:
        return None
    return FRONT_INDEX[fronts[0]] * 2 + ROW_INDEX[rows[0]]


def _unit(spec: str, owner: int, slot: int, uid: int, cycle: int) -> Unit:
    parts = [p.strip() for p in spec.split(",")]
    head = parts[0]
    damage = re.match(r"^(.*?)\s+with\s+(\d+)\s+damage$", head)
    if damage:
        head = damage.group(1)
        parts.append(f"{damage.group(2)} damage")
    unit = Unit(uid, card(head), owner, slot)
    unit.ready = True
    for mod in parts[1:]:
        low = mod.lower()
        until = cycle
        if low.endswith(" until next cycle"):
            until, low = cycle + 1, low[: -len(" until next cycle")]
        elif low.endswith(" permanently"):
            until, low = PERMANENT, low[: -len(" permanently")]
        number = re.search(r"([+-]?\d+)", low)
        n = int(number.group(1)) if number else 0
        if re.fullmatch(r"(with )?\d+ damage", low):
            unit.damage = n
        elif low == "stunned":
            unit.stun = until
        elif low == "rooted":
            unit.root = until
        elif low == "silenced":
            unit.silence = until
            unit.barrier = False
        elif low.startswith("exposed"):
            unit.exposed = n
        elif low.startswith("protected"):
            unit.protected = n
        elif low == "barrier":
            unit.barrier = True
        elif low == "no barrier":
            unit.barrier = False
        elif low in ("exhausted", "not ready"):
            unit.ready = False
        elif low == "shifted":
            unit.shifted = True
        elif low == "used":
            unit.used = True
        elif low.startswith("power"):
            unit.buff_power = n
        elif low.startswith("vitality"):
            unit.buff_vitality = n
        elif low.startswith("attached by enemy "):
            unit.attachments.append((card(mod[len("attached by enemy "):].strip()).id, 1 - owner))
        elif low.startswith("attached "):
            unit.attachments.append((card(mod[len("attached "):].strip()).id, owner))
        else:
            raise ValueError(f"unknown unit modifier {mod!r} in {spec!r}")
    unit.refresh()
    return unit


def _pair(value: Any, seat: int) -> Any:
    return value[seat] if isinstance(value, (tuple, list)) else value


def position(
    p0: Mapping[str, Any] | None = None,
    p1: Mapping[str, Any] | None = None,
    *,
    focus: int | tuple[int, int] | None = None,
    time: int | tuple[int, int] = 0,
    cycle: int = 1,
    initiative: int = 0,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
) -> TempoState:
    """A TempoFront state in the main phase of ``cycle`` built from card names.

    ``focus`` and ``time`` apply to both seats, or per seat as a pair; a side's own
    "focus"/"time" keys win. Focus defaults to the Cycle's maximum (T2). The seat to act
    follows T4 from the Times and ``initiative``.
    """
    prm = make_params(params)
    max_focus = min(prm.focus_max, prm.focus_start + (cycle - 1) * prm.focus_growth)
    sides = [dict(p0 or {}), dict(p1 or {})]
    players = []
    for seat, side in enumerate(sides):
        leader = card(side.get("leader", DEFAULT_LEADER))
        if leader.type != LEADER:
            raise ValueError(f"{leader.name} is not a Leader")
        deck = [card(n).id for n in side.get("deck", [])][::-1]
        p = Player(leader, side.get("integrity", prm.integrity), deck, 0)
        p.max_focus = side.get("max_focus", max_focus)
        f = side.get("focus", _pair(focus, seat))
        p.focus = p.max_focus if f is None else f
        p.time = side.get("time", _pair(time, seat))
        p.dominion = side.get("dominion", 0)
        p.fatigue = side.get("fatigue", 0)
        p.passed = side.get("passed", False)
        p.leader_used = side.get("leader_used", False)
        p.hand = [card(n).id for n in side.get("hand", [])]
        p.discard = [card(n).id for n in side.get("discard", [])]
        p.reserve = [card(n).id for n in side.get("reserve", [])]
        players.append(p)
    state = TempoState(prm, players, Rng(seed))
    state.cycle = cycle
    state.initiative = initiative
    state.phase = "main"
    for seat, side in enumerate(sides):
        for key, value in side.items():
            if key in _SIDE_KEYS:
                continue
            if key.lower().startswith("site "):
                front = key.lower().split()[1]
                site = card(value)
                if site.type != SITE:
                    raise ValueError(f"{site.name} is not a Site")
                state.sites[FRONT_INDEX[front]] = (site.id, seat)
                continue
            slot = _slot(key)
            if slot is None:
                raise ValueError(f"unknown position key {key!r} (try 'left vanguard', 'site center', 'hand')")
            unit = _unit(value, seat, slot, state.next_uid, cycle)
            state.next_uid += 1
            state.board[seat][slot] = unit
    state.dirty = True
    state.recalc()
    actor = state._next_actor()
    state.actor = initiative if actor is None else actor
    return state


def unit_at(state: TempoState, where: str) -> Unit | None:
    """The Entity at "0 left vanguard" / "1.left.support" (seat, Front, row)."""
    words = where.replace(".", " ").split()
    slot = _slot(" ".join(words[1:]))
    if slot is None:
        raise ValueError(f"not a position: {where!r}")
    if state.dirty:
        state.recalc()
    return state.board[int(words[0])][slot]
