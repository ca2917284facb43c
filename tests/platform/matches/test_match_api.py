"""The matches API: challenges (permissions and bad input), lists with filters and
pagination, match status, and replays verified by the engine before they are served."""

from __future__ import annotations

import json
import zlib

import pytest
from django.utils import timezone
from match_helpers import make_deck, version
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from matches.models import Match, MatchGame
from matches.services import RUN_MATCH, match_challenge
from matches.tasks import run_match

pytestmark = pytest.mark.django_db


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def assert_error(response, status: int, code: str, field: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["code"] == code
    if field is not None:
        assert body["error"]["fields"][field], body
    return body["error"]


def played_match(decks, *, best_of=1, seed=3) -> Match:
    match = match_challenge(created_by=decks[0].owner, deck_versions=[version(d) for d in decks], best_of=best_of,
                            seed=seed)
    run_match.apply(args=[match.pk])
    match.refresh_from_db()
    return match


# --------------------------------------------------------------------------- POST /api/matches/


def test_challenge_by_token_plays_the_latest_versions_and_is_enqueued(alice, bob, effects_recorded,
                                                                     django_capture_on_commit_callbacks):
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk], "best_of": 3},
                                          format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "queued" and body["best_of"] == 3 and body["game"] == "conquest"
    assert [(s["deck_id"], s["version"], s["owner"]) for s in body["seats"]] == [(mine.pk, 1, "alice"),
                                                                              (theirs.pk, 1, "bob")]
    assert body["winner"] is None and body["games"] == [] and body["progress"] == 0
    assert effects_recorded.tasks == [(RUN_MATCH, [body["id"]], "matches", None)]
    assert Match.objects.get(pk=body["id"]).seats.get(seat=0).deck_version == version(mine)


def test_challenge_needs_a_signed_in_player(alice, bob, effects_recorded):
    decks = [make_deck(alice, "conquest").pk, make_deck(bob, "conquest").pk]
    assert_error(client_for().post("/api/matches/", {"decks": decks}, format="json"), 401, "not_authenticated")
    assert Match.objects.count() == 0


def test_nobody_challenges_with_two_decks_of_other_players(alice, bob, effects_recorded, db):
    from django.contrib.auth.models import User

    carol = User.objects.create_user("carol", password="pw-carol-123")
    decks = [make_deck(alice, "conquest").pk, make_deck(bob, "conquest").pk]
    error = assert_error(client_for(carol).post("/api/matches/", {"decks": decks}, format="json"), 400,
                         "validation_error", "decks")
    assert "one of your own decks" in error["fields"]["decks"][0]
    assert Match.objects.count() == 0


def test_the_challengers_own_deck_must_be_listed_first(alice, bob, effects_recorded):
    """Entry 0 is the challenger's: the same decks with the opponent's first are refused."""
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)
    error = assert_error(client_for(alice).post("/api/matches/", {"decks": [theirs.pk, mine.pk]}, format="json"),
                         400, "validation_error", "decks")
    assert "first deck" in error["fields"]["decks"][0] and "belongs to bob" in error["fields"]["decks"][0]
    assert Match.objects.count() == 0
    response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk]}, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(("body", "field", "fragment"), [
    ({"decks": [999999, "MINE"], "best_of": 1}, "decks", "no deck with id 999999"),
    ({"decks": ["MINE", "THEIRS_TF"]}, "decks", "same game"),
    ({"decks": ["MINE"]}, "decks", "a challenge takes 2 to 4 decks (TempoFront 2, Conquest 2 to 4): at least 2"),
    ({"decks": ["MINE"] * 5}, "decks", "a challenge takes 2 to 4 decks (TempoFront 2, Conquest 2 to 4): at most 4"),
    ({"decks": ["MINE", "THEIRS"], "best_of": 2}, "best_of", "best_of must be 1, 3 or 5, not 2"),
    ({"decks": "MINE"}, "decks", ""),
    ({"best_of": 1}, "decks", "required"),
    ({"decks": ["MINE", "THEIRS"], "params": {"battles": "many"}}, "params", "battles"),
])
def test_bad_challenges_are_400_with_a_message_for_the_field(alice, bob, effects_recorded, body, field, fragment):
    ids = {"MINE": make_deck(alice, "conquest").pk, "THEIRS": make_deck(bob, "conquest").pk,
           "THEIRS_TF": make_deck(bob, "tempofront").pk}
    resolved = dict(body)
    if isinstance(body.get("decks"), list):
        resolved["decks"] = [ids.get(v, v) for v in body["decks"]]
    elif "decks" in body:
        resolved["decks"] = ids[body["decks"]]
    error = assert_error(client_for(alice).post("/api/matches/", resolved, format="json"), 400,
                         "validation_error", field)
    assert any(fragment in message for message in error["fields"][field]), error
    assert Match.objects.count() == 0


def test_wrong_seat_count_for_tempofront(alice, bob, effects_recorded):
    decks = [make_deck(alice, "tempofront").pk, make_deck(bob, "tempofront").pk, make_deck(bob, "tempofront").pk]
    error = assert_error(client_for(alice).post("/api/matches/", {"decks": decks}, format="json"), 400,
                         "validation_error", "decks")
    assert error["fields"]["decks"] == ["TempoFront is played by 2 decks, not 3"]


def test_oversize_body_is_413_in_the_error_shape(alice, effects_recorded, settings):
    body = '{"decks": [1, 2], "padding": "' + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10) + '"}'
    response = client_for(alice).post("/api/matches/", body, content_type="application/json")
    assert_error(response, 413, "payload_too_large")


# --------------------------------------------------------------------------- GET /api/matches/


def test_list_is_paginated_newest_first_and_filtered(alice, bob, effects_recorded):
    a_conquest, b_conquest = make_deck(alice, "conquest"), make_deck(bob, "conquest")
    b_tempo, b_tempo2 = make_deck(bob, "tempofront"), make_deck(bob, "tempofront", index=1)
    first = match_challenge(created_by=alice, deck_versions=[version(a_conquest), version(b_conquest)], best_of=1)
    second = match_challenge(created_by=bob, deck_versions=[version(b_tempo), version(b_tempo2)], best_of=1)
    Match.objects.filter(pk=second.pk).update(status="done")
    client = client_for()

    body = client.get("/api/matches/").json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert [m["id"] for m in body["results"]] == [second.pk, first.pk]

    def ids(query: str) -> list[int]:
        response = client.get(f"/api/matches/?{query}")
        assert response.status_code == 200, response.content
        return [m["id"] for m in response.json()["results"]]

    assert ids(f"deck={a_conquest.pk}") == [first.pk]
    assert ids("player=alice") == [first.pk]
    assert ids("player=bob") == [second.pk, first.pk]
    assert ids("game=tempofront") == [second.pk]
    assert ids("status=done") == [second.pk]
    assert ids("status=queued&game=conquest") == [first.pk]
    page = client.get("/api/matches/?page_size=1").json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]


@pytest.mark.parametrize(("query", "field"), [("status=finished", "status"), ("game=chess", "game"),
                                              ("deck=abc", "deck")])
def test_bad_list_filters_are_400(db, query, field):
    assert_error(client_for().get(f"/api/matches/?{query}"), 400, "validation_error", field)


def test_a_page_past_the_end_is_404_in_the_error_shape(db):
    assert_error(client_for().get("/api/matches/?page=9"), 404, "not_found")


# --------------------------------------------------------------------------- GET /api/matches/<id>/


def test_detail_of_a_done_match_has_winner_and_games(alice, bob, effects_recorded):
    match = played_match([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    body = client_for().get(f"/api/matches/{match.pk}/").json()
    assert body["status"] == "done" and body["progress"] == 1
    assert body["winner"] == match.winner_seat
    (game,) = body["games"]
    assert game["number"] == 1 and game["seat_order"] == [0, 1] and game["actions"] > 0
    assert game["replay_url"] == f"/matches/{match.pk}/replay/?game=1"
    assert game["api_replay_url"] == f"/api/matches/{match.pk}/replay/?game=1"
    if body["winner"] is None:
        assert body["result"]["wins"] == [0, 0]
    else:
        assert body["result"]["wins"][body["winner"]] == 1


def test_detail_of_an_unknown_match_is_404(db):
    error = assert_error(client_for().get("/api/matches/424242/"), 404, "not_found")
    assert "424242" in error["message"]


# --------------------------------------------------------------------------- GET /api/matches/<id>/replay/


def test_replay_holds_the_log_and_every_seats_frames_once_the_match_is_over(alice, bob, effects_recorded):
    match = played_match([make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)])
    game = match.games.get()
    assert game.verified_at is None
    response = client_for().get(f"/api/matches/{match.pk}/replay/?game=1")
    assert response.status_code == 200
    body = response.json()
    assert {"game", "seed", "decks", "params", "actions_count", "outcome", "frames", "seats", "tiebreak"} <= set(body)
    assert body["game"] == "tempofront" and body["decks"][0]["name"] == "alice tempofront 0"
    assert body["total_frames"] == body["actions_count"] + 1 == game.actions + 1
    assert body["from"] == 0 and len(body["frames"]) == body["count"] == min(50, body["total_frames"])
    assert body["all_seats"] is True
    first = body["frames"][0]
    last = client_for().get(f"/api/matches/{match.pk}/replay/?game=1&from={game.actions}").json()["frames"][-1]
    assert first["index"] == -1 and first["action"] is None
    assert set(last["views"]) == {"public", "0", "1"}
    assert "hand" in last["views"]["0"] and "hand" not in last["views"]["public"]
    assert last["views"]["public"]["outcome"]["places"] == body["engine_outcome"]["places"]
    assert body["outcome"]["places"] == game.outcome["places"]
    assert [s["entry"] for s in body["seats"]] == [0, 1] and body["seats"][1]["owner"] == "bob"
    game.refresh_from_db()
    assert game.verified_at is not None and body["verified_at"]


def test_replay_of_a_running_match_shows_only_public_information(alice, bob, effects_recorded):
    match = played_match([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    body = client_for().get(f"/api/matches/{match.pk}/replay/?game=1").json()
    assert body["all_seats"] is False
    assert all(set(frame["views"]) == {"public"} for frame in body["frames"])
    assert not any("private_to" in event for frame in body["frames"] for event in frame["events"])


def test_replay_that_does_not_reproduce_is_served_as_an_error(alice, bob, effects_recorded):
    import json

    match = played_match([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    game = match.games.get()
    data = json.loads(zlib.decompress(bytes(game.replay)))
    data["actions"] = data["actions"][:-3]  # a truncated log no longer reaches the recorded outcome
    MatchGame.objects.filter(pk=game.pk).update(replay=zlib.compress(json.dumps(data).encode()))
    error = assert_error(client_for().get(f"/api/matches/{match.pk}/replay/?game=1"), 409, "replay_mismatch",
                         "replay")
    assert "outcome differs" in error["fields"]["replay"][0]
    game.refresh_from_db()
    assert game.verified_at is None and "outcome differs" in game.verify_error


@pytest.mark.parametrize(("query", "status", "code"), [
    ("game=2", 404, "not_found"), ("game=x", 400, "validation_error"), ("game=0", 400, "validation_error"),
])
def test_replay_of_a_missing_or_malformed_game_number(alice, bob, effects_recorded, query, status, code):
    match = played_match([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    assert_error(client_for().get(f"/api/matches/{match.pk}/replay/?{query}"), status, code)


def test_replay_response_is_compressed_for_clients_that_accept_gzip(alice, bob, effects_recorded):
    match = played_match([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    response = client_for().get(f"/api/matches/{match.pk}/replay/?game=1", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
    plain = client_for().get(f"/api/matches/{match.pk}/replay/?game=1")
    assert "Content-Encoding" not in plain
    unpacked = zlib.decompress(response.content, 16 + zlib.MAX_WBITS)
    assert len(response.content) < len(unpacked) and json.loads(unpacked) == plain.json()


def test_the_schema_documents_the_matches_endpoints(db):
    schema = client_for().get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    for path in ("/api/matches/", "/api/matches/{match_id}/", "/api/matches/{match_id}/replay/"):
        assert path in schema


def test_verified_replays_are_not_verified_again(alice, bob, effects_recorded, monkeypatch):
    match = played_match([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    client_for().get(f"/api/matches/{match.pk}/replay/?game=1")
    stamp = match.games.get().verified_at
    import engine.core

    monkeypatch.setattr(engine.core, "verify_replay", lambda replay: ["must not be called"])
    assert client_for().get(f"/api/matches/{match.pk}/replay/?game=1").status_code == 200
    assert match.games.get().verified_at == stamp <= timezone.now()


def test_frames_of_a_finished_game_are_rebuilt_once_then_served_from_the_cache(alice, bob, effects_recorded,
                                                                               monkeypatch):
    from django.core.cache import cache

    import matches.selectors

    cache.clear()
    match = played_match([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    calls = []
    real = matches.selectors.frames_page
    monkeypatch.setattr(matches.selectors, "frames_page", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = client_for().get(f"/api/matches/{match.pk}/replay/?game=1&count=20").json()
    second = client_for().get(f"/api/matches/{match.pk}/replay/?game=1&count=20").json()
    assert len(calls) == 1
    assert second["frames"] == first["frames"] and len(first["frames"]) == 20
