"""The engine's event texts as the live board says them to one reader.

The engines write their events for every reader alike ("Seat 0 drew 2 cards"), and the
replays and their pinned texts keep those words. A live board speaks to one person: their
own seat is "you" (with the verb that goes with it: "You play", "You have"), every other
seat is its player's name ("bob plays"), the public counterpart of an event the reader
was already told in private ("You drew Ashen Drake, Militia Recruit", then "Seat 0 drew 2
cards") is left out, a Leader's Integrity below 0 is said as 0, and damage beyond a
unit's Vitality says that the unit is destroyed ("3 damage, destroyed", not "3 damage, 5/4").

Only the words change: which events a seat may see is still ``Event.visible_to``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from engine.core import Event

SEAT = re.compile(r"\bSeat (\d+)('s)?")
# A seat that starts the text or a clause is its subject: the word after it is its verb.
CLAUSE_START = (": ", "; ", ", ", "(")
YOURS = "\x00"  # marks, while a text is rewritten, where the reader became its subject
IRREGULAR = {"has": "have", "is": "are", "was": "were"}
SIBILANT = ("sses", "shes", "ches", "xes", "zes")
NEGATIVE_INTEGRITY = re.compile(r"-\d+( Integrity)")
DAMAGE = re.compile(r"(\d+) damage, (\d+)/(\d+)$")


def _second_person(verb: str) -> str:
    """"plays" -> "play", "passes" -> "pass", "has" -> "have"; a past tense stays."""
    lower = verb.lower()
    if lower in IRREGULAR:
        out = IRREGULAR[lower]
    elif lower.endswith(SIBILANT):
        out = lower[:-2]
    elif lower.endswith("s") and not lower.endswith("ss") and len(lower) > 2:
        out = lower[:-1]
    else:
        return verb
    return out.capitalize() if verb[0].isupper() else out


def personal(text: str, reader: int | None, names: Mapping[int, str]) -> str:
    """``text`` said to ``reader`` (a seat, or None for a spectator): see the module.
    Kept for the texts said lately (:func:`_said`): a board's opening view says every
    event of the game so far again, and every seat's view of a move says the same events."""
    return _said(text, reader, tuple(sorted(names.items())))


@lru_cache(maxsize=8192)
def _said(text: str, reader: int | None, names_items: tuple[tuple[int, str], ...]) -> str:
    names = dict(names_items)
    out: list[str] = []
    pos = 0
    for match in SEAT.finditer(text):
        seat, possessive = int(match.group(1)), bool(match.group(2))
        out.append(text[pos:match.start()])
        pos = match.end()
        before = text[:match.start()]
        start = match.start() == 0
        if seat != reader:
            out.append(f"{names.get(seat, f'Seat {seat}')}{chr(39) + 's' if possessive else ''}")
            continue
        if possessive:
            out.append("Your" if start else "your")
            continue
        out.append("You" if start else "you")
        if start or before.endswith(CLAUSE_START):
            # The reader is the subject: the verb agrees, "their" becomes "your".
            verb = re.match(r" ([A-Za-z]+)", text[pos:])
            if verb and verb.group(1) not in ("and", "place"):
                out.append(f" {_second_person(verb.group(1))}{YOURS}")
                pos += verb.end()
    out.append(text[pos:])
    # After "you" as a subject, the first "their" (or "its") of the clause is "your".
    said = re.sub(YOURS + r"([^;:" + YOURS + r"]*?)\b(?:their|its)\b", r"\1your", "".join(out))
    said = NEGATIVE_INTEGRITY.sub(r"0\1", said.replace(YOURS, ""))
    return DAMAGE.sub(_damage_words, said)


def _damage_words(match: re.Match) -> str:
    amount, damage, vitality = (int(x) for x in match.groups())
    if damage >= vitality:
        return f"{amount} damage, destroyed"
    return f"{amount} damage, {vitality - damage} Vitality left"


def events_for(events: Iterable[Event], reader: int | None, names: Mapping[int, str]) -> list[dict[str, Any]]:
    """The events ``reader`` may see, as ``{"kind", "text"}`` in their words, without the
    public counterparts of what they were told in private."""
    told: list[Event] = []
    out = []
    names_items = tuple(sorted(names.items()))
    for event in events:
        if not event.visible_to(reader):
            continue
        if reader is not None and event.private_to == reader:
            told.append(event)
        elif reader is not None and event.private_to is None and _seat_of(event) == reader:
            twin = next((e for e in told if e.kind == event.kind and _seat_of(e) == reader), None)
            if twin is not None:
                told.remove(twin)
                continue
        out.append({"kind": event.kind, "text": _said(event.text, reader, names_items)})
    return out


def _seat_of(event: Event) -> int | None:
    seat = (event.data or {}).get("seat")
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def final_board(events: Sequence[Event] | Iterable[Event]) -> list[dict[str, Any]] | None:
    """The public board of the last event that carries one (``data["board"]``: a game that
    clears its board at the end says what stood there), else None."""
    board = None
    for event in events:
        found = (event.data or {}).get("board")
        if found is not None:
            board = found
    return board
