"""Build the smallest Conquest position that shows a rule, from card names.

Rules tests describe a position in a few lines (who holds what, which units sit where,
face up or face down) and let the engine run from there::

    state = position(
        hands={1: ["Hush"]},
        face_down={0: {1: "Data Thief"}},
        decks={0: ["Vanguard Drone"]},
    )

The state is left at the first decision of the requested phase (``"deployment"`` reveals
until a response window opens), exactly as a real match would be; the events produced on
the way are on ``state.opening_events``. Unspecified zones are empty. Every seat holds a
Celestial that is already spent (Crown of the Long Night, which has no Ongoing ability),
unless ``celestials`` / ``celestials_played`` say otherwise, so that Celestial phases do
not ask anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.conquest.params import Params
from engine.conquest.pool import BY_NAME
from engine.conquest.state import (
    CELESTIAL,
    DEPLOY,
    END_BATTLE,
    EXTRA,
    FORWARD,
    MULLIGAN,
    REAR,
    ConquestState,
    Location,
    Player,
    Unit,
)
from engine.core import Event, Rng

DEFAULT_CELESTIAL = "Crown of the Long Night"
PHASES = ("mulligan", "celestial", "placement", "deployment", "end_of_battle")


def _index(name: str) -> int:
    card = BY_NAME.get(name)
    if card is None:
        raise ValueError(f"positions: unknown card '{name}'")
    return card.index


def position(
    *,
    seats: int = 2,
    active: int = 0,
    battle: int = 1,
    skirmish: str = "forward",
    phase: str = "deployment",
    hands: Mapping[int, Sequence[str]] | None = None,
    decks: Mapping[int, Sequence[str]] | None = None,
    discards: Mapping[int, Sequence[str]] | None = None,
    uploads: Mapping[int, Sequence[str]] | None = None,
    conquest: Mapping[int, int] | None = None,
    celestials: Mapping[int, str] | None = None,
    celestials_played: Sequence[int] | None = None,
    face_down: Mapping[int, Mapping[int, str]] | None = None,
    face_up: Mapping[int, Mapping[int, str | Mapping[str, Any]]] | None = None,
    extra_locations: int = 0,
    deck_lists: Mapping[int, Sequence[str]] | None = None,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> ConquestState:
    """A state in ``phase`` of ``skirmish`` in Battle ``battle`` with ``active`` as active player.

    ``face_down`` / ``face_up``: seat -> {Location number: card name}; a face-up entry may
    be a mapping ``{"name": ..., "muted": bool, "plagued": bool, "cq_bonus": int}``.
    ``deck_lists``: each seat's 40-card list for Match the Twos (default: every card the
    position gives that seat). The deck's last card is its top card.
    """
    if phase not in PHASES:
        raise ValueError(f"positions: phase must be one of {', '.join(PHASES)}")
    if skirmish not in ("forward", "rear"):
        raise ValueError("positions: skirmish must be 'forward' or 'rear'")
    rules = Params(params or {})
    hands = hands or {}
    decks = decks or {}
    discards = discards or {}
    uploads = uploads or {}
    conquest = conquest or {}
    celestials = celestials or {}
    played = set(range(seats)) if celestials_played is None else set(celestials_played)
    face_down = face_down or {}
    face_up = face_up or {}

    players = []
    for seat in range(seats):
        player = Player(_index(celestials.get(seat, DEFAULT_CELESTIAL)))
        player.hand = sorted(_index(n) for n in hands.get(seat, ()))
        player.deck = [_index(n) for n in decks.get(seat, ())]
        player.discard = [_index(n) for n in discards.get(seat, ())]
        player.uploads = [_index(n) for n in uploads.get(seat, ())]
        player.conquest = conquest.get(seat, 0)
        player.celestial_played = seat in played
        players.append(player)

    lists = []
    for seat in range(seats):
        if deck_lists and seat in deck_lists:
            lists.append(sorted(_index(n) for n in deck_lists[seat]))
            continue
        names = [*hands.get(seat, ()), *decks.get(seat, ()), *discards.get(seat, ()), *uploads.get(seat, ()),
                 *face_down.get(seat, {}).values()]
        names += [u if isinstance(u, str) else u["name"] for u in face_up.get(seat, {}).values()]
        lists.append(sorted(_index(n) for n in names))

    first_active = (active - (battle - 1)) % seats
    state = ConquestState(seats, rules, seed, Rng(seed), players, lists, first_active)
    state.battle = battle
    state.active = active
    state.order = tuple((active + i) % seats for i in range(seats))
    state.skirmish = 0 if skirmish == "forward" else 1
    state.locations = [Location(i + 1, FORWARD, seats) for i in range(rules.forward_locations)]
    state.locations += [Location(rules.forward_locations + i + 1, REAR, seats) for i in range(rules.rear_locations)]
    for k in range(extra_locations):
        state.locations.append(Location(rules.total_locations + k + 1, EXTRA, seats))
    state.extra_created = extra_locations
    by_number = {loc.number: i for i, loc in enumerate(state.locations)}

    def put(seat: int, number: int, spec: str | Mapping[str, Any], up: bool) -> None:
        if number not in by_number:
            raise ValueError(f"positions: there is no Location {number}")
        name = spec if isinstance(spec, str) else spec["name"]
        unit = Unit(state.next_uid, _index(name), seat, by_number[number])
        state.next_uid += 1
        unit.face_up = up
        if not isinstance(spec, str):
            unit.muted = bool(spec.get("muted", False))
            unit.plagued = bool(spec.get("plagued", False))
            unit.cq_bonus = int(spec.get("cq_bonus", 0))
        state.locations[by_number[number]].slots[seat] = unit

    for seat, units in face_up.items():
        for number, spec in units.items():
            put(seat, number, spec, True)
    for seat, units in face_down.items():
        for number, name in units.items():
            put(seat, number, name, False)

    events: list[Event] = []
    if phase == "mulligan":
        state.phase = MULLIGAN
        state.cursor = 0
    elif phase == "celestial":
        state.phase = CELESTIAL
        state.cursor = 0
    elif phase == "placement":
        state._begin_placement(events)
    elif phase == "deployment":
        kinds = (FORWARD,) if state.skirmish == 0 else (REAR, EXTRA)
        state.skirmish_locs = [i for i, loc in enumerate(state.locations) if loc.kind in kinds]
        state.phase = DEPLOY
        state.dep_i = 0
        state.dep_j = 0
    else:
        state.phase = END_BATTLE
    state._advance(events)
    state.opening_events = events
    return state


def texts(events: Sequence[Event], seat: int | None = None) -> list[str]:
    """The words of the events ``seat`` sees (``None``: the public ones)."""
    return [e.text for e in events if e.visible_to(seat)]
