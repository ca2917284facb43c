"""Every API endpoint that honours an ``Idempotency-Key`` says so in the OpenAPI schema.

Which endpoints honour it is read from the code: a view method whose body calls
``web.idempotency.api_create_once`` stores and replays answers by the key. Each such
operation of ``/api/schema/`` must declare the optional header, with the one shared
description (``web.idempotency.IDEMPOTENCY_KEY``), so a client reading the schema knows
which creates are safe to send twice. An endpoint added later is checked too.
"""

from __future__ import annotations

import inspect

import pytest
from django.test import Client
from drf_spectacular.generators import EndpointEnumerator

from web.idempotency import HEADER, IDEMPOTENCY_KEY

pytestmark = pytest.mark.django_db


def honouring() -> set[tuple[str, str]]:
    """(path, method) of every API operation whose view method calls ``api_create_once``."""
    found = set()
    for path, _regex, method, callback in EndpointEnumerator().get_api_endpoints():
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        handler = getattr(view, method.lower(), None)
        if handler is not None and "api_create_once(" in inspect.getsource(handler):
            found.add((path, method.lower()))
    return found


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def test_the_creates_that_honour_the_key_are_found_in_the_code():
    found = honouring()
    for expected in [("/api/decks/", "post"), ("/api/matches/", "post"), ("/api/tournaments/", "post"),
                     ("/api/tournaments/{tournament_id}/entries/", "post"), ("/api/live/bot/", "post")]:
        assert expected in found, (expected, sorted(found))


def test_every_endpoint_that_honours_the_key_declares_it(schema):
    missing = []
    for path, method in sorted(honouring()):
        operation = schema["paths"][path][method]
        headers = [p for p in operation.get("parameters", []) if p["in"] == "header" and p["name"] == HEADER]
        if not headers:
            missing.append(f"{method.upper()} {path} ({operation.get('operationId')})")
            continue
        assert headers[0].get("required", False) is False, (path, method)
        assert headers[0]["description"] == IDEMPOTENCY_KEY.description, (path, method)
    assert missing == []


def test_no_endpoint_declares_the_key_without_honouring_it(schema):
    honoured = honouring()
    declared = {(path, method) for path, operations in schema["paths"].items() for method, operation in
                operations.items() if isinstance(operation, dict)
                and any(p["in"] == "header" and p["name"] == HEADER for p in operation.get("parameters", []))}
    assert declared - honoured == set()
