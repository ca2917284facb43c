"""The SQL of recording a rated match, each statement returning named rows.

A worker records thousands of results a minute, so these few statements are written by
hand and prepared on PostgreSQL (:mod:`web.sql`); ``ladder.services.rating_record_match``
decides what to do with them. The rows are :class:`~typing.NamedTuple` values, read by
name, as cheap as the plain tuples the cursor returns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from django.db import connection

from decks.models import Deck, DeckVersion
from ladder.models import Pool, Rating, RatingChange
from matches.models import MatchSeat
from web.sql import prepared


class SeatLine(NamedTuple):
    """One seat of a match, with its deck, whether its rating row exists, and whether the
    match already has rating changes (the same on every line)."""

    seat: int
    pilot: str
    deck_version_id: int | None
    deck_id: int
    owner_id: int
    rating_id: int | None
    rated: bool


class RatingLine(NamedTuple):
    """The columns of a rating that a result moves."""

    id: int
    deck_id: int | None
    player_id: int | None
    mu: float
    sigma: float
    games: int
    wins: int
    draws: int
    losses: int
    form: str
    recent: Any
    last_played: Any

    @property
    def key(self) -> tuple[int | None, int | None]:
        return (self.deck_id, self.player_id)

    def recent_list(self) -> list[float]:
        return json.loads(self.recent) if isinstance(self.recent, str | bytes) else list(self.recent)

    def last_played_at(self) -> datetime | None:
        # SQLite hands back text.
        return datetime.fromisoformat(self.last_played) if isinstance(self.last_played, str) else self.last_played


_RATING_COLUMNS = ", ".join(RatingLine._fields)


def match_seats(*, match_id: int, pool: str, game: str) -> list[SeatLine]:
    """The seats of match ``match_id`` in seat order, each with its deck, its owner and the
    id of its rating row in ``pool`` and ``game`` (None: not rated yet). One statement."""
    seat, version, deck = MatchSeat._meta.db_table, DeckVersion._meta.db_table, Deck._meta.db_table
    rating, change = Rating._meta.db_table, RatingChange._meta.db_table
    key = "r.deck_id = v.deck_id" if pool == Pool.BOTS else "r.player_id = d.owner_id"
    sql = (
        f"SELECT s.seat, s.pilot, s.deck_version_id, v.deck_id, d.owner_id, r.id, "
        f"EXISTS (SELECT 1 FROM {change} c WHERE c.match_id = %s) "
        f"FROM {seat} s JOIN {version} v ON v.id = s.deck_version_id JOIN {deck} d ON d.id = v.deck_id "
        f"LEFT JOIN {rating} r ON r.pool = %s AND r.game = %s AND {key} "
        f"WHERE s.match_id = %s ORDER BY s.seat"
    )
    with prepared() as cursor:
        cursor.execute(sql, [match_id, pool, game, match_id])
        return [SeatLine._make(row) for row in cursor.fetchall()]


def lock_ratings(*, pool: str, game: str, by: str, keys: Sequence[int]) -> list[RatingLine]:
    """The rating rows of ``pool`` and ``game`` whose ``by`` column (``deck_id`` or
    ``player_id``) is one of ``keys``, locked in primary key order (``FOR UPDATE``; on
    SQLite the write lock is the database's own). One statement."""
    sql = (
        f"SELECT {_RATING_COLUMNS} FROM {Rating._meta.db_table} "
        f"WHERE pool = %s AND game = %s AND {by} IN ({', '.join(['%s'] * len(keys))}) ORDER BY id FOR UPDATE"
    )
    if not connection.features.has_select_for_update:
        sql = sql.removesuffix(" FOR UPDATE")
    with prepared() as cursor:
        cursor.execute(sql, [pool, game, *keys])
        return [RatingLine._make(row) for row in cursor.fetchall()]


#: The columns of a rating change, in the order :func:`write_ratings` takes them.
CHANGE_COLUMNS = ("rating_id", "match_id", "entry", "deck_version_id", "place", "entries", "outcome",
                  "mu_before", "sigma_before", "mu", "sigma", "ordinal", "played")


def write_ratings(*, ratings: Sequence[Sequence[Any]], changes: Sequence[Sequence[Any]]) -> list[int]:
    """Store new standings and insert their rating changes in one statement (PostgreSQL);
    return the changes' ids in order. ``ratings``: per rating, its id, mu, sigma, ordinal,
    games, wins, draws, losses, form, recent (JSON text) and last played; ``changes``:
    per change, the values of ``CHANGE_COLUMNS``."""
    rating, change = Rating._meta.db_table, RatingChange._meta.db_table
    values = ", ".join(["(%s::bigint, %s::float8, %s::float8, %s::float8, %s::int, %s::int, %s::int, %s::int, "
                        "%s::text, %s::jsonb, %s::timestamptz)"] * len(ratings))
    inserts = ", ".join([f"({', '.join(['%s'] * len(CHANGE_COLUMNS))})"] * len(changes))
    sql = (
        f"WITH moved AS (UPDATE {rating} AS r SET mu = v.mu, sigma = v.sigma, ordinal = v.ordinal, "
        f"games = v.games, wins = v.wins, draws = v.draws, losses = v.losses, form = v.form, recent = v.recent, "
        f"last_played = v.last_played FROM (VALUES {values}) AS v(id, mu, sigma, ordinal, games, wins, draws, "
        f"losses, form, recent, last_played) WHERE r.id = v.id) "
        f"INSERT INTO {change} ({', '.join(CHANGE_COLUMNS)}) VALUES {inserts} RETURNING id"
    )
    params = [value for row in ratings for value in row] + [value for row in changes for value in row]
    with prepared() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]
