"""A bounded fuzz run of the whole API against its own OpenAPI schema (issues 11 and 27).

Schemathesis reads ``/api/schema/`` and sends each operation generated requests through
the site's WSGI application on the test database, signed in with a player's token so that
the writes (POST, PUT, PATCH, DELETE) are exercised as well as the reads, with the rate
limits off for the run. Two phases run: the schema's boundary cases (the coverage phase:
each parameter at and past its declared bounds, of the wrong type, missing, repeated) and
a few generated cases per operation. Every answer must:

- never be a 5xx;
- have a documented status, content type and body (``created_by`` of a match the platform
  made is null, so the fixture makes one);
- refuse a request the schema calls invalid (a ``page_size`` of ``null``, an entry id past
  its declared maximum): the schema declares no bound the server does not enforce;
- accept a request the schema calls valid, on the operations whose only 400s are the
  declared bounds (every operation without a request body: lists, details, the replay
  pages, dropping an entry). A body can be refused for reasons no schema states (a
  decklist's cards, a password's strength, settings that must agree with each other), so
  operations with a body are not held to this one, nor the few operations whose
  parameters depend on each other (``DEPENDENT_PARAMETERS``).

Deterministic (the same requests every run) and about half a minute here;
``FUZZ_EXAMPLES`` raises the number of generated cases per operation for the longer run
described in docs/testing.md.
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
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from engine import games

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          negative_data_rejection]
#: Operations without a body whose parameters depend on each other in a way OpenAPI 3.0
#: cannot state, so a request valid for each parameter alone may be refused (400).
DEPENDENT_PARAMETERS = {
    ("GET", "/api/cards/"): "type must be one of the chosen game's card types (type=tactic&game=conquest is a 400)",
}


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
        "seed": 27,
        # Stateful sequences (create, then read what was created) belong to the longer run.
        "phases": {"coverage": {"enabled": True}, "stateful": {"enabled": False}},
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
def no_rate_limits(settings):
    """Every rate limit off: the run makes thousands of requests as one player from one address."""
    settings.THROTTLE_RATES = {scope: None for scope in settings.THROTTLE_RATES}


@pytest.fixture
def player_token(db, same_connection, no_rate_limits) -> str:
    """A player with a deck of each game (so that list and detail answers have content), a
    match the platform made (no ``created_by``) and an open event with an entry."""
    from datetime import timedelta

    from django.utils import timezone

    from decks.services import deck_register
    from matches.models import Match
    from matches.services import match_challenge
    from tournaments.services import tournament_create, tournament_enter

    player = User.objects.create_user("fuzzer", password="fuzz-password-123")
    decks = []
    for game in ("tempofront", "conquest"):
        engine_game = games[game]
        text = list(engine_game.starter_decks().values())[0].to_text(engine_game.commander_label)
        decks.append(deck_register(owner=player, game=game, name=f"fuzz {game}", decklist=text, pilot="greedy"))
    made = match_challenge(created_by=player, deck_versions=[decks[0].latest_version] * 2, best_of=1)
    Match.objects.filter(pk=made.pk).update(created_by=None)
    event = tournament_create(organiser=player, game="tempofront", name="Fuzz cup",
                              starts_at=timezone.now() + timedelta(days=1))
    tournament_enter(tournament_id=event.pk, player=player, deck_id=decks[0].pk)
    return Token.objects.create(user=player).key


@schema.parametrize()
@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck), print_blob=False)
def test_the_api_answers_every_generated_request_as_its_schema_says(case, player_token):
    checks = list(CHECKS)
    if not case.operation.body and (case.operation.method.upper(), case.operation.path) not in DEPENDENT_PARAMETERS:
        checks.append(positive_data_acceptance)
    case.call_and_validate(headers={"Authorization": f"Token {player_token}"}, checks=checks)
