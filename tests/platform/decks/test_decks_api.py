"""The decks API: list, create, read, change, delete, versions; permissions and bad input.

Every error is checked in the one error shape: {"error": {"code", "message", "fields"}}.
"""

from __future__ import annotations

import json

import pytest
from deck_helpers import first_card, replace_line, starter_decklist, starter_text
from django.conf import settings

from decks.models import Deck, DeckVersion
from decks.services import deck_register
from engine import games

pytestmark = pytest.mark.django_db

DECKS = "/api/decks/"


def create_body(game: str = "conquest", **overrides) -> dict:
    body = {"game": game, "name": "Night Shift", "decklist": starter_text(game), "pilot": "greedy"}
    body.update(overrides)
    return body


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    return body["error"]


# --------------------------------------------------------------------------- create


@pytest.mark.parametrize("game", ["tempofront", "conquest"])
def test_create_deck_returns_201_with_version_1(alice_api, game):
    response = alice_api.post(DECKS, create_body(game), format="json")
    assert response.status_code == 201, response.content
    deck = response.json()
    assert deck["game"] == game
    assert deck["owner"] == "alice"
    assert deck["version"] == 1
    assert deck["pilot"] == "greedy"
    assert deck["commander"] == starter_decklist(game).commander
    assert deck["card_count"] == starter_decklist(game).size
    assert deck["url"] == f"/decks/{deck['id']}/"
    assert Deck.objects.get(pk=deck["id"]).latest_version.decklist == deck["decklist"]


def test_create_needs_authentication(anon_api):
    response = anon_api.post(DECKS, create_body(), format="json")
    error = assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Token")
    assert error["fields"] == {}
    assert Deck.objects.count() == 0


def test_bad_token_is_401(anon_api):
    anon_api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(anon_api.get(DECKS), 401, "authentication_failed")


def test_session_auth_works_with_the_csrf_token(alice):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    body = json.dumps(create_body())
    refused = browser.post(DECKS, data=body, content_type="application/json")
    assert "CSRF" in assert_error(refused, 403, "permission_denied")["message"]
    browser.get("/decks/new/")  # any form page sets the CSRF cookie
    response = browser.post(
        DECKS, data=body, content_type="application/json", HTTP_X_CSRFTOKEN=browser.cookies["csrftoken"].value
    )
    assert response.status_code == 201, response.content


def test_unknown_card_suggests_the_closest_name(alice_api):
    card, count = first_card("conquest")
    text = replace_line(starter_text("conquest"), card, f"{count} {card[:-1]}")
    error = assert_error(alice_api.post(DECKS, create_body(decklist=text), format="json"), 400, "validation_error")
    assert any(f"did you mean {card}?" in m for m in error["fields"]["decklist"]), error


def test_card_of_the_other_game_is_rejected(alice_api):
    tf_card, _ = first_card("tempofront")
    assert tf_card not in games["conquest"].card_names()
    card, count = first_card("conquest")
    text = replace_line(starter_text("conquest"), card, f"{count} {tf_card}")
    error = assert_error(alice_api.post(DECKS, create_body(decklist=text), format="json"), 400, "validation_error")
    assert f"unknown card '{tf_card}': that is a TempoFront card, not a Conquest one" in error["fields"]["decklist"]


def test_malformed_line_is_named_with_its_line_number(alice_api):
    text = starter_text("conquest") + "two of everything\n"
    error = assert_error(alice_api.post(DECKS, create_body(decklist=text), format="json"), 400, "validation_error")
    line_number = len(text.splitlines())
    assert any(f"line {line_number}" in m and "two of everything" in m for m in error["fields"]["decklist"])


def test_too_many_copies(alice_api):
    card, count = first_card("tempofront")
    limit = games["tempofront"].default_params()["max_copies"]
    text = replace_line(starter_text("tempofront"), card, f"{limit + 1} {card}")
    error = assert_error(
        alice_api.post(DECKS, create_body("tempofront", decklist=text), format="json"), 400, "validation_error"
    )
    assert any(f"{limit + 1} copies of {card}" in m for m in error["fields"]["decklist"]), error


def test_every_problem_of_every_field_at_once(alice_api):
    card, count = first_card("conquest")
    text = replace_line(starter_text("conquest"), card, f"{count} Nonexistent Thing") + "garbage line\n"
    body = create_body(name="   ", pilot="chess-engine", decklist=text)
    error = assert_error(alice_api.post(DECKS, body, format="json"), 400, "validation_error")
    assert set(error["fields"]) == {"name", "pilot", "decklist"}
    assert len(error["fields"]["decklist"]) >= 2
    assert "name" in error["message"] and "decklist" in error["message"]


def test_missing_fields_are_each_reported(alice_api):
    error = assert_error(alice_api.post(DECKS, {}, format="json"), 400, "validation_error")
    assert set(error["fields"]) == {"game", "name", "decklist", "pilot"}
    assert all(messages for messages in error["fields"].values())


def test_missing_fields_next_to_deck_problems(alice_api):
    body = {"game": "conquest", "decklist": "3 Nonexistent Thing\n"}
    error = assert_error(alice_api.post(DECKS, body, format="json"), 400, "validation_error")
    assert {"name", "pilot", "decklist"} <= set(error["fields"])
    assert any("Nonexistent Thing" in m for m in error["fields"]["decklist"])


def test_unknown_game(alice_api):
    response = alice_api.post(DECKS, {**create_body(), "game": "chess"}, format="json")
    error = assert_error(response, 400, "validation_error")
    assert "game" in error["fields"]


def test_wrong_type_for_a_field(alice_api):
    error = assert_error(
        alice_api.post(DECKS, create_body(decklist=["3 Hush"]), format="json"), 400, "validation_error"
    )
    assert "decklist" in error["fields"]


def test_wrong_content_type_is_415(alice_api):
    response = alice_api.post(DECKS, data="game=conquest", content_type="text/plain")
    error = assert_error(response, 415, "unsupported_media_type")
    assert "text/plain" in error["message"]


def test_malformed_json_is_400(alice_api):
    response = alice_api.post(DECKS, data='{"game": "conquest",', content_type="application/json")
    assert_error(response, 400, "parse_error")


def test_oversize_body_is_413(alice_api):
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = create_body(decklist=starter_text("conquest") + "#" * (limit + 10))
    response = alice_api.post(DECKS, body, format="json")
    error = assert_error(response, 413, "payload_too_large")
    assert str(limit) in error["message"]
    assert Deck.objects.count() == 0


def test_oversize_form_body_is_413(alice_api):
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = alice_api.post(DECKS, {"game": "conquest", "decklist": "x" * (limit + 10)}, format="multipart")
    assert_error(response, 413, "payload_too_large")


def test_form_encoded_body_is_accepted(alice_api):
    from urllib.parse import urlencode

    response = alice_api.post(DECKS, urlencode(create_body()), content_type="application/x-www-form-urlencoded")
    assert response.status_code == 201, response.content
    deck = Deck.objects.get(pk=response.json()["id"])
    assert (deck.name, deck.game, deck.pilot) == ("Night Shift", "conquest", "greedy")
    assert deck.latest_version.decklist.split() == starter_text("conquest").split()


# --------------------------------------------------------------------------- read and list


def make(owner, game="conquest", name="deck", index=0):
    return deck_register(owner=owner, game=game, name=name, decklist=starter_text(game, index), pilot="greedy")


def test_anyone_reads_a_deck(alice, anon_api):
    deck = make(alice)
    response = anon_api.get(f"{DECKS}{deck.pk}/")
    assert response.status_code == 200
    assert response.json()["name"] == "deck"


def test_unknown_deck_is_404_in_the_error_shape(anon_api):
    assert_error(anon_api.get(f"{DECKS}999999/"), 404, "not_found")


def test_list_filters_by_game_owner_and_query(alice, bob, anon_api):
    make(alice, "conquest", "Alpha")
    make(alice, "tempofront", "Beta")
    make(bob, "conquest", "Gamma")
    names = lambda params: sorted(d["name"] for d in anon_api.get(DECKS, params).json()["results"])  # noqa: E731
    assert names({}) == ["Alpha", "Beta", "Gamma"]
    assert names({"game": "conquest"}) == ["Alpha", "Gamma"]
    assert names({"owner": "alice"}) == ["Alpha", "Beta"]
    assert names({"owner": "alice", "game": "conquest"}) == ["Alpha"]
    assert names({"q": "gam"}) == ["Gamma"]
    assert names({"q": "bob"}) == ["Gamma"]
    assert_error(anon_api.get(DECKS, {"game": "chess"}), 400, "validation_error")


def test_list_is_paginated_20_a_page_and_page_size_up_to_100(alice, anon_api):
    for i in range(23):
        DeckVersion.objects.create(
            deck=Deck.objects.create(owner=alice, game="conquest", name=f"d{i}", pilot="greedy"),
            number=1, decklist=starter_text("conquest"), commander="x", pilot="greedy",
        )
    first = anon_api.get(DECKS).json()
    assert first["count"] == 23
    assert len(first["results"]) == 20
    assert first["next"] and first["previous"] is None
    second = anon_api.get(first["next"]).json()
    assert len(second["results"]) == 3 and second["next"] is None
    assert len(anon_api.get(DECKS, {"page_size": 5}).json()["results"]) == 5
    assert len(anon_api.get(DECKS, {"page_size": 1000}).json()["results"]) == 23
    assert_error(anon_api.get(DECKS, {"page": 9}), 404, "not_found")


# --------------------------------------------------------------------------- change and delete


def test_owner_patch_of_cards_makes_version_2_and_keeps_version_1(alice, alice_api):
    deck = make(alice, "conquest")
    v1_text = deck.latest_version.decklist
    response = alice_api.patch(f"{DECKS}{deck.pk}/", {"decklist": starter_text("conquest", 1)}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["version"] == 2
    assert DeckVersion.objects.get(deck=deck, number=1).decklist == v1_text
    versions = alice_api.get(f"{DECKS}{deck.pk}/versions/").json()
    assert [v["number"] for v in versions["results"]] == [2, 1]
    assert versions["results"][1]["decklist"] == v1_text


def test_owner_patch_of_name_only_keeps_the_version(alice, alice_api):
    deck = make(alice)
    response = alice_api.patch(f"{DECKS}{deck.pk}/", {"name": "Renamed"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "Renamed" and response.json()["version"] == 1


def test_put_needs_every_field_but_game(alice, alice_api):
    deck = make(alice)
    error = assert_error(alice_api.put(f"{DECKS}{deck.pk}/", {"name": "x"}, format="json"), 400, "validation_error")
    assert set(error["fields"]) == {"decklist", "pilot"}
    body = {"name": "x", "decklist": starter_text("conquest"), "pilot": "random"}
    response = alice_api.put(f"{DECKS}{deck.pk}/", body, format="json")
    assert response.status_code == 200 and response.json()["version"] == 2


def test_game_cannot_change(alice, alice_api):
    deck = make(alice)
    error = assert_error(
        alice_api.patch(f"{DECKS}{deck.pk}/", {"game": "tempofront"}, format="json"), 400, "validation_error"
    )
    assert "game" in error["fields"]


def test_patch_with_a_bad_decklist_changes_nothing(alice, alice_api):
    deck = make(alice)
    error = assert_error(
        alice_api.patch(f"{DECKS}{deck.pk}/", {"decklist": "1 Nothing Real", "pilot": "nobody"}, format="json"),
        400,
        "validation_error",
    )
    assert {"decklist", "pilot"} <= set(error["fields"])
    assert deck.versions.count() == 1


@pytest.mark.parametrize("method", ["patch", "put", "delete"])
def test_nobody_changes_or_deletes_another_players_deck(alice, bob_api, method):
    deck = make(alice)
    body = {"name": "mine now", "decklist": starter_text("conquest", 1), "pilot": "random"}
    response = getattr(bob_api, method)(f"{DECKS}{deck.pk}/", body, format="json")
    error = assert_error(response, 403, "permission_denied")
    assert "owner" in error["message"]
    deck.refresh_from_db()
    assert deck.name == "deck" and not deck.archived and deck.versions.count() == 1


@pytest.mark.parametrize("method", ["patch", "put", "delete"])
def test_anonymous_changes_are_401(alice, anon_api, method):
    deck = make(alice)
    assert_error(getattr(anon_api, method)(f"{DECKS}{deck.pk}/", {"name": "x"}, format="json"), 401,
                 "not_authenticated")


def test_owner_deletes_deck_versions_stay(alice, alice_api, anon_api):
    deck = make(alice)
    assert alice_api.delete(f"{DECKS}{deck.pk}/").status_code == 204
    assert_error(anon_api.get(f"{DECKS}{deck.pk}/"), 404, "not_found")
    assert anon_api.get(DECKS).json()["count"] == 0
    assert [v["number"] for v in anon_api.get(f"{DECKS}{deck.pk}/versions/").json()["results"]] == [1]
    assert_error(alice_api.patch(f"{DECKS}{deck.pk}/", {"name": "back"}, format="json"), 404, "not_found")


def test_versions_of_unknown_deck_is_404(anon_api):
    assert_error(anon_api.get(f"{DECKS}424242/versions/"), 404, "not_found")
