"""The TempoFront state machine: one match in progress.

The rules text (shared/seeds/tempofront-rules.txt), RULINGS.md T1-T17 and the rulings of
engine/tempofront/site/rules.md are implemented here; the card effects are in ``effects.py``.

Phases, and who is to act (``to_act()``):

- ``mulligan``: the deciding seat (Initiative holder first) keeps or mulligans (T1).
- ``main``: the seat with less Time, ties to Initiative (T4), takes a main action or passes.
- ``response``: a main action was declared; the other seat may play one Reaction or pass.
- ``counter``: a Response was declared; the acting seat may answer with one Reaction or pass.
- ``scout``: a resolving Scout waits for its player to take one of the cards looked at.
- ``over``: the match has an outcome.

A declared action sits on the chain (``chain``) until the window closes; then the chain
resolves last-in, first-out. Legality is defined once, by the enumeration of
``legal_actions``; ``apply`` accepts exactly the listed actions and explains any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Action, Event, IllegalAction, Outcome, Rng
from engine.tempofront import effects as fx
from engine.tempofront.cards import (
    ACTOR_KINDS,
    ATTACHMENT,
    CARDS,
    ENTITY,
    REACTION,
    SITE,
    TACTIC,
    Card,
    Effect,
)
from engine.tempofront.params import Params, make_params

FRONTS = ("left", "center", "right")
ROWS = ("vanguard", "support")
FRONT_INDEX = {name: i for i, name in enumerate(FRONTS)}
ROW_INDEX = {name: i for i, name in enumerate(ROWS)}
#: Adjacent Fronts (T17): left-center, center-right.
ADJACENT = ((1,), (0, 2), (1,))
#: Slot ``i`` of a side is Front ``i >> 1``, row ``i & 1`` (0 Vanguard, 1 Support).
SLOT_WORDS = tuple(f"{FRONTS[i >> 1]} {ROWS[i & 1].capitalize()}" for i in range(6))
#: Board positions as actions name them: "1.left.vanguard"; a Leader is "1.leader".
POS = tuple(tuple(f"{seat}.{FRONTS[i >> 1]}.{ROWS[i & 1]}" for i in range(6)) for seat in (0, 1))
LEADER_POS = ("0.leader", "1.leader")
SEAT = ("Seat 0", "Seat 1")
PASS = Action("pass")
KEEP = Action("keep")
MULLIGAN = Action("mulligan")

_REACTIONS = [c for c in CARDS.values() if c.type == REACTION]
#: The cheapest any Reaction of the pool can be, with its Prepare discount. A response
#: window opens unless the public counters show that no Reaction could be afforded, so
#: that whether a window opens never reveals what a hand holds.
MIN_REACTION_TIME = min((max(0, c.time - c.prep_time) for c in _REACTIONS), default=99)
MIN_REACTION_FOCUS = min((max(0, c.focus - c.prep_focus) for c in _REACTIONS), default=99)

# Actions are immutable values, so the ones without a chosen target are built once here:
# listing legal actions then allocates nothing but the list.
_SLOT_PARAMS = tuple((("front", FRONTS[i >> 1]), ("row", ROWS[i & 1])) for i in range(6))
DEPLOY = {cid: tuple(Action("deploy", (("card", cid),) + _SLOT_PARAMS[i]) for i in range(6)) for cid in CARDS}
PLAY = {cid: Action("play", (("card", cid),)) for cid in CARDS}
REACT = {cid: Action("react", (("card", cid),)) for cid in CARDS}
PREPARE = {cid: Action("prepare", (("card", cid),)) for cid in CARDS}
TAKE = {cid: Action("take", (("card", cid),)) for cid in CARDS}
SITE_ACTIONS = {cid: tuple(Action("site", (("card", cid), ("front", FRONTS[f]))) for f in range(3)) for cid in CARDS}
STRIKE = tuple({t: Action("strike", _SLOT_PARAMS[i] + (("target", t),)) for t in ("vanguard", "support", "leader")}
               for i in range(6))
SHIFT = tuple(tuple(Action("shift", _SLOT_PARAMS[i] + (("to_front", FRONTS[j >> 1]), ("to_row", ROWS[j & 1])))
                    for j in range(6)) for i in range(6))
ACTIVATE = tuple(Action("activate", _SLOT_PARAMS[i]) for i in range(6))
LEADER_ACTION = Action("leader")
_TARGETED: dict[tuple[str, tuple[tuple[str, Any], ...], str], Action] = {}


def _targeted(kind: str, base: tuple[tuple[str, Any], ...], target: str) -> Action:
    """An action with a chosen target (memoised: the same few recur all match long)."""
    key = (kind, base, target)
    action = _TARGETED.get(key)
    if action is None:
        action = _TARGETED[key] = Action(kind, base + (("target", target),))
    return action


def parse_pos(text: Any) -> tuple[str, int, int] | None:
    """``"1.left.vanguard"`` -> ("unit", 1, slot); ``"0.leader"`` -> ("leader", 0, -1);
    ``"center"`` -> ("front", -1, 1); anything else -> None."""
    if not isinstance(text, str):
        return None
    if text in FRONT_INDEX:
        return ("front", -1, FRONT_INDEX[text])
    parts = text.split(".")
    if len(parts) == 2 and parts[0] in ("0", "1") and parts[1] == "leader":
        return ("leader", int(parts[0]), -1)
    if len(parts) == 3 and parts[0] in ("0", "1") and parts[1] in FRONT_INDEX and parts[2] in ROW_INDEX:
        return ("unit", int(parts[0]), FRONT_INDEX[parts[1]] * 2 + ROW_INDEX[parts[2]])
    return None


# --------------------------------------------------------------------------- pieces


class Unit:
    """An Entity on the board. Stats below ``attachments`` are derived (see ``refresh``)."""

    __slots__ = ("uid", "card", "owner", "slot", "damage", "ready", "shifted", "used", "stun", "root", "silence",
                 "exposed", "protected", "barrier", "buff_power", "buff_vitality", "attachments",
                 "power", "vitality", "armor", "presence", "ranged", "mobile", "structure")

    def __init__(self, uid: int, card: Card, owner: int, slot: int):
        self.uid = uid
        self.card = card
        self.owner = owner
        self.slot = slot
        self.damage = 0
        self.ready = "rapid" in card.keywords
        self.shifted = False
        self.used = False
        # Status expiries: 0 = none, else the Cycle at whose end the status ends (T12).
        self.stun = 0
        self.root = 0
        self.silence = 0
        self.exposed = 0
        self.protected = 0
        self.barrier = "barrier" in card.keywords
        self.buff_power = 0
        self.buff_vitality = 0
        self.attachments: list[tuple[str, int]] = []  # (card id, owner)
        self.refresh()

    def refresh(self) -> None:
        """Recompute the stats from card, Attachments, buffs and Silence (auras come after)."""
        card = self.card
        power = card.power + self.buff_power
        vitality = card.vitality + self.buff_vitality
        armor = card.armor
        keywords = card.keywords
        presence = card.presence
        for cid, _owner in self.attachments:
            # T14: an Attachment adds its stats and Presence to its Entity (for the
            # Entity's controller).
            extra = CARDS[cid]
            power += extra.power
            vitality += extra.vitality
            armor += extra.armor
            presence += extra.presence
            if extra.keywords:
                keywords = keywords | extra.keywords
        self.power = power
        self.vitality = vitality
        self.presence = presence
        if self.silence:
            # Exact rule: Silence. The Entity keeps its stats and printed Presence (T9).
            self.armor = 0
            self.ranged = self.mobile = self.structure = False
        else:
            self.armor = armor
            self.ranged = "ranged" in keywords
            self.mobile = "mobile" in keywords
            self.structure = "structure" in keywords

    def clone(self) -> Unit:
        # Written out in full: search bots clone states thousands of times per decision.
        other = Unit.__new__(Unit)
        other.uid = self.uid
        other.card = self.card
        other.owner = self.owner
        other.slot = self.slot
        other.damage = self.damage
        other.ready = self.ready
        other.shifted = self.shifted
        other.used = self.used
        other.stun = self.stun
        other.root = self.root
        other.silence = self.silence
        other.exposed = self.exposed
        other.protected = self.protected
        other.barrier = self.barrier
        other.buff_power = self.buff_power
        other.buff_vitality = self.buff_vitality
        other.attachments = list(self.attachments)
        other.power = self.power
        other.vitality = self.vitality
        other.armor = self.armor
        other.presence = self.presence
        other.ranged = self.ranged
        other.mobile = self.mobile
        other.structure = self.structure
        return other

    @property
    def name(self) -> str:
        return self.card.name

    def keyword_list(self) -> list[str]:
        words = []
        if self.armor:
            words.append(f"Armor {self.armor}")
        if self.ranged:
            words.append("Ranged")
        if self.barrier:
            words.append("Barrier")
        if "rapid" in self.card.keywords and not self.silence:
            words.append("Rapid")
        if self.mobile:
            words.append("Mobile")
        if self.structure:
            words.append("Structure")
        return words

    def to_json(self) -> dict[str, Any]:
        return {
            "uid": self.uid, "card": self.card.id, "owner": self.owner, "slot": self.slot, "damage": self.damage,
            "ready": self.ready, "shifted": self.shifted, "used": self.used, "stun": self.stun, "root": self.root,
            "silence": self.silence, "exposed": self.exposed, "protected": self.protected, "barrier": self.barrier,
            "buff_power": self.buff_power, "buff_vitality": self.buff_vitality,
            "attachments": [[cid, owner] for cid, owner in self.attachments],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Unit:
        unit = cls(int(data["uid"]), CARDS[data["card"]], int(data["owner"]), int(data["slot"]))
        for name in ("damage", "stun", "root", "silence", "exposed", "protected", "buff_power", "buff_vitality"):
            setattr(unit, name, int(data[name]))
        for name in ("ready", "shifted", "used", "barrier"):
            setattr(unit, name, bool(data[name]))
        unit.attachments = [(str(cid), int(owner)) for cid, owner in data["attachments"]]
        unit.refresh()
        return unit


class Player:
    """One seat's counters and zones. ``deck[-1]`` is the top of the deck."""

    __slots__ = ("leader", "integrity", "focus", "max_focus", "time", "passed", "dominion", "hand", "deck",
                 "discard", "reserve", "scouting", "fatigue", "leader_used", "mulligans")

    def __init__(self, leader: Card, integrity: int, deck: list[str], mulligans: int):
        self.leader = leader
        self.integrity = integrity
        self.focus = 0
        self.max_focus = 0
        self.time = 0
        self.passed = False
        self.dominion = 0
        self.hand: list[str] = []
        self.deck = deck
        self.discard: list[str] = []
        self.reserve: list[str] = []
        self.scouting: list[str] = []
        self.fatigue = 0
        self.leader_used = False
        self.mulligans = mulligans

    def clone(self) -> Player:
        other = Player.__new__(Player)
        other.leader = self.leader
        other.integrity = self.integrity
        other.focus = self.focus
        other.max_focus = self.max_focus
        other.time = self.time
        other.passed = self.passed
        other.dominion = self.dominion
        other.fatigue = self.fatigue
        other.leader_used = self.leader_used
        other.mulligans = self.mulligans
        other.hand = list(self.hand)
        other.deck = list(self.deck)
        other.discard = list(self.discard)
        other.reserve = list(self.reserve)
        other.scouting = list(self.scouting)
        return other

    def to_json(self) -> dict[str, Any]:
        return {
            "leader": self.leader.id, "integrity": self.integrity, "focus": self.focus, "max_focus": self.max_focus,
            "time": self.time, "passed": self.passed, "dominion": self.dominion, "hand": list(self.hand),
            "deck": list(self.deck), "discard": list(self.discard), "reserve": list(self.reserve),
            "scouting": list(self.scouting), "fatigue": self.fatigue, "leader_used": self.leader_used,
            "mulligans": self.mulligans,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Player:
        player = cls(CARDS[data["leader"]], int(data["integrity"]), [str(c) for c in data["deck"]],
                     int(data["mulligans"]))
        for name in ("focus", "max_focus", "time", "dominion", "fatigue"):
            setattr(player, name, int(data[name]))
        player.passed = bool(data["passed"])
        player.leader_used = bool(data["leader_used"])
        for name in ("hand", "discard", "reserve", "scouting"):
            setattr(player, name, [str(c) for c in data[name]])
        return player


class Item:
    """A declared action on the chain, waiting to resolve.

    ``slot``: the Deploy's slot, the Site's Front, or the acting Entity's slot when declared.
    ``tref``: the chosen target as ("u", uid) / ("l", seat) / ("f", front), or None.
    ``actor``: the acting Entity's uid (Strike, Shift, ability; the deployed Entity once in).
    ``answers``: for a Reaction, the chain index of the action it responds to.
    ``step``: -1 before resolution starts, else the index of the next effect to resolve.
    """

    __slots__ = ("seat", "kind", "card", "slot", "to_slot", "target", "tref", "actor", "answers", "cancelled",
                 "step")

    def __init__(self, seat: int, kind: str, card: str):
        self.seat = seat
        self.kind = kind
        self.card = card
        self.slot = -1
        self.to_slot = -1
        self.target: str | None = None
        self.tref: tuple[str, int] | None = None
        self.actor: int | None = None
        self.answers = -1
        self.cancelled = False
        self.step = -1

    def clone(self) -> Item:
        other = Item.__new__(Item)
        for name in Item.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "kind": self.kind, "card": self.card, "slot": self.slot, "to_slot": self.to_slot,
            "target": self.target, "tref": list(self.tref) if self.tref else None, "actor": self.actor,
            "answers": self.answers, "cancelled": self.cancelled, "step": self.step,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Item:
        item = cls(int(data["seat"]), str(data["kind"]), str(data["card"]))
        item.slot = int(data["slot"])
        item.to_slot = int(data["to_slot"])
        item.target = data["target"]
        item.tref = (str(data["tref"][0]), int(data["tref"][1])) if data["tref"] else None
        item.actor = None if data["actor"] is None else int(data["actor"])
        item.answers = int(data["answers"])
        item.cancelled = bool(data["cancelled"])
        item.step = int(data["step"])
        return item


class Ctx:
    """What an effect needs to know about its source."""

    __slots__ = ("seat", "unit", "front", "chosen", "item", "struck", "name")

    def __init__(self, seat: int, name: str, unit: Unit | None = None, front: int = -1, chosen: Any = None,
                 item: Item | None = None, struck: Unit | None = None):
        self.seat = seat
        self.name = name
        self.unit = unit
        self.front = front
        self.chosen = chosen
        self.item = item
        self.struck = struck


# --------------------------------------------------------------------------- the state


class TempoState:
    """One TempoFront match. Build it with ``GAME.new_match`` or ``positions.position``."""

    game = "tempofront"
    num_seats = 2

    def __init__(self, params: Params, players: list[Player], rng: Rng):
        self.params = params
        self.players = players
        self.rng = rng
        self.cycle = 0
        self.initiative = 0
        self.phase = "mulligan"
        self.actor = 0  # the seat to act in the main phase, or the deciding seat in the mulligan
        self.next_uid = 1
        self.board: list[list[Unit | None]] = [[None] * 6, [None] * 6]
        self.sites: list[tuple[str, int] | None] = [None, None, None]  # (card id, owner)
        self.chain: list[Item] = []
        self._outcome: Outcome | None = None
        self.dirty = False  # derived stats (auras) need recomputing
        self._version = 0
        self._legal: tuple[int, int, list[Action]] | None = None
        #: Events of the setup (coin flip, opening hands), kept by ``GAME.new_match``.
        self.opening_events: list[Event] = []

    # ----------------------------------------------------------------- setup

    @classmethod
    def new(cls, leaders: list[Card], decks: list[list[str]], seed: int, params: Mapping[str, Any] | None
            ) -> tuple[TempoState, list[Event]]:
        """T1: shuffle by seed, flip for Initiative, deal opening hands; mulligans follow."""
        prm = make_params(params)
        rng = Rng(seed)
        players = [Player(leaders[s], prm.integrity, list(decks[s]), prm.mulligans) for s in (0, 1)]
        state = cls(prm, players, rng)
        events: list[Event] = []
        for seat in (0, 1):
            rng.shuffle(players[seat].deck)
        state.initiative = rng.randrange(2)
        events.append(Event("setup", f"The coin gives Seat {state.initiative} the Initiative for Cycle 1",
                            {"initiative": state.initiative}))
        for seat in (0, 1):
            state.draw(seat, prm.opening_hand, events)
        state.actor = state.initiative
        if prm.mulligans == 0:
            state.start_cycle(1, events)
            state._advance(events)
        return state, events

    # ----------------------------------------------------------------- the contract

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    def to_act(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == "main" or phase == "mulligan":
            return (self.actor,)
        if phase == "response":
            return (1 - self.chain[0].seat,)
        if phase == "counter":
            return (self.chain[0].seat,)
        if phase == "scout":
            return (0,) if self.players[0].scouting else (1,)
        return ()

    def legal_actions(self, seat: int) -> list[Action]:
        cached = self._legal
        if cached is not None and cached[0] == self._version and cached[1] == seat:
            return list(cached[2])
        if seat not in self.to_act():
            actions: list[Action] = []
        else:
            phase = self.phase
            if self.dirty:
                self.recalc()
            if phase == "main":
                actions = self._main_actions(seat)
            elif phase == "response" or phase == "counter":
                actions = self._reaction_actions(seat)
            elif phase == "scout":
                actions = [TAKE[cid] for cid in dict.fromkeys(self.players[seat].scouting)]
            else:
                actions = [KEEP, MULLIGAN]
        self._legal = (self._version, seat, actions)
        return list(actions)

    def apply(self, seat: int, action: Action) -> list[Event]:
        if action.kind == "concede":
            return self._concede(seat, action)
        cached = self._legal
        if cached is not None and cached[0] == self._version and cached[1] == seat:
            legal = cached[2]
        else:
            legal = self.legal_actions(seat)
        if action not in legal:
            raise self._explain(seat, action)
        self._version += 1
        self._legal = None
        events: list[Event] = []
        getattr(self, _HANDLERS[action.kind])(seat, action, events)
        return events

    def clone(self) -> TempoState:
        other = TempoState.__new__(TempoState)
        other.params = self.params
        other.players = [p.clone() for p in self.players]
        other.rng = self.rng.clone()
        other.cycle = self.cycle
        other.initiative = self.initiative
        other.phase = self.phase
        other.actor = self.actor
        other.next_uid = self.next_uid
        other.board = [[u.clone() if u is not None else None for u in side] for side in self.board]
        other.sites = list(self.sites)
        other.chain = [item.clone() for item in self.chain]
        other._outcome = self._outcome
        other.dirty = self.dirty
        other._version = 0
        other._legal = None
        other.opening_events = []
        return other

    def determinize(self, seat: int, rng: Rng) -> TempoState:
        """Resample what ``seat`` cannot see: its own deck order, and the opponent's hand,
        Reserve, cards being scouted, card being Prepared (T18) and deck (pooled, then dealt
        back in the same sizes);
        the match's random stream is reseeded from ``rng``."""
        other = self.clone()
        mine = other.players[seat]
        foe = other.players[1 - seat]
        deck = sorted(mine.deck)
        rng.shuffle(deck)
        mine.deck = deck
        preparing = [item for item in other.chain if item.kind == "prepare" and item.seat != seat]
        pool = sorted(foe.hand + foe.reserve + foe.scouting + [item.card for item in preparing] + foe.deck)
        rng.shuffle(pool)
        sizes = (len(foe.hand), len(foe.reserve), len(foe.scouting))
        foe.hand = pool[:sizes[0]]
        foe.reserve = pool[sizes[0]:sizes[0] + sizes[1]]
        foe.scouting = pool[sizes[0] + sizes[1]:sizes[0] + sizes[1] + sizes[2]]
        rest = pool[sizes[0] + sizes[1] + sizes[2]:]
        for item in preparing:  # T18: the card being Prepared is face down
            item.card = rest.pop(0)
        foe.deck = rest
        other.rng = Rng(_raw=rng.next64())
        return other

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "params": self.params.to_json(),
            "rng": self.rng.to_json(),
            "cycle": self.cycle,
            "initiative": self.initiative,
            "phase": self.phase,
            "actor": self.actor,
            "next_uid": self.next_uid,
            "players": [p.to_json() for p in self.players],
            "board": [[u.to_json() if u is not None else None for u in side] for side in self.board],
            "sites": [list(site) if site else None for site in self.sites],
            "chain": [item.to_json() for item in self.chain],
            "outcome": self._outcome.to_json() if self._outcome else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TempoState:
        state = cls(make_params(data["params"]), [Player.from_json(p) for p in data["players"]],
                    Rng.from_json(data["rng"]))
        state.cycle = int(data["cycle"])
        state.initiative = int(data["initiative"])
        state.phase = str(data["phase"])
        state.actor = int(data["actor"])
        state.next_uid = int(data["next_uid"])
        state.board = [[Unit.from_json(u) if u else None for u in side] for side in data["board"]]
        state.sites = [(str(site[0]), int(site[1])) if site else None for site in data["sites"]]
        state.chain = [Item.from_json(item) for item in data["chain"]]
        state._outcome = Outcome.from_json(data["outcome"]) if data["outcome"] else None
        state.recalc()
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TempoState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<TempoState cycle {self.cycle} {self.phase} to act {self.to_act()}>"

    # ----------------------------------------------------------------- views

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: a spectator). No hidden card of another seat,
        no deck order, no Reserve contents, no random stream."""
        if self.dirty:
            self.recalc()
        presence = self.presence()
        out: dict[str, Any] = {
            "game": self.game,
            "seat": seat,
            "phase": self.phase,
            "cycle": self.cycle,
            "initiative": self.initiative,
            "to_act": list(self.to_act()),
            "timeline": self.params.timeline,
            "players": [self._player_view(s) for s in (0, 1)],
            "board": [{FRONTS[f]: {ROWS[r]: self._unit_view(self.board[s][2 * f + r]) for r in (0, 1)}
                       for f in range(3)} for s in (0, 1)],
            "sites": {FRONTS[f]: ({"id": site[0], "name": CARDS[site[0]].name, "owner": site[1],
                                   "presence": CARDS[site[0]].presence, "text": CARDS[site[0]].text}
                                  if site else None) for f, site in enumerate(self.sites)},
            "presence": {FRONTS[f]: [presence[0][f], presence[1][f]] for f in range(3)},
            "chain": [self._item_view(item, seat) for item in self.chain],
            "outcome": self._outcome.to_json() if self._outcome else None,
        }
        if seat in (0, 1):
            me = self.players[seat]
            out["hand"] = [_card_ref(cid) for cid in me.hand]
            out["reserve"] = [_card_ref(cid) for cid in me.reserve]
            out["scouting"] = [_card_ref(cid) for cid in me.scouting]
        return out

    def _player_view(self, seat: int) -> dict[str, Any]:
        p = self.players[seat]
        return {
            "seat": seat,
            "leader": {"id": p.leader.id, "name": p.leader.name, "text": p.leader.text, "used": p.leader_used},
            "integrity": p.integrity,
            "focus": p.focus,
            "max_focus": p.max_focus,
            "time": p.time,
            "passed": p.passed,
            "dominion": p.dominion,
            "hand_count": len(p.hand),
            "deck_count": len(p.deck),
            "reserve_count": len(p.reserve),
            "scouting_count": len(p.scouting),
            "discard": [_card_ref(cid) for cid in p.discard],
            "fatigue": p.fatigue,
            "mulligans_left": p.mulligans,
        }

    def _unit_view(self, unit: Unit | None) -> dict[str, Any] | None:
        if unit is None:
            return None
        return {
            "uid": unit.uid, "id": unit.card.id, "name": unit.card.name, "owner": unit.owner,
            "pos": POS[unit.owner][unit.slot], "power": unit.power, "vitality": unit.vitality,
            "damage": unit.damage, "presence": unit.presence, "armor": unit.armor, "keywords": unit.keyword_list(),
            "ready": unit.ready, "shifted": unit.shifted, "ability_used": unit.used,
            # A status shows the Cycle at whose end it expires, "permanent", or null.
            "statuses": {"stunned": _until(unit.stun), "rooted": _until(unit.root),
                         "silenced": _until(unit.silence), "exposed": unit.exposed, "protected": unit.protected},
            "attachments": [{"id": cid, "name": CARDS[cid].name, "owner": owner} for cid, owner in unit.attachments],
            "text": unit.card.text,
        }

    def _item_view(self, item: Item, seat: int | None) -> dict[str, Any]:
        hidden = item.kind == "prepare" and seat != item.seat  # T18: a Prepared card is face down
        return {
            "seat": item.seat, "kind": item.kind, "card": None if hidden else _card_ref(item.card),
            "from": POS[item.seat][item.slot] if item.kind in ACTOR_KINDS or item.kind == "deploy" else None,
            "to": POS[item.seat][item.to_slot] if item.kind == "shift" else None,
            "target": item.target, "cancelled": item.cancelled, "text": self.item_words(item),
        }

    # ----------------------------------------------------------------- derived values

    def recalc(self) -> None:
        """Recompute every Entity's stats: card, Attachments, buffs, Silence, then auras."""
        self.dirty = False
        auras: list[tuple[int, int, Effect, Unit | None]] = []
        for seat in (0, 1):
            for aura in self.players[seat].leader.auras:
                auras.append((seat, -1, aura, None))
            for unit in self.board[seat]:
                if unit is not None and unit.card.auras and not unit.silence:
                    for aura in unit.card.auras:
                        auras.append((seat, unit.slot >> 1 if aura.scope == "front" else -1, aura, unit))
        for front, site in enumerate(self.sites):
            if site is not None:
                for aura in CARDS[site[0]].auras:
                    auras.append((site[1], front if aura.scope == "front" else -1, aura, None))
        for side in self.board:
            for unit in side:
                if unit is None:
                    continue
                unit.refresh()
                for seat, front, aura, source in auras:
                    if seat != unit.owner or (front >= 0 and front != unit.slot >> 1):
                        continue
                    filt = aura.filter
                    if filt is not None and not (
                        (filt == "other" and source is not unit)
                        or (filt == "mobile" and unit.mobile)
                        or (filt == "structure" and unit.structure)
                        or (filt == "ranged" and unit.ranged)
                        or (filt == "vanguard" and not unit.slot & 1)
                        or (filt == "support" and unit.slot & 1)
                    ):
                        continue
                    unit.power += aura.power
                    unit.vitality += aura.vitality
                    if not unit.silence:
                        unit.armor += aura.armor
                    unit.presence += aura.presence
                if unit.power < 0:
                    unit.power = 0
                if unit.armor < 0:
                    unit.armor = 0

    def presence(self) -> list[list[int]]:
        """Exact rule: Presence. Per seat and Front: Entities', Attachments' and Site's."""
        if self.dirty:
            self.recalc()
        totals = [[0, 0, 0], [0, 0, 0]]
        for side in self.board:
            for unit in side:
                if unit is None:
                    continue
                front = unit.slot >> 1
                totals[unit.owner][front] += unit.presence
        for front, site in enumerate(self.sites):
            if site is not None:
                totals[site[1]][front] += CARDS[site[0]].presence
        return totals

    def unit(self, uid: int | None) -> Unit | None:
        """The Entity with this uid if it is still on the board."""
        if uid is None:
            return None
        for side in self.board:
            for unit in side:
                if unit is not None and unit.uid == uid:
                    return unit
        return None

    def pos_of(self, unit: Unit) -> str | None:
        return POS[unit.owner][unit.slot] if unit.slot >= 0 else None

    def item_words(self, item: Item) -> str:
        """A chain item in words: "Seat 0's Strike with Ironclad Sentry"."""
        who = SEAT[item.seat]
        name = CARDS[item.card].name
        kind = item.kind
        if kind == "strike":
            return f"{who}'s Strike with {name}"
        if kind == "shift":
            return f"{who}'s Shift of {name}"
        if kind == "activate":
            return f"{who}'s ability of {name}"
        if kind == "leader":
            return f"{who}'s Leader ability ({name})"
        if kind == "prepare":
            return f"{who}'s Prepare"  # T18: which card is never said
        return f"{who}'s {name}"

    def _cost(self, player: Player, card: Card) -> tuple[int, int, bool]:
        """Focus and Time to play ``card`` now, and whether it comes from the Reserve.

        A card Prepared this Cycle is played from the Reserve with its printed discount
        (T15), never from hand while a copy waits in the Reserve."""
        if card.id in player.reserve:
            return max(0, card.focus - card.prep_focus), max(0, card.time - card.prep_time), True
        return card.focus, card.time, False

    # ----------------------------------------------------------------- legal actions

    def _options(self, seat: int, choose: str, front: int) -> list[str]:
        """The targets a choice offers, as position strings (in board order)."""
        foe = 1 - seat
        if choose == "front":
            return list(FRONTS)
        if choose == "enemy_entity_here":
            side = self.board[foe]
            return [POS[foe][i] for i in (2 * front, 2 * front + 1) if side[i] is not None]
        out: list[str] = []
        if choose in ("friendly_entity", "any_entity"):
            side = self.board[seat]
            out += [POS[seat][i] for i in range(6) if side[i] is not None]
        if choose in ("enemy_entity", "any_entity", "enemy_entity_or_leader"):
            side = self.board[foe]
            out += [POS[foe][i] for i in range(6) if side[i] is not None]
        if choose == "enemy_entity_or_leader":
            out.append(LEADER_POS[foe])
        return out

    def _main_actions(self, seat: int) -> list[Action]:
        prm = self.params
        p = self.players[seat]
        room = prm.timeline - p.time
        focus = p.focus
        mine = self.board[seat]
        out: list[Action] = []
        seen: set[str] = set()
        for cid in (p.reserve + p.hand) if p.reserve else p.hand:
            if cid in seen:
                continue
            seen.add(cid)
            card = CARDS[cid]
            kind = card.type
            if kind == REACTION:
                continue
            cost_focus, cost_time, _ = self._cost(p, card) if p.reserve else (card.focus, card.time, False)
            if cost_focus > focus or cost_time > room:
                continue
            if kind == ENTITY:
                deploys = DEPLOY[cid]
                for i in range(6):
                    if mine[i] is None:
                        options = self._options(seat, card.choose, i >> 1) if card.choose else None
                        if options:
                            base = deploys[i].params
                            out.extend(_targeted("deploy", base, o) for o in options)
                        else:
                            out.append(deploys[i])
            elif kind == TACTIC:
                if card.choose:
                    base = PLAY[cid].params
                    out.extend(_targeted("play", base, o) for o in self._options(seat, card.choose, -1))
                else:
                    out.append(PLAY[cid])
            elif kind == ATTACHMENT:
                host_seat = seat if card.attach_to == "friendly" else 1 - seat
                side = self.board[host_seat]
                base = PLAY[cid].params
                out.extend(_targeted("attach", base, POS[host_seat][i]) for i in range(6) if side[i] is not None)
            elif kind == SITE:
                for f in range(3):
                    if card.choose:
                        base = SITE_ACTIONS[cid][f].params
                        out.extend(_targeted("site", base, o) for o in self._options(seat, card.choose, f))
                    else:
                        out.append(SITE_ACTIONS[cid][f])
        if room >= prm.prepare_time:
            prepared: set[str] = set()
            for cid in p.hand:
                if cid not in prepared and CARDS[cid].preparable:
                    prepared.add(cid)
                    out.append(PREPARE[cid])
        foe = self.board[1 - seat]
        for i in range(6):
            unit = mine[i]
            if unit is None:
                continue
            front = i >> 1
            if (unit.ready and not unit.stun and not unit.structure and unit.power > 0
                    and room >= prm.strike_time and (not i & 1 or unit.ranged)):
                vanguard = foe[2 * front]
                support = foe[2 * front + 1]
                strikes = STRIKE[i]
                if unit.ranged and (vanguard or support):
                    if vanguard is not None:
                        out.append(strikes["vanguard"])
                    if support is not None:
                        out.append(strikes["support"])
                else:
                    out.append(strikes["vanguard" if vanguard else "support" if support else "leader"])
            if not unit.shifted and not unit.root and not unit.structure:
                cost = prm.shift_time_mobile if unit.mobile else prm.shift_time
                if cost <= room:
                    shifts = SHIFT[i]
                    for to in ADJACENT[front]:
                        if mine[2 * to] is None:
                            out.append(shifts[2 * to])
                        if mine[2 * to + 1] is None:
                            out.append(shifts[2 * to + 1])
            ability = unit.card.activated
            if (ability is not None and not unit.silence and not unit.stun and not (ability.once and unit.used)
                    and ability.time <= room and ability.focus <= focus):
                if ability.choose:
                    base = ACTIVATE[i].params
                    out.extend(_targeted("activate", base, o) for o in self._options(seat, ability.choose, front))
                else:
                    out.append(ACTIVATE[i])
        ability = p.leader.activated
        if (ability is not None and not (ability.once and p.leader_used) and ability.time <= room
                and ability.focus <= focus):
            if ability.choose:
                out.extend(_targeted("leader", (), o) for o in self._options(seat, ability.choose, -1))
            else:
                out.append(LEADER_ACTION)
        out.append(PASS)
        return out

    def _reaction_actions(self, seat: int) -> list[Action]:
        p = self.players[seat]
        room = self.params.timeline - p.time
        pending = self.chain[-1]
        actor_here = pending.kind in ACTOR_KINDS and self.unit(pending.actor) is not None
        out: list[Action] = []
        seen: set[str] = set()
        for cid in (p.reserve + p.hand) if p.reserve else p.hand:
            if cid in seen:
                continue
            seen.add(cid)
            card = CARDS[cid]
            if card.type != REACTION:
                continue
            cost_focus, cost_time, _ = self._cost(p, card)
            if cost_focus > p.focus or cost_time > room:
                continue
            if card.react_to is not None and pending.kind not in card.react_to:
                continue
            if card.needs_actor and not actor_here:
                continue
            if card.choose:
                base = REACT[cid].params
                out.extend(_targeted("react", base, o) for o in self._options(seat, card.choose, -1))
            else:
                out.append(REACT[cid])
        out.append(PASS)
        return out

    # ----------------------------------------------------------------- action handlers

    def _concede(self, seat: int, action: Action) -> list[Event]:
        if self._outcome is not None:
            raise IllegalAction("the match is already over", "T10 End")
        if seat not in (0, 1):
            raise IllegalAction(f"there is no seat {seat} in this match", "seats")
        reason = action.get("reason", "")
        self._version += 1
        self._legal = None
        places = (2, 1) if seat == 0 else (1, 2)
        self._finish(places, "concession", {"seat": seat, "reason": str(reason) if reason is not None else ""})
        return [Event("concede", f"{SEAT[seat]} conceded" + (f" ({reason})" if reason else ""), {"seat": seat})]

    def _do_keep(self, seat: int, action: Action, events: list[Event]) -> None:
        self.players[seat].mulligans = 0
        events.append(Event("mulligan", f"{SEAT[seat]} keeps their hand", {"seat": seat, "mulligan": False}))
        self._next_decider(seat, events)

    def _do_mulligan(self, seat: int, action: Action, events: list[Event]) -> None:
        p = self.players[seat]
        p.deck.extend(p.hand)
        p.hand = []
        self.rng.shuffle(p.deck)
        p.mulligans -= 1
        events.append(Event("mulligan", f"{SEAT[seat]} mulligans", {"seat": seat, "mulligan": True}))
        self.draw(seat, self.params.opening_hand, events)
        if p.mulligans <= 0:
            self._next_decider(seat, events)

    def _next_decider(self, seat: int, events: list[Event]) -> None:
        if seat == self.initiative and self.players[1 - seat].mulligans > 0:
            self.actor = 1 - seat
            return
        self.start_cycle(1, events)
        self._advance(events)

    def _do_pass(self, seat: int, action: Action, events: list[Event]) -> None:
        if self.phase == "main":
            self.players[seat].passed = True
            events.append(Event("pass", f"{SEAT[seat]} passes for the rest of Cycle {self.cycle}", {"seat": seat}))
            self._advance(events)
            return
        events.append(Event("no_response", f"{SEAT[seat]} lets it resolve", {"seat": seat}))
        self._resolve_chain(events)

    def _pay(self, seat: int, card: Card, events: list[Event]) -> tuple[int, int, bool]:
        p = self.players[seat]
        focus, time, from_reserve = self._cost(p, card)
        (p.reserve if from_reserve else p.hand).remove(card.id)
        p.focus -= focus
        p.time += time
        return focus, time, from_reserve

    def _set_target(self, item: Item, target: str | None) -> str:
        """Record the chosen target (by uid, so a new Entity in the slot is not hit)."""
        if target is None:
            return ""
        item.target = target
        where = parse_pos(target)
        assert where is not None  # guaranteed: the action was listed by legal_actions
        kind, seat, index = where
        if kind == "unit":
            unit = self.board[seat][index]
            assert unit is not None
            item.tref = ("u", unit.uid)
            return f" targeting {unit.card.name}"
        if kind == "leader":
            item.tref = ("l", seat)
            return f" targeting {SEAT[seat]}'s Leader"
        item.tref = ("f", index)
        return f" on the {FRONTS[index]} Front"

    def _do_deploy(self, seat: int, action: Action, events: list[Event]) -> None:
        card = CARDS[action.params[0][1]]
        slot = FRONT_INDEX[action.params[1][1]] * 2 + ROW_INDEX[action.params[2][1]]
        focus, time, from_reserve = self._pay(seat, card, events)
        item = Item(seat, "deploy", card.id)
        item.slot = slot
        aim = self._set_target(item, action.get("target"))
        events.append(Event("declare", f"{SEAT[seat]} deploys {card.name} to {SLOT_WORDS[slot]}{aim} "
                                       f"({focus} Focus, {time} Time{', Prepared' if from_reserve else ''})",
                            {"seat": seat, "kind": "deploy", "card": card.id, "pos": POS[seat][slot],
                             "target": item.target, "focus": focus, "time": time}))
        self._declare(item, events)

    def _do_play(self, seat: int, action: Action, events: list[Event]) -> None:
        card = CARDS[action.params[0][1]]
        focus, time, from_reserve = self._pay(seat, card, events)
        item = Item(seat, "tactic", card.id)
        aim = self._set_target(item, action.get("target"))
        events.append(Event("declare", f"{SEAT[seat]} plays {card.name}{aim} "
                                       f"({focus} Focus, {time} Time{', Prepared' if from_reserve else ''})",
                            {"seat": seat, "kind": "tactic", "card": card.id, "target": item.target,
                             "focus": focus, "time": time}))
        self._declare(item, events)

    def _do_attach(self, seat: int, action: Action, events: list[Event]) -> None:
        card = CARDS[action.params[0][1]]
        focus, time, from_reserve = self._pay(seat, card, events)
        item = Item(seat, "attach", card.id)
        aim = self._set_target(item, action.params[1][1])
        events.append(Event("declare", f"{SEAT[seat]} attaches {card.name}{aim.replace(' targeting', ' to')} "
                                       f"({focus} Focus, {time} Time{', Prepared' if from_reserve else ''})",
                            {"seat": seat, "kind": "attach", "card": card.id, "target": item.target,
                             "focus": focus, "time": time}))
        self._declare(item, events)

    def _do_site(self, seat: int, action: Action, events: list[Event]) -> None:
        card = CARDS[action.params[0][1]]
        front = FRONT_INDEX[action.params[1][1]]
        focus, time, from_reserve = self._pay(seat, card, events)
        item = Item(seat, "site", card.id)
        item.slot = front
        aim = self._set_target(item, action.get("target"))
        events.append(Event("declare", f"{SEAT[seat]} plays the Site {card.name} on the {FRONTS[front]} Front{aim} "
                                       f"({focus} Focus, {time} Time{', Prepared' if from_reserve else ''})",
                            {"seat": seat, "kind": "site", "card": card.id, "front": FRONTS[front],
                             "focus": focus, "time": time}))
        self._declare(item, events)

    def _unit_at(self, seat: int, action: Action) -> Unit:
        unit = self.board[seat][FRONT_INDEX[action["front"]] * 2 + ROW_INDEX[action["row"]]]
        assert unit is not None  # guaranteed: the action was listed by legal_actions
        return unit

    def _do_strike(self, seat: int, action: Action, events: list[Event]) -> None:
        unit = self._unit_at(seat, action)
        self.players[seat].time += self.params.strike_time
        item = Item(seat, "strike", unit.card.id)
        item.slot = unit.slot
        item.actor = unit.uid
        item.target = action["target"]
        foe = 1 - seat
        front = unit.slot >> 1
        defender = None if item.target == "leader" else self.board[foe][2 * front + ROW_INDEX[item.target]]
        aimed = f"{SEAT[foe]}'s Leader" if defender is None else defender.card.name
        events.append(Event("declare", f"{SEAT[seat]}'s {unit.card.name} ({SLOT_WORDS[unit.slot]}) strikes at {aimed} "
                                       f"({self.params.strike_time} Time)",
                            {"seat": seat, "kind": "strike", "pos": POS[seat][unit.slot], "target": item.target}))
        self._declare(item, events)

    def _do_shift(self, seat: int, action: Action, events: list[Event]) -> None:
        unit = self._unit_at(seat, action)
        cost = self.params.shift_time_mobile if unit.mobile else self.params.shift_time
        self.players[seat].time += cost
        # The once-per-Cycle Shift is used when declared, even if the Shift is cancelled.
        unit.shifted = True
        item = Item(seat, "shift", unit.card.id)
        item.slot = unit.slot
        item.actor = unit.uid
        item.to_slot = FRONT_INDEX[action["to_front"]] * 2 + ROW_INDEX[action["to_row"]]
        events.append(Event("declare", f"{SEAT[seat]} shifts {unit.card.name} from {SLOT_WORDS[unit.slot]} to "
                                       f"{SLOT_WORDS[item.to_slot]} ({cost} Time)",
                            {"seat": seat, "kind": "shift", "pos": POS[seat][unit.slot],
                             "to": POS[seat][item.to_slot], "time": cost}))
        self._declare(item, events)

    def _do_activate(self, seat: int, action: Action, events: list[Event]) -> None:
        unit = self._unit_at(seat, action)
        ability = unit.card.activated
        assert ability is not None
        p = self.players[seat]
        p.time += ability.time
        p.focus -= ability.focus
        unit.used = True
        item = Item(seat, "activate", unit.card.id)
        item.slot = unit.slot
        item.actor = unit.uid
        aim = self._set_target(item, action.get("target"))
        events.append(Event("declare", f"{SEAT[seat]} activates {unit.card.name} ({SLOT_WORDS[unit.slot]}){aim} "
                                       f"({ability.focus} Focus, {ability.time} Time)",
                            {"seat": seat, "kind": "activate", "pos": POS[seat][unit.slot], "target": item.target}))
        self._declare(item, events)

    def _do_leader(self, seat: int, action: Action, events: list[Event]) -> None:
        p = self.players[seat]
        ability = p.leader.activated
        assert ability is not None
        p.time += ability.time
        p.focus -= ability.focus
        p.leader_used = True
        item = Item(seat, "leader", p.leader.id)
        aim = self._set_target(item, action.get("target"))
        events.append(Event("declare", f"{SEAT[seat]} uses {p.leader.name}'s ability{aim} "
                                       f"({ability.focus} Focus, {ability.time} Time)",
                            {"seat": seat, "kind": "leader", "card": p.leader.id, "target": item.target}))
        self._declare(item, events)

    def _do_prepare(self, seat: int, action: Action, events: list[Event]) -> None:
        """T18: Prepare is a main action. Declared and paid, it opens a response window; the
        other player learns only that a card is being Prepared, never which."""
        cid = action.params[0][1]
        p = self.players[seat]
        p.hand.remove(cid)
        p.time += self.params.prepare_time
        events.append(Event("declare", f"You Prepare {CARDS[cid].name} ({self.params.prepare_time} Time)",
                            {"seat": seat, "kind": "prepare", "card": cid}, private_to=seat))
        events.append(Event("declare", f"{SEAT[seat]} Prepares a card ({self.params.prepare_time} Time)",
                            {"seat": seat, "kind": "prepare"}))
        self._declare(Item(seat, "prepare", cid), events)

    def _do_react(self, seat: int, action: Action, events: list[Event]) -> None:
        card = CARDS[action.params[0][1]]
        focus, time, from_reserve = self._pay(seat, card, events)
        item = Item(seat, "reaction", card.id)
        item.answers = len(self.chain) - 1
        aim = self._set_target(item, action.get("target"))
        pending = self.chain[-1]
        events.append(Event("declare", f"{SEAT[seat]} responds to {self.item_words(pending)} with {card.name}{aim} "
                                       f"({focus} Focus, {time} Time{', Prepared' if from_reserve else ''})",
                            {"seat": seat, "kind": "reaction", "card": card.id, "target": item.target,
                             "focus": focus, "time": time}))
        self.chain.append(item)
        reactions = len(self.chain) - 1
        if (self.phase == "response" and reactions < self.params.max_reactions
                and self._may_respond(self.chain[0].seat)):
            self.phase = "counter"
            return
        self._resolve_chain(events)

    def _do_take(self, seat: int, action: Action, events: list[Event]) -> None:
        cid = action.params[0][1]
        p = self.players[seat]
        p.scouting.remove(cid)
        p.hand.append(cid)
        rest = p.scouting
        p.deck[0:0] = rest[::-1]
        p.scouting = []
        bottom = f" and put {', '.join(CARDS[c].name for c in rest)} on the bottom" if rest else ""
        events.append(Event("scout", f"You took {CARDS[cid].name}{bottom}",
                            {"seat": seat, "card": cid, "bottom": list(rest)}, private_to=seat))
        events.append(Event("scout", f"{SEAT[seat]} took a card and put {len(rest)} on the bottom of their deck",
                            {"seat": seat, "bottom": len(rest)}))
        self._resolve_chain(events)

    # ----------------------------------------------------------------- the chain

    def _may_respond(self, seat: int) -> bool:
        """Whether a response window opens for ``seat``: only public counters decide."""
        p = self.players[seat]
        return bool(p.hand or p.reserve) and p.time + MIN_REACTION_TIME <= self.params.timeline \
            and p.focus >= MIN_REACTION_FOCUS

    def _declare(self, item: Item, events: list[Event]) -> None:
        """A main action was declared and paid: open the response window or resolve."""
        self.chain.append(item)
        if self.params.max_reactions > 0 and self._may_respond(1 - item.seat):
            self.phase = "response"
            return
        self._resolve_chain(events)

    def _resolve_chain(self, events: list[Event]) -> None:
        """Resolve the chain last-in, first-out; pause if a Scout waits for a choice."""
        self.phase = "resolving"
        chain = self.chain
        while chain:
            item = chain[-1]
            if item.cancelled:
                chain.pop()
                if item.kind == "prepare":
                    # T5: a cancelled Prepare does nothing (the card stays in hand); its Time stays paid.
                    self.players[item.seat].hand.append(item.card)
                elif item.kind not in ACTOR_KINDS and item.kind != "leader":
                    self.players[item.seat].discard.append(item.card)
                continue
            paused = self._resolve_item(item, events)
            if self._outcome is not None:
                # The match is over: what was still pending stays on the chain, unresolved.
                return
            if paused:
                self.phase = "scout"
                return
            chain.pop()
        self._advance(events)

    def _resolve_item(self, item: Item, events: list[Event]) -> bool:
        """Resolve one chain item; True if it paused for a Scout choice."""
        if item.step < 0:
            item.step = 0
            if not self._begin(item, events):
                return False
        kind = item.kind
        card = CARDS[item.card]
        if kind == "deploy":
            effects = card.on_deploy
        elif kind == "activate" or kind == "leader":
            effects = card.activated.effects if card.activated else []
        else:
            effects = card.play
        if not effects:
            return False
        ctx = Ctx(item.seat, card.name, item=item)
        if kind == "deploy" or kind == "activate":
            ctx.unit = self.unit(item.actor)
            if ctx.unit is not None:
                ctx.front = ctx.unit.slot >> 1
        elif kind == "attach":
            ctx.unit = self.unit(item.tref[1]) if item.tref else None
            if ctx.unit is not None:
                ctx.front = ctx.unit.slot >> 1
        elif kind == "site":
            ctx.front = item.slot
        tref = item.tref
        if tref is not None:
            if tref[0] == "u":
                ctx.chosen = self.unit(tref[1])
            elif tref[0] == "l":
                ctx.chosen = tref[1]
            else:
                ctx.front = tref[1]
        return self._run_effects(effects, ctx, item, events)

    def _begin(self, item: Item, events: list[Event]) -> bool:
        """The first part of resolving an item; True if its effects should follow."""
        kind = item.kind
        seat = item.seat
        p = self.players[seat]
        if kind == "deploy":
            card = CARDS[item.card]
            if self.board[seat][item.slot] is not None:
                p.discard.append(card.id)
                events.append(Event("fizzle", f"{card.name} finds {SLOT_WORDS[item.slot]} taken and is discarded",
                                    {"seat": seat, "card": card.id}))
                return False
            unit = Unit(self.next_uid, card, seat, item.slot)
            self.next_uid += 1
            self.board[seat][item.slot] = unit
            item.actor = unit.uid
            self.dirty = True
            events.append(Event("deploy", f"{card.name} enters {SEAT[seat]}'s {SLOT_WORDS[item.slot]}"
                                          + (" ready (Rapid)" if unit.ready else ""),
                                {"seat": seat, "card": card.id, "pos": POS[seat][item.slot], "uid": unit.uid}))
            return bool(card.on_deploy)
        if kind == "tactic" or kind == "reaction":
            p.discard.append(item.card)
            return True
        if kind == "prepare":
            p.reserve.append(item.card)
            events.append(Event("prepare", f"You Prepared {CARDS[item.card].name}", {"seat": seat, "card": item.card},
                                private_to=seat))
            events.append(Event("prepare", f"{SEAT[seat]} Prepared a card", {"seat": seat}))
            return False
        if kind == "strike":
            self._strike(item, events)
            return False
        if kind == "shift":
            self._shift(item, events)
            return False
        if kind == "attach":
            card = CARDS[item.card]
            host = self.unit(item.tref[1]) if item.tref else None
            if host is None:
                p.discard.append(card.id)
                events.append(Event("fizzle", f"{card.name} has nothing to attach to and is discarded",
                                    {"seat": seat, "card": card.id}))
                return False
            host.attachments.append((card.id, seat))
            self.dirty = True
            events.append(Event("attach", f"{card.name} is attached to {host.card.name}",
                                {"seat": seat, "card": card.id, "pos": self.pos_of(host)}))
            return bool(card.play)
        if kind == "site":
            card = CARDS[item.card]
            old = self.sites[item.slot]
            if old is not None:
                self.players[old[1]].discard.append(old[0])
                events.append(Event("site", f"{card.name} replaces {CARDS[old[0]].name} on the {FRONTS[item.slot]} "
                                            f"Front", {"front": FRONTS[item.slot], "replaced": old[0]}))
            self.sites[item.slot] = (card.id, seat)
            self.dirty = True
            events.append(Event("site", f"{card.name} now stands on the {FRONTS[item.slot]} Front for {SEAT[seat]}",
                                {"seat": seat, "card": card.id, "front": FRONTS[item.slot]}))
            return bool(card.play)
        if kind == "activate":
            unit = self.unit(item.actor)
            if unit is None or unit.silence or unit.stun:
                name = CARDS[item.card].name
                events.append(Event("fizzle", f"{name}'s ability does nothing: its Entity is gone, Stunned or "
                                              f"Silenced", {"seat": seat}))
                return False
            return True
        return True  # a Leader ability

    def _run_effects(self, effects: list[Effect], ctx: Ctx, item: Item | None, events: list[Event]) -> bool:
        """Resolve effects in order (from ``item.step`` when resuming); True if a Scout paused."""
        index = item.step if item is not None else 0
        functions = fx.EFFECT_FUNCTIONS
        while index < len(effects):
            effect = effects[index]
            index += 1
            if item is not None:
                item.step = index
            if effect.name == "scout":
                if self._scout(ctx.seat, effect.amount, ctx.name, events):
                    return True
                continue
            functions[effect.name](self, ctx, effect, events)
            self.check_defeats(events)
            if self._check_integrity(events):
                return False
        return False

    def targets(self, ctx: Ctx, target: str) -> list[Any]:
        """The Entities (``Unit``) and Leaders (``int`` seats) an effect's target names now."""
        seat = ctx.seat
        if target == "chosen":
            chosen = ctx.chosen
            if chosen is None:
                return []
            if type(chosen) is int:
                return [chosen]
            return [chosen] if chosen.slot >= 0 else []
        if target == "self" or target == "host":
            return [ctx.unit] if ctx.unit is not None and ctx.unit.slot >= 0 else []
        if target == "enemy_leader":
            return [1 - seat]
        if target == "own_leader":
            return [seat]
        if target == "actor" or target == "acting_leader":
            if ctx.item is None or ctx.item.answers < 0:
                return []
            pending = self.chain[ctx.item.answers]
            if target == "acting_leader":
                return [pending.seat]
            unit = self.unit(pending.actor) if pending.kind in ACTOR_KINDS else None
            return [unit] if unit is not None else []
        if target == "struck":
            return [ctx.struck] if ctx.struck is not None and ctx.struck.slot >= 0 else []
        if target == "enemies_here" or target == "friends_here":
            if ctx.front < 0:
                return []
            side = self.board[1 - seat if target == "enemies_here" else seat]
            return [u for u in (side[2 * ctx.front], side[2 * ctx.front + 1]) if u is not None]
        side = self.board[1 - seat if target == "all_enemies" else seat]
        return [u for u in side if u is not None]

    # ----------------------------------------------------------------- combat and damage

    def _can_strike(self, unit: Unit) -> bool:
        """Exact rules: Strike, Ranged, Structure, Stun; T6 readiness."""
        return (unit.ready and not unit.stun and not unit.structure and unit.power > 0
                and (not unit.slot & 1 or unit.ranged))

    def _strike(self, item: Item, events: list[Event]) -> None:
        seat = item.seat
        unit = self.unit(item.actor)
        if self.dirty:
            self.recalc()
        if unit is None or not self._can_strike(unit):
            name = CARDS[item.card].name
            events.append(Event("fizzle", f"{name}'s Strike does nothing: it is gone or can no longer Strike",
                                {"seat": seat}))
            return
        foe = 1 - seat
        front = unit.slot >> 1
        side = self.board[foe]
        vanguard = side[2 * front]
        support = side[2 * front + 1]
        if unit.ranged and item.target == "support" and support is not None:
            defender = support
        elif unit.ranged and item.target == "vanguard" and vanguard is not None:
            defender = vanguard
        else:
            defender = vanguard if vanguard is not None else support
        unit.ready = False
        if defender is None:
            amount = unit.power + self.players[seat].leader.strike_leader_bonus
            self.hurt_leader(foe, amount, f"{unit.card.name} struck", events, verb="")
        else:
            both_vanguard = not unit.slot & 1 and not defender.slot & 1
            # Exact rules: Strike and Ranged. Retaliation is not a Strike, so Stun does not
            # stop it (engine/tempofront/site/rules.md, R6).
            retaliates = both_vanguard or defender.ranged
            power = unit.power
            back = defender.power if retaliates else 0
            self.hurt_unit(defender, power, f"{unit.card.name} struck", events)
            if back > 0:
                self.hurt_unit(unit, back, f"{defender.card.name} retaliated against", events)
            self.check_defeats(events)
        if self._check_integrity(events):
            return
        if unit.card.on_strike and unit.slot >= 0 and not unit.silence:
            ctx = Ctx(seat, unit.card.name, unit=unit, front=unit.slot >> 1, struck=defender)
            self._run_effects(unit.card.on_strike, ctx, None, events)

    def _shift(self, item: Item, events: list[Event]) -> None:
        seat = item.seat
        unit = self.unit(item.actor)
        if self.dirty:
            self.recalc()
        dest = item.to_slot
        if (unit is None or unit.root or unit.structure or self.board[seat][dest] is not None
                or (dest >> 1) not in ADJACENT[unit.slot >> 1]):
            name = CARDS[item.card].name
            events.append(Event("fizzle", f"{name}'s Shift does nothing", {"seat": seat}))
            return
        self.board[seat][unit.slot] = None
        old = unit.slot
        unit.slot = dest
        self.board[seat][dest] = unit
        self.dirty = True
        events.append(Event("shift", f"{unit.card.name} shifted from {SLOT_WORDS[old]} to {SLOT_WORDS[dest]}",
                            {"seat": seat, "from": POS[seat][old], "to": POS[seat][dest]}))

    def move_row(self, unit: Unit, source: str, events: list[Event]) -> None:
        """The ``move`` effect: to the other row of its Front, if that slot is empty."""
        other = unit.slot ^ 1
        side = self.board[unit.owner]
        if side[other] is not None:
            return
        side[unit.slot] = None
        old = unit.slot
        unit.slot = other
        side[other] = unit
        self.dirty = True
        events.append(Event("move", f"{source} moved {unit.card.name} from {SLOT_WORDS[old]} to {SLOT_WORDS[other]}",
                            {"from": POS[unit.owner][old], "to": POS[unit.owner][other]}))

    def hurt_unit(self, unit: Unit, amount: int, prefix: str, events: list[Event]) -> int:
        """T8 damage pipeline for one instance of damage; returns the damage marked.

        Exposed (added, removed) -> Barrier (prevents all, removed) -> Protected (reduces,
        removed) -> Armor (reduces) -> marked, never below 0. 0 is not an instance of damage.
        """
        if amount <= 0 or unit.slot < 0:
            return 0
        notes = []
        incoming = amount
        if unit.exposed:
            amount += unit.exposed
            notes.append(f"Exposed +{unit.exposed}")
            unit.exposed = 0
        if unit.barrier and not unit.silence:
            unit.barrier = False
            notes.append("Barrier prevented it")
            amount = 0
        else:
            if unit.protected:
                notes.append(f"Protected {unit.protected} absorbed {min(amount, unit.protected)}")
                amount -= unit.protected
                unit.protected = 0
            if unit.armor and amount > 0:
                notes.append(f"Armor {unit.armor} absorbed {min(amount, unit.armor)}")
                amount -= unit.armor
            if amount < 0:
                amount = 0
        unit.damage += amount
        note = f" ({', '.join(notes)})" if notes else ""
        events.append(Event("damage", f"{prefix} {unit.card.name} for {incoming}{note}: {amount} damage, "
                                      f"{unit.damage}/{unit.vitality}",
                            {"pos": POS[unit.owner][unit.slot], "amount": incoming, "marked": amount,
                             "damage": unit.damage}))
        return amount

    def hurt_leader(self, seat: int, amount: int, source: str, events: list[Event], verb: str = " dealt") -> None:
        """Damage to a Leader goes straight to Integrity (Leaders have no Armor or statuses)."""
        if amount <= 0:
            return
        p = self.players[seat]
        p.integrity -= amount
        events.append(Event("integrity", f"{source}{verb} {SEAT[seat]}'s Leader for {amount}: "
                                         f"{p.integrity} Integrity left",
                            {"seat": seat, "amount": amount, "integrity": p.integrity}))

    def check_defeats(self, events: list[Event]) -> None:
        """Every Entity whose damage reached its Vitality is defeated, all together."""
        dead = None
        for side in self.board:
            for unit in side:
                if unit is not None and unit.damage >= unit.vitality:
                    if dead is None:
                        dead = [unit]
                    else:
                        dead.append(unit)
        if dead is not None:
            self.defeat(dead, events)

    def defeat(self, units: list[Unit], events: list[Event]) -> None:
        """Exact rule: defeat. To the owner's discard pile with its Attachments (each to its
        own owner's pile), then defeat triggers resolve, in the order the Entities left."""
        gone: list[tuple[Unit, int]] = []
        for unit in units:
            if unit.slot < 0:
                continue
            front = unit.slot >> 1
            where = f"{SEAT[unit.owner]}'s {SLOT_WORDS[unit.slot]}"
            events.append(Event("defeat", f"{unit.card.name} is defeated ({where})",
                                {"seat": unit.owner, "card": unit.card.id, "pos": POS[unit.owner][unit.slot]}))
            self.board[unit.owner][unit.slot] = None
            unit.slot = -1
            self.players[unit.owner].discard.append(unit.card.id)
            for cid, owner in unit.attachments:
                self.players[owner].discard.append(cid)
            gone.append((unit, front))
        if not gone:
            return
        self.dirty = True
        for unit, front in gone:
            if unit.card.on_defeat and not unit.silence:
                if self._outcome is not None:
                    return
                ctx = Ctx(unit.owner, unit.card.name, front=front)
                self._run_effects(unit.card.on_defeat, ctx, None, events)

    def _check_integrity(self, events: list[Event]) -> bool:
        """T10: a Leader at 0 Integrity or below loses at once; both at once is a draw."""
        if self._outcome is not None:
            return True
        low = [p.integrity <= 0 for p in self.players]
        if not (low[0] or low[1]):
            return False
        places = (1, 1) if low[0] and low[1] else (2, 1) if low[0] else (1, 2)
        self._finish(places, "Integrity", {})
        events.append(Event("end", "Both Leaders fell at once: a draw" if places == (1, 1)
                            else f"{SEAT[places.index(1)]} wins: the enemy Leader's Integrity is gone",
                            {"places": list(places), "reason": "Integrity"}))
        return True

    def _finish(self, places: tuple[int, int], reason: str, detail: dict[str, Any]) -> None:
        scores = tuple({"dominion": p.dominion, "integrity": p.integrity} for p in self.players)
        self._outcome = Outcome(places=places, scores=scores, reason=reason, detail=detail)
        self.phase = "over"

    # ----------------------------------------------------------------- Scout and draws

    def _scout(self, seat: int, n: int, source: str, events: list[Event]) -> bool:
        """Exact rule: Scout N. True if the player must now choose (phase ``scout``)."""
        p = self.players[seat]
        looked = [p.deck.pop() for _ in range(min(n, len(p.deck)))]
        if not looked:
            events.append(Event("scout", f"{source}: {SEAT[seat]} scouts an empty deck", {"seat": seat}))
            return False
        if len(looked) == 1:
            # A single card is no choice to make (and the deck count is public): take it.
            # Copies of one card still wait for the player, so that a pause never tells
            # the opponent what was seen.
            p.hand.append(looked[0])
            events.append(Event("scout", f"You scouted and took {CARDS[looked[0]].name}",
                                {"seat": seat, "card": looked[0]}, private_to=seat))
            events.append(Event("scout", f"{source}: {SEAT[seat]} scouted the last card of their deck",
                                {"seat": seat, "bottom": 0}))
            return False
        p.scouting = looked
        events.append(Event("scout", f"You look at {', '.join(CARDS[c].name for c in looked)}",
                            {"seat": seat, "cards": list(looked)}, private_to=seat))
        events.append(Event("scout", f"{source}: {SEAT[seat]} looks at the top {len(looked)} cards of their deck",
                            {"seat": seat, "count": len(looked)}))
        return True

    def draw(self, seat: int, n: int, events: list[Event]) -> None:
        """Draw ``n`` cards; each draw from an empty deck costs fatigue (T11)."""
        p = self.players[seat]
        drawn = []
        for _ in range(n):
            if p.deck:
                drawn.append(p.deck.pop())
            else:
                p.fatigue += 1
                p.integrity -= p.fatigue
                events.append(Event("fatigue", f"{SEAT[seat]} draws from an empty deck: fatigue {p.fatigue}, "
                                               f"{p.integrity} Integrity left",
                                    {"seat": seat, "fatigue": p.fatigue, "integrity": p.integrity}))
        if drawn:
            p.hand.extend(drawn)
            events.append(Event("draw", f"You drew {', '.join(CARDS[c].name for c in drawn)}",
                                {"seat": seat, "cards": drawn}, private_to=seat))
            events.append(Event("draw", f"{SEAT[seat]} drew {len(drawn)} card{'s' if len(drawn) > 1 else ''}",
                                {"seat": seat, "count": len(drawn)}))

    # ----------------------------------------------------------------- the Cycle

    def _next_actor(self) -> int | None:
        """T4: less Time acts next, ties to Initiative; a seat that cannot act is skipped."""
        limit = self.params.timeline
        a, b = self.players
        can_a = not a.passed and a.time < limit
        can_b = not b.passed and b.time < limit
        if can_a and can_b:
            if a.time == b.time:
                return self.initiative
            return 0 if a.time < b.time else 1
        if can_a:
            return 0
        if can_b:
            return 1
        return None

    def _advance(self, events: list[Event]) -> None:
        """After a resolution: the next seat to act, or the end of the Cycle."""
        while self._outcome is None:
            actor = self._next_actor()
            if actor is not None:
                self.actor = actor
                self.phase = "main"
                return
            self._end_cycle(events)

    def _end_cycle(self, events: list[Event]) -> None:
        """Exact rule: Cycle end. Cycle-end abilities, scoring, Dominion, expiries, cap."""
        prm = self.params
        cycle = self.cycle
        events.append(Event("cycle_end", f"Cycle {cycle} ends", {"cycle": cycle}))
        order = (self.initiative, 1 - self.initiative)
        for seat in order:
            leader = self.players[seat].leader
            if leader.cycle_end:
                self._run_effects(leader.cycle_end, Ctx(seat, leader.name), None, events)
                if self._outcome is not None:
                    return
            for unit in list(self.board[seat]):
                if unit is not None and unit.slot >= 0 and unit.card.cycle_end and not unit.silence:
                    self._run_effects(unit.card.cycle_end, Ctx(seat, unit.card.name, unit=unit, front=unit.slot >> 1),
                                      None, events)
                    if self._outcome is not None:
                        return
            for front, site in enumerate(self.sites):
                if site is not None and site[1] == seat and CARDS[site[0]].cycle_end:
                    self._run_effects(CARDS[site[0]].cycle_end, Ctx(seat, CARDS[site[0]].name, front=front),
                                      None, events)
                    if self._outcome is not None:
                        return
        totals = self.presence()
        control = [0, 0]
        words = []
        for front in range(3):
            mine, theirs = totals[0][front], totals[1][front]
            holder = 0 if mine > theirs else 1 if theirs > mine else None
            if holder is not None:
                control[holder] += 1
            words.append(f"{FRONTS[front]} {mine}-{theirs} ({SEAT[holder] if holder is not None else 'nobody'})")
        events.append(Event("score", f"Cycle {cycle} scoring: {', '.join(words)}",
                            {"cycle": cycle, "presence": totals, "control": control}))
        for seat in (0, 1):
            if control[seat] >= prm.fronts_for_dominion and prm.dominion_per_cycle:
                p = self.players[seat]
                p.dominion += prm.dominion_per_cycle
                events.append(Event("dominion", f"{SEAT[seat]} controls {control[seat]} Fronts and gains Dominion "
                                                f"({p.dominion}/{prm.dominion_to_win})",
                                    {"seat": seat, "dominion": p.dominion}))
        reached = [s for s in (0, 1) if self.players[s].dominion >= prm.dominion_to_win]
        if reached:
            self._decide([p.dominion for p in self.players], "Dominion", events)
            return
        for side in self.board:
            for unit in side:
                if unit is None:
                    continue
                for status, label in (("stun", "Stunned"), ("root", "Rooted"), ("silence", "Silenced")):
                    until = getattr(unit, status)
                    if until and until <= cycle:
                        setattr(unit, status, 0)
                        if status == "silence":
                            self.dirty = True
                        events.append(Event("expire", f"{unit.card.name} is no longer {label}",
                                            {"pos": POS[unit.owner][unit.slot], "status": status}))
        if cycle >= prm.cycle_cap:
            dominion = [p.dominion for p in self.players]
            if dominion[0] != dominion[1]:
                self._decide(dominion, "Cycle limit", events)
            else:
                self._decide([p.integrity for p in self.players], "Cycle limit", events)
            return
        self.start_cycle(cycle + 1, events)

    def _decide(self, values: list[int], reason: str, events: list[Event]) -> None:
        if values[0] == values[1]:
            places = (1, 1)
            text = f"The match ends in a draw ({reason})"
        else:
            places = (1, 2) if values[0] > values[1] else (2, 1)
            text = f"{SEAT[places.index(1)]} wins by {reason}"
        self._finish(places, reason, {"cycle": self.cycle})
        events.append(Event("end", text, {"places": list(places), "reason": reason}))

    def start_cycle(self, number: int, events: list[Event]) -> None:
        """T2 refresh at the start of Cycle ``number``."""
        prm = self.params
        self.cycle = number
        if number > 1:
            self.initiative = 1 - self.initiative
        focus = min(prm.focus_max, prm.focus_start + (number - 1) * prm.focus_growth)
        for p in self.players:
            p.max_focus = focus
            p.focus = focus
            p.time = 0
            p.passed = False
            p.leader_used = False
        events.append(Event("cycle", f"Cycle {number} begins: {SEAT[self.initiative]} has the Initiative; "
                                     f"{focus} Focus each", {"cycle": number, "initiative": self.initiative,
                                                            "focus": focus}))
        if number > 1 and prm.draw_per_cycle:
            for seat in (self.initiative, 1 - self.initiative):
                self.draw(seat, prm.draw_per_cycle, events)
            if self._check_integrity(events):
                return
        for seat, p in enumerate(self.players):
            if p.reserve:
                back = p.reserve
                p.hand.extend(back)
                p.reserve = []
                events.append(Event("reserve", f"{', '.join(CARDS[c].name for c in back)} returned to your hand",
                                    {"seat": seat, "cards": list(back)}, private_to=seat))
                events.append(Event("reserve", f"{len(back)} Prepared card{'s' if len(back) > 1 else ''} returned "
                                               f"to {SEAT[seat]}'s hand", {"seat": seat, "count": len(back)}))
        for side in self.board:
            for unit in side:
                if unit is not None:
                    unit.ready = True
                    unit.shifted = False
                    unit.used = False
        self.phase = "main"

    # ----------------------------------------------------------------- explaining illegal actions

    def _explain(self, seat: int, action: Action) -> IllegalAction:
        """Why ``action`` is not legal for ``seat`` now, naming the rule it breaks."""
        from engine.tempofront.explain import explain  # cycle: engine.tempofront.explain imports this module

        return explain(self, seat, action)


def _until(expiry: int) -> int | str | None:
    if not expiry:
        return None
    return "permanent" if expiry >= fx.PERMANENT else expiry


def _card_ref(cid: str) -> dict[str, str]:
    return {"id": cid, "name": CARDS[cid].name}


_HANDLERS = {
    "keep": "_do_keep",
    "mulligan": "_do_mulligan",
    "pass": "_do_pass",
    "deploy": "_do_deploy",
    "play": "_do_play",
    "attach": "_do_attach",
    "site": "_do_site",
    "strike": "_do_strike",
    "shift": "_do_shift",
    "activate": "_do_activate",
    "leader": "_do_leader",
    "prepare": "_do_prepare",
    "react": "_do_react",
    "take": "_do_take",
}

__all__ = ["FRONTS", "ROWS", "POS", "LEADER_POS", "PASS", "KEEP", "MULLIGAN", "TempoState", "Unit", "Player", "Item",
           "Ctx", "parse_pos"]
