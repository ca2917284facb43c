"""Where the metagame's results come from: each source's finished results, read in batches
as :class:`Result` values the tick folds into the aggregate tables.

- ``ladder``: finished ladder matches that the ladder rates (``ladder.services.participants``:
  not forfeited, at least two different decks).
- ``tournament``: finished matches of an event (bot events' tournament matches, and the
  live matches of events played by people), except those decided by a no-show.
- ``lab``: the deck lab's games (``lab.LabMatch``), when the lab app's models exist.

A result's entries are in entry order; ``places`` ranks them (1 first, equal places tie).
A match's games carry their replays, whose card usage the tick computes once; a lab game
carries the usage it recorded.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from django.apps import apps
from django.db.models import Exists, OuterRef, Q

from decks.cards.selectors import card_pool
from engine.core import CardUsage
from ladder.services import SeatRow, participants
from matches.models import Match, MatchGame, MatchSeat
from meta.models import Source
from tournaments.models import Pairing


@dataclass(frozen=True)
class Entry:
    deck_id: int
    deck_version_id: int
    pilot: str


@dataclass
class GameResult:
    """One game: places by entry, and either its compressed replay with the seat order
    (engine seat -> entry) or the usage by entry already known."""

    places: list[int]
    seat_order: list[int] | None = None
    replay: bytes | None = None
    usage: list[CardUsage] | None = None


@dataclass
class Result:
    source: str
    ref: int
    game: str
    finished: datetime
    entries: list[Entry]
    places: list[int]
    games: list[GameResult] = field(default_factory=list)

    @property
    def day(self) -> date:
        return self.finished.date()

    @property
    def deck_ids(self) -> set[int]:
        return {e.deck_id for e in self.entries}


def source_matches(source: str):
    """The matches of a match source (any status)."""
    if source == Source.LADDER:
        return Match.objects.filter(kind=Match.Kind.LADDER)
    played_live = Exists(Pairing.objects.filter(match=OuterRef("pk")))
    return Match.objects.filter(Q(kind=Match.Kind.TOURNAMENT) | (Q(kind=Match.Kind.LIVE) & played_live))


def lab_model():
    """``lab.LabMatch``, or None while the lab app has no such model."""
    try:
        return apps.get_model("lab", "LabMatch")
    except LookupError:
        return None


def available_sources() -> list[str]:
    """The sources this installation records: the lab only once its models exist."""
    return [s for s in Source.values if s != Source.LAB or lab_model() is not None]


# --------------------------------------------------------------------------- matches


def _matches(source: str, refs: Sequence[int]) -> list[Result]:
    """The results of the finished matches ``refs`` of a match source (those it counts)."""
    matches = list(Match.objects.filter(pk__in=refs, status=Match.Status.DONE)
                   .only("id", "game", "kind", "status", "finished", "result"))
    if not matches:
        return []
    seats: dict[int, list[SeatRow]] = defaultdict(list)
    for row in MatchSeat.objects.filter(match_id__in=[m.pk for m in matches]).values_list(
            "match_id", "seat", "pilot", "deck_version_id", "deck_version__deck_id", "deck_version__deck__owner_id"):
        seats[row[0]].append(SeatRow(*row[1:]))
    games: dict[int, list[GameResult]] = defaultdict(list)
    for match_id, outcome, order, replay in MatchGame.objects.filter(match_id__in=[m.pk for m in matches]).order_by(
            "match_id", "number").values_list("match_id", "outcome", "seat_order", "replay"):
        if (outcome.get("detail") or {}).get("forfeited"):
            continue  # a no-show's game: nothing was drawn or played
        games[match_id].append(GameResult(places=list(outcome.get("entry_places") or []), seat_order=list(order),
                                          replay=bytes(replay)))
    out = []
    for match in matches:
        rows = sorted(seats[match.pk], key=lambda s: s.seat)
        result = match.result or {}
        if not rows or len(result.get("places") or ()) != len(rows) or result.get("forfeited"):
            continue
        if source == Source.LADDER and not participants(match, rows):
            continue  # not rated: the ladder's own rule
        out.append(Result(source=source, ref=match.pk, game=match.game, finished=match.finished,
                          entries=[Entry(s.deck_id, s.deck_version_id, s.pilot) for s in rows],
                          places=[int(p) for p in result["places"]], games=games[match.pk]))
    return out


def _match_candidates(source: str, since: datetime | None, seen, limit: int) -> list[tuple[int, datetime]]:
    rows = source_matches(source).filter(status=Match.Status.DONE, finished__isnull=False)
    if since is not None:
        rows = rows.filter(finished__gte=since)
    return list(rows.exclude(pk__in=seen).order_by("finished", "id").values_list("id", "finished")[:limit])


# --------------------------------------------------------------------------- lab

_LAB_PLACES = {"win": [1, 2], "loss": [2, 1], "draw": [1, 1]}


def _card_ids(game: str) -> dict[str, str]:
    """Card name (case-folded) or id -> id, for a game's pool."""
    ids = {}
    for face in card_pool(game):
        ids[face.name.casefold()] = ids[face.id.casefold()] = face.id
    return ids


def _lab_usage(side, ids: dict[str, str]) -> CardUsage:
    """A lab side's usage: ``{"drawn": [...], "played": [...]}``, cards by name (each once
    a game), or counts by card as ``CardUsage.to_json`` writes them."""
    side = side or {}

    def counts(cards) -> Counter:
        if isinstance(cards, dict):
            cards = [card for card, n in cards.items() if n]
        return Counter({ids[str(c).casefold()]: 1 for c in cards or () if str(c).casefold() in ids})

    return CardUsage(drawn=counts(side.get("drawn")), played=counts(side.get("played")))


def _lab(refs: Sequence[int]) -> list[Result]:
    LabMatch = lab_model()
    if LabMatch is None:
        return []
    out = []
    for row in LabMatch.objects.filter(pk__in=refs).select_related("run", "deck_version", "opponent_version"):
        places = _LAB_PLACES.get(row.outcome)
        if places is None:
            continue
        usage = row.usage or {}
        ids = _card_ids(row.run.game)
        out.append(Result(
            source=Source.LAB, ref=row.pk, game=row.run.game, finished=row.created,
            entries=[Entry(row.deck_version.deck_id, row.deck_version_id, row.pilot),
                     Entry(row.opponent_version.deck_id, row.opponent_version_id, row.opponent_pilot)],
            places=places,
            games=[GameResult(places=places, usage=[_lab_usage(usage.get("deck"), ids),
                                                    _lab_usage(usage.get("opponent"), ids)])]))
    return out


def _lab_candidates(since: datetime | None, seen, limit: int) -> list[tuple[int, datetime]]:
    LabMatch = lab_model()
    if LabMatch is None:
        return []
    rows = LabMatch.objects.all()
    if since is not None:
        rows = rows.filter(created__gte=since)
    return list(rows.exclude(pk__in=seen).order_by("created", "id").values_list("id", "created")[:limit])


# --------------------------------------------------------------------------- one door


def candidates(source: str, *, since: datetime | None, seen, limit: int) -> list[tuple[int, datetime]]:
    """``(ref, finished)`` of up to ``limit`` results of ``source`` finished at or after
    ``since`` whose ref is not in ``seen`` (a queryset of refs), oldest first."""
    if source == Source.LAB:
        return _lab_candidates(since, seen, limit)
    return _match_candidates(source, since, seen, limit)


def results(source: str, refs: Iterable[int]) -> list[Result]:
    """The results ``refs`` of ``source`` that it counts, with their games."""
    refs = list(refs)
    if not refs:
        return []
    return _lab(refs) if source == Source.LAB else _matches(source, refs)


__all__ = ["Entry", "GameResult", "Result", "available_sources", "candidates", "lab_model", "results"]
