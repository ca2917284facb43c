"""Writes of the ladder: rating a finished match, rebuilding every rating, the pairing tick.

- :func:`rating_record_match` runs inside the transaction that records a match's result
  (``matches.signals.match_finished``). It locks the participants' rating rows in a fixed
  order (creating the missing ones first, also in a fixed order), rates the match with
  ``ladder.rating.rate`` and writes one :class:`RatingChange` per participant. Two workers
  finishing matches of the same deck at once are serialized on the deck's rating row, so
  neither update is lost, and the later one rates from the earlier one's result.
- :func:`ratings_rebuild` recomputes every rating from the recorded results in the order
  they were rated (``manage.py ladder_rebuild``).
- :func:`ladder_tick` (beat's ``ladder.tick``) pairs idle ladder decks into ladder matches.

Which matches are rated, and in which pool:

- ``kind == "live"``: the ``humans`` pool; each human-piloted seat (pilot ``human``) is
  its deck owner's rating; bot seats of a live match are not rated. A live match that is a
  ladder match (``Match.ladder``: an external bot's deck on the ladder, played live by the
  bot's program against a ladder deck's pilot) is rated as a ladder match, in the ``bots`` pool.
- every other kind (challenge, tournament, ladder): the ``bots`` pool; each seat is its
  deck's rating, whatever version played.
- A match is rated from ``result["places"]`` (by entry; equal places are ties). A match
  with fewer than two participants, or the same deck (or player) in two seats, is not
  rated. A match decided by forfeit (``result["forfeited"]``: a seat did not show up) is
  not rated: nothing was played. A match already rated is never rated twice.
"""

from __future__ import annotations

import json
import logging
import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Max, Min, Q
from django.utils import timezone

from decks.models import Deck
from ladder import conf, queries
from ladder import rating as model
from ladder.models import Pool, Rating, RatingChange, TickLock
from matches.models import Match, MatchSeat
from matches.services import match_challenge

logger = logging.getLogger(__name__)

#: Results kept in ``Rating.form`` and ordinals in ``Rating.recent`` (trend over the last 5 matches).
FORM_LENGTH = 10
TREND_WINDOW = 5
#: The pilot name of a seat played by a person (live matches).
HUMAN_PILOT = "human"


# --------------------------------------------------------------------------- who is rated


@dataclass(frozen=True)
class Participant:
    """One rated seat of a match: its entry, its place, and whose rating it moves."""

    entry: int
    place: int
    deck_id: int | None
    player_id: int | None
    deck_version_id: int | None

    @property
    def key(self) -> tuple[int | None, int | None]:
        return (self.deck_id, self.player_id)


def is_human(pilot: str) -> bool:
    return pilot.split(":", 1)[0] == HUMAN_PILOT


def pool_of(match: Match) -> str:
    return Pool.HUMANS if match.kind == Match.Kind.LIVE and not match.ladder else Pool.BOTS


#: The ladder's matches: those its tick made for workers, and those played live by external bots.
LADDER_MATCHES = Q(kind=Match.Kind.LADDER) | Q(kind=Match.Kind.LIVE, ladder=True)
IN_FLIGHT = (Match.Status.QUEUED, Match.Status.RUNNING)


@dataclass(frozen=True)
class SeatRow:
    """What rating a match needs of one seat (read in one query with the seat)."""

    seat: int
    pilot: str
    deck_version_id: int | None
    deck_id: int
    owner_id: int

    @classmethod
    def of(cls, seat: MatchSeat) -> SeatRow:
        """From a seat with ``deck_version__deck`` loaded."""
        return cls(seat.seat, seat.pilot, seat.deck_version_id, seat.deck_version.deck_id,
                   seat.deck_version.deck.owner_id)


def participants(match: Match, seats: Iterable[SeatRow | MatchSeat]) -> list[Participant]:
    """The rated participants of a finished ``match`` (its seats as :class:`SeatRow`, or
    as seats with ``deck_version__deck`` loaded), or ``[]`` when the match is not rated
    (see the module docstring)."""
    if match.status != Match.Status.DONE or not match.result or not match.result.get("places"):
        return []
    if match.result.get("forfeited"):
        return []  # decided by a no-show: nothing was played to rate
    places = list(match.result["places"])
    humans = pool_of(match) == Pool.HUMANS
    out = []
    rows = [s if isinstance(s, SeatRow) else SeatRow.of(s) for s in seats]
    for seat in sorted(rows, key=lambda s: s.seat):
        if seat.seat >= len(places):
            return []
        if humans:
            if not is_human(seat.pilot):
                continue
            out.append(Participant(seat.seat, int(places[seat.seat]), None, seat.owner_id, seat.deck_version_id))
        else:
            out.append(Participant(seat.seat, int(places[seat.seat]), seat.deck_id, None, seat.deck_version_id))
    if len(out) < 2 or len({p.key for p in out}) != len(out):
        return []
    return out


# --------------------------------------------------------------------------- the update


@dataclass
class Standing:
    """A rating's numbers while they are being updated (in a row or in memory)."""

    mu: float = model.MU
    sigma: float = model.SIGMA
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    form: str = ""
    recent: list[float] = field(default_factory=list)
    last_played: datetime | None = None

    @classmethod
    def of(cls, row: Rating) -> Standing:
        return cls(row.mu, row.sigma, row.games, row.wins, row.draws, row.losses, row.form, list(row.recent),
                   row.last_played)

    def copy_to(self, row: Rating) -> None:
        row.mu, row.sigma, row.ordinal = self.mu, self.sigma, model.ordinal(self.mu, self.sigma)
        row.games, row.wins, row.draws, row.losses = self.games, self.wins, self.draws, self.losses
        row.form, row.recent, row.last_played = self.form, list(self.recent), self.last_played


STANDING_FIELDS = ["mu", "sigma", "ordinal", "games", "wins", "draws", "losses", "form", "recent", "last_played"]


def apply_match(standings: Sequence[Standing], people: Sequence[Participant], played: datetime) -> list[dict]:
    """Rate one match: update ``standings`` (one per participant, same order) in place and
    return the fields of each participant's :class:`RatingChange`. Shared by the live
    update and the rebuild, so both compute exactly the same numbers."""
    places = [p.place for p in people]
    before = [model.Skill(s.mu, s.sigma) for s in standings]
    after = model.rate(before, places)
    changes = []
    for person, standing, old, new in zip(people, standings, before, after, strict=True):
        outcome = model.outcome_letter(place=person.place, places=places)
        standing.mu, standing.sigma = new.mu, new.sigma
        standing.games += 1
        standing.wins += outcome == "W"
        standing.draws += outcome == "D"
        standing.losses += outcome == "L"
        standing.form = (standing.form + outcome)[-FORM_LENGTH:]
        standing.recent = (standing.recent + [new.ordinal])[-(TREND_WINDOW + 1):]
        standing.last_played = played
        changes.append({
            "entry": person.entry, "deck_version_id": person.deck_version_id, "place": person.place,
            "entries": len(people), "outcome": outcome, "mu_before": old.mu, "sigma_before": old.sigma,
            "mu": new.mu, "sigma": new.sigma, "ordinal": new.ordinal, "played": played,
        })
    return changes


def _seat_rows(match: Match, pool: str) -> tuple[list[SeatRow], bool, set[tuple]]:
    """One query (``queries.match_seats``): the match's seats with their deck and owner,
    whether the match already has rating changes, and the keys ``(deck_id, player_id)``
    whose rating row exists."""
    found = queries.match_seats(match_id=match.pk, pool=pool, game=match.game)
    rows = [SeatRow(r.seat, r.pilot, r.deck_version_id, r.deck_id, r.owner_id) for r in found]
    rated = bool(found) and bool(found[0].rated)
    existing = {(r.deck_id, None) if pool == Pool.BOTS else (None, r.owner_id) for r in found
                if r.rating_id is not None}
    return rows, rated, existing


def _lock_ratings(pool: str, game: str, people: Sequence[Participant], existing: set[tuple]
                  ) -> dict[tuple, queries.RatingLine]:
    """The participants' rating rows (``queries.RatingLine``), created if missing and locked.

    Deadlock-free between workers: missing rows (not in ``existing``, read before any
    lock was taken) are first inserted in one statement sorted by (deck, player) with
    ``ON CONFLICT DO NOTHING``, which waits for another transaction's insert of the same
    key rather than failing; then every row is locked in one ``SELECT ... ORDER BY id FOR
    UPDATE`` (primary key order). Every transaction takes its row locks in the same
    global order, and none waits on an insert while holding a row lock. When every row
    exists (a deck's second rated match onwards), the lock is the only statement.
    """
    keys = sorted({p.key for p in people}, key=lambda k: (k[0] or 0, k[1] or 0))
    if any(k not in existing for k in keys):
        Rating.objects.bulk_create(
            [Rating(pool=pool, game=game, deck_id=deck_id, player_id=player_id) for deck_id, player_id in keys],
            ignore_conflicts=True,
        )
    by = "deck_id" if pool == Pool.BOTS else "player_id"
    wanted = [k[0] if pool == Pool.BOTS else k[1] for k in keys]
    rows = queries.lock_ratings(pool=pool, game=game, by=by, keys=wanted)
    if len(rows) < len(keys):
        # A rating row deleted after the seats were read (the rebuild or a deck's deletion):
        # create it the slow way, in the same order as above.
        Rating.objects.bulk_create(
            [Rating(pool=pool, game=game, deck_id=deck_id, player_id=player_id) for deck_id, player_id in keys],
            ignore_conflicts=True,
        )
        return _lock_ratings(pool, game, people, set(keys))
    return {row.key: row for row in rows}


def _standing(row: queries.RatingLine) -> Standing:
    return Standing(row.mu, row.sigma, row.games, row.wins, row.draws, row.losses, row.form, row.recent_list(),
                    row.last_played_at())


def rating_record_match(*, match: Match) -> list[RatingChange]:
    """Move the ratings of ``match``'s participants by its result; return the changes.

    Call inside the transaction that marks the match done, with the match row locked
    (``match_finished`` does). Locks the participants' rating rows (see
    :func:`_lock_ratings`). Does nothing for a match that is not rated or already rated.

    Three statements on PostgreSQL once a deck has its rating row: the seats (with
    "already rated?" and "rating rows exist?"), the row lock (which reads the ratings),
    and one statement that updates every rating (``UPDATE ... FROM (VALUES ...)``) and
    inserts the rating changes.
    """
    if match.status != Match.Status.DONE or not match.result or not match.result.get("places"):
        return []
    pool = pool_of(match)
    seats, rated, existing = _seat_rows(match, pool)
    people = participants(match, seats)
    if not people or rated:
        return []
    # No savepoint: inside match_finished the caller's transaction is the one that counts.
    with transaction.atomic(savepoint=False):
        rows = _lock_ratings(pool, match.game, people, existing)
        ordered = [rows[p.key] for p in people]
        standings = [_standing(r) for r in ordered]
        played = match.finished or timezone.now()
        changes = apply_match(standings, people, played)
        ids = [r.id for r in ordered]
        change_ids = _write(ids, standings, match.pk, changes)
    out = []
    for rating_id, change, change_id in zip(ids, changes, change_ids, strict=True):
        row = RatingChange(id=change_id, rating_id=rating_id, match_id=match.pk, **change)
        row._state.adding, row._state.db = False, connection.alias
        out.append(row)
    return out


def _write(ids: Sequence[int], standings: Sequence[Standing], match_id: int, changes: Sequence[dict]) -> list[int]:
    """Store the new standings of the rating rows ``ids`` and insert their rating changes
    (in participant order); return the changes' ids. One statement on PostgreSQL
    (``queries.write_ratings``)."""
    if connection.vendor == "postgresql":
        return queries.write_ratings(
            ratings=[[rating_id, s.mu, s.sigma, model.ordinal(s.mu, s.sigma), s.games, s.wins, s.draws, s.losses,
                      s.form, json.dumps(s.recent), s.last_played]
                     for rating_id, s in zip(ids, standings, strict=True)],
            changes=[[rating_id, match_id, *(c[name] for name in queries.CHANGE_COLUMNS[2:])]
                     for rating_id, c in zip(ids, changes, strict=True)],
        )
    # Other databases (SQLite for make run): one UPDATE per rating, then the changes.
    for rating_id, s in zip(ids, standings, strict=True):
        Rating.objects.filter(pk=rating_id).update(
            mu=s.mu, sigma=s.sigma, ordinal=model.ordinal(s.mu, s.sigma), games=s.games, wins=s.wins, draws=s.draws,
            losses=s.losses, form=s.form, recent=s.recent, last_played=s.last_played)
    created = RatingChange.objects.bulk_create(
        [RatingChange(rating_id=rating_id, match_id=match_id, **c) for rating_id, c in zip(ids, changes, strict=True)]
    )
    return [c.pk for c in created]


# --------------------------------------------------------------------------- rebuild


@dataclass
class RebuildReport:
    matches: int = 0
    ratings: int = 0
    changes: int = 0
    differences: list[str] = field(default_factory=list)


def rated_match_order() -> list[int]:
    """Every finished match to rate, in result order: matches finished before any rating
    was recorded for them (older than the ladder) by finish time, then the rated ones in
    the order their ratings were written (the id order of their rating changes, which is
    the order the workers took the rating locks in)."""
    rated = list(
        RatingChange.objects.values("match_id").annotate(first=Min("id")).order_by("first")
        .values_list("match_id", flat=True)
    )
    done = set(rated)
    older = [
        pk for pk in Match.objects.filter(status=Match.Status.DONE).order_by("finished", "pk")
        .values_list("pk", flat=True) if pk not in done
    ]
    return older + rated


def ratings_compute(match_ids: Sequence[int], *, batch: int = 500):
    """Replay the results of ``match_ids`` in that order, in memory.

    Returns ``(standings, changes)``: ``{(pool, game, deck_id, player_id): Standing}``
    and a list of ``(key, match_id, change fields)`` in the order they were computed.
    """
    standings: dict[tuple, Standing] = {}
    changes: list[tuple[tuple, int, dict]] = []
    for start in range(0, len(match_ids), batch):
        chunk = match_ids[start:start + batch]
        matches = Match.objects.in_bulk(chunk)
        seats: dict[int, list[MatchSeat]] = {}
        for seat in MatchSeat.objects.filter(match_id__in=chunk).select_related("deck_version__deck"):
            seats.setdefault(seat.match_id, []).append(seat)
        for match_id in chunk:
            match = matches[match_id]
            people = participants(match, seats.get(match_id, []))
            if not people:
                continue
            pool = pool_of(match)
            keys = [(pool, match.game, *p.key) for p in people]
            current = [standings.setdefault(k, Standing()) for k in keys]
            for key, change in zip(keys, apply_match(current, people, match.finished), strict=True):
                changes.append((key, match_id, change))
    return standings, changes


def ratings_rebuild(*, write: bool) -> RebuildReport:
    """Recompute every rating from the recorded results in result order.

    With ``write=False`` nothing is written: every difference from the stored ratings and
    rating changes is reported (exact float comparison). With ``write=True`` the ratings
    and their history are replaced by the recomputed ones in one transaction. Run it while
    no match is finishing (a result recorded meanwhile waits for, or is overwritten by, it).
    """
    report = RebuildReport()
    order = rated_match_order()
    standings, changes = ratings_compute(order)
    report.matches = len({match_id for _, match_id, _ in changes})
    report.ratings, report.changes = len(standings), len(changes)
    stored = {(r.pool, r.game, r.deck_id, r.player_id): r for r in Rating.objects.all()}
    for key, standing in standings.items():
        row = stored.get(key)
        if row is None:
            report.differences.append(f"{_label(key)}: not stored")
            continue
        for name in STANDING_FIELDS:
            if name == "ordinal":
                continue
            want, have = getattr(standing, name), getattr(row, name)
            if want != have:
                report.differences.append(f"{_label(key)}: {name} is {have!r}, recomputed {want!r}")
    for key in set(stored) - set(standings):
        report.differences.append(f"{_label(key)}: stored but no recorded result rates it")
    stored_changes = {
        (c.match_id, c.rating.pool, c.rating.game, c.rating.deck_id, c.rating.player_id): c
        for c in RatingChange.objects.select_related("rating")
    }
    for key, match_id, change in changes:
        row = stored_changes.get((match_id, *key))
        if row is None:
            report.differences.append(f"match {match_id}, {_label(key)}: no stored rating change")
        elif (row.mu, row.sigma, row.mu_before, row.sigma_before, row.place) != (
                change["mu"], change["sigma"], change["mu_before"], change["sigma_before"], change["place"]):
            report.differences.append(f"match {match_id}, {_label(key)}: stored change differs from recomputed")
    if not write:
        return report
    with transaction.atomic():
        locked = list(Rating.objects.select_for_update().order_by("pk").values_list("pk", flat=True))
        RatingChange.objects.all().delete()
        Rating.objects.filter(pk__in=locked).exclude(
            pk__in=[stored[k].pk for k in standings if k in stored]).delete()
        rows = {}
        for key, standing in standings.items():
            row = stored.get(key) or Rating(pool=key[0], game=key[1], deck_id=key[2], player_id=key[3])
            standing.copy_to(row)
            rows[key] = row
        Rating.objects.bulk_create([r for r in rows.values() if r.pk is None])
        Rating.objects.bulk_update([r for r in rows.values() if r.pk is not None], STANDING_FIELDS, batch_size=500)
        RatingChange.objects.bulk_create(
            [RatingChange(rating=rows[key], match_id=match_id, **change) for key, match_id, change in changes],
            batch_size=1000,
        )
    return report


def _label(key: tuple) -> str:
    pool, game, deck_id, player_id = key
    return f"{pool}/{game} " + (f"deck {deck_id}" if deck_id else f"player {player_id}")


# --------------------------------------------------------------------------- the bot ladder


@dataclass
class TickReport:
    in_flight: int = 0
    created: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"in_flight": self.in_flight, "created": self.created, "skipped": self.skipped}


@dataclass
class Candidate:
    deck: Deck
    mu: float
    sigma: float
    last_match: int  # id of its last ladder match, 0 for none
    last_opponent: int | None


def ladder_in_flight() -> int:
    """Ladder matches queued or running."""
    return Match.objects.filter(LADDER_MATCHES, status__in=IN_FLIGHT).count()


def ladder_busy_decks() -> set[int]:
    """The decks with a ladder match queued or running (played by a worker or live)."""
    return set(MatchSeat.objects.filter(match__in=Match.objects.filter(LADDER_MATCHES, status__in=IN_FLIGHT))
               .values_list("deck_version__deck_id", flat=True))


def ladder_candidates(busy: set[int], *, external: bool = False) -> list[Candidate]:
    """The idle ladder decks (not in ``busy``) with their ratings: those piloted by the site's
    bots, or with ``external`` those of bot accounts, which their own programs play
    (docs/bots-api.md) and which the worker ladder never pairs."""
    return _candidates(busy, external=external)


def _candidates(busy: set[int], *, external: bool = False) -> list[Candidate]:
    decks = list(Deck.objects.filter(ladder=True, archived=False, owner__bot_account__isnull=not external)
                 .exclude(pk__in=busy).select_related("owner"))
    ids = [d.pk for d in decks]
    ratings = {r.deck_id: r for r in Rating.objects.filter(pool=Pool.BOTS, deck_id__in=ids)}
    last = dict(
        MatchSeat.objects.filter(Q(match__kind=Match.Kind.LADDER) | Q(match__kind=Match.Kind.LIVE, match__ladder=True),
                                 deck_version__deck_id__in=ids)
        .values("deck_version__deck_id").annotate(last=Max("match_id")).values_list("deck_version__deck_id", "last")
    )
    opponents: dict[int, int] = {}
    for match_id, deck_id in MatchSeat.objects.filter(match_id__in=set(last.values())).values_list(
            "match_id", "deck_version__deck_id"):
        for mine, last_match in last.items():
            if last_match == match_id and mine != deck_id:
                opponents[mine] = deck_id
    out = []
    for deck in decks:
        rating = ratings.get(deck.pk)
        out.append(Candidate(deck, rating.mu if rating else model.MU, rating.sigma if rating else model.SIGMA,
                             last.get(deck.pk, 0), opponents.get(deck.pk)))
    return out


def ladder_pairs(candidates: Sequence[Candidate], slots: int) -> list[tuple[Candidate, Candidate]]:
    """Up to ``slots`` pairs of idle candidates (pure: no database).

    Decks are taken most uncertain first (highest sigma: new decks before settled ones),
    then the one that waited longest; each is paired with the idle deck of the same game
    whose ``mu`` is closest (the one that waited longest on a tie), never with the deck
    either of them met in its previous ladder match.
    """
    queue = sorted(candidates, key=lambda c: (-c.sigma, c.last_match, c.deck.pk))
    free = {c.deck.pk: c for c in queue}
    pairs = []
    for first in queue:
        if len(pairs) >= slots:
            break
        if first.deck.pk not in free:
            continue
        options = [
            c for c in free.values()
            if c.deck.pk != first.deck.pk and c.deck.game == first.deck.game
            and c.deck.pk != first.last_opponent and c.last_opponent != first.deck.pk
        ]
        if not options:
            continue
        second = min(options, key=lambda c: (abs(c.mu - first.mu), c.last_match, c.deck.pk))
        del free[first.deck.pk]
        del free[second.deck.pk]
        pairs.append((first, second))
    return pairs


def ladder_tick(*, rng: random.Random | None = None) -> TickReport:
    """Create ladder matches for idle ladder decks, up to ``LADDER_MAX_IN_FLIGHT`` in flight.

    Locks the ladder's tick row (two ticks at once run one after the other, so the cap
    holds). Idle means the deck has no ladder match queued or running. Pairs come from
    :func:`ladder_pairs`; each becomes a ``kind="ladder"`` match (no creator, seats in a
    random order, ``LADDER_BEST_OF`` games) that goes to the ``ladder`` queue on commit.
    A deck its latest version no longer lets play is skipped and named in the report.
    """
    rng = rng or random.Random(secrets.randbits(64))
    report = TickReport()
    with transaction.atomic():
        TickLock.objects.get_or_create(name="ladder")
        lock = TickLock.objects.select_for_update().get(name="ladder")
        report.in_flight = ladder_in_flight()
        slots = conf.max_in_flight() - report.in_flight
        if slots > 0:
            busy = ladder_busy_decks()
            report.created = _create_matches(ladder_pairs(_candidates(busy), slots), rng, report)
        lock.last_run = timezone.now()
        lock.save(update_fields=["last_run"])
    return report


def _create_matches(pairs, rng: random.Random, report: TickReport) -> list[int]:
    created = []
    for first, second in pairs:
        decks = [first.deck, second.deck]
        rng.shuffle(decks)
        versions = [d.latest_version for d in decks]
        try:
            with transaction.atomic():
                match = match_challenge(created_by=None, deck_versions=versions, best_of=conf.best_of(),
                                        kind=Match.Kind.LADDER)
        except ValidationError as exc:
            report.skipped.append(f"{decks[0].name} vs {decks[1].name}: {'; '.join(exc.messages)}")
            continue
        created.append(match.pk)
    return created
