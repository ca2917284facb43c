"""TempoFront's card pool: the card data files under ``cards/``, validated on load.

Every card is one ``[[card]]`` table in a TOML file. Its effects are lists of small
tables drawn from a fixed vocabulary (:data:`EFFECTS`), each implemented once in
``effects.py``. Loading checks every field and raises :class:`engine.core.CardDataError`
naming the file, the card and the field. The card-file format is described on the
rules page, engine/tempofront/site/rules.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.core import CardDataError, card_tables

CARD_DIR = Path(__file__).parent / "cards"

ENTITY = "entity"
ATTACHMENT = "attachment"
SITE = "site"
TACTIC = "tactic"
REACTION = "reaction"
LEADER = "leader"
TYPES = (ENTITY, ATTACHMENT, SITE, TACTIC, REACTION, LEADER)
TYPE_TITLES = {t: t.capitalize() for t in TYPES}

#: Keywords that are plain flags; Armor carries a number and has its own field.
FLAG_KEYWORDS = ("ranged", "barrier", "rapid", "mobile", "structure")
#: Keywords an Attachment may grant to its Entity (Barrier is granted by the ``barrier`` effect).
GRANTABLE_KEYWORDS = ("ranged", "rapid", "mobile")

DURATIONS = {
    "this_cycle": "until the end of this Cycle",
    "next_cycle": "until the end of the next Cycle",
    "permanent": "permanently",
}

#: What a card may ask its player to choose; the choice becomes the action's ``target``.
CHOOSE = {
    "enemy_entity": "a chosen enemy Entity",
    "friendly_entity": "a chosen friendly Entity",
    "any_entity": "a chosen Entity",
    "enemy_entity_here": "a chosen enemy Entity on this Front",
    "enemy_entity_or_leader": "a chosen enemy Entity or the enemy Leader",
    "front": "a chosen Front",
}
#: Choices that need the source to stand on a Front.
CHOOSE_NEEDS_FRONT = {"enemy_entity_here"}

#: Who an effect applies to. ``chosen`` is the action's target.
TARGETS = (
    "chosen",
    "self",
    "host",
    "enemy_leader",
    "own_leader",
    "actor",
    "acting_leader",
    "enemies_here",
    "friends_here",
    "all_enemies",
    "all_friends",
    "struck",
)
LEADER_TARGETS = {"enemy_leader", "own_leader", "acting_leader"}
HERE_TARGETS = {"enemies_here", "friends_here"}

#: The kinds of pending action a Reaction may answer (``react_to``).
PENDING_KINDS = {
    "deploy": "a Deploy",
    "strike": "a Strike",
    "shift": "a Shift",
    "tactic": "a Tactic",
    "attach": "an Attachment",
    "site": "a Site",
    "activate": "an activated ability",
    "leader": "a Leader ability",
    "reaction": "a Reaction",
    "prepare": "a Prepare",
}
#: Pending actions performed by an Entity on the board (the ``actor`` of a punish).
ACTOR_KINDS = {"strike", "shift", "activate"}

#: The effect vocabulary: effect name -> the parameters it takes (besides ``effect``).
EFFECTS: dict[str, tuple[str, ...]] = {
    "deal_damage": ("amount", "target"),
    "stun": ("duration", "target"),
    "root": ("duration", "target"),
    "silence": ("duration", "target"),
    "expose": ("amount", "target"),
    "protect": ("amount", "target"),
    "barrier": ("target",),
    "scout": ("amount",),
    "draw": ("amount", "who"),
    "gain_focus": ("amount", "who"),
    "gain_time": ("amount", "who"),
    "lose_time": ("amount", "who"),
    "cancel_pending": (),
    "move": ("target",),
    "destroy": ("target",),
    "ready": ("target",),
    "buff": ("power", "vitality", "target"),
    "heal": ("amount", "target"),
}
#: Effects that may hit a Leader as well as an Entity.
LEADER_EFFECTS = {"deal_damage", "heal"}
#: Effects on a player rather than on a target.
PLAYER_EFFECTS = {"scout", "draw", "gain_focus", "gain_time", "lose_time", "cancel_pending"}

#: Passive abilities: continuous effects while the source is in play and not Silenced.
PASSIVES: dict[str, tuple[str, ...]] = {
    "aura": ("power", "vitality", "armor", "presence", "scope", "filter"),
    "strike_leader_bonus": ("amount",),
}
AURA_SCOPES = ("front", "all")
AURA_FILTERS = ("other", "mobile", "structure", "ranged", "vanguard", "support")

TRIGGERS = {
    "play": "When played",
    "on_deploy": "On deploy",
    "on_defeat": "When defeated",
    "on_strike": "After it Strikes",
    "cycle_end": "At Cycle end",
}
#: Triggers whose effects resolve with no player decision: no ``chosen`` target, no Scout.
AUTOMATIC_TRIGGERS = {"on_defeat", "on_strike", "cycle_end"}

_ALLOWED_FIELDS = {
    ENTITY: {"focus", "time", "power", "vitality", "presence", "armor", "keywords", "prepare", "choose",
             "on_deploy", "on_defeat", "on_strike", "cycle_end", "activated", "passive"},
    ATTACHMENT: {"focus", "time", "power", "vitality", "presence", "armor", "keywords", "prepare", "attach_to",
                 "play"},
    SITE: {"focus", "time", "presence", "prepare", "choose", "play", "cycle_end", "passive"},
    TACTIC: {"focus", "time", "prepare", "choose", "play"},
    REACTION: {"focus", "time", "prepare", "choose", "play", "react_to"},
    LEADER: {"passive", "activated", "cycle_end"},
}
_COMMON_FIELDS = {"name", "type", "flavor"}


def slug(name: str) -> str:
    """A card's id: its name in lower case, every run of other characters a hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class Effect:
    """One effect of the vocabulary with its parameters (unused ones are 0 or None)."""

    __slots__ = ("name", "target", "amount", "duration", "who", "power", "vitality", "armor", "presence",
                 "scope", "filter")

    def __init__(self, name: str, **values: Any):
        self.name = name
        self.target = values.get("target")
        self.amount = values.get("amount", 0)
        self.duration = values.get("duration")
        self.who = values.get("who", "self")
        self.power = values.get("power", 0)
        self.vitality = values.get("vitality", 0)
        self.armor = values.get("armor", 0)
        self.presence = values.get("presence", 0)
        self.scope = values.get("scope", "front")
        self.filter = values.get("filter")


class Ability:
    """An activated ability: its printed Time and Focus, its limit, choice and effects."""

    __slots__ = ("time", "focus", "once", "choose", "effects")

    def __init__(self, time: int, focus: int, once: bool, choose: str | None, effects: list[Effect]):
        self.time = time
        self.focus = focus
        self.once = once
        self.choose = choose
        self.effects = effects


class Card:
    """A card definition. Read-only after loading; states refer to cards by ``id``."""

    __slots__ = ("id", "name", "type", "focus", "time", "power", "vitality", "presence", "armor", "keywords",
                 "prep_focus", "prep_time", "choose", "play", "on_deploy", "on_defeat", "on_strike",
                 "cycle_end", "activated", "auras", "strike_leader_bonus", "react_to", "attach_to",
                 "needs_actor", "flavor", "text", "file")

    def __init__(self, name: str, type_: str, file: str):
        self.id = slug(name)
        self.name = name
        self.type = type_
        self.file = file
        self.focus = self.time = self.power = self.vitality = self.presence = self.armor = 0
        self.keywords: frozenset[str] = frozenset()
        self.prep_focus = self.prep_time = 0
        self.choose: str | None = None
        self.play: list[Effect] = []
        self.on_deploy: list[Effect] = []
        self.on_defeat: list[Effect] = []
        self.on_strike: list[Effect] = []
        self.cycle_end: list[Effect] = []
        self.activated: Ability | None = None
        self.auras: list[Effect] = []
        self.strike_leader_bonus = 0
        self.react_to: frozenset[str] | None = None
        self.attach_to = "friendly"
        self.needs_actor = False
        self.flavor = ""
        self.text = ""

    @property
    def preparable(self) -> bool:
        return bool(self.prep_focus or self.prep_time)

    def keyword_words(self) -> list[str]:
        """The card's printed keywords as a player reads them ("Armor 2", "Ranged")."""
        words = [k.capitalize() for k in FLAG_KEYWORDS if k in self.keywords]
        if self.armor and self.type == ENTITY:
            words.insert(0, f"Armor {self.armor}")
        return words

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "type": self.type}
        if self.type != LEADER:
            out["focus"] = self.focus
            out["time"] = self.time
        if self.type in (ENTITY, ATTACHMENT):
            out.update(power=self.power, vitality=self.vitality, presence=self.presence, armor=self.armor)
        if self.type == SITE:
            out["presence"] = self.presence
        if self.type == ENTITY:
            out["keywords"] = self.keyword_words()
        else:
            out["keywords"] = [k.capitalize() for k in sorted(self.keywords)]
        if self.preparable:
            out["prepare"] = {"focus": self.prep_focus, "time": self.prep_time}
        if self.type == REACTION:
            out["react_to"] = sorted(self.react_to) if self.react_to is not None else None
        if self.type == ATTACHMENT:
            out["attach_to"] = self.attach_to
        if self.choose:
            out["choose"] = self.choose
        if self.activated is not None:
            out["activated"] = {"time": self.activated.time, "focus": self.activated.focus,
                                "once_per_cycle": self.activated.once}
        out["text"] = self.text
        if self.flavor:
            out["flavor"] = self.flavor
        return out


# --------------------------------------------------------------------------- validation


class _Checker:
    """Field checks for one card; every message names the file, the card and the field."""

    def __init__(self, file: str, card: str):
        self.file = file
        self.card = card

    def fail(self, field: str, problem: str) -> CardDataError:
        return CardDataError(f"{self.file}: card '{self.card}': field '{field}' {problem}")

    def integer(self, table: Mapping[str, Any], field: str, default: int = 0, minimum: int | None = 0,
                where: str = "") -> int:
        value = table.get(field, default)
        label = f"{where}{field}"
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(label, "must be an integer" + (f" >= {minimum}" if minimum is not None else ""))
        if minimum is not None and value < minimum:
            raise self.fail(label, f"must be an integer >= {minimum}")
        return value

    def choice(self, value: Any, field: str, options: Any) -> str:
        if not isinstance(value, str) or value not in options:
            raise self.fail(field, f"must be one of {', '.join(sorted(options))}, not {value!r}")
        return value


def _effect_list(check: _Checker, raw: Any, field: str, *, ctx: dict[str, Any]) -> list[Effect]:
    if not isinstance(raw, list) or not raw:
        raise check.fail(field, "must be a non-empty list of effects")
    effects = []
    for index, spec in enumerate(raw):
        where = f"{field}[{index}]"
        if not isinstance(spec, dict):
            raise check.fail(where, "must be a table such as { effect = \"stun\", ... }")
        name = spec.get("effect")
        if name not in EFFECTS:
            raise check.fail(f"{where}.effect", f"must be one of {', '.join(sorted(EFFECTS))}, not {name!r}")
        allowed = EFFECTS[name]
        for key in spec:
            if key != "effect" and key not in allowed:
                takes = ", ".join(allowed) or "none"
                raise check.fail(f"{where}.{key}", f"is not a parameter of {name} (it takes {takes})")
        values: dict[str, Any] = {}
        if "amount" in allowed:
            values["amount"] = check.integer(spec, "amount", default=1, minimum=1, where=f"{where}.")
        if "duration" in allowed:
            if "duration" not in spec:
                raise check.fail(f"{where}.duration", f"is required ({', '.join(DURATIONS)})")
            values["duration"] = check.choice(spec["duration"], f"{where}.duration", DURATIONS)
        if "who" in allowed:
            values["who"] = check.choice(spec.get("who", "self"), f"{where}.who", ("self", "opponent"))
        if name == "buff":
            values["power"] = check.integer(spec, "power", minimum=None, where=f"{where}.")
            values["vitality"] = check.integer(spec, "vitality", minimum=None, where=f"{where}.")
            if not values["power"] and not values["vitality"]:
                raise check.fail(f"{where}.power", "or 'vitality' must be non-zero")
        if "target" in allowed:
            if "target" not in spec:
                raise check.fail(f"{where}.target", f"is required ({', '.join(TARGETS)})")
            target = check.choice(spec["target"], f"{where}.target", TARGETS)
            _check_target(check, f"{where}.target", name, target, ctx)
            values["target"] = target
        if name == "scout" and ctx["trigger"] in AUTOMATIC_TRIGGERS:
            raise check.fail(f"{where}.effect", f"scout needs a player's choice and cannot be in {ctx['trigger']}")
        if name == "cancel_pending" and ctx["type"] != REACTION:
            raise check.fail(f"{where}.effect", "cancel_pending is only for Reactions")
        effects.append(Effect(name, **values))
    return effects


def _check_target(check: _Checker, field: str, effect: str, target: str, ctx: dict[str, Any]) -> None:
    trigger, type_, choose = ctx["trigger"], ctx["type"], ctx["choose"]
    on_entity = type_ == ENTITY

    def bad(why: str) -> CardDataError:
        return check.fail(field, f"{target!r} {why}")

    if target == "chosen":
        if trigger in AUTOMATIC_TRIGGERS:
            raise bad(f"needs a player's choice and cannot be used in {trigger}")
        if not choose:
            raise bad("needs a 'choose' on the card or ability")
        if choose == "front":
            raise bad("cannot be a Front; use enemies_here or friends_here with choose = \"front\"")
        if choose == "enemy_entity_or_leader" and effect not in LEADER_EFFECTS:
            raise bad(f"may be a Leader, which {effect} cannot affect")
    elif target == "self":
        if not on_entity or trigger == "on_defeat":
            raise bad("needs an Entity in play as the source")
    elif target == "host":
        if type_ != ATTACHMENT:
            raise bad("is only for Attachments")
    elif target in ("actor", "acting_leader"):
        if type_ != REACTION:
            raise bad("is only for Reactions")
    elif target == "struck":
        if trigger != "on_strike":
            raise bad("is only for on_strike")
    elif target in HERE_TARGETS:
        has_front = on_entity or type_ in (SITE, ATTACHMENT) or choose == "front"
        if not has_front or (type_ == LEADER):
            raise bad("needs a Front: an Entity, a Site, an Attachment or choose = \"front\"")
    if target in LEADER_TARGETS and effect not in LEADER_EFFECTS:
        raise bad(f"is a Leader, which {effect} cannot affect")


def _ability(check: _Checker, raw: Any, type_: str) -> Ability:
    if not isinstance(raw, dict):
        raise check.fail("activated", "must be a table { time = ..., effects = [...] }")
    for key in raw:
        if key not in ("time", "focus", "once_per_cycle", "choose", "effects"):
            raise check.fail(f"activated.{key}", "is not a field of an activated ability")
    if "time" not in raw:
        raise check.fail("activated.time", "is required (the ability's printed Time)")
    time = check.integer(raw, "time", where="activated.")
    focus = check.integer(raw, "focus", minimum=0, where="activated.")
    once = raw.get("once_per_cycle", True)
    if not isinstance(once, bool):
        raise check.fail("activated.once_per_cycle", "must be true or false")
    choose = raw.get("choose")
    if choose is not None:
        choose = check.choice(choose, "activated.choose", CHOOSE)
        if choose in CHOOSE_NEEDS_FRONT and type_ != ENTITY:
            raise check.fail("activated.choose", f"{choose!r} needs an Entity source")
    effects = _effect_list(check, raw.get("effects"), "activated.effects",
                           ctx={"trigger": "activated", "type": type_, "choose": choose})
    return Ability(time, focus, once, choose, effects)


def _passives(check: _Checker, raw: Any, card: Card) -> None:
    if not isinstance(raw, list) or not raw:
        raise check.fail("passive", "must be a non-empty list of passive abilities")
    for index, spec in enumerate(raw):
        where = f"passive[{index}]"
        if not isinstance(spec, dict) or spec.get("effect") not in PASSIVES:
            raise check.fail(f"{where}.effect", f"must be one of {', '.join(PASSIVES)}")
        name = spec["effect"]
        for key in spec:
            if key != "effect" and key not in PASSIVES[name]:
                raise check.fail(f"{where}.{key}", f"is not a parameter of {name}")
        if name == "strike_leader_bonus":
            if card.type != LEADER:
                raise check.fail(f"{where}.effect", "strike_leader_bonus is only for Leaders")
            card.strike_leader_bonus += check.integer(spec, "amount", default=1, minimum=1, where=f"{where}.")
            continue
        values = {k: check.integer(spec, k, minimum=None, where=f"{where}.")
                  for k in ("power", "vitality", "armor", "presence")}
        if not any(values.values()):
            raise check.fail(f"{where}.power", "or another stat must be non-zero for an aura")
        scope = check.choice(spec.get("scope", "front"), f"{where}.scope", AURA_SCOPES)
        if scope == "front" and card.type == LEADER:
            raise check.fail(f"{where}.scope", "must be 'all' for a Leader")
        filt = spec.get("filter")
        if filt is not None:
            check.choice(filt, f"{where}.filter", AURA_FILTERS)
            if filt == "other" and card.type != ENTITY:
                raise check.fail(f"{where}.filter", "'other' is only for Entities")
        card.auras.append(Effect("aura", scope=scope, filter=filt, **values))


def _card_from_table(file: str, table: Any, index: int) -> Card:
    if not isinstance(table, dict):
        raise CardDataError(f"{file}: card #{index + 1}: must be a table")
    name = table.get("name")
    if not isinstance(name, str) or not name.strip() or name != name.strip():
        raise CardDataError(f"{file}: card #{index + 1}: field 'name' must be a non-empty string")
    check = _Checker(file, name)
    type_ = check.choice(table.get("type"), "type", TYPES)
    allowed = _ALLOWED_FIELDS[type_] | _COMMON_FIELDS
    for key in table:
        if key not in allowed:
            raise check.fail(key, f"is not a field of {_a(TYPE_TITLES[type_])} card")
    card = Card(name, type_, file)
    flavor = table.get("flavor", "")
    if not isinstance(flavor, str):
        raise check.fail("flavor", "must be a string")
    card.flavor = flavor
    if type_ != LEADER:
        for field in ("focus", "time"):
            if field not in table:
                raise check.fail(field, "is required")
        card.focus = check.integer(table, "focus")
        card.time = check.integer(table, "time")
        if type_ == REACTION and card.time < 1:
            raise check.fail("time", "must be an integer >= 1 for a Reaction (its Reaction Time)")
    if type_ == ENTITY:
        for field in ("power", "vitality", "presence"):
            if field not in table:
                raise check.fail(field, "is required for an Entity")
        card.power = check.integer(table, "power")
        card.vitality = check.integer(table, "vitality", minimum=1)
        card.presence = check.integer(table, "presence")
        card.armor = check.integer(table, "armor")
    elif type_ == ATTACHMENT:
        card.power = check.integer(table, "power", minimum=None)
        card.vitality = check.integer(table, "vitality")
        card.presence = check.integer(table, "presence")
        card.armor = check.integer(table, "armor")
        card.attach_to = check.choice(table.get("attach_to", "friendly"), "attach_to", ("friendly", "enemy"))
    elif type_ == SITE:
        if "presence" not in table:
            raise check.fail("presence", "is required for a Site")
        card.presence = check.integer(table, "presence")
    if "keywords" in table:
        words = table["keywords"]
        options = FLAG_KEYWORDS if type_ == ENTITY else GRANTABLE_KEYWORDS
        if not isinstance(words, list):
            raise check.fail("keywords", "must be a list of keywords")
        for word in words:
            check.choice(word, "keywords", options)
        card.keywords = frozenset(words)
    if "prepare" in table:
        prep = table["prepare"]
        if not isinstance(prep, dict) or not prep or any(k not in ("focus", "time") for k in prep):
            raise check.fail("prepare", "must be a table with 'focus' and/or 'time' (the printed discount)")
        card.prep_focus = check.integer(prep, "focus", where="prepare.")
        card.prep_time = check.integer(prep, "time", where="prepare.")
        if not card.preparable:
            raise check.fail("prepare", "must give a discount of at least 1")
    if "choose" in table:
        card.choose = check.choice(table["choose"], "choose", CHOOSE)
        if card.choose in CHOOSE_NEEDS_FRONT and type_ != ENTITY:
            raise check.fail("choose", f"{card.choose!r} needs an Entity source")
    if type_ == REACTION and "react_to" in table:
        kinds = table["react_to"]
        if not isinstance(kinds, list) or not kinds:
            raise check.fail("react_to", f"must be a non-empty list of {', '.join(PENDING_KINDS)}")
        for kind in kinds:
            check.choice(kind, "react_to", PENDING_KINDS)
        card.react_to = frozenset(kinds)
    for trigger in TRIGGERS:
        if trigger in table:
            effects = _effect_list(check, table[trigger], trigger,
                                   ctx={"trigger": trigger, "type": type_, "choose": card.choose})
            setattr(card, trigger, effects)
    if "activated" in table:
        card.activated = _ability(check, table["activated"], type_)
    if "passive" in table:
        _passives(check, table["passive"], card)
    if type_ in (TACTIC, REACTION) and not card.play:
        raise check.fail("play", f"is required: {_a(TYPE_TITLES[type_])} needs effects")
    if card.choose and not _uses_chosen(card):
        raise check.fail("choose", "is given but no effect targets 'chosen' or a chosen Front")
    if type_ == LEADER and not (card.activated or card.auras or card.strike_leader_bonus or card.cycle_end):
        raise check.fail("passive", "or 'activated' or 'cycle_end' is required: a Leader carries one ability")
    if type_ == REACTION:
        actor_targets = [e for e in card.play if e.target == "actor"]
        if actor_targets:
            card.needs_actor = True
            if card.react_to is None or not card.react_to <= ACTOR_KINDS:
                kinds = ", ".join(sorted(ACTOR_KINDS))
                raise check.fail("react_to", f"must list only {kinds} when an effect targets 'actor'")
    card.text = card_text(card)
    return card


def _a(word: str) -> str:
    return ("an " if word[0] in "AEIOU" else "a ") + word


def _uses_chosen(card: Card) -> bool:
    lists = (card.play, card.on_deploy)
    if card.choose == "front":
        return any(e.target in HERE_TARGETS for effects in lists for e in effects)
    return any(e.target == "chosen" for effects in lists for e in effects)


# --------------------------------------------------------------------------- rules text


def _target_text(effect: Effect, choose: str | None, said: list[bool], source: str) -> str:
    target = effect.target
    if target == "chosen":
        if said[0]:
            return "it"
        said[0] = True
        return CHOOSE[choose or "enemy_entity"]
    where = "the chosen Front" if choose == "front" else "this Front"
    if source == ATTACHMENT:
        where = "its Front"
    return {
        "self": "this Entity",
        "host": "the attached Entity",
        "enemy_leader": "the enemy Leader",
        "own_leader": "your Leader",
        "actor": "the acting Entity",
        "acting_leader": "the acting player's Leader",
        "enemies_here": f"each enemy Entity on {where}",
        "friends_here": f"each friendly Entity on {where}",
        "all_enemies": "each enemy Entity",
        "all_friends": "each friendly Entity",
        "struck": "the Entity it struck",
    }[target]


def effect_text(effect: Effect, choose: str | None, said: list[bool], source: str) -> str:
    """One effect in words ("deal 2 damage to a chosen enemy Entity")."""
    name = effect.name
    n = effect.amount
    if name in PLAYER_EFFECTS:
        opp = effect.who == "opponent"
        if name == "scout":
            return f"Scout {n}"
        if name == "draw":
            cards = "a card" if n == 1 else f"{n} cards"
            return f"your opponent draws {cards}" if opp else f"draw {cards}"
        if name == "gain_focus":
            return f"your opponent gains {n} Focus" if opp else f"gain {n} Focus"
        if name == "gain_time":
            return f"your opponent gains {n} Time" if opp else f"gain {n} Time"
        if name == "lose_time":
            return f"your opponent loses {n} Time" if opp else f"lose {n} Time"
        return "cancel the pending action"
    t = _target_text(effect, choose, said, source)
    if name == "deal_damage":
        return f"deal {n} damage to {t}"
    if name in ("stun", "root", "silence"):
        return f"{name.capitalize()} {t} {DURATIONS[effect.duration]}"
    if name == "expose":
        return f"give {t} Exposed {n}"
    if name == "protect":
        return f"give {t} Protected {n}"
    if name == "barrier":
        return f"give {t} Barrier"
    if name == "move":
        return f"move {t} to the other row of its Front if that slot is empty"
    if name == "destroy":
        return f"destroy {t}"
    if name == "ready":
        return f"ready {t}"
    if name == "buff":
        parts = []
        if effect.power:
            parts.append(f"{effect.power:+d} Power")
        if effect.vitality:
            parts.append(f"{effect.vitality:+d} Vitality")
        return f"give {t} {' and '.join(parts)}"
    if effect.target in LEADER_TARGETS:
        return f"restore {n} Integrity to {t}"
    return f"heal {n} damage from {t}"


def _sentence(effects: list[Effect], choose: str | None, source: str) -> str:
    said = [False]
    text = "; ".join(effect_text(e, choose, said, source) for e in effects)
    return text[0].upper() + text[1:] + "."


def _aura_text(aura: Effect, card: Card) -> str:
    subject = {
        None: "Your Entities",
        "other": "Your other Entities",
        "mobile": "Your Mobile Entities",
        "structure": "Your Structures",
        "ranged": "Your Ranged Entities",
        "vanguard": "Your Vanguard Entities",
        "support": "Your Support Entities",
    }[aura.filter]
    if aura.scope == "front":
        subject += " on this Front"
    parts = [f"{value:+d} {label}" for value, label in ((aura.power, "Power"), (aura.vitality, "Vitality"),
                                                          (aura.armor, "Armor"), (aura.presence, "Presence"))
             if value]
    return f"{subject} have {' and '.join(parts)}."


def card_text(card: Card) -> str:
    """The rules text of a card, generated from its data."""
    parts: list[str] = []
    words = card.keyword_words() if card.type == ENTITY else []
    if words:
        parts.append(". ".join(words) + ".")
    if card.type == ATTACHMENT:
        target = "an enemy Entity" if card.attach_to == "enemy" else "a friendly Entity"
        stats = [f"{value:+d} {label}" for value, label in ((card.power, "Power"), (card.vitality, "Vitality"),
                                                              (card.armor, "Armor"), (card.presence, "Presence"))
                 if value]
        stats += [k.capitalize() for k in GRANTABLE_KEYWORDS if k in card.keywords]
        line = f"Attach to {target}"
        if stats:
            line += ": it gets " + ", ".join(stats)
        parts.append(line + ".")
    if card.type == SITE:
        parts.append(f"Presence {card.presence} on its Front for you.")
    if card.type == REACTION:
        if card.react_to is None:
            parts.append("Respond to any action.")
        else:
            kinds = [PENDING_KINDS[k] for k in PENDING_KINDS if k in card.react_to]
            listed = kinds[0] if len(kinds) == 1 else ", ".join(kinds[:-1]) + " or " + kinds[-1]
            parts.append(f"Respond to {listed}.")
    for trigger, label in TRIGGERS.items():
        effects = getattr(card, trigger)
        if effects:
            sentence = _sentence(effects, card.choose, card.type)
            parts.append(sentence if trigger == "play" and card.type in (TACTIC, REACTION)
                         else f"{label}: {sentence}")
    if card.activated is not None:
        ability = card.activated
        costs = [f"{ability.time} Time"]
        if ability.focus:
            costs.append(f"{ability.focus} Focus")
        if ability.once:
            costs.append("once per Cycle")
        parts.append(f"Activate ({', '.join(costs)}): {_sentence(ability.effects, ability.choose, card.type)}")
    for aura in card.auras:
        parts.append(_aura_text(aura, card))
    if card.strike_leader_bonus:
        parts.append(f"Your Strikes on the enemy Leader deal {card.strike_leader_bonus} more damage.")
    if card.preparable:
        discount = [f"-{v} {label}" for v, label in ((card.prep_focus, "Focus"), (card.prep_time, "Time")) if v]
        parts.append(f"Prepare: {' and '.join(discount)}.")
    return " ".join(parts)


# --------------------------------------------------------------------------- loading


def load_cards(directory: Path = CARD_DIR) -> dict[str, Card]:
    """Every card of every ``*.toml`` file in ``directory``, by id, in file and card order.

    Raises :class:`CardDataError` on the first problem, naming file, card and field.
    """
    cards: dict[str, Card] = {}
    names: dict[str, str] = {}
    for label, position, table in card_tables(directory):
        card = _card_from_table(label, table, position - 1)
        if card.id in cards:
            raise CardDataError(f"{label}: card '{card.name}': field 'name' repeats {names[card.id]}")
        cards[card.id] = card
        names[card.id] = f"'{card.name}' of {card.file}"
    return cards


CARDS: dict[str, Card] = load_cards()
BY_NAME: dict[str, Card] = {c.name: c for c in CARDS.values()}
