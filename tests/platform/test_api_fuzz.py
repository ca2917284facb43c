"""A bounded fuzz run of the whole API against its own OpenAPI schema (issue 11).

Schemathesis reads ``/api/schema/`` and sends each operation a few generated requests,
valid and invalid, through the site's WSGI application on the test database, signed in
with a player's token so that writes are exercised too. No answer may be a 5xx, and every
answer must match the schema: a documented status, the documented content type and body.

Deterministic (Hypothesis derandomized: the same requests every run) and small enough to
finish in a couple of minutes here; ``FUZZ_EXAMPLES`` raises the number of examples per
operation for the longer run described in docs/testing.md. The suite's raised rate limits
(config/settings_test.py) keep the run from being throttled.
"""

from __future__ import annotations

import json
import os

import pytest
import schemathesis
from django.contrib.auth.models import User
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from engine import games

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
COVERAGE = os.environ.get("FUZZ_COVERAGE", "") == "1"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def served_schema():
    """The schema exactly as ``/api/schema/`` serves it, and the site's WSGI application.

    Built here rather than fetched: the module is imported before the test database
    exists, and a request now would open the development database.
    """
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    from config.wsgi import application

    document = json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))
    config = SchemathesisConfig.from_dict({
        "seed": 11,
        # Examples from the schema and generated cases; the coverage phase's exhaustive
        # boundary cases and stateful sequences belong to the longer run (docs/testing.md).
        "phases": {"coverage": {"enabled": COVERAGE}, "stateful": {"enabled": False}},
        "generation": {"max-examples": EXAMPLES, "deterministic": True},
    })
    loaded = schemathesis.openapi.from_dict(document, config=config)
    loaded.app = application
    return loaded


schema = served_schema()


@pytest.fixture
def same_connection():
    """Requests reuse the test's database connection, as Django's test client does: the
    WSGI handler would otherwise close it at the end of each request."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def player_token(db, same_connection) -> str:
    """A player with a deck of each game (so that list and detail answers have content)."""
    from decks.services import deck_register

    player = User.objects.create_user("fuzzer", password="fuzz-password-123")
    for game in ("tempofront", "conquest"):
        engine_game = games[game]
        text = list(engine_game.starter_decks().values())[0].to_text(engine_game.commander_label)
        deck_register(owner=player, game=game, name=f"fuzz {game}", decklist=text, pilot="greedy")
    return Token.objects.create(user=player).key


@schema.parametrize()
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck), print_blob=False)
def test_the_api_answers_every_generated_request_as_its_schema_says(case, player_token):
    case.call_and_validate(headers={"Authorization": f"Token {player_token}"}, checks=CHECKS)
