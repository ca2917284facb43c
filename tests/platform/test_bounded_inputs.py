"""Bounded inputs (issue 11): nothing a user sends gives a 500 or crashes a socket.

Each case used to answer 500 (or close the socket with a server error): JSON nested
1,000 deep, a NUL byte in a query parameter or a path parameter (PostgreSQL refuses NUL
in text), a card count thousands of digits long, and a deck change whose body is not a
JSON object. Each now answers a 4xx in the API's error shape, or the styled 400 page.
Run them against PostgreSQL (``DATABASE_URL``) to see the NUL cases as they were.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from websockets.sync.client import connect

from engine import games

DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000


def starter_text(game: str) -> str:
    engine_game = games[game]
    return list(engine_game.starter_decks().values())[0].to_text(engine_game.commander_label)


def lenient(client):
    """The client answers a 500 as a response instead of raising the server's exception."""
    client.raise_request_exception = False
    return client


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice-bounds", password="pw-alice-123")


@pytest.fixture
def alice_api(alice) -> APIClient:
    token, _ = Token.objects.get_or_create(user=alice)
    client = lenient(APIClient())
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def anon_api() -> APIClient:
    return lenient(APIClient())


def assert_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) == {"code", "message", "fields"} and error["message"]
    if code:
        assert error["code"] == code
    return error


# --------------------------------------------------------------------------- JSON nesting


@pytest.mark.django_db
@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT], ids=["array", "object"])
def test_json_nested_a_thousand_deep_is_a_400_even_anonymously_on_register(anon_api, body):
    error = assert_error(
        anon_api.post("/api/accounts/register/", body, content_type="application/json"), 400, "parse_error"
    )
    assert "nested more than 20 levels" in error["message"]
    assert not User.objects.exists()


@pytest.mark.django_db
def test_json_nested_deep_is_refused_on_every_api_body(alice_api):
    assert_error(alice_api.post("/api/decks/", DEEP, content_type="application/json"), 400, "parse_error")
    assert_error(alice_api.post("/api/matches/", DEEP_OBJECT, content_type="application/json"), 400, "parse_error")


@pytest.mark.django_db
def test_brackets_inside_strings_do_not_count_as_nesting(anon_api):
    """Only real nesting is refused: a name full of brackets is just text."""
    body = json.dumps({"username": "[" * 200 + "{" * 200, "password": "x"})
    error = assert_error(anon_api.post("/api/accounts/register/", body, content_type="application/json"), 400)
    assert error["code"] == "validation_error"


# --------------------------------------------------------------------------- NUL bytes


NUL_API = ["/api/decks/?q=a%00b", "/api/decks/?owner=al%00ice", "/api/matches/?player=al%00ice",
           "/api/cards/?q=dr%00ake", "/api/decks/?q%00=x"]
NUL_PAGES = ["/decks/?q=a%00b", "/decks/?owner=al%00ice", "/matches/?player=al%00ice", "/players/al%00ice/",
             "/cards/?q=dr%00ake"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", NUL_API)
def test_a_nul_byte_in_an_api_query_is_a_400_in_the_error_shape(anon_api, url):
    error = assert_error(anon_api.get(url), 400, "bad_request")
    assert "NUL" in error["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", NUL_PAGES)
def test_a_nul_byte_in_a_page_address_is_the_styled_400_page(client, url):
    client.raise_request_exception = False
    response = client.get(url)
    assert response.status_code == 400
    page = response.content.decode()
    assert "That request could not be read." in page and "NUL" in page
    assert 'class="site-header"' in page  # the site's own page, not Django's bare one


@pytest.mark.django_db
def test_a_nul_byte_in_a_player_name_of_the_api_path_is_a_400(anon_api):
    assert_error(anon_api.get("/api/matches/?player=%00"), 400, "bad_request")
    assert_error(anon_api.get("/api/cards/tempofront/dr%00ake/"), 400, "bad_request")


# --------------------------------------------------------------------------- decklists and deck bodies


@pytest.mark.django_db
def test_a_card_count_of_five_thousand_digits_is_a_400_naming_the_line(alice_api):
    lines = starter_text("tempofront").splitlines()
    card = lines[1].split(" ", 1)[1]
    lines[1] = f"{'9' * 5000} {card}"
    response = alice_api.post(
        "/api/decks/", {"game": "tempofront", "name": "huge", "decklist": "\n".join(lines), "pilot": "greedy"},
        format="json",
    )
    error = assert_error(response, 400, "validation_error")
    assert any("line 2" in m and "at most 3 digits" in m for m in error["fields"]["decklist"])


@pytest.mark.django_db
def test_the_deck_builder_page_refuses_a_huge_count_too(client, alice):
    client.raise_request_exception = False
    client.force_login(alice)
    lines = starter_text("conquest").splitlines()
    lines[1] = f"{'7' * 5000} {lines[1].split(' ', 1)[1]}"
    response = client.post("/decks/new/", {"game": "conquest", "name": "huge", "decklist": "\n".join(lines),
                                           "pilot": "greedy"})
    assert response.status_code in (200, 400)
    assert "at most 3 digits" in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["patch", "put"])
@pytest.mark.parametrize("body", ["null", "true", "3", "[]"])
def test_a_deck_change_whose_body_is_not_an_object_is_a_400(alice_api, method, body):
    created = alice_api.post(
        "/api/decks/", {"game": "tempofront", "name": "mine", "decklist": starter_text("tempofront"),
                        "pilot": "greedy"}, format="json",
    )
    assert created.status_code == 201
    url = f"/api/decks/{created.json()['id']}/"
    error = assert_error(getattr(alice_api, method)(url, body, content_type="application/json"), 400)
    assert "JSON object" in error["message"]
    assert alice_api.get(url).json()["name"] == "mine"


@pytest.mark.django_db
@pytest.mark.parametrize("body", ["null", "true", "3"])
def test_post_to_a_deck_is_a_405_in_the_error_shape_whatever_the_body(alice_api, body):
    created = alice_api.post(
        "/api/decks/", {"game": "tempofront", "name": "mine", "decklist": starter_text("tempofront"),
                        "pilot": "greedy"}, format="json",
    )
    assert_error(alice_api.post(f"/api/decks/{created.json()['id']}/", body, content_type="application/json"), 405,
                 "method_not_allowed")


@pytest.mark.django_db
@pytest.mark.parametrize("body", ["null", "true", "3", "[]"])
def test_a_deck_creation_whose_body_is_not_an_object_is_a_400(alice_api, body):
    assert_error(alice_api.post("/api/decks/", body, content_type="application/json"), 400)


# --------------------------------------------------------------------------- WebSocket frames


def receive(socket, timeout: float = 20.0) -> dict:
    return json.loads(socket.recv(timeout=timeout))


BAD_FRAMES = [
    ("not json {", "invalid_json"),
    (b"\x00\x01binary", "binary_frame"),
    (DEEP, "too_deep"),
]


def receive_answer(socket) -> dict:
    """The next frame that answers the client: broadcasts the socket also carries (a
    heartbeat, a match's status or board while a worker plays it) are passed over."""
    while True:
        event = receive(socket)
        if event.get("type") == "error":
            return event
        assert event.get("type") in BROADCASTS, event


BROADCASTS = {"site.heartbeat", "match.update", "match.progress", "match.board"}


def assert_bad_frames_answered(socket, greeting_type: str) -> None:
    for frame, code in BAD_FRAMES:
        socket.send(frame)
        answer = receive_answer(socket)
        assert answer["code"] == code and answer["message"], answer
    # Still open and still answering after all of them.
    socket.send("also not json")
    assert receive_answer(socket)["code"] == "invalid_json"
    assert greeting_type


def test_the_site_socket_answers_bad_frames_with_error_frames_and_stays_open(asgi_server):
    with connect(asgi_server.ws_url("/ws/site/"), origin=asgi_server.origin, open_timeout=10) as socket:
        assert receive(socket) == {"type": "site.connected"}
        assert_bad_frames_answered(socket, "site.connected")
    assert "Traceback" not in asgi_server.log(tail=200_000).split("site.connected")[-1]


@pytest.mark.django_db(transaction=True)
def test_the_match_socket_answers_bad_frames_with_error_frames_and_stays_open(asgi_server):
    from decks.services import deck_register
    from matches.services import match_challenge

    owner = User.objects.create_user("socket-owner", password="pw-socket-123")
    decks = [
        deck_register(owner=owner, game="tempofront", name=f"deck {i}", decklist=starter_text("tempofront"),
                      pilot="random")
        for i in range(2)
    ]
    match = match_challenge(created_by=owner, deck_versions=[d.latest_version for d in decks], best_of=1)
    with connect(asgi_server.ws_url(f"/ws/matches/{match.pk}/"), origin=asgi_server.origin,
                 open_timeout=10) as socket:
        assert receive(socket)["type"] == "match.update"
        assert_bad_frames_answered(socket, "match.update")


# --------------------------------------------------------------------------- numbers past the database's range


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/decks/99999999999999999999999/", "/api/decks/99999999999999999999999/versions/",
                                 "/api/matches/99999999999999999999999/", "/decks/99999999999999999999999/"])
def test_an_id_past_the_database_range_is_not_found(client, url):
    client.raise_request_exception = False
    assert client.get(url).status_code == 404


@pytest.mark.django_db
def test_a_deck_id_past_the_database_range_in_a_challenge_is_a_400(alice_api):
    """Found by the fuzz run (test_api_fuzz.py): a 29-digit deck id was a 500."""
    response = alice_api.post("/api/matches/", {"decks": [24946155792466766401286176768, 450], "best_of": 1},
                              format="json")
    assert_error(response, 400)


@pytest.mark.django_db
def test_a_nul_byte_gets_the_same_answer_with_debug_on(anon_api, settings):
    """`make run` serves with DEBUG on: the API still answers in its error shape, not with
    Django's debug page."""
    settings.DEBUG = True
    error = assert_error(anon_api.get("/api/matches/?q=%00"), 400, "bad_request")
    assert "NUL" in error["message"]


# --------------------------------------------------------------------------- ids and numbers read from text

#: Text that ``str.isdigit()`` calls digits but ``int()`` refuses, and a number past any id.
NOT_INT = ["²", "①", "9" * 5000]


def test_ids_are_ascii_digits_of_bounded_length():
    from web.inputs import MAX_ID, parse_id, parse_whole_number

    assert parse_id("42") == 42 and parse_id(" 7 ") == 7 and parse_id(12) == 12 and parse_id("0") == 0
    assert parse_id("9" * 18) == MAX_ID
    for bad in [*NOT_INT, "", " ", "-1", "+1", "1.0", "1e3", "٣", "9" * 19, True, None, 1.0, [], {}, -1, 10**18]:
        assert parse_id(bad) is None, bad
    assert parse_whole_number("123", max_digits=2) is None and parse_whole_number("12", max_digits=2) == 12


@pytest.mark.django_db
@pytest.mark.parametrize("raw", NOT_INT, ids=["superscript", "circled", "5000-digits"])
@pytest.mark.parametrize("name", ["game", "count", "from"])
def test_a_replay_page_named_by_a_non_number_is_a_400_naming_the_parameter(alice_api, alice, raw, name):
    from decks.services import deck_register
    from matches.services import match_challenge

    decks = [deck_register(owner=alice, game="tempofront", name=f"d{i}", decklist=starter_text("tempofront"),
                           pilot="random") for i in range(2)]
    match = match_challenge(created_by=alice, deck_versions=[d.latest_version for d in decks], best_of=1)
    error = assert_error(alice_api.get(f"/api/matches/{match.pk}/replay/?{name}={raw}"), 400, "validation_error")
    assert name in error["fields"] and "whole number" in error["fields"][name][0]


@pytest.mark.django_db
@pytest.mark.parametrize("raw", NOT_INT, ids=["superscript", "circled", "5000-digits"])
def test_the_match_list_filtered_by_a_non_number_deck_is_a_400(anon_api, raw):
    error = assert_error(anon_api.get(f"/api/matches/?deck={raw}"), 400, "validation_error")
    assert "deck id" in error["fields"]["deck"][0]


@pytest.mark.django_db
@pytest.mark.parametrize("raw", NOT_INT, ids=["superscript", "circled", "5000-digits"])
def test_pages_that_read_an_id_from_the_address_ignore_a_non_number(client, alice, raw):
    from decks.services import deck_register

    client.raise_request_exception = False
    client.force_login(alice)
    deck = deck_register(owner=alice, game="tempofront", name="mine", decklist=starter_text("tempofront"),
                         pilot="greedy")
    for url in (f"/matches/new/?deck={raw}", f"/decks/new/?copy={raw}", f"/decks/new/?copy={deck.pk}&version={raw}",
                f"/decks/{deck.pk}/?version={raw}"):
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    assert "mine" in client.get(f"/decks/{deck.pk}/?version={raw}").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("raw", NOT_INT, ids=["superscript", "circled", "5000-digits"])
def test_a_live_api_deck_named_by_a_non_number_is_a_400(alice_api, raw):
    error = assert_error(alice_api.post("/api/live/queue/", {"deck": raw}, format="json"), 400, "validation_error")
    assert "must be the id of one of your decks" in error["fields"]["deck"][0]


@pytest.mark.django_db
def test_a_dismissed_matches_cookie_with_odd_digits_is_ignored(client, alice):
    from live.notify import DISMISSED_COOKIE

    client.raise_request_exception = False
    client.force_login(alice)
    client.cookies[DISMISSED_COOKIE] = "².³.12." + "9" * 30  # what a cookie can carry: Latin-1
    response = client.get("/decks/")
    assert response.status_code == 200


# --------------------------------------------------------------------------- the schema says what the server does


def served_schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    return json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(request=None, public=True)))


def query_parameter(document: dict, path: str, method: str, name: str) -> dict:
    parameters = document["paths"][path][method]["parameters"]
    (parameter,) = [p for p in parameters if p["name"] == name and p["in"] == "query"]
    return parameter["schema"]


@pytest.mark.django_db
def test_the_schema_declares_the_bounds_the_server_enforces():
    from matches.selectors import REPLAY_PAGE_MAX
    from web.inputs import MAX_ID

    document = served_schema()
    replay = "/api/matches/{match_id}/replay/"
    assert query_parameter(document, replay, "get", "count") == {"type": "integer", "minimum": 1,
                                                                 "maximum": REPLAY_PAGE_MAX}
    assert query_parameter(document, replay, "get", "game") == {"type": "integer", "minimum": 1, "maximum": 99}
    assert query_parameter(document, "/api/tournaments/{tournament_id}/entries/", "delete", "entry") == {
        "type": "integer", "minimum": 0, "maximum": MAX_ID}
    assert query_parameter(document, "/api/matches/", "get", "deck") == {"type": "integer", "minimum": 0,
                                                                         "maximum": MAX_ID}
    page_size = query_parameter(document, "/api/matches/", "get", "page_size")
    assert page_size["type"] == "integer" and page_size["minimum"] == 1
    enter = document["components"]["schemas"]["EnterRequest"]["properties"]["deck"]
    assert (enter["minimum"], enter["maximum"]) == (0, MAX_ID)


@pytest.mark.django_db
def test_the_schema_says_a_match_may_have_no_creator_as_the_api_answers(anon_api, alice):
    from decks.services import deck_register
    from matches.models import Match
    from matches.services import match_challenge

    document = served_schema()
    assert document["components"]["schemas"]["Match"]["properties"]["created_by"]["nullable"] is True
    deck = deck_register(owner=alice, game="tempofront", name="d", decklist=starter_text("tempofront"),
                         pilot="random")
    match = match_challenge(created_by=alice, deck_versions=[deck.latest_version] * 2, best_of=1)
    Match.objects.filter(pk=match.pk).update(created_by=None)  # a match the platform made
    assert anon_api.get("/api/matches/").json()["results"][0]["created_by"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["page_size=null", "page_size=true", "page_size=0", "page_size=-3",
                                   "page_size=%C2%B2", "page_size=5&page_size=6", "page_size=" + "9" * 5000])
@pytest.mark.parametrize("url", ["/api/decks/", "/api/matches/", "/api/tournaments/", "/api/cards/"])
def test_a_page_size_that_is_not_a_whole_number_from_1_is_a_400_naming_it(anon_api, url, query):
    error = assert_error(anon_api.get(f"{url}?{query}"), 400, "validation_error")
    assert "page_size must be a whole number from 1" in error["fields"]["page_size"][0]


@pytest.mark.django_db
def test_a_page_size_past_the_maximum_is_capped_and_a_good_one_is_used(anon_api):
    assert len(anon_api.get("/api/cards/?page_size=3").json()["results"]) == 3
    assert len(anon_api.get("/api/cards/?page_size=100000").json()["results"]) == 100
