"""Prepared statements (web/sql.py): the hot statements of recording a result are
prepared once per PostgreSQL connection; Django's own queries never are, so a search is
always planned with its pattern; while queries are logged, statements are logged in full."""

from __future__ import annotations

import os

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from web.sql import prepared

pytestmark = pytest.mark.django_db


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def needs_postgres():
    """Prepared statements are PostgreSQL's: elsewhere skipped, but never under
    REQUIRE_SERVICES=1 (CI), where the suite must run on PostgreSQL."""
    if connection.vendor == "postgresql":
        return
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail("REQUIRE_SERVICES=1 and the test database is not PostgreSQL (set DATABASE_URL)", pytrace=False)
    pytest.skip("prepared statements are PostgreSQL's; set DATABASE_URL=postgres://... to run this")


def test_a_statement_run_through_prepared_is_prepared_once_and_answers_each_time():
    needs_postgres()
    answers = []
    for value in (1, 2, 3):
        with prepared() as cursor:
            cursor.execute("SELECT %s::int + 40", [value])
            answers.append(cursor.fetchone()[0])
    assert answers == [41, 42, 43]
    assert prepared_statements().count("SELECT $1::int + 40") == 1


def test_djangos_own_queries_are_never_prepared():
    needs_postgres()
    from django.contrib.auth.models import User

    with prepared() as cursor:  # turns preparation on for the connection
        cursor.execute("SELECT 1")
    for _ in range(10):
        list(User.objects.filter(username__icontains="someone"))
    assert not [s for s in prepared_statements() if "auth_user" in s]


def test_while_queries_are_logged_statements_are_logged_with_their_values_and_errors_are_djangos():
    from django.db import DatabaseError

    with CaptureQueriesContext(connection) as captured:
        with prepared() as cursor:
            cursor.execute("SELECT CAST(%s AS integer) + 1000", [7])
            assert cursor.fetchone()[0] == 1007
    assert len(captured.captured_queries) == 1 and "7" in captured.captured_queries[0]["sql"]
    with pytest.raises(DatabaseError), prepared() as cursor:
        cursor.execute("SELECT no_such_column FROM auth_user")
