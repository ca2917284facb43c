"""The hand-written statements of a live match: the match and its seats read on every move
and every board opened, with the seats' users and decks kept per process, and a move's write.

:func:`live_read` reads (and, for a move, locks) the live match row and its seats in written-out
SQL (``web.sql.Columns``); :func:`locked_active` is the lock every write of a running match
starts with; :func:`write_move` writes what a move changed, in one statement on PostgreSQL.
The other reads of the app (lobby, pages, views) are in ``live.selectors``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from decks.models import Deck, DeckVersion
from live import engine_state
from live.errors import LiveError
from live.models import LiveMatch, LiveSeat
from matches.models import Match
from web.sql import Columns, prepared


def locked_active(match_id: int) -> tuple[LiveMatch, list[LiveSeat]]:
    """The live match ``match_id`` and its seats, its row locked, for a write; raises
    :class:`LiveError` for a match that does not exist or is over.

    Only the live match row is locked (the Match row is read lazily when a state must be
    rebuilt, and locked by whoever finishes the match)."""
    found = live_read(match_id=match_id, lock=True)
    if found is None:
        raise LiveError("not_found", f"there is no live match {match_id}", status=404)
    live, rows = found
    if live.is_over:
        raise LiveError("finished", "the match is over")
    return live, rows


def live_read(*, match_id: int, lock: bool = False) -> tuple[LiveMatch, list[LiveSeat]] | None:
    """The live match ``match_id`` and its seats (each with its user and deck version), or
    None; ``lock`` locks the live match row.

    Written out (``web.sql.Columns``): this runs on every move and every board opened, and
    building it with the query compiler cost more than running it; the seats' users and
    decks are kept per process. A read is one statement (the match joined to its seats). A
    locked read is two, the seats read after the lock is held: a statement that waited for
    the lock sees the locked row as it was committed, but its other rows as they were when
    it began, and the clocks must be the ones the last move wrote. Both are prepared on
    PostgreSQL (``web.sql.prepared``): they vary only in the match's key."""
    quote = connection.ops.quote_name
    live_columns, seat_columns = _live_columns()
    by_match = f"l.{quote(LiveMatch._meta.get_field('match').column)} = %s"
    seat_live = f"s.{quote(LiveSeat._meta.get_field('live').column)}"
    seat_order = f"s.{quote(LiveSeat._meta.get_field('seat').column)}"
    with prepared() as cursor:
        if lock:
            lock_sql = " FOR UPDATE" if connection.features.has_select_for_update else ""
            cursor.execute(f"SELECT {live_columns.sql} FROM {quote(LiveMatch._meta.db_table)} l "
                           f"WHERE {by_match}{lock_sql}", [match_id])
            found = cursor.fetchone()
            if found is None:
                return None
            live = live_columns.make(found)
            cursor.execute(f"SELECT {seat_columns.sql} FROM {quote(LiveSeat._meta.db_table)} s "
                           f"WHERE {seat_live} = %s ORDER BY {seat_order}", [live.pk])
            rows = [seat_columns.make(values) for values in cursor.fetchall()]
        else:
            cursor.execute(f"SELECT {live_columns.sql}, {seat_columns.sql} FROM {quote(LiveMatch._meta.db_table)} l "
                           f"LEFT JOIN {quote(LiveSeat._meta.db_table)} s ON {seat_live} = "
                           f"l.{quote(LiveMatch._meta.pk.column)} WHERE {by_match} ORDER BY {seat_order}", [match_id])
            found = cursor.fetchall()
            if not found:
                return None
            width = live_columns.width
            live = live_columns.make(found[0][:width])
            rows = [row for row in (seat_columns.make(values[width:]) for values in found) if row is not None]
    attach_seat_details(live, rows)
    return live, rows


#: The clock fields of a seat a move may change (``live.clock.clock_fields``), in that order.
SEAT_CLOCK_FIELDS = ("remaining_ms", "running_since", "timed_out_at")
_move_statements: dict[tuple, list[str]] = {}


def write_move(live: LiveMatch, fields: list[str], seats: list[LiveSeat]) -> None:
    """Write a move: ``fields`` of the live match row and the clock of each of ``seats``
    (those whose clock changed, ``SEAT_CLOCK_FIELDS``).

    Runs on every move, so the statements are written out and built once per process and
    shape, as the reads above; Django's query compiler and its ``save`` cost more than
    the statements. On PostgreSQL it is one prepared statement (the seats' UPDATE in a
    ``WITH`` of the match's UPDATE: PostgreSQL runs a data-modifying ``WITH`` to its end
    whether or not the outer statement reads it); on SQLite, which has none, one UPDATE
    per row. Values go through each field's own ``get_db_prep_save``, as Django's ``save``
    sends them."""
    vendor = connection.vendor
    statements = _move_statements.get((vendor, tuple(fields), len(seats)))
    if statements is None:
        statements = _move_statements[(vendor, tuple(fields), len(seats))] = _move_sql(vendor, fields, len(seats))
    live_values = [_db_value(live, name) for name in fields] + [live.pk]
    seat_values = [[_db_value(row, name) for name in SEAT_CLOCK_FIELDS] + [row.pk] for row in seats]
    with prepared() as cursor:
        if len(statements) == 1:
            cursor.execute(statements[0], [value for values in seat_values for value in values] + live_values)
        else:
            cursor.execute(statements[0], live_values)
            for statement, values in zip(statements[1:], seat_values, strict=True):
                cursor.execute(statement, values)


def _db_value(instance, name: str):
    field = instance._meta.get_field(name)
    return field.get_db_prep_save(getattr(instance, field.attname), connection)


def _move_sql(vendor: str, fields: list[str], seats: int) -> list[str]:
    quote = connection.ops.quote_name
    live_field, seat_field = LiveMatch._meta.get_field, LiveSeat._meta.get_field
    live_pk, seat_pk = LiveMatch._meta.pk, LiveSeat._meta.pk
    postgres = vendor == "postgresql"

    def cast(field) -> str:
        return f"%s::{field.db_type(connection)}" if postgres else "%s"

    live_update = (f"UPDATE {quote(LiveMatch._meta.db_table)} SET "
                   f"{', '.join(f'{quote(live_field(name).column)} = {cast(live_field(name))}' for name in fields)} "
                   f"WHERE {quote(live_pk.column)} = {cast(live_pk)}")
    clock = [seat_field(name) for name in SEAT_CLOCK_FIELDS]
    if postgres and seats:
        row = f"({', '.join(cast(field) for field in [*clock, seat_pk])})"
        names = [f"c{i}" for i in range(len(clock))]
        return [f"WITH clocks AS (UPDATE {quote(LiveSeat._meta.db_table)} s SET "
                f"{', '.join(f'{quote(field.column)} = v.{name}' for field, name in zip(clock, names, strict=True))} "
                f"FROM (VALUES {', '.join([row] * seats)}) AS v({', '.join(names)}, k) "
                f"WHERE s.{quote(seat_pk.column)} = v.k RETURNING 1) {live_update}"]
    seat_update = (f"UPDATE {quote(LiveSeat._meta.db_table)} SET "
                   f"{', '.join(f'{quote(field.column)} = %s' for field in clock)} WHERE {quote(seat_pk.column)} = %s")
    return [live_update] + [seat_update] * seats


_columns: tuple[Columns, Columns] | None = None


def _live_columns() -> tuple[Columns, Columns]:
    global _columns
    if _columns is None:
        _columns = (Columns(LiveMatch, "l"), Columns(LiveSeat, "s"))
    return _columns


#: Per process: the user and deck version of every seat of recent matches (they never
#: change once a match is created), so that a move reads its seats' clocks without joins.
_seat_details: OrderedDict[int, dict[int, tuple[Any, DeckVersion]]] = OrderedDict()
_seat_details_lock = threading.Lock()
_details_query: tuple[str, list[Columns]] | None = None


def _seat_details_sql() -> tuple[str, list[Columns]]:
    """One statement for every seat of a live match: its number, the match, the user (none
    for a bot), the deck version and its deck; built once per process."""
    global _details_query
    if _details_query is None:
        User = get_user_model()
        quote = connection.ops.quote_name
        columns = [Columns(Match, "m"), Columns(User, "u"), Columns(DeckVersion, "v"), Columns(Deck, "d")]

        def table(model, alias: str) -> str:
            return f"{quote(model._meta.db_table)} {alias}"

        def pk(alias: str, model) -> str:
            return f"{alias}.{quote(model._meta.pk.column)}"

        seat_field = LiveSeat._meta.get_field
        _details_query = (
            f"SELECT s.{quote(seat_field('seat').column)}, {', '.join(c.sql for c in columns)} "
            f"FROM {table(LiveSeat, 's')} "
            f"JOIN {table(LiveMatch, 'l')} ON {pk('l', LiveMatch)} = s.{quote(seat_field('live').column)} "
            f"JOIN {table(Match, 'm')} ON {pk('m', Match)} = l.{quote(LiveMatch._meta.get_field('match').column)} "
            f"LEFT JOIN {table(User, 'u')} ON {pk('u', User)} = s.{quote(seat_field('user').column)} "
            f"JOIN {table(DeckVersion, 'v')} ON {pk('v', DeckVersion)} = s.{quote(seat_field('deck_version').column)} "
            f"JOIN {table(Deck, 'd')} ON {pk('d', Deck)} = v.{quote(DeckVersion._meta.get_field('deck').column)} "
            f"WHERE s.{quote(seat_field('live').column)} = %s",
            columns,
        )
    return _details_query


def _read_seat_details(live: LiveMatch) -> dict[int, tuple[Any, DeckVersion]]:
    """Every seat's user and deck version, in one statement; keeps the match's opening
    (``engine_state.keep_opening``) dealt from the decks it read."""
    sql, columns = _seat_details_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [live.pk])
        found = cursor.fetchall()
    details: dict[int, tuple[Any, DeckVersion]] = {}
    match = None
    for row in found:
        at, made = 1, []
        for part in columns:
            made.append(part.make(row[at:at + part.width]))
            at += part.width
        match, user, version, deck = made
        version.deck = deck
        details[row[0]] = (user, version)
    if match is not None:
        engine_state.keep_opening(live, match, [details[seat][1].to_engine() for seat in sorted(details)])
    return details


def attach_seat_details(live: LiveMatch, rows: list[LiveSeat]) -> None:
    """Set every row's deck version, and its user for a person's seat, from the per-process
    cache (read in one statement when the match is not in it, or its seats changed)."""
    with _seat_details_lock:
        details = _seat_details.get(live.pk)
        if details is not None:
            _seat_details.move_to_end(live.pk)
    # Checked against the rows: a match's id used again (SQLite, after a rollback) is read anew.
    if details is None or any(r.seat not in details or details[r.seat][1].pk != r.deck_version_id
                              or getattr(details[r.seat][0], "pk", None) != r.user_id for r in rows):
        details = _read_seat_details(live)
        with _seat_details_lock:
            _seat_details[live.pk] = details
            while len(_seat_details) > engine_state.CACHE_SIZE:
                _seat_details.popitem(last=False)
    for row in rows:
        user, deck_version = details[row.seat]
        if row.user_id is not None:
            row.user = user
        row.deck_version = deck_version
