"""The contract both games implement, and the pieces they share.

A *Game* is fixed metadata plus factories (``new_match``, deck parsing and validation,
the card pool). A *State* is one match in progress: ``to_act()``, ``legal_actions(seat)``,
``apply(seat, action)``, ``outcome``, ``view(seat)``, ``clone()``, ``determinize(seat, rng)``
and a JSON round-trip. All randomness comes from one seeded :class:`Rng` carried in the
state, so (seed, decks, params, actions) *is* the match: :class:`Replay` stores exactly that.

This module has no dependency on Django, Celery or Channels and must never gain one.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

from engine import tiebreaks

JSON = Any

# --------------------------------------------------------------------------- errors


class IllegalAction(ValueError):
    """An action that the rules forbid. Raised before anything changes.

    ``rule`` names the rule it breaks ("T3 Time costs", "Exact rule: Shift"), so that a
    player, a bot author or a test sees *why*.
    """

    def __init__(self, message: str, rule: str | None = None):
        self.message = message
        self.rule = rule
        super().__init__(f"{message} [{rule}]" if rule else message)


class DeckError(ValueError):
    """A decklist that cannot be played. ``problems`` lists every problem at once."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


class RulesVersionError(ValueError):
    """A replay recorded under other rules than the engine plays: it cannot be replayed."""


class CardDataError(ValueError):
    """A card data file that does not validate. The message names file, card and field."""


# --------------------------------------------------------------------------- randomness

_MASK = (1 << 64) - 1


def _mix(value: int) -> int:
    value = (value + 0x9E3779B97F4A7C15) & _MASK
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & _MASK
    return value ^ (value >> 31)


def seed_from(*parts: Any) -> int:
    """A 64-bit seed from any printable parts, stable across processes and Python versions.

    (Python's own ``hash`` of a string is salted per process, so it must never be used.)
    """
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


class Rng:
    """A small seeded random stream (SplitMix64) whose whole state is one integer.

    Cheap to clone and to store in JSON, identical on every platform. The only source
    of randomness an engine state may use.
    """

    __slots__ = ("state",)

    def __init__(self, seed: int | str = 0, *, _raw: int | None = None):
        if _raw is not None:
            self.state = _raw & _MASK
        elif isinstance(seed, int):
            self.state = _mix(seed & _MASK)
        else:
            self.state = seed_from(seed)

    def next64(self) -> int:
        self.state = s = (self.state + 0x9E3779B97F4A7C15) & _MASK
        s = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        s = ((s ^ (s >> 27)) * 0x94D049BB133111EB) & _MASK
        return s ^ (s >> 31)

    def randrange(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n`` must be positive."""
        if n <= 0:
            raise ValueError("randrange() needs a positive bound")
        return self.next64() % n

    def random(self) -> float:
        return (self.next64() >> 11) * (1.0 / 9007199254740992.0)

    def choice(self, seq: Sequence[Any]) -> Any:
        return seq[self.next64() % len(seq)]

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.next64() % (i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self, *labels: Any) -> Rng:
        """An independent stream derived from this one's current state and the labels.

        Does not advance this stream.
        """
        return Rng(_raw=seed_from(self.state, *labels))

    def clone(self) -> Rng:
        return Rng(_raw=self.state)

    def to_json(self) -> int:
        return self.state

    @classmethod
    def from_json(cls, data: int) -> Rng:
        return cls(_raw=int(data))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.state == self.state

    def __repr__(self) -> str:
        return f"Rng(state={self.state:#x})"


# --------------------------------------------------------------------------- actions and events

_SCALARS = (str, int, float, bool, type(None))


def _freeze(value: Any, where: str) -> Any:
    if isinstance(value, bool) or isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v, where) for v in value)
    raise ValueError(f"{where}: value {value!r} is not a string, number, boolean, null or list")


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


class Action(NamedTuple):
    """A small frozen move with a stable JSON form, like python-chess's ``Move``.

    ``params`` is a tuple of ``(name, value)`` pairs sorted by name; values are JSON
    scalars or tuples of them. Games construct actions with :meth:`of`, or directly with
    pre-sorted params on hot paths. Actions name what the acting seat can see (a card in
    hand by its card id, a unit by its position), never hidden instance numbers.

    Every game also accepts ``Action.of("concede", reason=...)`` from any seat still in the
    match, at any moment; it is never listed by ``legal_actions``.
    """

    kind: str
    params: tuple = ()

    @classmethod
    def of(cls, kind: str, **params: Any) -> Action:
        return cls(kind, tuple(sorted((k, _freeze(v, k)) for k, v in params.items())))

    def get(self, name: str, default: Any = None) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        return default

    def __getitem__(self, item: Any) -> Any:  # type: ignore[override]
        if isinstance(item, str):
            for key, value in self.params:
                if key == item:
                    return value
            raise KeyError(item)
        return tuple.__getitem__(self, item)

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"kind": self.kind}
        for key, value in self.params:
            out[key] = _thaw(value)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Parse an action's JSON form; raises ``IllegalAction`` naming what is malformed."""
        if not isinstance(data, Mapping):
            raise IllegalAction(f"an action must be a JSON object, not {type(data).__name__}", "action format")
        kind = data.get("kind")
        if not isinstance(kind, str) or not kind:
            raise IllegalAction("an action needs a 'kind' (a non-empty string)", "action format")
        params = {}
        for key, value in data.items():
            if key == "kind":
                continue
            if not isinstance(key, str):
                raise IllegalAction("action field names must be strings", "action format")
            try:
                params[key] = _freeze(value, key)
            except ValueError as exc:
                raise IllegalAction(str(exc), "action format") from None
        return cls(kind, tuple(sorted(params.items())))

    def __str__(self) -> str:
        if not self.params:
            return self.kind
        inner = ", ".join(f"{k}={_thaw(v)!r}" for k, v in self.params)
        return f"{self.kind}({inner})"


CONCEDE = "concede"


class Event(NamedTuple):
    """Something that happened, in words a player understands.

    ``private_to`` is ``None`` for a public event, or the one seat allowed to see it
    ("You drew Ashen Drake"); games emit a public counterpart ("Seat 2 drew a card")
    where the others should know something happened.
    """

    kind: str
    text: str
    data: Mapping[str, JSON] | None = None
    private_to: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        return self.private_to is None or self.private_to == seat

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"kind": self.kind, "text": self.text}
        if self.data:
            out["data"] = dict(self.data)
        if self.private_to is not None:
            out["private_to"] = self.private_to
        return out


# --------------------------------------------------------------------------- outcome


@dataclass(frozen=True)
class Outcome:
    """How a match ended. ``places[seat]`` is 1 for first; tied seats share a place."""

    places: tuple[int, ...]
    scores: tuple[Any, ...]
    reason: str
    detail: Mapping[str, JSON] = field(default_factory=dict)

    @property
    def ranking(self) -> tuple[int, ...]:
        """Seats, best first (ties in seat order)."""
        return tuple(sorted(range(len(self.places)), key=lambda s: (self.places[s], s)))

    @property
    def winner(self) -> int | None:
        """The one seat alone in first place, or ``None`` (a draw, or a shared first place)."""
        firsts = [s for s, p in enumerate(self.places) if p == 1]
        return firsts[0] if len(firsts) == 1 else None

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def to_json(self) -> dict[str, JSON]:
        return {
            "places": list(self.places),
            "ranking": list(self.ranking),
            "winner": self.winner,
            "scores": list(self.scores),
            "reason": self.reason,
            "detail": dict(self.detail),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Outcome:
        return cls(
            places=tuple(data["places"]),
            scores=tuple(data["scores"]),
            reason=data["reason"],
            detail=dict(data.get("detail") or {}),
        )


def places_from_scores(scores: Sequence[Any], *, higher_is_better: bool = True) -> tuple[int, ...]:
    """Standard competition places ("1224") from per-seat scores."""
    sign = -1 if higher_is_better else 1
    order = sorted(range(len(scores)), key=lambda s: sign * scores[s])
    places = [0] * len(scores)
    for rank, seat in enumerate(order):
        if rank and scores[seat] == scores[order[rank - 1]]:
            places[seat] = places[order[rank - 1]]
        else:
            places[seat] = rank + 1
    return tuple(places)


# --------------------------------------------------------------------------- card usage


@dataclass
class CardUsage:
    """One seat's cards drawn and played in one finished game, counted by card id (the
    ``id`` of ``Game.cards()``, which card pages use).

    What "drawn" and "played" mean is each game's own (``Game.card_usage``; the rules page
    of each game says it). ``drawn[c]`` counts every time a copy of ``c`` was drawn, so a
    card drawn twice counts twice; :attr:`drawn_cards` is presence, what a "win rate when
    drawn" counts once per game. Counters never hold a zero or a negative count.
    """

    drawn: Counter[str] = field(default_factory=Counter)
    played: Counter[str] = field(default_factory=Counter)

    @property
    def drawn_cards(self) -> frozenset[str]:
        """The cards drawn at least once."""
        return frozenset(card for card, n in self.drawn.items() if n > 0)

    @property
    def played_cards(self) -> frozenset[str]:
        """The cards played at least once."""
        return frozenset(card for card, n in self.played.items() if n > 0)

    def to_json(self) -> dict[str, JSON]:
        return {"drawn": dict(sorted(self.drawn.items())), "played": dict(sorted(self.played.items()))}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> CardUsage:
        return cls(drawn=Counter({str(c): int(n) for c, n in (data.get("drawn") or {}).items()}),
                   played=Counter({str(c): int(n) for c, n in (data.get("played") or {}).items()}))


# --------------------------------------------------------------------------- decklists

_LINE = re.compile(r"^\s*(\d+)\s*[xX]?\s+(\S.*?)\s*$")


@dataclass(frozen=True)
class Decklist:
    """A parsed plain-text decklist: the commander (Leader or Celestial) and card counts.

    The same text format everywhere (files, the website's paste box, the API)::

        # comments and blank lines are ignored
        Leader: Vess, the Long Watch
        2 Ashen Drake
        1 Ironclad Sentry
    """

    commander: str | None
    cards: tuple[tuple[str, int], ...]
    name: str = ""

    @property
    def size(self) -> int:
        return sum(n for _, n in self.cards)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for card, n in self.cards:
            out[card] = out.get(card, 0) + n
        return out

    def to_text(self, commander_label: str) -> str:
        lines = []
        if self.commander:
            lines.append(f"{commander_label}: {self.commander}")
        lines.extend(f"{n} {card}" for card, n in self.cards)
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, JSON]:
        return {"name": self.name, "commander": self.commander, "cards": [[c, n] for c, n in self.cards]}

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Decklist:
        return cls(
            commander=data.get("commander"),
            cards=tuple((str(c), int(n)) for c, n in data.get("cards", [])),
            name=str(data.get("name") or ""),
        )


def parse_decklist(text: str, commander_label: str, *, name: str = "") -> Decklist:
    """Parse the plain-text format; raises :class:`DeckError` with every malformed line."""
    decklist, problems = read_decklist(text, commander_label, name=name)
    if problems:
        raise DeckError(problems)
    return decklist


def read_decklist(text: str, commander_label: str, *, name: str = "") -> tuple[Decklist, list[str]]:
    """Parse what can be parsed and list every malformed line, without raising."""
    if not isinstance(text, str):
        return Decklist(commander=None, cards=(), name=name), ["a decklist must be text"]
    problems: list[str] = []
    commander: str | None = None
    counts: dict[str, int] = {}
    prefix = commander_label.lower() + ":"
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.lower().startswith(prefix):
            value = line[len(prefix):].strip()
            if not value:
                problems.append(f"line {number}: '{commander_label}:' needs a card name")
            elif commander is not None:
                problems.append(f"line {number}: a second {commander_label} ({value}); a deck has exactly one")
            else:
                commander = value
            continue
        match = _LINE.match(line)
        if not match:
            problems.append(f"line {number}: '{line}' is not 'N Card Name' or '{commander_label}: Name'")
            continue
        count = int(match.group(1))
        card = match.group(2)
        if count <= 0:
            problems.append(f"line {number}: {count} copies of {card}; the count must be at least 1")
            continue
        counts[card] = counts.get(card, 0) + count
    return Decklist(commander=commander, cards=tuple(counts.items()), name=name), problems


def resolve_card_names(
    decklist: Decklist, names: Iterable[str], *, commander_label: str
) -> tuple[Decklist, list[str]]:
    """Match card names case-insensitively against the pool.

    Returns the decklist with canonical names and the problems for unknown names (with a
    "did you mean" suggestion when one is close).
    """
    canonical = {n.casefold(): n for n in names}
    problems: list[str] = []

    def fix(card: str, what: str) -> str:
        hit = canonical.get(card.casefold())
        if hit:
            return hit
        close = difflib.get_close_matches(card.casefold(), list(canonical), n=1, cutoff=0.75)
        hint = f" (did you mean {canonical[close[0]]}?)" if close else ""
        problems.append(f"unknown {what} '{card}'{hint}")
        return card

    commander = fix(decklist.commander, commander_label) if decklist.commander else None
    merged: dict[str, int] = {}
    for card, n in decklist.cards:
        name = fix(card, "card")
        merged[name] = merged.get(name, 0) + n
    return Decklist(commander=commander, cards=tuple(merged.items()), name=decklist.name), problems


# --------------------------------------------------------------------------- card data files


def card_tables(directory: Path) -> Iterator[tuple[str, int, Any]]:
    """Every ``[[card]]`` table of every ``*.toml`` file in ``directory``, in file order.

    Yields ``(label, position, table)`` with ``label`` the file as error messages name it
    (``cards/units.toml``) and ``position`` counted from 1 within the file. Raises
    :class:`CardDataError` naming the file for anything that is not a list of card tables.
    """
    files = sorted(directory.glob("*.toml"))
    if not files:
        raise CardDataError(f"{directory}: no card files (*.toml)")
    for path in files:
        label = f"cards/{path.name}"
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise CardDataError(f"{label}: not valid TOML ({exc})") from None
        for key in data:
            if key != "card":
                raise CardDataError(f"{label}: unknown top-level key '{key}' (cards are [[card]] tables)")
        tables = data.get("card", [])
        if not isinstance(tables, list):
            raise CardDataError(f"{label}: 'card' must be an array of tables ([[card]])")
        for position, table in enumerate(tables, start=1):
            yield label, position, table


# --------------------------------------------------------------------------- rules parameters


@dataclass(frozen=True)
class ParamSpec:
    """One rules parameter of a game: its default and the range organisers may choose from.

    Integer parameters carry ``minimum`` and ``maximum`` (both inclusive); choice parameters
    carry ``choices`` (``default`` is one of them). ``card_changeable`` says whether card text
    may change the value mid-match (such changes are bounded by the game's own safety bound,
    not by this range); ``organiser=False`` marks a parameter the platform sets itself.
    ``Game.param_specs()`` is the single declaration the API, the forms and the docs read.
    """

    name: str
    default: int | str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None
    help: str = ""
    card_changeable: bool = False
    organiser: bool = True

    @property
    def kind(self) -> str:
        return "choice" if self.choices is not None else "integer"

    def check(self, value: Any) -> int | str:
        """``value`` if it is allowed; raises ``ValueError`` naming the parameter and the bound."""
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(f"parameter '{self.name}' must be one of {', '.join(self.choices)}, not {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"parameter '{self.name}' must be an integer, not {_short_repr(value)}")
        if (self.minimum is not None and value < self.minimum) or (self.maximum is not None and value > self.maximum):
            raise ValueError(f"parameter '{self.name}' must be between {self.minimum} and {self.maximum}, not {value}")
        return value

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {"name": self.name, "type": self.kind, "default": self.default}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        else:
            out["minimum"] = self.minimum
            out["maximum"] = self.maximum
        out["help"] = self.help
        out["card_changeable"] = self.card_changeable
        out["organiser"] = self.organiser
        return out


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_param_values(title: str, specs: Mapping[str, ParamSpec], values: Any) -> dict[str, JSON]:
    """The complete parameters (defaults merged with ``values``), each checked against its spec.

    Raises ``ValueError`` naming the first bad parameter. Cheap: no game is set up.
    """
    if values is None:
        values = {}
    if not isinstance(values, Mapping):
        raise ValueError(f"{title} parameters must be a mapping of parameter names to values, "
                         f"not {type(values).__name__}")
    out: dict[str, JSON] = {name: spec.default for name, spec in specs.items()}
    for name, value in values.items():
        spec = specs.get(name) if isinstance(name, str) else None
        if spec is None:
            known = ", ".join(sorted(specs))
            raise ValueError(f"unknown {title} parameter {_short_repr(name)} (known: {known})")
        out[name] = spec.check(value)
    return out


# --------------------------------------------------------------------------- the contract


@runtime_checkable
class State(Protocol):
    """One match in progress. Seats are numbered from 0."""

    game: str
    num_seats: int
    #: What happened while the match was set up (shuffles, opening draws), for logs and
    #: the replay viewer's first frame; empty when nothing did, and on a clone.
    opening_events: list[Event]

    def to_act(self) -> tuple[int, ...]:
        """The seats that must act now: empty when the match is over; several where the
        game has simultaneous choices (Conquest placement)."""

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action for ``seat`` now (empty if the seat need not act).

        Depends only on what ``seat`` can see."""

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one action; raise ``IllegalAction`` (changing nothing) if it is not legal."""

    @property
    def outcome(self) -> Outcome | None:
        """``None`` while the match runs."""

    def view(self, seat: int | None) -> dict[str, JSON]:
        """JSON of what ``seat`` may see; ``None`` is a spectator (public information only)."""

    def clone(self) -> State: ...

    def determinize(self, seat: int, rng: Rng) -> State:
        """A full state consistent with what ``seat`` has seen, hidden parts resampled
        from ``rng``. Must depend only on (``view(seat)``, ``rng``): the pool of unseen
        cards is put in a canonical order before it is shuffled."""

    def to_json(self) -> dict[str, JSON]: ...


class Game:
    """Fixed metadata and factories for one game. Subclasses fill the blanks.

    This class is the whole of what the platform knows about a game (OpenSpiel's game
    registration: a game declares what it supports). The platform never names a game:
    it asks ``engine.games`` for the metadata below and calls the hooks, so a new game is
    one package that sets them and is registered (:meth:`GameRegistry.register`).

    - seats: ``min_seats``..``max_seats`` per match; ``queue_seats``, the seat counts a
      live matchmaking queue offers; :meth:`plays_on_without`, whether a match goes on
      when a seat runs out of time;
    - decks: ``commander_label``, :meth:`card_names`, :meth:`validate_deck`;
    - ties: :meth:`defer_ties` and :meth:`break_ties` (a tie broken outside the match, by
      a worker task), :meth:`twos_numbers` and ``twos_label`` (what Match the Twos
      compares between decklists when a tournament tie matters, and its name in a log);
    - a match stopped before its end: :meth:`adjudicate`;
    - hidden actions and decisions: :meth:`observed_action` (what the other seats and a
      spectator see of an action) and :meth:`decision_steps` (a decision a seat builds
      in several actions, offered to a person all at once);
    - standings: :meth:`standings_scores` and ``standings_score_label`` (a per-seat score
      that an event adds up and ranks by after the other tiebreakers);
    - the deck lab: :meth:`card_usage` (per seat, the cards drawn and played in a
      finished game), which a game opts into with :meth:`card_usage_from_events`;
    - presentation: ``title``, ``commander_label``, ``art_hue`` and ``art_dots`` (the
      card art's palette and what its ring of dots counts).
    """

    name: str = ""
    title: str = ""
    rules_version: str = "1"
    min_seats: int = 2
    max_seats: int = 2
    #: The seat counts of this game's live matchmaking queues.
    queue_seats: tuple[int, ...] = (2,)
    commander_label: str = "Leader"
    hidden_information: bool = True
    #: The base hue (degrees) of this game's card art palette.
    art_hue: int = 0
    #: The card field (in :meth:`cards`) the art's ring of dots counts: a cost, a score.
    art_dots: str = "cost"
    #: What the standings call :meth:`standings_scores`' total; None: the game has none.
    standings_score_label: str | None = None
    #: What a log calls the number :meth:`twos_numbers` gives ("a match at <label> 3").
    twos_label: str = "number"

    def plays_on_without(self, seats: int) -> bool:
        """Whether a match of ``seats`` goes on when one seat runs out of time (its
        remaining decisions then taken by the random bot, the seat ranked last) instead of
        ending with that seat's concession. Default: it ends."""
        return False

    def defer_ties(self, params: Mapping[str, JSON] | None) -> dict[str, JSON]:
        """The parameters for a match played on a worker: a game whose ties take work of
        their own (Conquest's Match the Twos) asks here to leave them for :meth:`break_ties`,
        run by a task of its own; the outcome then says ``detail["tiebreak_pending"]``.
        Default: ties are settled inside the game, the parameters are unchanged."""
        return dict(params or {})

    def break_ties(self, outcome: Outcome, decks: Sequence[Decklist], seed: int) -> Outcome:
        """The final outcome of a match whose ties :meth:`defer_ties` left pending: a
        function of (outcome, decks, seed) alone, so running it twice gives the same."""
        raise NotImplementedError(f"{self.title or self.name} settles its ties inside the game")

    def twos_numbers(self) -> Mapping[str, int | None]:
        """The number each card prints that Match the Twos compares when a tie between two
        decklists of this game decides a tournament cut or prize (RULINGS.md C11): two
        revealed cards match when they print the same number (None: it matches nothing)."""
        raise NotImplementedError(f"{self.title or self.name} names no number for Match the Twos")

    def match_the_twos(self, card_lists: Mapping[int, Sequence[str]], rng: Rng) -> dict[str, JSON]:
        """Match the Twos between ``card_lists`` (id -> card names), comparing
        :meth:`twos_numbers`; the record of :func:`engine.tiebreaks.match_the_twos`."""
        return tiebreaks.match_the_twos(card_lists, rng, printed=self.twos_numbers())

    def observed_action(self, actor: int, action: Action) -> Action | tuple[JSON, ...]:
        """What every seat but ``actor``, and every spectator, see of ``actor`` taking
        ``action`` (OpenSpiel's observer, for actions): the action itself when it is public,
        else a tuple of JSON values that says only what shows (a face-down pick: its kind).
        The actor always sees its own action whole. Replays shown while a match runs and
        the search bot's tree both key on it.

        Default: a game without hidden information shows every action; a game with hidden
        information that does not say shows only each action's kind, never its content."""
        if not self.hidden_information:
            return action
        return (action.kind,)

    def decision_steps(self, state: State, seat: int) -> dict[str, JSON] | None:
        """The choices of a decision ``seat`` makes in several actions in a row, offered to
        a person at once (the live board's chooser), as the game lays them out; None when
        its next decision is one action of ``state.legal_actions(seat)``. ``state`` is not
        changed; the answer tells of the seat's own hand, so it belongs in that seat's view
        only. Default: every decision is one action."""
        return None

    def adjudicate(self, state: State) -> tuple[int, ...] | None:
        """Places by the rules' own end condition for a match stopped before its end (a
        tournament round's hard time limit); None when the game has none (the match is
        then a draw). ``state`` is not changed. Default: None."""
        return None

    def standings_scores(self, outcome: Mapping[str, JSON]) -> list[int | None] | None:
        """Per seat, the score of one finished game (``Outcome.to_json()``) that an event's
        standings add up (``standings_score_label``); None when the game has none."""
        return None

    @property
    def reports_card_usage(self) -> bool:
        """Whether :meth:`card_usage` works for this game (it implements
        :meth:`card_usage_from_events`): the deck lab offers only such games."""
        return type(self).card_usage_from_events is not Game.card_usage_from_events

    def card_usage(self, replay: Replay, *, events: Sequence[Event] | None = None) -> list[CardUsage]:
        """Per seat, the cards drawn and played in the finished game ``replay`` records.

        ``events``: every event of that game in order, the opening events first (what
        ``play_match(..., record_events=True)`` returns as ``MatchResult.events``); given,
        nothing is replayed, which costs nothing. Without them the replay is played again
        once, collecting the events the engine emits (no bot, no view, no clone).

        Hidden information: the usage names the cards of every hand, so it is only reported
        for a finished game. Raises ``ValueError`` for a replay of another game or of other
        rules, one that is not finished (or ends before its game does when replayed) or an
        action that is illegal on replay, and ``NotImplementedError`` for a game that does
        not report usage (:attr:`reports_card_usage`)."""
        label = self.title or self.name
        if replay.game != self.name:
            raise ValueError(f"this is a replay of {replay.game!r}, not of {label}")
        if not self.reports_card_usage:
            raise self._no_card_usage()
        check_rules_version(replay, self)
        if events is None:
            events = self.replay_events(replay)
        elif replay.outcome is None:
            raise ValueError(f"card usage is reported for finished games only: this {label} replay has no outcome")
        return self.card_usage_from_events(replay.decks, events)

    def replay_events(self, replay: Replay) -> list[Event]:
        """Every event of the finished game ``replay`` records, opening events first, from
        playing its actions again. Raises ``ValueError`` as :meth:`card_usage` does."""
        label = self.title or self.name
        check_rules_version(replay, self)
        state = self.new_match(replay.decks, replay.seed, replay.params)
        events = list(state.opening_events)
        for number, (seat, action) in enumerate(replay.actions, start=1):
            try:
                events.extend(state.apply(seat, action))
            except IllegalAction as exc:
                raise ValueError(f"action {number} of this {label} replay is illegal on replay: {exc}") from None
        if state.outcome is None:
            raise ValueError(f"card usage is reported for finished games only: this {label} replay of "
                             f"{len(replay.actions)} actions ends before its game does")
        return events

    def card_usage_from_events(self, decks: Sequence[Decklist], events: Sequence[Event]) -> list[CardUsage]:
        """Per seat of a finished game played with ``decks``, the cards drawn and played,
        read from every event of the game (private ones included), opening events first.

        The one hook a game implements to report usage; its rules page says what "drawn"
        and "played" mean in it. Default: the game does not report usage."""
        raise self._no_card_usage()

    def _no_card_usage(self) -> NotImplementedError:
        return NotImplementedError(
            f"{self.title or self.name} does not report the cards drawn and played in its games: its Game needs "
            "card_usage_from_events (docs/architecture.md, 'Cards drawn and played')")

    def new_match(self, decks: Sequence[Decklist], seed: int, params: Mapping[str, JSON] | None = None) -> State:
        raise NotImplementedError

    def state_from_json(self, data: Mapping[str, JSON]) -> State:
        raise NotImplementedError

    def default_params(self) -> dict[str, JSON]:
        return {name: spec.default for name, spec in self.param_specs().items()}

    def param_specs(self) -> dict[str, ParamSpec]:
        """Every rules parameter, by name: the one declaration of types, defaults and ranges."""
        return {}

    def check_params(self, values: Mapping[str, JSON] | None) -> dict[str, JSON]:
        """The complete, normalized parameters for ``values`` (defaults filled in).

        Raises ``ValueError`` naming the parameter and the bound (``parameter 'x' must be
        between 0 and 10, not 11``). Cheap: no game is set up."""
        return check_param_values(self.title or self.name, self.param_specs(), values)

    def card_names(self) -> list[str]:
        """Every card and commander name in the pool."""
        raise NotImplementedError

    def cards(self) -> list[dict[str, JSON]]:
        """The pool as JSON, one object per card, for the CLI, the API and card pages."""
        raise NotImplementedError

    def starter_decks(self) -> dict[str, Decklist]:
        raise NotImplementedError

    def validate_deck(self, decklist: Decklist, params: Mapping[str, JSON] | None = None) -> list[str]:
        """Every problem with a decklist whose names are canonical, in words, under the
        rules ``params`` make; an empty list: the deck may play them.

        ``params`` are a match's rules parameters as ``check_params`` takes them (names
        left out keep their defaults); None is the game's defaults. The deck-shaping
        parameters (the deck's size, copies of a card) are read from them, and a problem
        that only a non-default value causes names that parameter, so that a player knows
        it is the event's rule, not the game's. Raises ``ValueError`` (as ``check_params``)
        for bad parameters. Cheap: no game is set up."""
        raise NotImplementedError

    def parse_deck(self, text: str, *, name: str = "") -> Decklist:
        """Parse, resolve names and validate a plain-text decklist.

        Returns the canonical decklist or raises :class:`DeckError` with every problem."""
        decklist, problems = read_decklist(text, self.commander_label, name=name)
        decklist, unknown = resolve_card_names(decklist, self.card_names(), commander_label=self.commander_label)
        problems += unknown
        for problem in self.validate_deck(decklist):
            # An unknown name is already reported with its "did you mean" hint.
            if not any(p.startswith(problem) for p in problems):
                problems.append(problem)
        if problems:
            raise DeckError(problems)
        return decklist

    def action_from_json(self, data: Any) -> Action:
        return Action.from_json(data)

    def __repr__(self) -> str:
        return f"<Game {self.name} v{self.rules_version}>"


class GameRegistry(Mapping[str, Game]):
    """``engine.games["tempofront"]``: games are imported on first use.

    The engine's own games are named by module; a game defined elsewhere (a package of
    its own, the tests' Highcard) is added with :meth:`register`, in every process that
    plays it (a worker imports the module that registers it).
    """

    def __init__(self, modules: Mapping[str, str]):
        self._modules = dict(modules)
        self._loaded: dict[str, Game] = {}

    def register(self, game: Game) -> Game:
        """Add ``game`` under ``game.name``; ``ValueError`` if the name is taken or empty."""
        if not game.name or game.name in self._modules:
            raise ValueError(f"cannot register a game named {game.name!r}: "
                             f"{'the name is taken' if game.name else 'it has no name'}")
        self._modules[game.name] = ""
        self._loaded[game.name] = game
        return game

    def unregister(self, name: str) -> None:
        """Remove a game added by :meth:`register` (tests clean up with it)."""
        if self._modules.get(name) != "":
            raise ValueError(f"{name!r} is not a registered game of its own")
        del self._modules[name]
        self._loaded.pop(name, None)

    def choices(self) -> list[tuple[str, str]]:
        """``(name, title)`` of every game, in registration order: forms and models offer these."""
        return [(name, self[name].title or name) for name in self]

    def __getitem__(self, name: str) -> Game:
        if name not in self._loaded:
            if name not in self._modules:
                known = ", ".join(sorted(self._modules))
                raise KeyError(f"unknown game '{name}' (known: {known})")
            import importlib

            self._loaded[name] = importlib.import_module(self._modules[name]).GAME
        return self._loaded[name]

    def __iter__(self):
        return iter(self._modules)

    def __len__(self) -> int:
        return len(self._modules)


# --------------------------------------------------------------------------- replays


def state_digest(state: State) -> str:
    """A short fingerprint of the full state, for replay verification."""
    blob = json.dumps(state.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(blob.encode(), digest_size=6).hexdigest()


@dataclass
class Replay:
    """(game, rules version, seed, decks, params, actions): the whole match.

    ``actions`` holds ``[seat, action_json]`` pairs in the order applied. ``digests``
    (optional) holds the state fingerprint after each action, so that verification can
    say *where* a replay diverges. ``outcome`` is the outcome the match reached.
    """

    game: str
    rules_version: str
    seed: int
    decks: list[Decklist]
    params: dict[str, JSON]
    actions: list[tuple[int, Action]] = field(default_factory=list)
    outcome: Outcome | None = None
    digests: list[str] | None = None
    meta: dict[str, JSON] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSON]:
        out: dict[str, JSON] = {
            "format": 1,
            "game": self.game,
            "rules_version": self.rules_version,
            "seed": self.seed,
            "decks": [d.to_json() for d in self.decks],
            "params": self.params,
            "actions": [[seat, action.to_json()] for seat, action in self.actions],
            "outcome": self.outcome.to_json() if self.outcome else None,
        }
        if self.digests is not None:
            out["digests"] = self.digests
        if self.meta:
            out["meta"] = self.meta
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Replay:
        try:
            return cls(
                game=data["game"],
                rules_version=str(data["rules_version"]),
                seed=int(data["seed"]),
                decks=[Decklist.from_json(d) for d in data["decks"]],
                params=dict(data.get("params") or {}),
                actions=[(int(seat), Action.from_json(a)) for seat, a in data["actions"]],
                outcome=Outcome.from_json(data["outcome"]) if data.get("outcome") else None,
                digests=list(data["digests"]) if data.get("digests") is not None else None,
                meta=dict(data.get("meta") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a replay: {exc}") from None

    @classmethod
    def loads(cls, text: str) -> Replay:
        return cls.from_json(json.loads(text))


def replay_states(replay: Replay, registry: Mapping[str, Game] | None = None):
    """Yield ``(index, state, events)`` from the start (index -1, no events) to the end."""
    registry = registry if registry is not None else _default_registry()
    game = registry[replay.game]
    check_rules_version(replay, game)
    state = game.new_match(replay.decks, replay.seed, replay.params)
    yield -1, state, list(state.opening_events)
    for index, (seat, action) in enumerate(replay.actions):
        events = state.apply(seat, action)
        yield index, state, events


def check_rules_version(replay: Replay, game: Game) -> None:
    """Raise :class:`RulesVersionError` when ``replay`` was recorded under other rules."""
    if str(game.rules_version) != str(replay.rules_version):
        raise RulesVersionError(
            f"this replay was recorded under {game.title or game.name} rules version {replay.rules_version}; "
            f"the engine plays rules version {game.rules_version}, so it cannot replay it")


def verify_replay(replay: Replay, registry: Mapping[str, Game] | None = None) -> list[str]:
    """Replay the log and return every difference found (empty: the replay is exact).

    A replay of other rules versions gives one problem, the rules-version refusal."""
    registry = registry if registry is not None else _default_registry()
    problems: list[str] = []
    game = registry[replay.game]
    try:
        check_rules_version(replay, game)
    except RulesVersionError as exc:
        return [str(exc)]
    state = None
    applied = -1
    try:
        for applied, state, _ in replay_states(replay, registry):
            if applied >= 0 and replay.digests is not None:
                if applied >= len(replay.digests):
                    problems.append(f"no digest recorded for action {applied + 1}")
                    return problems
                got = state_digest(state)
                if got != replay.digests[applied]:
                    problems.append(f"state after action {applied + 1} differs ({got} != {replay.digests[applied]})")
                    return problems
    except IllegalAction as exc:
        problems.append(f"action {applied + 2} is illegal on replay: {exc}")
        return problems
    if state is not None:
        got = state.outcome
        if (got.to_json() if got else None) != (replay.outcome.to_json() if replay.outcome else None):
            problems.append(f"outcome differs: replayed {got.to_json() if got else None}, recorded "
                            f"{replay.outcome.to_json() if replay.outcome else None}")
    return problems


def _default_registry() -> Mapping[str, Game]:
    from engine import games  # cycle: engine (the registry) imports engine.core

    return games
