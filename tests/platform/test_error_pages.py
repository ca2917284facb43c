"""Styled error pages for people, the error shape for the API (issue 11), the schema's
documented statuses, and the published docs the API docs link to."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import RequestFactory
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine import games


def starter_text(game: str) -> str:
    engine_game = games[game]
    return list(engine_game.starter_decks().values())[0].to_text(engine_game.commander_label)


@pytest.fixture
def alices_deck(db):
    from decks.services import deck_register

    alice = User.objects.create_user("alice-pages", password="pw-alice-123")
    return deck_register(owner=alice, game="tempofront", name="Alice's", decklist=starter_text("tempofront"),
                         pilot="greedy")


def assert_styled(response, status: int, heading: str) -> str:
    assert response.status_code == status
    page = response.content.decode()
    assert heading in page
    assert 'class="site-header"' in page and "css/site.css" in page  # the site's page, not a bare one
    return page


def test_editing_another_players_deck_shows_the_styled_403_page(client, alices_deck):
    bob = User.objects.create_user("bob-pages", password="pw-bob-123")
    client.force_login(bob)
    page = assert_styled(client.get(f"/decks/{alices_deck.pk}/edit/"), 403, "This move is not yours to make.")
    assert "Only the owner of a deck can edit it." in page
    response = client.post(f"/decks/{alices_deck.pk}/edit/", {"name": "mine now"})
    assert_styled(response, 403, "This move is not yours to make.")
    alices_deck.refresh_from_db()
    assert alices_deck.name == "Alice's"


def test_the_api_keeps_its_error_shape_for_403(alices_deck):
    bob = User.objects.create_user("bob-api", password="pw-bob-123")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=bob).key}")
    response = api.patch(f"/api/decks/{alices_deck.pk}/", {"name": "mine"}, format="json")
    assert response.status_code == 403 and response.json()["error"]["code"] == "permission_denied"


@pytest.mark.django_db
def test_the_404_page_stays_styled_and_the_api_404_is_json(client):
    assert_styled(client.get("/no/such/page/"), 404, "This page is not in the deck.")
    response = client.get("/api/no/such/endpoint/")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_the_500_page_is_styled_and_the_api_500_is_json():
    from web.errors import server_error

    request = RequestFactory().get("/decks/")
    assert_styled(server_error(request), 500, "Something broke on our side.")
    response = server_error(RequestFactory().get("/api/decks/"))
    assert response.status_code == 500 and b'"code": "server_error"' in response.content


def test_the_500_page_has_a_plain_copy_when_the_styled_one_cannot_render(monkeypatch):
    from web import errors

    def broken(*args, **kwargs):
        raise RuntimeError("database down")

    monkeypatch.setattr(errors, "render_to_string", broken)
    response = errors.server_error(RequestFactory().get("/decks/"))
    assert response.status_code == 500 and b"Something broke on our side." in response.content


@pytest.mark.django_db
def test_an_unexpected_error_in_a_page_renders_the_styled_500(client, monkeypatch):
    from web import views

    def boom(*args, **kwargs):
        raise RuntimeError("unexpected")

    monkeypatch.setattr(views, "render", boom)
    client.raise_request_exception = False
    assert_styled(client.get("/"), 500, "Something broke on our side.")


# --------------------------------------------------------------------------- schema and docs


@pytest.fixture(scope="module")
def openapi() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def test_every_write_documents_its_error_statuses(openapi):
    """Issue 11 counted 9 kinds of undocumented status; every write now lists the ones the
    shared plumbing can answer, in the error shape."""
    for path, operations in openapi["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert "400" in responses, (method, path)
            if method in ("post", "put", "patch") and path.startswith("/api/decks/"):
                assert {"400", "401", "403", "413", "415", "429"} <= set(responses), (method, path)
            if "{" in path:
                assert "404" in responses, (method, path)
            if "400" in responses and "content" in responses["400"]:
                schema = responses["400"]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Error"}, (method, path)
    token = openapi["paths"]["/api/accounts/token/"]["post"]["responses"]
    assert {"400", "401", "429"} <= set(token)


def test_the_api_description_links_the_published_docs(openapi, client):
    description = openapi["info"]["description"]
    assert "(/docs/api.md)" in description and "(/docs/security.md)" in description
    for url in ("/docs/api.md", "/docs/security.md"):
        response = client.get(url)
        assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    assert client.get("/docs/no-such-doc.md").status_code == 404
