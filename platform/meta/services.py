"""Writes of the metagame: the tick that folds newly recorded results into the aggregate
tables (``meta.models``).

:func:`meta_tick` (beat's ``meta.tick``, ``manage.py meta_tick``) reads each source from its
watermark in batches, computes each game's card usage once (``Game.card_usage`` from the
replay; a lab game brings its own), and adds the batch's counts to the rows keyed by
(game, day, source, ...). It is idempotent and safe to run twice at once: a source's
batch is written in one transaction under the lock of that source's
:class:`~meta.models.MetaWatermark` row, and each result is marked in
:class:`~meta.models.MetaSeen` in the same transaction, so it is counted exactly once.

Hidden information: a result in which a deck hidden by an event's unpublished decklists
(``decks.selectors.withheld_decks``) took part is *deferred*, not counted, and counted by
the first tick after the last such event publishes (a tournament's own matches among
them). Nothing here names a game: cards come from the game's pool and usage.

What a figure counts (docs/lab.md, "The metagame"):

- an entry's match result is a win when it alone placed first, a draw when it shared
  first place, else a loss;
- a matchup is each pair of entries of different decks in one match: the row deck wins
  when it placed ahead of the column deck, draws when they placed equal (a 4-seat match
  gives 12 ordered cells);
- a card is counted per entry-game: a game of a deck version whose list includes it; it
  was drawn or played in that game as the game's ``card_usage`` says.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from decks.cards.selectors import card_pool
from decks.models import DeckVersion
from decks.selectors import withheld_decks
from engine import games as engine_games
from engine.core import CardUsage, Replay
from matches.models import MatchGame
from meta import queries, sources
from meta.models import MetaCard, MetaEntry, MetaMatchup, MetaSeen, MetaVersion, MetaWatermark, Source

logger = logging.getLogger(__name__)

#: Results finished this long before a source's watermark are read again (and skipped
#: when seen): a match's finish time is set inside the transaction that records it, so one
#: committed a little later than a newer one is not missed.
OVERLAP = timedelta(minutes=10)
#: Results read and written per transaction.
BATCH = 1000


# --------------------------------------------------------------------------- outcomes


def outcome_of(places: list[int], entry: int) -> str:
    """``win`` (alone in first place), ``draw`` (first place shared) or ``loss``."""
    if places[entry] != 1:
        return "loss"
    return "draw" if places.count(1) > 1 else "win"


def pair_outcome(places: list[int], row: int, column: int) -> str:
    """The row entry against the column entry: ahead is a win, equal a draw."""
    if places[row] == places[column]:
        return "draw"
    return "win" if places[row] < places[column] else "loss"


_INDEX = {"win": 0, "draw": 1, "loss": 2}


# --------------------------------------------------------------------------- the fold


def version_cards(versions: Iterable[int]) -> dict[int, frozenset[str]]:
    """The card ids of each deck version (commander included), stored once in
    :class:`MetaVersion` and read from there afterwards."""
    wanted = set(versions)
    known = {v: frozenset(cards) for v, cards in
             MetaVersion.objects.filter(deck_version_id__in=wanted).values_list("deck_version_id", "cards")}
    missing = wanted - set(known)
    if missing:
        rows = []
        for version in DeckVersion.objects.filter(pk__in=missing).select_related("deck"):
            ids = {face.name.casefold(): face.id for face in card_pool(version.deck.game)}
            decklist = version.to_engine()
            names = [decklist.commander] + [name for name, _ in decklist.cards]
            cards = sorted({ids[n.casefold()] for n in names if n and n.casefold() in ids})
            known[version.pk] = frozenset(cards)
            rows.append(MetaVersion(deck_version_id=version.pk, deck_id=version.deck_id, game=version.deck.game,
                                    cards=cards))
        MetaVersion.objects.bulk_create(rows, ignore_conflicts=True)
    return known


class UsageReader:
    """Each game's usage by entry, computed once from its replay. Replays with the same
    bytes are one game recorded twice (a replay is its seed, decks and actions), so their
    usage is computed once per tick."""

    def __init__(self):
        self._memo: dict[bytes, list[CardUsage] | None] = {}

    def usage(self, game_name: str, played: sources.GameResult) -> list[CardUsage] | None:
        if played.usage is not None:
            return played.usage
        if played.replay is None or played.seat_order is None:
            return None
        key = hashlib.blake2b(played.replay, digest_size=16).digest()
        if key not in self._memo:
            self._memo[key] = self._compute(game_name, played.replay)
        by_seat = self._memo[key]
        if by_seat is None or len(by_seat) != len(played.seat_order):
            return None
        by_entry: list[CardUsage] = [CardUsage()] * len(played.seat_order)
        for seat, entry in enumerate(played.seat_order):
            by_entry[entry] = by_seat[seat]
        return by_entry

    @staticmethod
    def _compute(game_name: str, blob: bytes) -> list[CardUsage] | None:
        game = engine_games[game_name] if game_name in engine_games else None
        if game is None or not game.reports_card_usage:
            return None
        try:
            replay: Replay = MatchGame(replay=blob).load_replay()
            return game.card_usage(replay)
        except (ValueError, NotImplementedError) as exc:
            logger.warning("meta: no card usage for a %s replay: %s", game_name, exc)
            return None


@dataclass
class Fold:
    """A batch's counts, keyed as the tables are, before they are added to the rows."""

    entries: dict[tuple, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0, 0]))
    matchups: dict[tuple, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    cards: dict[tuple, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0] * 9))

    def add(self, result: sources.Result, cards_of: dict[int, frozenset[str]], usage: UsageReader) -> None:
        base = (result.game, result.day, result.source)
        places = result.places
        for i, entry in enumerate(result.entries):
            row = self.entries[base + (entry.deck_id, entry.deck_version_id, entry.pilot)]
            row[0] += 1
            row[1 + _INDEX[outcome_of(places, i)]] += 1
            for j, other in enumerate(result.entries):
                if j != i and other.deck_id != entry.deck_id:
                    self.matchups[base + (entry.deck_id, other.deck_id)][_INDEX[pair_outcome(places, i, j)]] += 1
        for played in result.games:
            if len(played.places) != len(result.entries):
                continue
            by_entry = usage.usage(result.game, played)
            if by_entry is None:
                continue
            for i, entry in enumerate(result.entries):
                outcome = outcome_of(played.places, i)
                win, draw = int(outcome == "win"), int(outcome == "draw")
                drawn, used = by_entry[i].drawn_cards, by_entry[i].played_cards
                for card in cards_of.get(entry.deck_version_id, ()):
                    row = self.cards[base + (card,)]
                    row[0] += 1
                    row[1] += win
                    row[2] += draw
                    if card in drawn:
                        row[3] += 1
                        row[4] += win
                        row[5] += draw
                    if card in used:
                        row[6] += 1
                        row[7] += win
                        row[8] += draw


_ENTRY_FIELDS = ("matches", "wins", "draws", "losses")
_MATCHUP_FIELDS = ("wins", "draws", "losses")
_CARD_FIELDS = ("games", "wins", "draws", "drawn", "drawn_wins", "drawn_draws", "played", "played_wins",
                "played_draws")


def _write(fold: Fold) -> None:
    """Add the batch's counts to the rows (under the source's lock; every key holds its
    source, so no other writer touches the same rows)."""
    queries.add_counts(MetaEntry, ("game", "day", "source", "deck_id", "deck_version_id", "pilot"), _ENTRY_FIELDS,
                       fold.entries)
    queries.add_counts(MetaMatchup, ("game", "day", "source", "deck_id", "opponent_id"), _MATCHUP_FIELDS, fold.matchups)
    queries.add_counts(MetaCard, ("game", "day", "source", "card"), _CARD_FIELDS, fold.cards)


# --------------------------------------------------------------------------- the tick


@dataclass
class TickReport:
    """What one tick did, by source (sources with nothing to report are left out)."""

    counted: dict[str, int] = field(default_factory=dict)
    deferred: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def add(counts: dict[str, int], source: str, n: int) -> None:
        if n:
            counts[source] = counts.get(source, 0) + n

    def to_json(self) -> dict:
        return {"counted": dict(self.counted), "deferred": dict(self.deferred)}


def _hidden_decks(now: datetime) -> set[int]:
    """Decks no anonymous visitor may see now: entered in an event whose lists are unpublished."""
    return {row["deck"] for row in withheld_decks(now=now)}


def _batch(source: str, refs: list[int], hidden: set[int], usage: UsageReader,
           report: TickReport, *, recheck: bool) -> int:
    """Count or defer the results ``refs`` (read and written under the source's lock);
    returns how many it counted."""
    found = sources.results(source, refs)
    counted = [r for r in found if not (r.deck_ids & hidden)]
    deferred = {r.ref for r in found} - {r.ref for r in counted}
    fold = Fold()
    cards_of = version_cards({e.deck_version_id for r in counted for e in r.entries})
    for result in counted:
        fold.add(result, cards_of, usage)
    _write(fold)
    counted_refs = [r.ref for r in counted]
    if recheck:
        MetaSeen.objects.filter(source=source, ref__in=counted_refs).update(state=MetaSeen.State.COUNTED)
        # A deferred result no longer counted by its source (a match failed afterwards) is dropped.
        gone = set(refs) - {r.ref for r in found}
        MetaSeen.objects.filter(source=source, ref__in=gone, state=MetaSeen.State.DEFERRED).delete()
    else:
        # Every ref read is seen: those the source does not count are marked counted (as nothing).
        skipped = set(refs) - {r.ref for r in found}
        MetaSeen.objects.bulk_create(
            [MetaSeen(source=source, ref=ref, state=MetaSeen.State.COUNTED) for ref in [*counted_refs, *skipped]]
            + [MetaSeen(source=source, ref=ref, state=MetaSeen.State.DEFERRED) for ref in deferred],
            batch_size=1000)
        report.add(report.deferred, source, len(deferred))
    report.add(report.counted, source, len(counted))
    return len(counted)


def meta_tick(*, batch: int = BATCH, now: datetime | None = None) -> TickReport:
    """Fold every result recorded since the last tick into the aggregates; count the
    deferred results whose decks are all visible now. Returns what it counted and deferred.

    Locks: each batch runs in its own transaction holding the source's
    :class:`MetaWatermark` row (``select_for_update``), so two ticks of one source take
    turns, and the second skips what the first marked seen."""
    report = TickReport()
    usage = UsageReader()
    for source in sources.available_sources():
        MetaWatermark.objects.get_or_create(source=source)
        hidden = _hidden_decks(now or timezone.now())
        with transaction.atomic():
            MetaWatermark.objects.select_for_update().get(source=source)
            waiting = list(MetaSeen.objects.filter(source=source, state=MetaSeen.State.DEFERRED)
                           .values_list("ref", flat=True))
            if waiting and _batch(source, waiting, hidden, usage, report, recheck=True):
                MetaWatermark.objects.filter(source=source).update(version=F("version") + 1)
        while True:
            with transaction.atomic():
                mark = MetaWatermark.objects.select_for_update().get(source=source)
                since = mark.finished - OVERLAP if mark.finished else None
                seen = MetaSeen.objects.filter(source=source).values("ref")
                if since is not None:
                    # Only refs of the window can be candidates; the anti-join stays small.
                    seen = seen.filter(ref__in=_window_refs(source, since))
                found = sources.candidates(source, since=since, seen=seen, limit=batch)
                if not found:
                    break
                refs = [ref for ref, _ in found]
                _batch(source, refs, hidden, usage, report, recheck=False)
                latest = max(when for _, when in found)
                mark.finished = latest if mark.finished is None else max(latest, mark.finished)
                mark.version += 1
                mark.save(update_fields=["finished", "version"])
            if len(found) < batch:
                break
    return report


def _window_refs(source: str, since: datetime):
    """The refs of ``source`` finished at or after ``since`` (a subquery)."""
    if source == Source.LAB:
        model = sources.lab_model()
        return model.objects.filter(created__gte=since).values("pk")
    return sources.source_matches(source).filter(finished__gte=since).values("pk")
