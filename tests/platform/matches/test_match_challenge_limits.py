"""Bounded challenges (issue 11): a challenge is checked with the engine's bounded checks,
never by setting up a game in the web request; parameters outside the engine's declared
ranges are 400s naming the bound; a player may have at most MATCHES_MAX_OPEN_CHALLENGES
challenges queued or running; the OpenAPI schema states the real limits and statuses."""

from __future__ import annotations

import pytest
from match_helpers import make_deck, version
from rest_framework.test import APIClient

from engine import games
from matches.models import Match
from matches.services import TooManyOpenChallenges, match_challenge

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_challenge_sets_up_no_game_in_the_request(alice, bob, effects_recorded, monkeypatch):
    """Issue 11: "building or validating a match must not play or set up a game there"."""
    mine, theirs = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    game = games["tempofront"]

    def refuse(*args, **kwargs):
        raise AssertionError("new_match was called in the web request")

    monkeypatch.setattr(type(game), "new_match", refuse)
    response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk]}, format="json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert match.status == Match.Status.QUEUED and match.created_by == alice
    assert not match.games.exists() and response.json()["status"] == "queued"


@pytest.mark.parametrize(("game", "params", "bound"), [
    ("tempofront", {"opening_hand": 1_000_000}, "parameter 'opening_hand' must be between"),
    ("tempofront", {"integrity": 1e9}, "parameter 'integrity'"),
    ("conquest", {"battles": 1000}, "parameter 'battles' must be between"),
    ("conquest", {"no_such_rule": 1}, "no_such_rule"),
])
def test_parameters_outside_the_engines_ranges_are_400_naming_the_bound(alice, bob, effects_recorded, game, params,
                                                                        bound):
    mine, theirs = make_deck(alice, game), make_deck(bob, game, index=1)
    response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk], "params": params},
                                      format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error" and any(bound in m for m in error["fields"]["params"]), error
    assert Match.objects.count() == 0


def test_decks_are_checked_against_the_challenges_parameters(alice, bob, effects_recorded):
    """A starter Conquest deck has 40 cards: with ``deck_size`` 41 every deck is refused."""
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)
    response = client_for(alice).post("/api/matches/", {"decks": [mine.pk, theirs.pk],
                                                        "params": {"deck_size": 41}}, format="json")
    assert response.status_code == 400, response.content
    problems = response.json()["error"]["fields"]["decks"]
    assert any("exactly 41" in problem for problem in problems), problems


def test_open_challenges_are_capped_per_player(alice, bob, effects_recorded, settings):
    settings.MATCHES_MAX_OPEN_CHALLENGES = 2
    mine, theirs = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    client = client_for(alice)
    body = {"decks": [mine.pk, theirs.pk]}
    first = client.post("/api/matches/", body, format="json").json()
    assert client.post("/api/matches/", body, format="json").status_code == 201
    refused = client.post("/api/matches/", body, format="json")
    assert refused.status_code == 409, refused.content
    error = refused.json()["error"]
    assert error["code"] == "too_many_open_challenges" and "at most 2" in error["message"]
    assert Match.objects.count() == 2
    # Another player is not held back, and a finished challenge frees a place.
    theirs_mine = make_deck(bob, "tempofront", index=0, name="bob's own")
    assert client_for(bob).post("/api/matches/", {"decks": [theirs_mine.pk, mine.pk]},
                                format="json").status_code == 201
    Match.objects.filter(pk=first["id"]).update(status=Match.Status.DONE)
    assert client.post("/api/matches/", body, format="json").status_code == 201


def test_the_cap_counts_running_challenges_but_not_other_kinds(alice, bob, effects_recorded, settings):
    settings.MATCHES_MAX_OPEN_CHALLENGES = 1
    versions = [version(make_deck(alice, "tempofront")), version(make_deck(bob, "tempofront", index=1))]
    match = match_challenge(created_by=alice, deck_versions=versions, best_of=1)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    with pytest.raises(TooManyOpenChallenges):
        match_challenge(created_by=alice, deck_versions=versions, best_of=1)
    match_challenge(created_by=alice, deck_versions=versions, best_of=1, kind=Match.Kind.TOURNAMENT)
    assert Match.objects.count() == 2


def test_the_challenge_form_shows_the_cap(alice, bob, effects_recorded, settings, client):
    settings.MATCHES_MAX_OPEN_CHALLENGES = 1
    mine, theirs = make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)
    client.force_login(alice)
    form = {"deck": mine.pk, "opponent": theirs.pk, "best_of": 1}
    assert client.post("/matches/new/", form).status_code == 302
    again = client.post("/matches/new/", form)
    assert again.status_code == 200 and "at most 1 may be open at once" in again.content.decode()
    assert Match.objects.count() == 1


def test_the_schema_states_the_real_limits_and_every_status_of_a_challenge(db):
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    schemas = schema["components"]["schemas"]
    challenge = schemas["ChallengeRequest"]["properties"]
    assert challenge["decks"]["minItems"] == 2 and challenge["decks"]["maxItems"] == 4
    best_of = schemas[challenge["best_of"]["allOf"][0]["$ref"].rsplit("/", 1)[1]]
    assert best_of["enum"] == [1, 3, 5]
    for game, name in (("tempofront", "opening_hand"), ("conquest", "battles")):
        spec = games[game].param_specs()[name]
        assert f"{name} ({spec.minimum}..{spec.maximum}, default {spec.default})" in challenge["params"]["description"]
    post = schema["paths"]["/api/matches/"]["post"]["responses"]
    assert {"201", "400", "401", "409", "413"} <= set(post)
    replay = schema["paths"]["/api/matches/{match_id}/replay/"]["get"]
    assert {"200", "400", "404", "409"} <= set(replay["responses"])
    names = {p["name"] for p in replay["parameters"]}
    assert {"game", "from", "count", "download"} <= names
