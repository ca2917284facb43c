"""One Conquest match in progress: the rules of shared/seeds/conquest-rules.txt.

The state is a small machine. Decisions happen in four phases, every other step runs by
itself in :meth:`ConquestState._advance`:

- ``mulligan`` (first Battle only): each player in turn order keeps or mulligans;
- ``celestial``: each player in turn order plays their one Celestial or passes (seats
  whose Celestial is spent are skipped: that is public);
- ``placement``: simultaneous and hidden; every seat still placing is in ``to_act()``
  and builds its placement one Location at a time (a unit card id or "empty"); the last
  choice submits it, and the placement locks when every seat has submitted;
- ``response``: after a reveal, each opponent of the revealing player in turn order may
  play one Lightspeed card or pass; responses resolve newest-first, then the state check.

Between them the machine reveals units in Location order (active player first within a
Location), resolves pending abilities, runs the End of Battle (C9) and scores. Rulings
where the text and RULINGS.md are silent are in engine/conquest/site/rules.md ("R-..." labels).
"""

from __future__ import annotations

import json
from bisect import insort
from collections.abc import Mapping, Sequence
from typing import Any

from engine.conquest import effects as fx
from engine.conquest.cards import CardDef
from engine.conquest.params import Params
from engine.conquest.pool import BY_ID, POOL
from engine.conquest.tiebreak import apply_tiebreaks, match_the_twos, tiebreak_rng, tied_groups
from engine.core import CONCEDE, Action, Event, IllegalAction, Outcome, Rng, places_from_scores

MULLIGAN, CELESTIAL, PLACEMENT, RESPONSE, OVER = "mulligan", "celestial", "placement", "response", "over"
# Transient phases: never seen outside _advance.
DEPLOY, END_BATTLE = "deploy", "end_battle"
FORWARD, REAR, EXTRA = "forward", "rear", "extra"
SKIRMISH_NAMES = ("Forward", "Rear")
EMPTY = "empty"

RULE_MULLIGAN = "Exact rule: mulligan (first Battle only)"
RULE_CELESTIAL = "C4 Celestial"
RULE_PLACEMENT = "C5 Placement"
RULE_RESPONSE = "C6 Responses"
RULE_TURN = "C2 turn order"
RULE_END = "C10 Result"

IS_UNIT = [card.type == "unit" for card in POOL]
IS_LIGHTSPEED = [card.type == "lightspeed" for card in POOL]
IS_FRAGMENT = [card.type == "fragment" for card in POOL]

PASS_ACTION = Action("pass")
KEEP_ACTION = Action("keep")
MULLIGAN_ACTION = Action("mulligan")
_PLACE_ACTIONS: dict[tuple[str, int], Action] = {}
_RESPOND_ACTIONS = {card.index: Action("respond", (("card", card.id),)) for card in POOL if card.type == "lightspeed"}
_CELESTIAL_ACTIONS = {card.index: Action("play_celestial", (("card", card.id),))
                      for card in POOL if card.type == "celestial"}


def place_action(card_id: str, location: int) -> Action:
    """The (cached) action that puts ``card_id`` (or "empty") at Location ``location``."""
    key = (card_id, location)
    action = _PLACE_ACTIONS.get(key)
    if action is None:
        action = _PLACE_ACTIONS[key] = Action("place", (("card", card_id), ("location", location)))
    return action


class Unit:
    """A unit card in the battle zone. ``loc`` indexes ``state.locations``."""

    __slots__ = ("uid", "card", "owner", "loc", "face_up", "muted", "plagued", "cq_bonus", "cq_set", "on_board")

    def __init__(self, uid: int, card: int, owner: int, loc: int):
        self.uid = uid
        self.card = card
        self.owner = owner
        self.loc = loc
        self.face_up = False
        self.muted = False
        self.plagued = False
        self.cq_bonus = 0
        self.cq_set: int | None = None
        self.on_board = True

    def copy(self) -> Unit:
        other = Unit.__new__(Unit)
        other.uid = self.uid
        other.card = self.card
        other.owner = self.owner
        other.loc = self.loc
        other.face_up = self.face_up
        other.muted = self.muted
        other.plagued = self.plagued
        other.cq_bonus = self.cq_bonus
        other.cq_set = self.cq_set
        other.on_board = self.on_board
        return other

    def to_json(self) -> dict[str, Any]:
        return {"uid": self.uid, "card": POOL[self.card].id, "owner": self.owner, "face_up": self.face_up,
                "muted": self.muted, "plagued": self.plagued, "cq_bonus": self.cq_bonus, "cq_set": self.cq_set}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], loc: int) -> Unit:
        unit = cls(int(data["uid"]), BY_ID[data["card"]].index, int(data["owner"]), loc)
        unit.face_up = bool(data["face_up"])
        unit.muted = bool(data["muted"])
        unit.plagued = bool(data["plagued"])
        unit.cq_bonus = int(data["cq_bonus"])
        unit.cq_set = data["cq_set"]
        return unit


class Location:
    """One Location of the battle zone: its number, kind and one slot per seat."""

    __slots__ = ("number", "kind", "slots")

    def __init__(self, number: int, kind: str, seats: int):
        self.number = number
        self.kind = kind
        self.slots: list[Unit | None] = [None] * seats

    def ordered(self, order: Sequence[int]) -> list[Unit | None]:
        slots = self.slots
        return [slots[s] for s in order]

    @property
    def label(self) -> str:
        return f"Location {self.number}" + (" (Extra)" if self.kind == EXTRA else "")


class Player:
    """One seat's zones and counters. ``deck[-1]`` is the top card; ``hand`` stays sorted."""

    __slots__ = ("deck", "hand", "discard", "uploads", "celestial", "celestial_played", "conquest",
                 "mulligans_used")

    def __init__(self, celestial: int):
        self.deck: list[int] = []
        self.hand: list[int] = []
        self.discard: list[int] = []
        self.uploads: list[int] = []
        self.celestial = celestial
        self.celestial_played = False
        self.conquest = 0
        self.mulligans_used = 0

    def copy(self) -> Player:
        other = Player.__new__(Player)
        other.deck = self.deck[:]
        other.hand = self.hand[:]
        other.discard = self.discard[:]
        other.uploads = self.uploads[:]
        other.celestial = self.celestial
        other.celestial_played = self.celestial_played
        other.conquest = self.conquest
        other.mulligans_used = self.mulligans_used
        return other

    def to_json(self) -> dict[str, Any]:
        return {
            "deck": [POOL[c].id for c in self.deck],
            "hand": [POOL[c].id for c in self.hand],
            "discard": [POOL[c].id for c in self.discard],
            "uploads": [POOL[c].id for c in self.uploads],
            "celestial": POOL[self.celestial].id,
            "celestial_played": self.celestial_played,
            "conquest": self.conquest,
            "mulligans_used": self.mulligans_used,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Player:
        player = cls(BY_ID[data["celestial"]].index)
        player.deck = [BY_ID[c].index for c in data["deck"]]
        player.hand = sorted(BY_ID[c].index for c in data["hand"])
        player.discard = [BY_ID[c].index for c in data["discard"]]
        player.uploads = [BY_ID[c].index for c in data["uploads"]]
        player.celestial_played = bool(data["celestial_played"])
        player.conquest = int(data["conquest"])
        player.mulligans_used = int(data["mulligans_used"])
        return player


def _card_json(index: int) -> dict[str, Any]:
    card = POOL[index]
    return {"id": card.id, "name": card.name}


class ConquestState:
    """One Conquest match. Seats are numbered from 0; ``order`` is this Battle's turn order.

    Hidden: every hand (from the other seats), every deck's order (even one's own),
    face-down units (from the other seats), a seat's placement while it is being built,
    the match seed and the random stream.
    """

    game = "conquest"

    def __init__(self, num_seats: int, params: Params, seed: int, rng: Rng, players: list[Player],
                 deck_lists: list[list[int]], first_active: int):
        self.num_seats = num_seats
        self.params = params
        self.seed = seed
        self.rng = rng
        self.players = players
        self.deck_lists = deck_lists  # each seat's 40-card list, sorted: Match the Twos shuffles it
        self.first_active = first_active
        self.battle = 1
        self.skirmish = 0
        self.active = first_active
        self.order: tuple[int, ...] = tuple((first_active + i) % num_seats for i in range(num_seats))
        self.phase = MULLIGAN
        self.cursor = 0
        self.locations: list[Location] = []
        self.extra_created = 0
        self.next_uid = 1
        # placement: per seat, the Location indexes to fill, the picks so far, whether submitted
        self.place_locs: list[list[int]] = [[] for _ in range(num_seats)]
        self.picks: list[list[int]] = [[] for _ in range(num_seats)]
        self.submitted: list[bool] = [True] * num_seats
        # deployment: the current Skirmish's Location indexes and the reveal position in them
        self.skirmish_locs: list[int] = []
        self.dep_i = 0
        self.dep_j = 0
        # response window: revealed unit's Location index and seat, responders, played responses
        self.win_loc = -1
        self.win_seat = -1
        self.responders: list[int] = []
        self.resp_i = 0
        self.stack: list[tuple[int, int]] = []
        # R-Param: (seat, effect key) of every rules change already applied this match
        self.param_changes: set[tuple[int, str]] = set()
        # the match's parameters when it began, so views can show what card text changed
        self.initial_params: dict[str, Any] = params.to_json()
        self._outcome: Outcome | None = None
        self._cq_cache: dict[int, int] | None = None
        self.opening_events: list[Event] = []  # set by new_match; not part of the state

    # ------------------------------------------------------------------ set-up

    @classmethod
    def start(cls, deck_cards: list[list[int]], celestials: list[int], seed: int, params: Params) -> tuple[
            ConquestState, list[Event]]:
        """A new match: decks shuffled by the seed, Battle 1 begun (C1, C2, C3)."""
        rng = Rng(seed)
        num_seats = len(deck_cards)
        first_active = rng.randrange(num_seats)
        players = []
        for seat in range(num_seats):
            player = Player(celestials[seat])
            player.deck = sorted(deck_cards[seat])
            rng.shuffle(player.deck)
            players.append(player)
        state = cls(num_seats, params, seed, rng, players, [sorted(d) for d in deck_cards], first_active)
        events: list[Event] = []
        state._begin_battle(events)
        state._advance(events)
        return state, events

    # ------------------------------------------------------------------ small helpers

    def event(self, kind: str, text: str, unit: Unit | None = None, private_to: int | None = None,
              **data: Any) -> Event:
        if unit is not None:
            data["seat"] = unit.owner
            data["card"] = POOL[unit.card].id
            data["location"] = self.locations[unit.loc].number if unit.on_board else None
        return Event(kind, text, data or None, private_to)

    def label(self, unit: Unit) -> str:
        where = f" at {self.locations[unit.loc].label}" if unit.on_board else ""
        return f"Seat {unit.owner}'s {POOL[unit.card].name}{where}"

    def card(self, unit: Unit) -> CardDef:
        return POOL[unit.card]

    def units(self) -> list[Unit]:
        """Every unit in the battle zone, Location order then turn order."""
        order = self.order
        return [u for loc in self.locations for u in loc.ordered(order) if u is not None]

    # ------------------------------------------------------------------ CQ

    def cq_table(self) -> dict[int, int]:
        """Current CQ of every face-up unit (uid -> CQ), Ongoing abilities included.

        Printed CQ (or a set CQ), plus the unit's own changes, plus every Ongoing ability
        of a face-up, unmuted unit and of every played Celestial.
        """
        cached = self._cq_cache
        if cached is not None:
            return cached
        table: dict[int, int] = {}
        ongoing: list[tuple[fx.Ctx, fx.Effect]] = []
        for loc in self.locations:
            for unit in loc.slots:
                if unit is None or not unit.face_up:
                    continue
                card = POOL[unit.card]
                base = card.cq if unit.cq_set is None else unit.cq_set
                table[unit.uid] = base + unit.cq_bonus
                if card.ongoing and not unit.muted:
                    ctx = fx.Ctx(unit.owner, unit, unit.loc)
                    ongoing.extend((ctx, eff) for eff in card.ongoing)
        for seat, player in enumerate(self.players):
            if player.celestial_played:
                effects = POOL[player.celestial].ongoing
                if effects:
                    ctx = fx.Ctx(seat)
                    ongoing.extend((ctx, eff) for eff in effects)
        for ctx, eff in ongoing:
            amount = eff.scaled(self, ctx)
            if amount:
                for target in fx.select(self, ctx, eff.target):
                    table[target.uid] += amount
        self._cq_cache = table
        return table

    def cq_of(self, unit: Unit) -> int:
        return self.cq_table().get(unit.uid, 0)

    def _changed(self) -> None:
        self._cq_cache = None

    # ------------------------------------------------------------------ zone operations (used by effects)

    def draw(self, seat: int, amount: int, events: list[Event]) -> None:
        """C3: draw ``amount``; an empty deck is refilled by shuffling the discard pile."""
        player = self.players[seat]
        drawn: list[int] = []
        for _ in range(amount):
            if not player.deck:
                if not player.discard:
                    break
                player.deck = player.discard
                player.discard = []
                self.rng.shuffle(player.deck)
                events.append(Event("refill", f"Seat {seat} shuffles their discard pile into a new deck",
                                    {"seat": seat, "cards": len(player.deck)}))
            drawn.append(player.deck.pop())
        for card in drawn:
            insort(player.hand, card)
        if drawn:
            names = ", ".join(POOL[c].name for c in drawn)
            events.append(Event("draw", f"You drew {names}", {"seat": seat, "cards": [POOL[c].id for c in drawn]},
                                seat))
        n = len(drawn)
        events.append(Event("draw", f"Seat {seat} drew {n} card{'' if n == 1 else 's'}"
                            + ("" if n == amount else f" (of {amount}: deck and discard pile are empty)"),
                            {"seat": seat, "count": n}))

    def discard_random(self, seat: int, amount: int, events: list[Event]) -> None:
        player = self.players[seat]
        for _ in range(amount):
            if not player.hand:
                break
            card = player.hand.pop(self.rng.randrange(len(player.hand)))
            player.discard.append(card)
            events.append(Event("discard", f"Seat {seat} discards {POOL[card].name} at random",
                                {"seat": seat, "card": POOL[card].id}))

    def upload_fragments(self, seat: int, events: list[Event]) -> None:
        """C8: every Black Energy Fragment in the seat's hand goes to its Upload Zone."""
        player = self.players[seat]
        fragments = [c for c in player.hand if IS_FRAGMENT[c]]
        if not fragments:
            return
        player.hand = [c for c in player.hand if not IS_FRAGMENT[c]]
        player.uploads.extend(fragments)
        self._changed()
        names = ", ".join(POOL[c].name for c in fragments)
        events.append(Event("upload", f"Seat {seat} uploads {names} ({len(player.uploads)} in their Upload Zone)",
                            {"seat": seat, "cards": [POOL[c].id for c in fragments]}))

    def destroy(self, unit: Unit, events: list[Event]) -> None:
        """C7: to the owner's discard pile; When Destroyed fires unless the unit is muted."""
        if not unit.on_board:
            return
        loc = unit.loc
        events.append(self.event("destroy", f"{self.label(unit)} is destroyed", unit=unit))
        self.locations[loc].slots[unit.owner] = None
        unit.on_board = False
        self.players[unit.owner].discard.append(unit.card)
        self._changed()
        card = POOL[unit.card]
        if card.when_destroyed and not unit.muted and unit.face_up:
            events.append(Event("ability", f"Seat {unit.owner}'s {card.name}, When Destroyed: "
                                f"{card.ability_text['when_destroyed']}", {"seat": unit.owner, "card": card.id}))
            ctx = fx.Ctx(unit.owner, None, loc)
            for eff in card.when_destroyed:
                eff.run(self, ctx, events)
                self._changed()

    def move(self, unit: Unit, to: str, events: list[Event]) -> None:
        """Move a unit to the first Location of kind ``to`` (in order) where its owner's slot is free."""
        if not unit.on_board:
            return
        for index, loc in enumerate(self.locations):
            if loc.kind == to and index != unit.loc and loc.slots[unit.owner] is None:
                before = self.locations[unit.loc].label
                self.locations[unit.loc].slots[unit.owner] = None
                loc.slots[unit.owner] = unit
                unit.loc = index
                self._changed()
                events.append(self.event("move", f"Seat {unit.owner}'s {POOL[unit.card].name} moves from {before} "
                                         f"to {loc.label}", unit=unit))
                return
        events.append(self.event("fizzle", f"{self.label(unit)} has nowhere to move", unit=unit))

    def create_extra_location(self, events: list[Event]) -> None:
        """Add an Extra Location after the last one (R-Extra: lasts until the end of the Battle)."""
        extras = sum(1 for loc in self.locations if loc.kind == EXTRA)
        if extras >= self.params.max_extra_locations:
            events.append(Event("fizzle", "No Extra Location is created: this Battle already holds "
                                f"{extras}, the most allowed", {"extras": extras}))
            return
        number = self.locations[-1].number + 1
        self.locations.append(Location(number, EXTRA, self.num_seats))
        self.extra_created += 1
        events.append(Event("location", f"Extra Location {number} is created", {"location": number}))

    def run_effects(self, effects: Sequence[fx.Effect], ctx: fx.Ctx, events: list[Event]) -> None:
        for eff in effects:
            eff.run(self, ctx, events)
            self._changed()

    # ------------------------------------------------------------------ the flow of a match

    def _begin_battle(self, events: list[Event]) -> None:
        """Start of a Battle: rotate the active player (C2), lay out Locations, draw (C3)."""
        n = self.num_seats
        self.active = (self.first_active + self.battle - 1) % n
        self.order = tuple((self.active + i) % n for i in range(n))
        p = self.params
        self.locations = [Location(i + 1, FORWARD, n) for i in range(p.forward_locations)]
        self.locations += [Location(p.forward_locations + i + 1, REAR, n) for i in range(p.rear_locations)]
        self.extra_created = 0
        self._changed()
        events.append(Event("battle", f"Battle {self.battle} of {p.battles} begins; Seat {self.active} is the "
                            "active player", {"battle": self.battle, "of": p.battles, "active": self.active}))
        for seat in self.order:
            self.draw(seat, p.draw_per_battle, events)
        for player in self.players:
            player.mulligans_used = 0
        if self.battle <= p.mulligan_battles and p.mulligans > 0:
            self.phase = MULLIGAN
            self.cursor = 0
        else:
            self._begin_skirmish(0, events)

    def _begin_skirmish(self, skirmish: int, events: list[Event]) -> None:
        self.skirmish = skirmish
        self.phase = CELESTIAL
        self.cursor = 0
        events.append(Event("skirmish", f"The {SKIRMISH_NAMES[skirmish]} Skirmish begins: Celestial phase",
                            {"skirmish": SKIRMISH_NAMES[skirmish].lower(), "battle": self.battle}))

    def _begin_placement(self, events: list[Event]) -> None:
        """C5: the Skirmish's Locations (R-Extra: Rear includes the Extra Locations made so far)."""
        kinds = (FORWARD,) if self.skirmish == 0 else (REAR, EXTRA)
        self.skirmish_locs = [i for i, loc in enumerate(self.locations) if loc.kind in kinds]
        self.phase = PLACEMENT
        for seat in range(self.num_seats):
            free = [i for i in self.skirmish_locs if self.locations[i].slots[seat] is None]
            self.place_locs[seat] = free
            self.picks[seat] = []
            # A seat with no card in hand (a public count) or no free Location has nothing to decide.
            self.submitted[seat] = not free or not self.players[seat].hand
        numbers = ", ".join(str(self.locations[i].number) for i in self.skirmish_locs)
        events.append(Event("placement", f"Placement: every player places units face down at Locations {numbers}",
                            {"locations": [self.locations[i].number for i in self.skirmish_locs]}))

    def _submit_placement(self, seat: int, events: list[Event]) -> None:
        """C5 (amended): the placement is confirmed but stays in hand, unseen, until it locks."""
        self.submitted[seat] = True
        n = sum(1 for card in self.picks[seat] if card >= 0)
        events.append(Event("confirm", f"You confirm your placement ({n} face-down card{'' if n == 1 else 's'})",
                            {"seat": seat, "count": n}, seat))
        events.append(Event("confirm", f"Seat {seat} has confirmed its placement", {"seat": seat}))

    def _lock_placement(self, events: list[Event]) -> None:
        """C5 (amended): every seat has confirmed; the face-down cards go down together."""
        placed: dict[int, list[int]] = {}
        for seat in self.order:
            player = self.players[seat]
            numbers = []
            for loc_index, card in zip(self.place_locs[seat], self.picks[seat], strict=False):
                if card < 0:
                    continue
                player.hand.remove(card)
                unit = Unit(self.next_uid, card, seat, loc_index)
                self.next_uid += 1
                self.locations[loc_index].slots[seat] = unit
                numbers.append(self.locations[loc_index].number)
            self.picks[seat] = []
            placed[seat] = numbers
        self._changed()
        for seat in self.order:
            numbers = placed[seat]
            n = len(numbers)
            where = f" (Location{'' if n == 1 else 's'} {', '.join(map(str, numbers))})" if n else ""
            events.append(Event("placed", f"Seat {seat} placed {n} face-down card{'' if n == 1 else 's'}{where}",
                                {"seat": seat, "locations": numbers}))

    def _deploy_step(self, events: list[Event]) -> bool:
        """Reveal the next face-down unit. True when a response window waits for a seat."""
        locs = self.skirmish_locs
        order = self.order
        n = self.num_seats
        while self.dep_i < len(locs):
            loc_index = locs[self.dep_i]
            slots = self.locations[loc_index].slots
            while self.dep_j < n:
                seat = order[self.dep_j]
                unit = slots[seat]
                if unit is not None and not unit.face_up:
                    if self._reveal(unit, events):
                        return True
                    self._close_window(events)
                self.dep_j += 1
            self.dep_i += 1
            self.dep_j = 0
        if self.skirmish == 0:
            self._begin_skirmish(1, events)
        else:
            self.phase = END_BATTLE
        return False

    def _reveal(self, unit: Unit, events: list[Event]) -> bool:
        """Flip a unit face up with its On Reveal pending and open the response window (C6)."""
        unit.face_up = True
        self._changed()
        card = POOL[unit.card]
        pending = f"; its On Reveal is pending ({card.ability_text['on_reveal']})" if card.on_reveal else ""
        events.append(self.event("reveal", f"Seat {unit.owner} reveals {card.name} (CQ {card.cq}) at "
                                 f"{self.locations[unit.loc].label}{pending}", unit=unit))
        self.win_loc = unit.loc
        self.win_seat = unit.owner
        # Every opponent holding a card is asked, whatever they hold: hands are hidden.
        self.responders = [s for s in self.order if s != unit.owner and self.players[s].hand]
        if self.params.responses_per_window <= 0:
            self.responders = []
        self.resp_i = 0
        self.stack = []
        if self.responders:
            self.phase = RESPONSE
            return True
        return False

    def _close_window(self, events: list[Event]) -> None:
        """Responses resolve newest-first, then the state check (Exact rule, C6)."""
        unit = self.locations[self.win_loc].slots[self.win_seat]
        for seat, card_index in reversed(self.stack):
            card = POOL[card_index]
            events.append(Event("resolve", f"Seat {seat}'s {card.name} resolves", {"seat": seat, "card": card.id}))
            self.run_effects(card.effects, fx.Ctx(seat, None, self.win_loc, unit), events)
            self.players[seat].discard.append(card_index)
        self.stack = []
        self.responders = []
        self.resp_i = 0
        card = POOL[unit.card]
        if card.on_reveal:
            if unit.on_board and unit.loc == self.win_loc and not unit.muted:
                events.append(self.event("ability", f"{self.label(unit)}, On Reveal: {card.ability_text['on_reveal']}",
                                         unit=unit))
                self.run_effects(card.on_reveal, fx.Ctx(unit.owner, unit, unit.loc), events)
            else:
                why = "muted" if unit.on_board and unit.muted else (
                    "destroyed" if not unit.on_board else "no longer there")
                events.append(Event("fizzle", f"{card.name}'s On Reveal is gone: the unit is {why}",
                                    {"seat": unit.owner, "card": card.id}))
        self.phase = DEPLOY

    def _end_battle(self, events: list[Event]) -> None:
        """C9, in order: upload, At the End of Battle, score, clear; then the next Battle or the end."""
        events.append(Event("end_of_battle", f"End of Battle {self.battle}", {"battle": self.battle}))
        for seat in self.order:
            self.upload_fragments(seat, events)
        for unit in self.units():
            card = POOL[unit.card]
            if card.end_of_battle and unit.on_board and unit.face_up and not unit.muted:
                events.append(self.event("ability", f"{self.label(unit)}, At the End of Battle: "
                                         f"{card.ability_text['end_of_battle']}", unit=unit))
                self.run_effects(card.end_of_battle, fx.Ctx(unit.owner, unit, unit.loc), events)
        table = self.cq_table()
        totals = [0] * self.num_seats
        plague = self.params.plague_value
        for unit in self.units():
            if unit.face_up:
                totals[unit.owner] += plague if unit.plagued else table[unit.uid]
        for seat in self.order:
            player = self.players[seat]
            player.conquest += totals[seat]
            events.append(Event("score", f"Seat {seat} adds {totals[seat]} CQ to their Conquest Pool "
                                f"(now {player.conquest})",
                                {"seat": seat, "total": totals[seat], "conquest": player.conquest}))
        # The board as it was scored, public, for whoever shows the end of the match.
        board = self.view(None)["locations"]
        cleared = 0
        for loc in self.locations:
            for seat, unit in enumerate(loc.slots):
                if unit is not None:
                    unit.on_board = False
                    self.players[seat].discard.append(unit.card)
                    loc.slots[seat] = None
                    cleared += 1
        self.locations = [loc for loc in self.locations if loc.kind != EXTRA]
        self._changed()
        events.append(Event("clear", f"The battle zone is cleared: {cleared} unit{'' if cleared == 1 else 's'} "
                            "to their owners' discard piles (not destroyed)", {"count": cleared, "board": board}))
        if self.battle >= self.params.battles:
            self._finish(events)
        else:
            self.battle += 1
            self._begin_battle(events)

    def _advance(self, events: list[Event]) -> None:
        """Run every step that needs no decision, until a seat must act or the match is over."""
        while True:
            phase = self.phase
            if phase == MULLIGAN:
                while self.cursor < self.num_seats and not self.players[self.order[self.cursor]].hand:
                    self.cursor += 1
                if self.cursor < self.num_seats:
                    return
                self._begin_skirmish(0, events)
            elif phase == CELESTIAL:
                while self.cursor < self.num_seats and self.players[self.order[self.cursor]].celestial_played:
                    self.cursor += 1
                if self.cursor < self.num_seats:
                    return
                self._begin_placement(events)
            elif phase == PLACEMENT:
                if not all(self.submitted):
                    return
                self._lock_placement(events)
                events.append(Event("locked", "Placement locks: Deployment begins", None))
                self.phase = DEPLOY
                self.dep_i = 0
                self.dep_j = 0
            elif phase == DEPLOY:
                if self._deploy_step(events):
                    return
            elif phase == RESPONSE:
                if self.resp_i < len(self.responders):
                    return
                self._close_window(events)
                self.dep_j += 1
            elif phase == END_BATTLE:
                self._end_battle(events)
            else:
                return

    def _finish(self, events: list[Event]) -> None:
        """C10: rank by Conquest; ties broken by Match the Twos (inline) or left pending (deferred)."""
        self.phase = OVER
        scores = tuple(p.conquest for p in self.players)
        places = places_from_scores(scores)
        groups = tied_groups(places)
        detail: dict[str, Any] = {"conquest": list(scores), "battles": self.battle, "tied_groups": groups}
        outcome = Outcome(places=places, scores=scores, reason="Conquest", detail=detail)
        if groups and self.params.tiebreak == "deferred":
            detail["tiebreak_pending"] = True
            events.append(Event("tiebreak", "Tied places are left for Match the Twos, run by the platform",
                                {"tied_groups": groups}))
        else:
            results = []
            for group in groups:
                lists = {s: [POOL[c].name for c in self.deck_lists[s]] for s in group}
                result = match_the_twos(lists, tiebreak_rng(self.seed, group))
                results.append(result)
                events.extend(_tiebreak_events(result))
            outcome = apply_tiebreaks(outcome, results)
        self._outcome = outcome
        events.append(Event("result", "The match is over: " + ", ".join(
            f"Seat {s} place {outcome.places[s]} ({scores[s]} Conquest)" for s in outcome.ranking),
            {"places": list(outcome.places), "scores": list(scores)}))

    # ------------------------------------------------------------------ the contract

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == PLACEMENT:
            return tuple(s for s in range(self.num_seats) if not self.submitted[s])
        if phase == RESPONSE:
            return (self.responders[self.resp_i],)
        if phase == MULLIGAN or phase == CELESTIAL:
            return (self.order[self.cursor],)
        return ()

    def legal_actions(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == PLACEMENT:
            if not 0 <= seat < self.num_seats or self.submitted[seat]:
                return []
            return self._placement_options(seat)
        if phase == RESPONSE:
            if seat != self.responders[self.resp_i]:
                return []
            actions = [PASS_ACTION]
            last = -1
            for card in self.players[seat].hand:
                if card != last and IS_LIGHTSPEED[card]:
                    actions.append(_RESPOND_ACTIONS[card])
                last = card
            return actions
        if phase == MULLIGAN:
            return [KEEP_ACTION, MULLIGAN_ACTION] if seat == self.order[self.cursor] else []
        if phase == CELESTIAL:
            if seat != self.order[self.cursor]:
                return []
            return [_CELESTIAL_ACTIONS[self.players[seat].celestial], PASS_ACTION]
        return []

    def _placement_options(self, seat: int) -> list[Action]:
        number = self.locations[self.place_locs[seat][len(self.picks[seat])]].number
        actions = [place_action(EMPTY, number)]
        picks = self.picks[seat]
        last = -1
        for card in self.players[seat].hand:
            if card != last and IS_UNIT[card]:
                # hand is sorted: copies of a card are adjacent; one action per card id
                if card not in picks or self.players[seat].hand.count(card) > picks.count(card):
                    actions.append(place_action(POOL[card].id, number))
            last = card
        return actions

    def apply(self, seat: int, action: Action) -> list[Event]:
        if not isinstance(action, Action):
            raise IllegalAction(f"{action!r} is not an Action", "action format")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.num_seats:
            raise IllegalAction(f"there is no seat {seat!r} in this {self.num_seats}-player match", RULE_TURN)
        if action.kind == CONCEDE:
            return self._concede(seat, action)
        if self._outcome is not None:
            raise IllegalAction("the match is over", RULE_END)
        phase = self.phase
        events: list[Event] = []
        if phase == PLACEMENT:
            self._apply_place(seat, action, events)
        elif phase == RESPONSE:
            self._apply_response(seat, action, events)
        elif phase == CELESTIAL:
            self._apply_celestial(seat, action, events)
        elif phase == MULLIGAN:
            self._apply_mulligan(seat, action, events)
        else:
            raise IllegalAction(f"no decision is open in phase '{phase}'", RULE_TURN)
        self._advance(events)
        return events

    def _expect_turn(self, seat: int, rule: str) -> None:
        acting = self.to_act()
        if seat not in acting:
            who = ", ".join(f"Seat {s}" for s in acting)
            raise IllegalAction(f"it is not Seat {seat}'s decision ({who} to act, {self.phase} phase)", rule)

    def _apply_mulligan(self, seat: int, action: Action, events: list[Event]) -> None:
        self._expect_turn(seat, RULE_MULLIGAN)
        if action != KEEP_ACTION and action != MULLIGAN_ACTION:
            raise IllegalAction(f"{action} is not a choice now: 'keep' or 'mulligan' (no parameters)",
                                RULE_MULLIGAN)
        player = self.players[seat]
        if action == KEEP_ACTION:
            events.append(Event("keep", f"Seat {seat} keeps their hand", {"seat": seat}))
            self.cursor += 1
            return
        count = len(player.hand)
        player.deck.extend(player.hand)
        player.hand = []
        self.rng.shuffle(player.deck)
        player.mulligans_used += 1
        events.append(Event("mulligan", f"Seat {seat} mulligans: {count} cards shuffled back", {"seat": seat}))
        self.draw(seat, count, events)
        if player.mulligans_used >= self.params.mulligans:
            self.cursor += 1

    def _apply_celestial(self, seat: int, action: Action, events: list[Event]) -> None:
        self._expect_turn(seat, RULE_CELESTIAL)
        player = self.players[seat]
        if action == PASS_ACTION:
            events.append(Event("pass", f"Seat {seat} passes in the Celestial phase", {"seat": seat}))
            self.cursor += 1
            return
        if action != _CELESTIAL_ACTIONS[player.celestial]:
            raise IllegalAction(f"{action} is not a choice now: 'pass' or 'play_celestial' with card "
                                f"'{POOL[player.celestial].id}'", RULE_CELESTIAL)
        card = POOL[player.celestial]
        player.celestial_played = True
        self._changed()
        events.append(Event("celestial", f"Seat {seat} plays the Celestial {card.name}: {card.text}",
                            {"seat": seat, "card": card.id}))
        self.run_effects(card.effects, fx.Ctx(seat), events)
        self.cursor += 1

    def _apply_place(self, seat: int, action: Action, events: list[Event]) -> None:
        if self.submitted[seat]:
            raise IllegalAction(f"Seat {seat} has already submitted its placement", RULE_PLACEMENT)
        if action.kind != "place" or len(action.params) != 2:
            raise IllegalAction(f"{action} is not a placement: 'place' with 'card' and 'location'", RULE_PLACEMENT)
        card_id = action.get("card")
        location = action.get("location")
        picks = self.picks[seat]
        expected = self.locations[self.place_locs[seat][len(picks)]].number
        if location != expected or isinstance(location, bool):
            raise IllegalAction(f"the next Location to fill is {expected}, not {location!r}", RULE_PLACEMENT)
        if card_id == EMPTY:
            picks.append(-1)
            events.append(Event("pick", f"You leave Location {expected} empty", {"location": expected}, seat))
        else:
            card = BY_ID.get(card_id) if isinstance(card_id, str) else None
            if card is None:
                raise IllegalAction(f"there is no card '{card_id}'", RULE_PLACEMENT)
            if card.type != "unit":
                raise IllegalAction(f"{card.name} is not a unit: only units can be placed", RULE_PLACEMENT)
            hand = self.players[seat].hand
            if hand.count(card.index) <= picks.count(card.index):
                raise IllegalAction(f"no {card.name} left in hand to place", RULE_PLACEMENT)
            picks.append(card.index)
            events.append(Event("pick", f"You place {card.name} face down at Location {expected}",
                                {"location": expected, "card": card.id}, seat))
        if len(picks) == len(self.place_locs[seat]):
            self._submit_placement(seat, events)

    def _apply_response(self, seat: int, action: Action, events: list[Event]) -> None:
        self._expect_turn(seat, RULE_RESPONSE)
        if action == PASS_ACTION:
            events.append(Event("pass", f"Seat {seat} passes", {"seat": seat}))
            self.resp_i += 1
            return
        if action.kind != "respond" or len(action.params) != 1:
            raise IllegalAction(f"{action} is not a response: 'pass' or 'respond' with a Lightspeed 'card'",
                                RULE_RESPONSE)
        card_id = action.get("card")
        card = BY_ID.get(card_id) if isinstance(card_id, str) else None
        if card is None or card.type != "lightspeed":
            raise IllegalAction(f"'{card_id}' is not a Lightspeed card", RULE_RESPONSE)
        player = self.players[seat]
        if card.index not in player.hand:
            raise IllegalAction(f"Seat {seat} holds no {card.name}", RULE_RESPONSE)
        player.hand.remove(card.index)
        self.stack.append((seat, card.index))
        revealed = self.locations[self.win_loc].slots[self.win_seat]
        events.append(Event("respond", f"Seat {seat} responds at Lightspeed to {self.label(revealed)} with "
                            f"{card.name} ({card.ability_text['effects']})", {"seat": seat, "card": card.id}))
        # C6 / responses_per_window: a seat keeps the turn while it may respond again
        played = sum(1 for s, _ in self.stack if s == seat)
        if played >= self.params.responses_per_window or not player.hand:
            self.resp_i += 1

    def _concede(self, seat: int, action: Action) -> list[Event]:
        if self._outcome is not None:
            raise IllegalAction("the match is over", RULE_END)
        if set(dict(action.params)) - {"reason"}:
            raise IllegalAction("'concede' takes only a 'reason'", "concession")
        reason = str(action.get("reason", "") or "")
        scores = tuple(p.conquest for p in self.players)
        others = [s for s in range(self.num_seats) if s != seat]
        ranked = places_from_scores([scores[s] for s in others])
        places = [0] * self.num_seats
        for s, place in zip(others, ranked, strict=True):
            places[s] = place
        places[seat] = self.num_seats
        self._outcome = Outcome(places=tuple(places), scores=scores, reason="concession",
                                detail={"conceded": seat, "reason": reason, "conquest": list(scores),
                                        "battles": self.battle})
        self.phase = OVER
        return [Event("concede", f"Seat {seat} concedes" + (f": {reason}" if reason else ""),
                      {"seat": seat, "reason": reason})]

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator). See engine/conquest/site/rules.md, "Views"."""
        table = self.cq_table()
        players = []
        for s, p in enumerate(self.players):
            entry: dict[str, Any] = {
                "seat": s,
                "conquest": p.conquest,
                "hand_count": len(p.hand),
                "deck_count": len(p.deck),
                "discard": [_card_json(c) for c in p.discard],
                "uploads": [_card_json(c) for c in p.uploads],
                "celestial": _card_json(p.celestial),
                "celestial_played": p.celestial_played,
                "decklist": _decklist_json(self.deck_lists[s]),
            }
            if self.phase == PLACEMENT:
                entry["placement"] = "submitted" if self.submitted[s] else "placing"
            players.append(entry)
        locations = []
        for index, loc in enumerate(self.locations):
            units = []
            for s, unit in enumerate(loc.slots):
                if unit is None:
                    units.append(None)
                elif not unit.face_up:
                    hidden: dict[str, Any] = {"owner": s, "face_down": True}
                    if s == seat:
                        hidden.update(_card_json(unit.card))
                    units.append(hidden)
                else:
                    card = POOL[unit.card]
                    units.append({"owner": s, "face_down": False, "id": card.id, "name": card.name,
                                  "printed_cq": card.cq, "cq": table[unit.uid],
                                  "counts": self.params.plague_value if unit.plagued else table[unit.uid],
                                  "muted": unit.muted, "plagued": unit.plagued})
            locations.append({"number": loc.number, "kind": loc.kind, "label": loc.label,
                              "in_skirmish": self.phase in (PLACEMENT, RESPONSE) and index in self.skirmish_locs,
                              "units": units})
        out: dict[str, Any] = {
            "game": self.game,
            "seat": seat,
            "num_seats": self.num_seats,
            "phase": self.phase,
            "battle": self.battle,
            "skirmish": SKIRMISH_NAMES[self.skirmish].lower(),
            "active": self.active,
            "turn_order": list(self.order),
            "to_act": list(self.to_act()),
            "battle_of": self.params.battles,
            "params": self.params.to_json(),
            "params_changed": self._params_changed(),
            "players": players,
            "locations": locations,
        }
        if seat is not None:
            out["hand"] = [_card_json(c) for c in self.players[seat].hand]
            if self.phase == PLACEMENT and (not self.submitted[seat] or self.picks[seat]):
                out["placing"] = {
                    "locations": [self.locations[i].number for i in self.place_locs[seat]],
                    "picks": [None if c < 0 else _card_json(c) for c in self.picks[seat]],
                    "confirmed": self.submitted[seat],
                }
        if self.phase == RESPONSE:
            unit = self.locations[self.win_loc].slots[self.win_seat]
            out["window"] = {
                "revealed": {"seat": unit.owner, "location": self.locations[unit.loc].number,
                             **_card_json(unit.card)},
                "pending": POOL[unit.card].ability_text.get("on_reveal"),
                "responses": [{"seat": s, **_card_json(c)} for s, c in self.stack],
                "responders": list(self.responders),
                "waiting_for": self.responders[self.resp_i],
            }
        if self._outcome is not None:
            out["outcome"] = self._outcome.to_json()
        return out

    def _params_changed(self) -> list[dict[str, Any]]:
        """Every rules number card text has changed this match: name, value now, value at the start."""
        now = self.params.to_json()
        return [{"name": name, "value": now[name], "was": was, "text": f"{fx.PARAM_WORDS[name]} is {now[name]} "
                 f"this match (was {was})"}
                for name, was in self.initial_params.items() if name in fx.PARAM_WORDS and now[name] != was]

    # ------------------------------------------------------------------ copies, JSON, determinization

    def clone(self) -> ConquestState:
        other = ConquestState.__new__(ConquestState)
        other.num_seats = self.num_seats
        other.params = self.params.clone()
        other.seed = self.seed
        other.rng = self.rng.clone()
        other.players = [p.copy() for p in self.players]
        other.deck_lists = self.deck_lists  # never mutated
        other.first_active = self.first_active
        other.battle = self.battle
        other.skirmish = self.skirmish
        other.active = self.active
        other.order = self.order
        other.phase = self.phase
        other.cursor = self.cursor
        locations = []
        for loc in self.locations:
            copy = Location.__new__(Location)
            copy.number = loc.number
            copy.kind = loc.kind
            copy.slots = [None if u is None else u.copy() for u in loc.slots]
            locations.append(copy)
        other.locations = locations
        other.extra_created = self.extra_created
        other.next_uid = self.next_uid
        other.place_locs = [x[:] for x in self.place_locs]
        other.picks = [x[:] for x in self.picks]
        other.submitted = self.submitted[:]
        other.skirmish_locs = self.skirmish_locs[:]
        other.dep_i = self.dep_i
        other.dep_j = self.dep_j
        other.win_loc = self.win_loc
        other.win_seat = self.win_seat
        other.responders = self.responders[:]
        other.resp_i = self.resp_i
        other.stack = self.stack[:]
        other.param_changes = set(self.param_changes)
        other.initial_params = self.initial_params  # never mutated
        other._outcome = self._outcome
        other._cq_cache = None
        other.opening_events = []
        return other

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules_version": "2",
            "num_seats": self.num_seats,
            "params": self.params.to_json(),
            "initial_params": self.initial_params,
            "param_changes": sorted([s, k] for s, k in self.param_changes),
            "seed": self.seed,
            "rng": self.rng.to_json(),
            "players": [p.to_json() for p in self.players],
            "deck_lists": [[POOL[c].id for c in d] for d in self.deck_lists],
            "first_active": self.first_active,
            "battle": self.battle,
            "skirmish": self.skirmish,
            "phase": self.phase,
            "cursor": self.cursor,
            "locations": [{"number": loc.number, "kind": loc.kind,
                           "units": [None if u is None else u.to_json() for u in loc.slots]}
                          for loc in self.locations],
            "extra_created": self.extra_created,
            "next_uid": self.next_uid,
            "placement": {"locations": self.place_locs, "picks": [[-1 if c < 0 else POOL[c].id for c in x]
                                                                   for x in self.picks],
                          "submitted": self.submitted},
            "deployment": {"locations": self.skirmish_locs, "at": [self.dep_i, self.dep_j]},
            "window": {"location": self.win_loc, "seat": self.win_seat, "responders": self.responders,
                       "next": self.resp_i, "stack": [[s, POOL[c].id] for s, c in self.stack]},
            "outcome": self._outcome.to_json() if self._outcome else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ConquestState:
        num_seats = int(data["num_seats"])
        state = cls(num_seats, Params.from_json(data["params"]), int(data["seed"]), Rng.from_json(data["rng"]),
                    [Player.from_json(p) for p in data["players"]],
                    [[BY_ID[c].index for c in d] for d in data["deck_lists"]], int(data["first_active"]))
        state.battle = int(data["battle"])
        state.skirmish = int(data["skirmish"])
        state.active = (state.first_active + state.battle - 1) % num_seats
        state.order = tuple((state.active + i) % num_seats for i in range(num_seats))
        state.phase = data["phase"]
        state.cursor = int(data["cursor"])
        state.locations = []
        for index, raw in enumerate(data["locations"]):
            loc = Location(int(raw["number"]), raw["kind"], num_seats)
            loc.slots = [None if u is None else Unit.from_json(u, index) for u in raw["units"]]
            state.locations.append(loc)
        state.extra_created = int(data["extra_created"])
        state.next_uid = int(data["next_uid"])
        placement = data["placement"]
        state.place_locs = [list(x) for x in placement["locations"]]
        state.picks = [[-1 if c == -1 else BY_ID[c].index for c in x] for x in placement["picks"]]
        state.submitted = list(placement["submitted"])
        state.skirmish_locs = list(data["deployment"]["locations"])
        state.dep_i, state.dep_j = data["deployment"]["at"]
        window = data["window"]
        state.win_loc = int(window["location"])
        state.win_seat = int(window["seat"])
        state.responders = list(window["responders"])
        state.resp_i = int(window["next"])
        state.stack = [(int(s), BY_ID[c].index) for s, c in window["stack"]]
        state.initial_params = dict(data.get("initial_params") or state.params.to_json())
        state.param_changes = {(int(s), str(k)) for s, k in data.get("param_changes", [])}
        state._outcome = Outcome.from_json(data["outcome"]) if data.get("outcome") else None
        return state

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConquestState):
            return NotImplemented
        return json.dumps(self.to_json(), sort_keys=True) == json.dumps(other.to_json(), sort_keys=True)

    __hash__ = None  # type: ignore[assignment]

    def determinize(self, seat: int, rng: Rng) -> ConquestState:
        """A full state with everything ``seat`` cannot see resampled from ``rng``.

        Per owner, the unseen cards (other seats' hands and face-down units, every deck)
        are sorted by card id, shuffled with ``rng`` and dealt back: face-down slots take
        the first units of the shuffled pile, then hands, then the deck. Other seats'
        unfinished placements are cleared (they are hidden and must be chosen again), and
        their confirmed but unlocked placements (C5, amended) are dealt again at random from
        their resampled hands; the match seed and the random stream are reseeded from ``rng``.
        """
        state = self.clone()
        for owner, player in enumerate(state.players):
            face_down = [] if owner == seat else [
                loc.slots[owner] for loc in state.locations
                if loc.slots[owner] is not None and not loc.slots[owner].face_up]
            pile = list(player.deck)
            if owner != seat:
                pile += player.hand
                state.picks[owner] = []
            pile += [u.card for u in face_down]
            pile.sort()
            rng.shuffle(pile)
            for unit in face_down:
                for i, card in enumerate(pile):
                    if IS_UNIT[card]:
                        unit.card = pile.pop(i)
                        break
            if owner != seat:
                hand_size = len(player.hand)
                player.hand = sorted(pile[:hand_size])
                pile = pile[hand_size:]
                if state.phase == PLACEMENT and state.submitted[owner] and self.picks[owner]:
                    state.picks[owner] = _random_picks(player.hand, len(state.place_locs[owner]), rng)
            player.deck = pile
        state.seed = rng.next64()
        state.rng = Rng(_raw=rng.next64())
        state._cq_cache = None
        return state


def _random_picks(hand: list[int], locations: int, rng: Rng) -> list[int]:
    """A placement of ``hand``'s units over ``locations`` Locations (-1: empty), drawn from ``rng``."""
    units = [c for c in hand if IS_UNIT[c]]
    picks = []
    for _ in range(locations):
        i = rng.randrange(len(units) + 1)
        if i == len(units):
            picks.append(-1)
        else:
            picks.append(units.pop(i))
    return picks


def _decklist_json(cards: list[int]) -> list[list[Any]]:
    counts: dict[int, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return [[POOL[c].name, n] for c, n in sorted(counts.items())]


def _tiebreak_events(result: Mapping[str, Any]) -> list[Event]:
    seats = ", ".join(f"Seat {s}" for s in result["seats"])
    events = [Event("tiebreak", f"Match the Twos between {seats}", {"seats": result["seats"]})]
    for rnd in result["rounds"]:
        shown = "; ".join(
            f"Seat {r['seat']} reveals {r['cards'][0]} and {r['cards'][1]}"
            + (f" (a match at CQ {r['matched_cq']})" if r["matched_cq"] is not None else "")
            for r in rnd["reveals"])
        after = f": Seat {rnd['winner']} takes the higher place" if rnd["winner"] is not None else ": no decision"
        events.append(Event("tiebreak", f"Match the Twos round {rnd['round']}: {shown}{after}", dict(rnd)))
    if result["shared"]:
        events.append(Event("tiebreak", "The piles ran out: " + ", ".join(f"Seat {s}" for s in result["shared"])
                            + " stay tied", {"shared": result["shared"]}))
    return events
