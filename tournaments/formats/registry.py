"""The Format contract: one object per tournament format, found by its stored key.

A format is one unit, its pairing and its scoring: it declares its settings and checks
them (:meth:`Format.validate`), says how many rounds a field plays (:meth:`Format.rounds_for`),
decides what the event does next from the results so far (:meth:`Format.next_pairings`),
draws its bracket if it has one, and says whether it takes late entries
(``takes_late_entries``), has a bracket (``has_bracket``) and ranks its field in standings
with tiebreakers (``uses_tiebreaks``). The ``tournaments`` app stores rows and asks the
format; it never branches on which format an event has.

Everything here is pure: a format sees an :class:`EventState` (entries as ``Player``
values, finished results as ``Result`` values, the event's settings) and answers with a
:class:`Step`. ``tournaments.plan`` builds the state from stored rows and the services
write what the step says, under the tournament's row lock.

Adding a format: subclass :class:`Format` in a module of its own and ``register`` an
instance under the key stored in ``Tournament.format`` (docs/architecture.md, "The Format
contract").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .standings import unresolved_ties
from .types import Pairing, Player, Result, Standing

#: Round stages (the values of ``Round.Stage``) and what they mean to the app. A group
#: stage's results feed the standings; a knockout stage's results are looked up by match
#: key, and a drawn knockout match is replayed (seats swapped, best of 1) until decided.
GROUP_STAGES = ("swiss", "pods", "round_robin")
KNOCKOUT_STAGES = ("elimination", "top_cut")

#: The event settings that belong to formats (model fields of ``Tournament``). Each format
#: lists in ``Format.settings`` the ones it reads; the others must keep their defaults.
SETTING_NAMES = ("rounds", "top_cut", "third_place", "players_per_game", "late_entry_rounds")
ROUNDS_MAX = 30
TOP_CUTS = (4, 8, 16)


@dataclass(frozen=True)
class PairSpec:
    """One table to write: ``entries`` in match order; ``walkover`` the entry that goes
    through because its opponent dropped; ``sit_out`` a round-robin rest (no result)."""

    entries: tuple[int, ...]
    key: str = ""
    walkover: int | None = None
    sit_out: bool = False


@dataclass
class Step:
    """What the event does next: ``kind`` is ``pair`` (``stage``, ``pairings``),
    ``tiebreak`` (``key``, ``purpose``, ``entries``), ``finish`` (``winner``) or ``wait``
    (``purpose`` says why). ``cut``, when set, is the top cut the step fixed (entry ids
    in seed order): the app stores it with the step."""

    kind: str
    stage: str = ""
    pairings: list[PairSpec] = field(default_factory=list)
    key: str = ""
    purpose: str = ""
    entries: list[int] = field(default_factory=list)
    winner: int | None = None
    cut: list[int] | None = None


class EventState(Protocol):
    """What a format may know of a running event. ``players``: every seeded entry in seed
    order, dropped ones marked; ``settings``: the values of ``SETTING_NAMES``;
    ``total_rounds``: the group rounds fixed at the start (:meth:`Format.rounds_for`);
    ``group_rounds_played``: group-stage rounds paired so far; ``cut_entries``: the top
    cut once fixed. The methods read results when asked: ``group_results`` (every decided
    group-stage table), ``standings`` (the group standings with every tiebreaker and the
    Match the Twos orders already decided), ``knockout_results`` (decided knockout tables
    by match key), ``paired_keys`` (knockout keys already paired, decided or not) and
    ``tiebreak_started(key)``."""

    players: Sequence[Player]
    settings: Mapping[str, Any]
    seed: int
    total_rounds: int
    group_rounds_played: int
    cut_entries: Sequence[int]

    def group_results(self) -> Sequence[Result]: ...

    def standings(self) -> Sequence[Standing]: ...

    def knockout_results(self) -> Mapping[str, Result]: ...

    def paired_keys(self) -> set[str]: ...

    def tiebreak_started(self, key: str) -> bool: ...


class Format:
    """A tournament format. Subclasses set the class attributes and implement
    :meth:`next_pairings` (and :meth:`rounds_for` when they play a fixed number of
    rounds); the settings checks are shared and tuned by the attributes.

    - ``key``: the value stored in ``Tournament.format``; ``label``: its name for people.
    - ``settings``: which of ``SETTING_NAMES`` it reads; the others must keep their
      defaults (``rounds`` and ``players_per_game`` are checked for every format).
    - ``fixed_rounds``: the group rounds are counted at the start (:meth:`rounds_for`);
      False for a bracket, which plays until one is left.
    - ``seats``: players per match it allows (``players_per_game``, 2 when not given).
    - ``takes_late_entries``: entries after the start, for ``late_entry_rounds`` rounds.
    - ``has_bracket``: the event is, or ends in, an elimination bracket (:meth:`bracket`).
    - ``uses_tiebreaks``: the field is ranked in standings with tiebreakers, and a tie for
      first place (or across a cut) is decided by Match the Twos.
    - ``max_entries``: the largest field it accepts (an entry limit is then required).
    """

    key: str = ""
    label: str = ""
    settings: tuple[str, ...] = ()
    fixed_rounds: bool = True
    seats: tuple[int, ...] = (2,)
    takes_late_entries: bool = False
    has_bracket: bool = False
    uses_tiebreaks: bool = False
    max_entries: int | None = None

    # ----------------------------------------------------------------- settings

    def validate(self, values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """Check the format settings in ``values`` (every setting of the event, so that a
        format may look at the others, e.g. the entry limit). Returns the cleaned values of
        ``SETTING_NAMES`` and the errors by field name ({} when all is well)."""
        errors: dict[str, list[str]] = {}
        clean: dict[str, Any] = {}
        rounds = values.get("rounds")
        clean["rounds"] = rounds
        if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int)
                                   or not 1 <= rounds <= ROUNDS_MAX):
            errors["rounds"] = [f"rounds must be a number from 1 to {ROUNDS_MAX}, or empty for the recommended "
                                f"number, not {rounds!r}"]
        top_cut = values.get("top_cut") or 0
        clean["top_cut"] = top_cut
        if top_cut not in (0, *TOP_CUTS):
            errors["top_cut"] = [f"top_cut must be 0, 4, 8 or 16, not {top_cut!r}"]
        elif "top_cut" in self.settings and not top_cut:
            errors["top_cut"] = [f"a {self.label} needs top_cut 4, 8 or 16"]
        elif "top_cut" not in self.settings and top_cut:
            errors["top_cut"] = [f"only the {_keys_reading('top_cut')} format has a top cut"]
        per_game = values.get("players_per_game") or 2
        clean["players_per_game"] = per_game
        if per_game not in self.seats:
            errors["players_per_game"] = [self.seats_error(per_game)]
        limit = values.get("entry_limit")
        if self.max_entries is not None and (limit is None or (isinstance(limit, int) and limit > self.max_entries)):
            errors.setdefault("entry_limit", []).append(
                f"a {self.label.lower()} is for small fields: set an entry limit of at most {self.max_entries}")
        late = values.get("late_entry_rounds") or 0
        clean["late_entry_rounds"] = late
        if isinstance(late, bool) or not isinstance(late, int) or late < 0:
            errors["late_entry_rounds"] = [f"late_entry_rounds must be 0 or more, not {late!r}"]
        elif late and not self.takes_late_entries:
            names = _and([f.label for f in all_formats() if f.takes_late_entries])
            errors["late_entry_rounds"] = [f"late entry is only possible in {names} events"]
        third = bool(values.get("third_place"))
        clean["third_place"] = third
        if third and "third_place" not in self.settings:
            names = _and([f.label for f in all_formats() if "third_place" in f.settings])
            errors["third_place"] = [f"a third-place match exists only in {names} events"]
        self.check(values, clean, errors)
        return clean, errors

    def check(self, values: Mapping[str, Any], clean: dict[str, Any], errors: dict[str, list[str]]) -> None:
        """Rules of this format beyond the shared ones: add to ``errors`` by field name."""

    def seats_error(self, per_game: Any) -> str:
        if self.seats == (2,):
            return f"the {self.key} format plays one-on-one matches: players_per_game must be 2"
        return f"the {self.key} format seats {_and([str(s) for s in self.seats], 'or')} players per game, " \
               f"not {per_game!r}"

    # ----------------------------------------------------------------- rounds and pairings

    def rounds_for(self, field_size: int, settings: Mapping[str, Any]) -> int:
        """The group rounds a field of ``field_size`` plays, fixed at the start (stored as
        ``total_rounds``); 0 for a format whose rounds are not counted in advance."""
        return 0

    def next_pairings(self, state: EventState) -> Step:
        """What the event does now that its current round is decided."""
        raise NotImplementedError

    def bracket(self, state: EventState):
        """The elimination bracket to draw (``formats.Bracket``), or None (none, or not
        known yet)."""
        return None

    def placings(self, state: EventState) -> dict[int, int]:
        """Final places by entry once the knockout part is decided ({} before, or when
        the format has none): by default, the bracket's."""
        bracket = self.bracket(state)
        if bracket is None:
            return {}
        results = state.knockout_results()
        if not bracket.done(results):
            return {}
        return bracket.placings(results)

    def rounds_text(self, settings: Mapping[str, Any], total_rounds: int) -> str:
        """The number of rounds for the event's page ("5", "recommended for the field",
        "until one is left"), with a top cut and a third-place match where set."""
        if self.fixed_rounds:
            text = str(total_rounds or settings.get("rounds") or "recommended for the field")
        else:
            text = "until one is left"
        if settings.get("top_cut"):
            text += f", then a top {settings['top_cut']} cut"
        if settings.get("third_place"):
            text += ", third-place match"
        return text

    def __repr__(self) -> str:
        return f"<Format {self.key}>"


# --------------------------------------------------------------------------- shared steps


class GroupFormat(Format):
    """A format that plays ``total_rounds`` rounds of one group stage, ranked in standings
    with tiebreakers; the leader after the last round wins (Match the Twos for a tie on
    first place). Subclasses set ``stage`` and implement :meth:`group_pairings`."""

    stage: str = ""
    uses_tiebreaks = True

    def group_pairings(self, state: EventState, round_number: int) -> list[PairSpec]:
        raise NotImplementedError

    def next_pairings(self, state: EventState) -> Step:
        if state.group_rounds_played < state.total_rounds:
            if sum(1 for p in state.players if not p.dropped) >= 2:
                return Step(kind="pair", stage=self.stage,
                            pairings=self.group_pairings(state, state.group_rounds_played + 1))
        return self.after_group(state)

    def after_group(self, state: EventState) -> Step:
        """What follows the last group round: by default the event finishes."""
        return finish_group(state)


def dropped_ids(state: EventState) -> set[int]:
    return {p.id for p in state.players if p.dropped}


def specs(pairings: Iterable[Pairing], dropped: set[int], *, sit_out: bool = False) -> list[PairSpec]:
    """Tables to write for ``pairings``: one player is a bye (or a rest with ``sit_out``);
    a table with a dropped entry is a walkover for the first entry still in."""
    out = []
    for p in pairings:
        entries = tuple(p.players)
        if len(entries) == 1:
            out.append(PairSpec(entries=entries, key=p.key, sit_out=sit_out))
            continue
        live = [e for e in entries if e not in dropped]
        if len(live) == len(entries):
            out.append(PairSpec(entries=entries, key=p.key))
        else:
            # A dropped entry is never paired again: its opponent goes through.
            out.append(PairSpec(entries=entries, key=p.key, walkover=live[0] if live else entries[0]))
    return out


def tiebreak_step(state: EventState, table: Sequence[Standing], line: int, key: str, purpose: str) -> Step | None:
    """A Match the Twos step for a tie across ``line``, unless one was already run for
    ``key`` (a tie Match the Twos left shared stays in seed order)."""
    if state.tiebreak_started(key):
        return None
    groups = unresolved_ties([st for st in table if not st.dropped], [line])
    if not groups:
        return None
    return Step(kind="tiebreak", key=key, purpose=purpose, entries=list(groups[0]))


def finish_group(state: EventState) -> Step:
    """Finish with the standings' leader (dropped entries only when nobody else is left),
    after Match the Twos for a tie on first place."""
    table = state.standings()
    live = [st for st in table if not st.dropped] or list(table)
    if not live:
        return Step(kind="finish", winner=None)
    step = tiebreak_step(state, table, 1, "first", "first place")
    if step is not None:
        return step
    return Step(kind="finish", winner=live[0].player)


def bracket_step(state: EventState, bracket, stage: str) -> Step:
    """Pair the bracket's ready matches not paired yet, wait for the ones playing, or
    finish with its champion."""
    if bracket is None:
        return Step(kind="finish", winner=None)
    results = state.knockout_results()
    if bracket.done(results):
        return Step(kind="finish", winner=bracket.champion(results))
    played = state.paired_keys()
    ready = [p for p in bracket.ready(results) if p.key not in played]
    if not ready:
        return Step(kind="wait", purpose="no bracket match is ready")
    return Step(kind="pair", stage=stage, pairings=specs(ready, dropped_ids(state)))


# --------------------------------------------------------------------------- the registry

_FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    """Make ``fmt`` the format of events whose ``format`` is ``fmt.key``. A key is
    registered once; :func:`unregister` takes it back (tests)."""
    if not fmt.key or not fmt.label:
        raise ValueError(f"a format needs a key and a label: {fmt!r}")
    if fmt.key in _FORMATS:
        raise ValueError(f"the format {fmt.key!r} is already registered")
    unknown = set(fmt.settings) - set(SETTING_NAMES)
    if unknown:
        raise ValueError(f"format {fmt.key!r} reads unknown settings {sorted(unknown)}")
    _FORMATS[fmt.key] = fmt
    return fmt


def unregister(key: str) -> None:
    _FORMATS.pop(key, None)


def get_format(key: str) -> Format:
    """The format registered under ``key``; ``KeyError`` naming the known ones if none."""
    try:
        return _FORMATS[key]
    except (KeyError, TypeError):
        raise KeyError(f"no format {key!r}; the formats are {', '.join(_FORMATS)}") from None


def find_format(key: Any) -> Format | None:
    return _FORMATS.get(key) if isinstance(key, str) else None


def all_formats() -> list[Format]:
    """Every registered format, in registration order."""
    return list(_FORMATS.values())


def _keys_reading(setting: str) -> str:
    return _and([f.key for f in all_formats() if setting in f.settings])


def _and(words: Sequence[str], last: str = "and") -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"
