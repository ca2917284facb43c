"""Statements that run again and again, prepared once per connection on PostgreSQL.

Django quotes parameters into the SQL text (client-side binding), so PostgreSQL parses
and plans every statement anew. For the few statements of a hot path that have one
shape and vary only in their values (a worker recording a result and its rating
update), :func:`prepared` binds the parameters on the server and prepares the statement
on the connection's first use: later runs skip parsing and planning. Those statements
look rows up by key, so the generic plan PostgreSQL may settle on is the right one.

Everything else stays on Django's client-side binding on purpose: with prepared
statements, PostgreSQL may switch a statement to a generic plan after five runs, and a
search such as ``name ILIKE %s`` planned without its pattern stops using its trigram
index (measured: a leaderboard search's p95 went from 39 ms to 304 ms).

Statements go through Django's cursor wrapper, so their errors are Django's. While
queries are logged (DEBUG on, ``assertNumQueries``, ``CaptureQueriesContext``) and on
other databases (SQLite for ``make run``), :func:`prepared` is Django's ordinary cursor.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections
from django.db.backends.utils import CursorWrapper

try:
    import psycopg
except ImportError:  # pragma: no cover - PostgreSQL's driver is a dependency; SQLite needs none
    psycopg = None


if psycopg is not None:

    class _PreparingCursor(psycopg.Cursor):
        """A server-side binding cursor whose every statement is prepared."""

        def execute(self, query, params=None, *, prepare=None, binary=None):
            return super().execute(query, params, prepare=True, binary=binary)


@contextmanager
def prepared(using: str = "default") -> Iterator[CursorWrapper]:
    """A cursor of connection ``using`` whose statements are prepared on PostgreSQL.

    Write the SQL with ``%s`` placeholders as for Django's cursor; give a placeholder a
    cast (``%s::jsonb``) where PostgreSQL cannot tell its type from the context.
    """
    connection = connections[using]
    # While queries are logged (DEBUG, CaptureQueriesContext), Django's own cursor: its log
    # reads the SQL text a client-side binding cursor sends, which a prepared one has not.
    if connection.vendor != "postgresql" or psycopg is None or connection.queries_logged:
        with connection.cursor() as cursor:
            yield cursor
        return
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:
        # Django opens connections with preparation off (None); a number turns it on for
        # server-side binding cursors only. Django's own cursors bind on the client and
        # never prepare, so this changes nothing but the statements run here.
        raw.prepare_threshold = 0
    # BaseDatabaseWrapper.cursor() does the same with the backend's own cursor class:
    # thread check, then the debug or plain wrapper (query logging, error translation).
    wrapper = connection._prepare_cursor(_PreparingCursor(raw))
    with wrapper as cursor:
        yield cursor
