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


class Columns:
    """A model's columns in a hand-written SELECT, and its instances made from them.

    For the few reads of a hot path that join several tables and run far more often than
    their rows change (opening a live board): Django's query compiler costs more CPU there
    than the statement itself. ``Columns(User, "u").sql`` lists the model's concrete columns
    under the table alias ``u``; :meth:`make` turns that slice of a result row into an
    instance as Django's own queries do (the backend's and the fields' converters, then
    ``Model.from_db``), or None when the row has no such instance (a LEFT JOIN that found
    nothing: its primary key is NULL). Build one per process and reuse it.
    """

    def __init__(self, model, alias: str, using: str = "default") -> None:
        connection = connections[using]
        self.model, self.using = model, using
        fields = list(model._meta.concrete_fields)
        self.names = [f.attname for f in fields]
        self.width = len(fields)
        self.sql = ", ".join(f"{alias}.{connection.ops.quote_name(f.column)}" for f in fields)
        self._pk = next(i for i, f in enumerate(fields) if f.primary_key)
        self._compiler = model._base_manager.none().query.get_compiler(using)
        self._converters = self._compiler.get_converters([f.get_col(alias) for f in fields])

    def make(self, values):
        """The instance of ``values`` (this model's slice of a row, in ``sql``'s order)."""
        if values[self._pk] is None:
            return None
        if self._converters:
            values = next(iter(self._compiler.apply_converters([list(values)], self._converters)))
        return self.model.from_db(self.using, self.names, list(values))
