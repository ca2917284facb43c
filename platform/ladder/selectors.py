"""Reads of the ladder: leaderboards with ranks, rating histories, head to head, activity.

``ratings_for_decks(deck_ids)`` is the one tournaments call to seed by rating.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import logging
import time
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.functional import cached_property
from kombu import Connection
from kombu.exceptions import ChannelError

from config.celery import QUEUES, app
from decks.models import Deck
from ladder import rating as model
from ladder.models import Pool, Rating, RatingChange
from matches.models import Match

logger = logging.getLogger(__name__)

#: How long the activity page waits for the broker to count a queue's messages.
BROKER_TIMEOUT_SECONDS = 2.0


def ratings_for_decks(deck_ids: Iterable[int]) -> dict[int, float]:
    """``{deck_id: ordinal}`` of the bot-pool rating of every deck in ``deck_ids``.

    A deck that has no rated match yet gets the starting ordinal (``mu - 3 sigma`` of a
    new rating, 0.0), so every requested deck is in the answer. Higher is better.
    """
    ids = list(dict.fromkeys(int(i) for i in deck_ids))
    start = model.ordinal(model.MU, model.SIGMA)
    found = dict(Rating.objects.filter(pool=Pool.BOTS, deck_id__in=ids).values_list("deck_id", "ordinal"))
    return {deck_id: found.get(deck_id, start) for deck_id in ids}


def human_rating(*, user_id: int, game: str) -> float:
    """The player's humans-pool ordinal in ``game`` (live matchmaking pairs by it); the
    starting ordinal 0.0 before their first rated live match."""
    found = Rating.objects.filter(pool=Pool.HUMANS, game=game, player_id=user_id).values_list("ordinal", flat=True)
    return next(iter(found), model.ordinal(model.MU, model.SIGMA))


# --------------------------------------------------------------------------- leaderboards


def _listed(game: str, pool: str) -> QuerySet[Rating]:
    """The ratings on the unfiltered leaderboard (``listed``: not an archived deck's), in
    its order: the ``rating_leaderboard`` index, with no join."""
    return Rating.objects.filter(game=game, pool=pool, listed=True).order_by("-ordinal", "id")


def leaderboard(*, game: str, pool: str, q: str | None = None) -> QuerySet[Rating]:
    """The ratings of ``game`` in ``pool``, best first (ordinal, then the older rating).

    Archived decks are left out. ``q`` matches the deck's name or its owner's username
    (bots), or the player's username (humans), case-insensitive: the matching decks (or
    players) are found first, from their trigram indexes on PostgreSQL, and their
    ratings then. For pages of the unfiltered leaderboard use :class:`LeaderboardRows`.
    """
    rows = _listed(game, pool)
    rows = rows.select_related("deck", "deck__owner") if pool == Pool.BOTS else rows.select_related("player")
    if q:
        users = get_user_model().objects.filter(username__icontains=q)
        if pool == Pool.BOTS:
            owners = list(users.values_list("pk", flat=True)[:SEARCH_OWNERS + 1])
            decks = Deck.objects.filter(game=game)
            if len(owners) > SEARCH_OWNERS:  # a very common name: let the database join
                decks = decks.filter(Q(name__icontains=q) | Q(owner__username__icontains=q))
            else:  # name LIKE ... OR owner_id = ANY(...): both sides from an index
                decks = decks.filter(Q(name__icontains=q) | Q(owner_id__in=owners))
            rows = rows.filter(deck_id__in=decks.values("pk"))
        else:
            rows = rows.filter(player_id__in=users.values("pk"))
    return rows


#: A search matching more owners than this filters the decks by a join with the owners
#: instead of by the list of their ids.
SEARCH_OWNERS = 1000


class LeaderboardRows:
    """The unfiltered leaderboard of ``game`` and ``pool`` as a sequence a paginator
    slices, each row with its ``rank``.

    Its length is :func:`leaderboard_count`. A slice reads the page's ids and ordinals
    from the leaderboard index (an index-only scan on PostgreSQL, starting one row early
    to see whether the page starts inside a run of equal ratings), then those ratings
    with their deck and owner (or player) by primary key: a deep page costs a walk of
    the index to its offset, not a join of every row above it. A page is a run of the
    order, so a row's rank is its position, less the equal ratings before it (counted
    only when the page starts inside such a run).
    """

    def __init__(self, *, game: str, pool: str):
        self.game, self.pool = game, pool

    @cached_property
    def _count(self) -> int:
        return leaderboard_count(game=self.game, pool=self.pool)

    def count(self) -> int:
        return self._count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, key: slice) -> list[Rating]:
        if not isinstance(key, slice) or key.step not in (None, 1) or (key.start or 0) < 0 or key.stop is None:
            raise TypeError("LeaderboardRows is read a page (a slice from an offset to a stop) at a time")
        start = key.start or 0
        listed = _listed(self.game, self.pool).values_list("id", "ordinal")
        first = max(start - 1, 0)
        if start > self._count // 2:
            # A page in the lower half is read from the bottom of the index (the same index
            # walked backwards), so no page walks more than half the board to its offset.
            # Its positions then come from the length, which is a few seconds old on a long
            # board (leaderboard_count): a deck that joined meanwhile can shift them by one.
            bottom = _listed(self.game, self.pool).order_by("ordinal", "-id").values_list("id", "ordinal")
            found = list(reversed(bottom[max(self._count - key.stop, 0):self._count - first]))
        else:
            found = list(listed[first:key.stop])
        before, page = (found[0], found[1:]) if start else (None, found)
        if not page:
            return []
        first_id, first_ordinal = page[0]
        ties_before = 0
        if before is not None and before[1] == first_ordinal:
            ties_before = listed.filter(ordinal=first_ordinal, id__lt=first_id).count()
        related = ("deck", "deck__owner") if self.pool == Pool.BOTS else ("player",)
        rows = Rating.objects.select_related(*related).in_bulk([pk for pk, _ in page])
        out, rank, previous = [], 0, None
        for index, (pk, ordinal) in enumerate(page):
            if previous is None or ordinal != previous:
                rank = start + index + 1 - (ties_before if index == 0 else 0)
            previous = ordinal
            if pk in rows:  # gone since the ids were read: the page is one row short
                rows[pk].rank = rank
                out.append(rows[pk])
        return out


def _counts_above(game: str, pool: str, ordinals: Sequence[float | None]) -> list[int]:
    """For each of ``ordinals``, how many listed ratings of ``game`` and ``pool`` are
    higher (None: how many there are at all).

    One aggregate over the leaderboard index (index-only on PostgreSQL) from the top
    down to the lowest ordinal asked.
    """
    if not ordinals:
        return []
    asked = sorted({o for o in ordinals if o is not None})
    if asked and len(asked) == len(set(ordinals)):
        board = _board_ordinals(game, pool)
        if board is not None:
            # The ratings above each ordinal, as of the snapshot: -ordinal ascends along it.
            return [bisect.bisect_left(board, -o) for o in ordinals]
    if connection.vendor == "postgresql" and len(asked) > 1 and len(asked) == len(set(ordinals)):
        return _counts_above_by_bucket(game, pool, ordinals, asked)
    rows = _listed(game, pool).order_by()
    if len(asked) == len(ordinals):
        rows = rows.filter(ordinal__gt=asked[0])
    totals = rows.aggregate(
        all=Count("id"), **{f"above{i}": Count("id", filter=Q(ordinal__gt=o)) for i, o in enumerate(asked)}
    )
    by_ordinal = {o: totals[f"above{i}"] for i, o in enumerate(asked)}
    return [totals["all"] if o is None else by_ordinal[o] for o in ordinals]


def _counts_above_by_bucket(game: str, pool: str, ordinals: Sequence[float], asked: list[float]) -> list[int]:
    """``_counts_above`` for many ordinals on PostgreSQL: one pass over the index range,
    each rating counted in the bucket of how many asked ordinals it does not exceed
    (``width_bucket`` over the negated ordinals), then summed from the top down."""
    descending = asked[::-1]
    sql = (
        f"SELECT width_bucket(-ordinal, %s::float8[]), count(*) FROM {Rating._meta.db_table} "
        f"WHERE game = %s AND pool = %s AND listed AND ordinal > %s GROUP BY 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [[-o for o in descending], game, pool, asked[0]])
        buckets = dict(cursor.fetchall())
    # A rating is above descending[i] exactly when fewer than i + 1 asked ordinals are >= it.
    above, total = {}, 0
    for index, ordinal in enumerate(descending):
        total += buckets.get(index, 0)
        above[ordinal] = total
    return [above[o] for o in ordinals]


#: Per process, for each long leaderboard: when its ordinals were read, and the ordinals
#: (negated, so ascending) of every listed rating in leaderboard order.
_SNAPSHOTS: dict[tuple[str, str], tuple[float, array]] = {}


def _board_ordinals(game: str, pool: str) -> array | None:
    """On a long leaderboard (``COUNT_CACHE_FROM`` ratings or more): every listed rating's
    ordinal, negated (ascending), read at most every ``COUNT_CACHE_SECONDS`` by each
    process; else None.

    A rank is then a binary search instead of a count down the index to the rating: the
    ranks of a search's rows or of a deck's page cost nothing however low the ratings
    are (a search whose rows spread over a board of 100,000 counted 40 ms of index
    entries). They are the ranks of a few seconds ago, like the length and the cached
    pages; one read of the ordinals costs about what one such count did.
    """
    if leaderboard_count(game=game, pool=pool) < COUNT_CACHE_FROM:
        return None
    now = time.monotonic()
    found = _SNAPSHOTS.get((game, pool))
    if found is not None and now - found[0] < COUNT_CACHE_SECONDS:
        return found[1]
    sql = (f"SELECT -ordinal FROM {Rating._meta.db_table} WHERE game = %s AND pool = %s AND listed "
           f"ORDER BY ordinal DESC, id")
    with connection.cursor() as cursor:
        cursor.execute(sql, [game, pool])
        board = array("d", (row[0] for row in cursor.fetchall()))
    _SNAPSHOTS[(game, pool)] = (now, board)
    return board


def _count_above(game: str, pool: str, ordinal: float | None = None) -> int:
    return _counts_above(game, pool, [ordinal])[0]


#: A leaderboard at least this long has its length cached for ``COUNT_CACHE_SECONDS``:
#: counting 100,000 rows on every page view is the most expensive part of the page, and
#: a total a few seconds old is as good. Shorter ones are counted every time.
COUNT_CACHE_FROM = 10_000
COUNT_CACHE_SECONDS = 10


def leaderboard_count(*, game: str, pool: str) -> int:
    """How many ratings the unfiltered leaderboard lists (cached a few seconds once long)."""
    key = f"ladder:count:{game}:{pool}"
    cached = cache.get(key)
    if cached is not None and cached >= COUNT_CACHE_FROM:
        return cached
    total = _count_above(game, pool)
    if total >= COUNT_CACHE_FROM:
        cache.set(key, total, COUNT_CACHE_SECONDS)
    return total


def rank_of(rating: Rating) -> int | None:
    """1 + how many listed ratings of the same game and pool are higher (ties share a
    rank); None for the rating of an archived deck."""
    if not rating.listed:
        return None
    return 1 + _count_above(rating.game, rating.pool, rating.ordinal)


def with_ranks(rows: Sequence[Rating], *, start: int | None) -> list[Rating]:
    """Set ``rank`` (1 + how many listed ratings are higher: ties share a rank, 1, 2, 2,
    4) on each of ``rows``, listed ratings of one game and pool.

    ``start`` is the offset of ``rows`` in the unfiltered leaderboard, when they are a
    run of it: a row's rank is then its position minus the equal ratings before it (a
    small count of equal ordinals, never a count of everything above). Other rows
    (``start`` None, a search) count the ratings above each in one query.
    """
    rows = list(rows)
    if not rows:
        return rows
    if start is None:
        for row, above in zip(rows, _counts_above(rows[0].game, rows[0].pool, [r.ordinal for r in rows]),
                              strict=True):
            row.rank = 1 + above
        return rows
    first = rows[0]
    ties_before = (_listed(first.game, first.pool).filter(ordinal=first.ordinal, id__lt=first.id).count()
                   if start else 0)
    for index, row in enumerate(rows):
        if index and row.ordinal == rows[index - 1].ordinal:
            row.rank = rows[index - 1].rank
        else:
            row.rank = start + index + 1 - (ties_before if index == 0 else 0)
    return rows


def pool_counts(*, game: str) -> dict[str, int]:
    return {pool: _count_above(game, pool) for pool in Pool.values}


# --------------------------------------------------------------------------- one deck or player


def deck_rating(*, deck_id: int) -> Rating | None:
    return Rating.objects.select_related("deck", "deck__owner").filter(pool=Pool.BOTS, deck_id=deck_id).first()


def player_ratings(*, player) -> list[Rating]:
    """A player's ratings in the humans pool, one per game they played live."""
    return list(Rating.objects.filter(pool=Pool.HUMANS, player=player).select_related("player").order_by("game"))


def rating_history(*, rating: Rating) -> QuerySet[RatingChange]:
    """Every change of ``rating``, newest first, with the version that played."""
    return (
        RatingChange.objects.filter(rating=rating)
        .select_related("deck_version", "match")
        .order_by("-id")
    )


@dataclass(frozen=True)
class HeadToHead:
    opponent: Rating
    wins: int
    draws: int
    losses: int

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses


def head_to_head(*, rating: Rating, limit: int = 20) -> list[HeadToHead]:
    """Results against each opponent met in rated matches, most met first: a win is
    finishing above the opponent, a draw the same place, a loss below."""
    mine = RatingChange.objects.filter(rating=rating, match_id=OuterRef("match_id")).values("place")[:1]
    rows = (
        RatingChange.objects.filter(match__rating_changes__rating=rating)
        .exclude(rating=rating)
        .annotate(my_place=Subquery(mine))
        .values("rating_id")
        .annotate(
            wins=Count("id", filter=Q(place__gt=F("my_place"))),
            draws=Count("id", filter=Q(place=F("my_place"))),
            losses=Count("id", filter=Q(place__lt=F("my_place"))),
            played=Count("id"),
        )
        .order_by("-played", "rating_id")[:limit]
    )
    rows = list(rows)
    opponents = Rating.objects.select_related("deck", "deck__owner", "player").in_bulk([r["rating_id"] for r in rows])
    return [HeadToHead(opponents[r["rating_id"]], r["wins"], r["draws"], r["losses"]) for r in rows]


# --------------------------------------------------------------------------- the chart


@dataclass(frozen=True)
class Chart:
    """An SVG line chart of a rating history, computed on the server."""

    width: int
    height: int
    line: str  # polyline points of the ordinal
    band: str  # polygon points of mu - 3 sigma .. mu (the uncertainty)
    y_ticks: list[tuple[float, float]]  # (y, label)
    first: RatingChange | None
    last: RatingChange | None
    count: int
    points: list[tuple[float, float, RatingChange]]


CHART_POINTS = 200


def rating_chart(*, rating: Rating, width: int = 640, height: int = 200) -> Chart:
    """The last ``CHART_POINTS`` rated matches of ``rating`` as a chart (oldest left)."""
    changes = list(rating_history(rating=rating)[:CHART_POINTS])[::-1]
    pad_left, pad_right, pad_top, pad_bottom = 44, 12, 12, 24
    if not changes:
        return Chart(width, height, "", "", [], None, None, 0, [])
    starts = [model.ordinal(changes[0].mu_before, changes[0].sigma_before)]
    lows = starts + [c.ordinal for c in changes]
    highs = [changes[0].mu_before] + [c.mu for c in changes]
    lo, hi = min(lows), max(highs)
    if hi - lo < 1:
        lo, hi = lo - 0.5, hi + 0.5
    n = len(changes)

    def x(i: int) -> float:
        return round(pad_left + (width - pad_left - pad_right) * i / max(n, 1), 1)

    def y(v: float) -> float:
        return round(pad_top + (height - pad_top - pad_bottom) * (hi - v) / (hi - lo), 1)

    line = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(lows))
    upper = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(highs))
    lower = " ".join(f"{x(i)},{y(v)}" for i, v in reversed(list(enumerate(lows))))
    ticks = [(y(lo + (hi - lo) * k / 4), round(lo + (hi - lo) * k / 4, 1)) for k in range(5)]
    points = [(x(i + 1), y(c.ordinal), c) for i, c in enumerate(changes)]
    return Chart(width, height, line, f"{upper} {lower}", ticks, changes[0], changes[-1], n, points)


# --------------------------------------------------------------------------- activity


@dataclass(frozen=True)
class Activity:
    in_flight: dict[str, int]  # by kind
    last_hour: dict[str, int]  # finished in the last hour, by kind
    rated_last_hour: int
    queues: dict[str, int | None]  # None: the broker did not answer


def queue_depths(timeout: float = BROKER_TIMEOUT_SECONDS, broker_url: str | None = None) -> dict[str, int | None]:
    """Messages waiting in each Celery queue, read from the broker (``broker_url``, the
    configured one by default); every value is None when the broker does not answer
    within ``timeout`` seconds."""

    def depth(channel, name: str) -> int:
        try:
            return channel.queue_declare(queue=name, passive=True).message_count
        except ChannelError:  # the broker holds no such queue yet (Redis drops empty ones): nothing waits
            return 0

    def connect():
        if broker_url is None:
            return app.connection_for_read()
        # A given URL's own transport (its scheme's), not the app's: the embedded stack sets
        # its filesystem transport by name, which would read any URL as a folder.
        return Connection(broker_url, connect_timeout=timeout)

    def count() -> dict[str, int]:
        with connect() as connection:
            connection.ensure_connection(max_retries=1, timeout=timeout)
            channel = connection.channel()
            try:
                return {name: depth(channel, name) for name in QUEUES}
            finally:
                channel.close()

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = pool.submit(count)
    try:
        return future.result(timeout=timeout)
    except Exception as exc:
        logger.warning("could not read the queue depths from the broker: %s", exc)
        return dict.fromkeys(QUEUES)
    finally:
        pool.shutdown(wait=False)


def ladder_activity() -> Activity:
    since = timezone.now() - timedelta(hours=1)
    in_flight = dict(
        Match.objects.filter(status__in=(Match.Status.QUEUED, Match.Status.RUNNING))
        .values("kind").annotate(n=Count("id")).values_list("kind", "n")
    )
    last_hour = dict(
        Match.objects.filter(status=Match.Status.DONE, finished__gte=since)
        .values("kind").annotate(n=Count("id")).values_list("kind", "n")
    )
    kinds = Match.Kind.values
    rated = RatingChange.objects.filter(played__gte=since).values("match_id").distinct().count()
    return Activity({k: in_flight.get(k, 0) for k in kinds}, {k: last_hour.get(k, 0) for k in kinds}, rated,
                    queue_depths())


def player_get(*, username: str):
    return get_user_model().objects.get(username=username)
