"""Reads of the metagame: a game's figures for a period and a set of sources, summed from
the aggregate tables (``meta.models``) in a few grouped queries; never a replay.

- :func:`meta_filter` checks the period and sources a page or the API was asked for
  (``ValidationError`` naming the bad one).
- :func:`top_decks`, :func:`matchup_matrix`, :func:`card_figures`, :func:`pilot_figures`:
  the figures, each with the number of matches (or entry-games) behind it.

The sums are kept in the shared cache under the tick's generation (:meth:`MetaFilter.cached`):
a page after a tick that counted something sums again; any other reads them from the cache.
The figures are the same for every visitor: a deck hidden by an event's unpublished
decklists (``decks.permissions.DeckVisibility`` of an anonymous visitor) is neither named
nor counted among "decks that include it", and an archived deck is not named.
"""

from __future__ import annotations

import functools
import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db.models import Sum
from django.utils import timezone

from decks.cards.selectors import card_pool
from decks.models import Deck
from decks.permissions import deck_visibility
from meta import conf
from meta.models import MetaCard, MetaEntry, MetaMatchup, MetaVersion, MetaWatermark, Source

#: The periods a page offers: days back from today (today included); None: everything.
PERIODS: dict[str, int | None] = {"7": 7, "30": 30, "all": None}
PERIOD_LABELS = {"7": "7 days", "30": "30 days", "all": "All time"}
DEFAULT_PERIOD = "7"
#: Decks in the matchup matrix.
MATRIX_DECKS = 12
#: A cell (or a figure) behind fewer matches than this is shown greyed: too few to read.
MIN_MATCHES = 10


@dataclass(frozen=True)
class MetaFilter:
    game: str
    period: str
    sources: tuple[str, ...]
    today: date

    @functools.cached_property
    def hidden(self) -> frozenset[int]:
        """Decks no anonymous visitor may see now (read once per filter: one query)."""
        return frozenset(deck_visibility(None).hidden_ids())

    @property
    def since(self) -> date | None:
        days = PERIODS[self.period]
        return None if days is None else self.today - timedelta(days=days - 1)

    @functools.cached_property
    def generation(self) -> str:
        """Every source's tick version and watermark: changes whenever a figure does."""
        return "|".join(f"{source}:{version}:{finished.timestamp() if finished else ''}" for source, version, finished
                        in MetaWatermark.objects.order_by("source").values_list("source", "version", "finished"))

    def cached(self, part: str, compute):
        """``compute()``'s sums, kept in the shared cache under this filter and the tick's
        generation (``meta.conf.cache_seconds``). Only sums are kept: which decks may be
        named is decided at every request."""
        seconds = conf.cache_seconds()
        if not seconds:
            return compute()
        key = (f"meta:{self.game}:{self.period}:{'+'.join(self.sources)}:{self.today.isoformat()}:"
               f"{hashlib.blake2b(self.generation.encode(), digest_size=12).hexdigest()}:{part}")
        value = cache.get(key)
        if value is None:
            value = compute()
            cache.set(key, value, seconds)
        return value

    def rows(self, model):
        rows = model.objects.filter(game=self.game, source__in=self.sources)
        return rows if self.since is None else rows.filter(day__gte=self.since)


def meta_filter(*, game: str, period: str | None, sources: Sequence[str], now: datetime | None = None) -> MetaFilter:
    """The checked filter: ``period`` one of ``PERIODS`` (default 7 days), ``sources`` any of
    the sources (each item may list several, comma-separated; none: all). Raises
    ``ValidationError`` with a message per bad field."""
    errors: dict[str, list[str]] = {}
    period = period or DEFAULT_PERIOD
    if period not in PERIODS:
        errors["period"] = [f"unknown period '{period[:40]}'; choose one of: {', '.join(PERIODS)}"]
    chosen: list[str] = []
    for item in sources:
        for name in (part.strip() for part in str(item).split(",")):
            if not name:
                continue
            if name not in Source.values:
                errors["source"] = [f"unknown source '{name[:40]}'; choose any of: {', '.join(Source.values)}"]
            elif name not in chosen:
                chosen.append(name)
    if errors:
        raise ValidationError(errors)
    return MetaFilter(game=game, period=period, sources=tuple(chosen or Source.values),
                      today=(now or timezone.now()).date())


def win_rate(wins: int, draws: int, matches: int) -> float | None:
    """Wins plus half the draws, over the matches; None without a match."""
    return (wins + draws / 2) / matches if matches else None


@dataclass(frozen=True)
class DeckFigure:
    deck_id: int
    name: str
    owner: str
    matches: int
    wins: int
    draws: int
    losses: int

    @property
    def win_rate(self) -> float | None:
        return win_rate(self.wins, self.draws, self.matches)


@dataclass(frozen=True)
class Cell:
    """The row deck's results against the column deck."""

    matches: int
    wins: int
    draws: int
    losses: int

    @property
    def win_rate(self) -> float | None:
        return win_rate(self.wins, self.draws, self.matches)

    @property
    def thin(self) -> bool:
        return self.matches < MIN_MATCHES


@dataclass(frozen=True)
class Matrix:
    decks: list[DeckFigure]
    #: ``cells[i][j]``: deck i against deck j; None on the diagonal (a deck against itself).
    cells: list[list[Cell | None]]


@dataclass(frozen=True)
class CardFigure:
    id: str
    name: str
    type: str
    type_title: str
    is_commander: bool
    decks: int
    games: int
    wins: int
    draws: int
    drawn: int
    drawn_wins: int
    drawn_draws: int
    played: int
    played_wins: int
    played_draws: int

    @property
    def play_rate(self) -> float | None:
        """Share of the entry-games of decks that include the card in which it was played."""
        return self.played / self.games if self.games else None

    @property
    def played_win_rate(self) -> float | None:
        return win_rate(self.played_wins, self.played_draws, self.played)

    @property
    def drawn_win_rate(self) -> float | None:
        return win_rate(self.drawn_wins, self.drawn_draws, self.drawn)

    @property
    def undrawn_win_rate(self) -> float | None:
        return win_rate(self.wins - self.drawn_wins, self.draws - self.drawn_draws, self.games - self.drawn)

    @property
    def improvement(self) -> float | None:
        """Win rate when drawn minus win rate when included but not drawn."""
        drawn, undrawn = self.drawn_win_rate, self.undrawn_win_rate
        return None if drawn is None or undrawn is None else drawn - undrawn


@dataclass(frozen=True)
class PilotFigure:
    pilot: str
    matches: int
    wins: int
    draws: int
    losses: int

    @property
    def win_rate(self) -> float | None:
        return win_rate(self.wins, self.draws, self.matches)


@dataclass(frozen=True)
class DeckPilots:
    deck: DeckFigure
    pilots: list[PilotFigure]


_SUMS = {"matches": Sum("matches"), "wins": Sum("wins"), "draws": Sum("draws"), "losses": Sum("losses")}


def _named(f: MetaFilter, deck_ids) -> dict[int, tuple[str, str]]:
    """``deck id -> (name, owner)`` of the decks that may be named: not hidden, not archived."""
    deck_ids = list(deck_ids)
    hidden = f.hidden
    return {pk: (name, owner) for pk, name, owner in
            Deck.objects.filter(pk__in=[d for d in deck_ids if d not in hidden], archived=False)
            .values_list("pk", "name", "owner__username")}


def top_decks(f: MetaFilter, *, limit: int | None = None) -> list[DeckFigure]:
    """The decks that may be named, most played first (then by id), with their totals."""
    totals = f.cached("decks", lambda: list(
        f.rows(MetaEntry).values("deck_id").annotate(**_SUMS).order_by("-matches", "deck_id")))
    names = _named(f, (row["deck_id"] for row in totals))
    out = []
    for row in totals:
        if row["deck_id"] in names:
            name, owner = names[row["deck_id"]]
            out.append(DeckFigure(row["deck_id"], name, owner, row["matches"], row["wins"], row["draws"],
                                  row["losses"]))
            if limit is not None and len(out) >= limit:
                break
    return out


def matchup_matrix(f: MetaFilter, *, size: int = MATRIX_DECKS) -> Matrix:
    """The matrix of the ``size`` most played decks: each cell the row deck against the
    column deck (a cell with no match is a Cell of zeros)."""
    decks = top_decks(f, limit=size)
    ids = [d.deck_id for d in decks]
    found = f.cached("matchups:" + ",".join(map(str, ids)), lambda: {
        (r["deck_id"], r["opponent_id"]): r for r in f.rows(MetaMatchup).filter(deck_id__in=ids, opponent_id__in=ids)
        .values("deck_id", "opponent_id").annotate(wins=Sum("wins"), draws=Sum("draws"), losses=Sum("losses"))})
    cells: list[list[Cell | None]] = []
    for row in ids:
        line: list[Cell | None] = []
        for column in ids:
            if row == column:
                line.append(None)
                continue
            r = found.get((row, column))
            w, d, lo = (r["wins"], r["draws"], r["losses"]) if r else (0, 0, 0)
            line.append(Cell(w + d + lo, w, d, lo))
        cells.append(line)
    return Matrix(decks=decks, cells=cells)


def card_figures(f: MetaFilter, *, card_type: str | None = None) -> list[CardFigure]:
    """Every card of the game's pool (of ``card_type`` if given), in the pool's order,
    with its figures (zeros for a card no deck of the period included)."""
    sums, versions, version_cards = f.cached("cards", lambda: _card_sums(f))
    hidden = f.hidden
    decks_with = defaultdict(set)
    for version, cards in version_cards:
        for card in cards:
            decks_with[card] |= versions[version] - hidden
    out = []
    for face in card_pool(f.game):
        if card_type and face.type != card_type:
            continue
        r = sums.get(face.id) or {}
        out.append(CardFigure(
            id=face.id, name=face.name, type=face.type, type_title=face.type_title, is_commander=face.is_commander,
            decks=len(decks_with.get(face.id, ())),
            **{name: int(r.get(name) or 0) for name in ("games", "wins", "draws", "drawn", "drawn_wins",
                                                        "drawn_draws", "played", "played_wins", "played_draws")}))
    return out


def _card_sums(f: MetaFilter):
    """The card rows summed, each version of the period with its deck, and each version's cards."""
    sums = {r["card"]: r for r in f.rows(MetaCard).values("card").annotate(
        **{name: Sum(name) for name in ("games", "wins", "draws", "drawn", "drawn_wins", "drawn_draws", "played",
                                         "played_wins", "played_draws")})}
    versions = defaultdict(set)
    for version, deck in f.rows(MetaEntry).values_list("deck_version_id", "deck_id").distinct():
        versions[version].add(deck)
    version_cards = list(MetaVersion.objects.filter(deck_version_id__in=list(versions)).values_list(
        "deck_version_id", "cards"))
    return sums, dict(versions), version_cards


def card_types(game: str) -> list[tuple[str, str]]:
    """``(type, title)`` of the game's card types, in the pool's order."""
    seen: dict[str, str] = {}
    for face in card_pool(game):
        seen.setdefault(face.type, face.type_title)
    return list(seen.items())


def pilot_figures(f: MetaFilter) -> list[DeckPilots]:
    """"Deck or pilot?": each deck that may be named and was played by more than one
    pilot, most played first, with its results under each pilot (most played first)."""
    by_deck = defaultdict(list)
    for r in f.cached("pilots", lambda: list(
            f.rows(MetaEntry).values("deck_id", "pilot").annotate(**_SUMS).order_by("deck_id", "-matches", "pilot"))):
        by_deck[r["deck_id"]].append(PilotFigure(r["pilot"], r["matches"], r["wins"], r["draws"], r["losses"]))
    several = {deck: pilots for deck, pilots in by_deck.items() if len(pilots) > 1}
    if not several:
        return []
    names = _named(f, several)
    out = []
    for deck, pilots in several.items():
        if deck not in names:
            continue
        total = [sum(getattr(p, k) for p in pilots) for k in ("matches", "wins", "draws", "losses")]
        out.append(DeckPilots(DeckFigure(deck, *names[deck], *total), pilots))
    out.sort(key=lambda d: (-d.deck.matches, d.deck.deck_id))
    return out
