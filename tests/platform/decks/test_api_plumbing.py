"""The API's shared plumbing: the OpenAPI schema and docs, the one error shape, and the
starter decks loaded as demo data."""

from __future__ import annotations

import io

import pytest
import yaml
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.management import call_command
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from config.api import error_body, exception_handler, flatten_errors
from decks.demo import load_demo_data
from decks.models import Deck
from engine import games

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def test_schema_is_valid_openapi_and_lists_every_endpoint(api):
    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json() if response["Content-Type"].endswith("json") else yaml.safe_load(response.content)
    validate_schema(schema)  # raises on an invalid document
    assert schema["openapi"].startswith("3.")
    for path in (
        "/api/accounts/register/",
        "/api/accounts/token/",
        "/api/cards/",
        "/api/cards/{game}/{card_id}/",
        "/api/decks/",
        "/api/decks/{deck_id}/",
        "/api/decks/{deck_id}/versions/",
    ):
        assert path in schema["paths"], path
    assert {"tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])
    assert "Error" in schema["components"]["schemas"]
    create = schema["paths"]["/api/decks/"]["post"]
    assert "400" in create["responses"] and "403" in create["responses"]


def test_schema_management_command_validates_without_warnings():
    out = io.StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    assert "openapi" in out.getvalue()


def test_docs_pages_work_offline_from_our_own_static_files(api):
    docs = api.get("/api/docs/")
    assert docs.status_code == 200
    assert b"/static/drf_spectacular_sidecar/swagger-ui-dist/" in docs.content
    assert b"cdn.jsdelivr" not in docs.content
    redoc = api.get("/api/redoc/")
    assert redoc.status_code == 200
    assert b"/static/drf_spectacular_sidecar/redoc/" in redoc.content


def test_an_unknown_api_path_answers_in_the_error_shape(api):
    response = api.get("/api/no-such-thing/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "/api/no-such-thing/" in response.json()["error"]["message"]


def test_an_unknown_page_is_the_site_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_error_shape_of_a_service_validation_error():
    response = exception_handler(DjangoValidationError({"decklist": ["a", "b"], "name": ["c"]}), {})
    assert response.status_code == 400
    assert response.data == error_body(
        code="validation_error",
        message="Some fields are not valid: decklist, name.",
        fields={"decklist": ["a", "b"], "name": ["c"]},
    )


def test_error_shape_of_a_plain_validation_error():
    response = exception_handler(DjangoValidationError("the match is full"), {})
    assert response.data["error"]["message"] == "the match is full"
    assert response.data["error"]["fields"] == {"non_field_errors": ["the match is full"]}


def test_nested_errors_are_flattened_with_dotted_names():
    assert flatten_errors({"decks": [{}, {"id": ["unknown deck"]}], "best_of": ["must be 1, 3 or 5"]}) == {
        "decks.1.id": ["unknown deck"],
        "best_of": ["must be 1, 3 or 5"],
    }


def test_unexpected_exceptions_are_left_to_django():
    assert exception_handler(RuntimeError("boom"), {}) is None


def test_method_not_allowed_in_the_error_shape(api):
    response = api.delete("/api/cards/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_load_demo_registers_every_starter_deck_once():
    first: list[str] = []
    load_demo_data(log=first.append)
    second: list[str] = []
    load_demo_data(log=second.append)
    starters = Deck.objects.filter(is_starter=True, owner__username="starter")
    expected = {(game, name) for game in ("tempofront", "conquest") for name in games[game].starter_decks()}
    assert {(d.game, d.name) for d in starters} == expected
    assert all(d.versions.count() == 1 and d.pilot == "greedy" for d in starters)
    assert not starters.first().owner.has_usable_password()
    assert sum("registered starter deck" in line for line in first) == len(expected)
    assert all("already registered" in line for line in second)
