"""The SQL of recording a finished match on PostgreSQL, each statement returning named rows.

Recording a result is the workers' hot path, so its two statements are written by hand
and prepared (:mod:`web.sql`); ``matches.services`` decides when to use them (on
PostgreSQL; elsewhere it goes through the ORM) and checks what they return.
"""

from __future__ import annotations

import functools
import json
from typing import Any, NamedTuple

from django.db import connection

from matches.models import Match, MatchGame, MatchSeat
from web.sql import prepared


class LockedMatch(NamedTuple):
    """A match row locked ``FOR UPDATE``, its seat count and its written games' places by
    entry (``{number: entry_places}``)."""

    match: Match
    entries: int
    games: dict[int, list[int]]


def lock_match_with_games(match_id: int) -> LockedMatch | None:
    """Lock match ``match_id`` and read its seat count and written games in the same
    statement (they are subqueries, read from the statement's snapshot); None if there is
    no such match. See ``matches.services._locked_with_games`` for why that snapshot is
    enough."""
    sql, fields, converters = _lock_statement()
    with prepared() as cursor:
        cursor.execute(sql, [match_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row[:len(fields)])
    for index, field_converters in converters:
        for convert in field_converters:
            values[index] = convert(values[index], fields[index], connection)
    match = Match.from_db(connection.alias, [f.target.attname for f in fields], values)
    entries, games = row[len(fields)], row[len(fields) + 1]
    return LockedMatch(match, entries, {number: places for number, places in json.loads(games)})


@functools.cache
def _lock_statement() -> tuple[str, list, list[tuple[int, list]]]:
    """The SQL of :func:`lock_match_with_games`, the match's columns and, by column index,
    the converters Django applies to them when it reads a row (JSON)."""
    quote = connection.ops.quote_name
    table, seat, game = Match._meta.db_table, MatchSeat._meta.db_table, MatchGame._meta.db_table
    fields = [f.get_col(table) for f in Match._meta.concrete_fields]
    columns = ", ".join(f"m.{quote(col.target.column)}" for col in fields)
    sql = (
        f"SELECT {columns}, "
        f"(SELECT count(*) FROM {seat} s WHERE s.match_id = m.id), "
        f"(SELECT coalesce(json_agg(json_build_array(g.number, g.outcome -> 'entry_places') ORDER BY g.number), "
        f"'[]'::json)::text FROM {game} g WHERE g.match_id = m.id) "
        f"FROM {table} m WHERE m.id = %s FOR UPDATE"
    )
    converters = []
    for index, col in enumerate(fields):
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if found:
            converters.append((index, found))
    return sql, fields, converters


def write_finished(match: Match) -> None:
    """The same UPDATE as ``match.save(update_fields=...)`` for a match just marked done
    (status, finish time, progress, winner, result; lease and error cleared)."""
    params: list[Any] = [match.status, match.finished, match.progress, match.winner_seat, json.dumps(match.result),
                         "", "", match.pk]
    with prepared() as cursor:
        cursor.execute(
            f"UPDATE {Match._meta.db_table} SET status = %s, finished = %s, progress = %s, winner_seat = %s, "
            "result = %s::jsonb, lease_owner = %s, lease_expires = NULL, error = %s WHERE id = %s",
            params,
        )
