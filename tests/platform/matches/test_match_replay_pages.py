"""Replays are served in bounded pages (issue 11: "no single response may exceed a few MB,
whatever the game's length ... serve frames per game and in pages").

The long game is a four-player Conquest game with the most cards and locations the engine
allows (its declared maxima of draw_per_battle, forward_locations and rear_locations) over
4 battles: about 1,000 actions, whose every-seat frames would be some 30 MB in one
response. (At the most battles it is about twice that; walking all of it takes minutes on
a busy machine, so the test takes the shorter one: the bound per response is the same.)
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from match_helpers import make_deck, version
from rest_framework.test import APIClient

from engine import games
from matches.models import Match
from matches.selectors import REPLAY_PAGE_MAX, REPLAY_PAGE_MAX_BYTES
from matches.services import match_challenge
from matches.tasks import run_match

pytestmark = pytest.mark.django_db

def longest(*names: str) -> dict[str, int]:
    specs = games["conquest"].param_specs()
    return {name: specs[name].maximum for name in names}


LONG_CONQUEST = {"battles": 4, **longest("draw_per_battle", "forward_locations", "rear_locations")}
#: What a response may weigh besides its frames (names, outcome, seats): far less than this.
HEADER_ALLOWANCE = 64_000


@pytest.fixture
def long_match(alice, bob, effects_recorded) -> Match:
    carol = User.objects.create_user("carol", password="pw-carol-123")
    dave = User.objects.create_user("dave", password="pw-dave-123")
    decks = [make_deck(owner, "conquest", index=i % 2) for i, owner in enumerate((alice, bob, carol, dave))]
    match = match_challenge(created_by=alice, deck_versions=[version(d) for d in decks], best_of=1, seed=11,
                            params=LONG_CONQUEST)
    run_match.apply(args=[match.pk])
    match.refresh_from_db()
    assert match.status == Match.Status.DONE, match.error
    assert match.games.get().actions > 800
    return match


def walk(client: APIClient, match: Match, count: int) -> tuple[list[dict], list[int]]:
    """Every page of game 1 from position 0, following ``next_from``; and each page's bytes."""
    pages, sizes, start = [], [], 0
    while start is not None:
        response = client.get(f"/api/matches/{match.pk}/replay/?game=1&from={start}&count={count}")
        assert response.status_code == 200, response.content[:500]
        sizes.append(len(response.content))
        pages.append(response.json())
        start = pages[-1]["next_from"]
        assert len(pages) < 10_000
    return pages, sizes


def test_every_page_of_a_very_long_game_stays_under_the_cap_and_together_they_are_the_game(long_match):
    pages, sizes = walk(APIClient(), long_match, REPLAY_PAGE_MAX)
    total = long_match.games.get().actions + 1
    assert max(sizes) <= REPLAY_PAGE_MAX_BYTES + HEADER_ALLOWANCE, max(sizes)
    indexes = [frame["index"] for page in pages for frame in page["frames"]]
    assert indexes == list(range(-1, total - 1))
    assert all(page["total_frames"] == total for page in pages)
    assert all(set(frame["views"]) == {"public", "0", "1", "2", "3"} for frame in pages[-1]["frames"])
    # The byte cap, not the count, is what cut these pages of four-seat frames short.
    assert any(page["count"] < REPLAY_PAGE_MAX and page["next_from"] is not None for page in pages)


def test_a_page_from_the_middle_is_the_same_as_walking_to_it(long_match):
    client = APIClient()
    middle = (long_match.games.get().actions + 1) // 2 + 7  # not on a chunk boundary
    page = client.get(f"/api/matches/{long_match.pk}/replay/?game=1&from={middle}&count=5").json()
    assert page["from"] == middle and page["count"] == 5 and page["next_from"] == middle + 5
    assert [f["index"] for f in page["frames"]] == list(range(middle - 1, middle + 4))
    again = client.get(f"/api/matches/{long_match.pk}/replay/?game=1&from={middle + 2}&count=1").json()
    assert again["frames"][0] == page["frames"][2]


def test_a_page_past_the_end_gives_the_last_position(alice, bob, effects_recorded):
    match = match_challenge(created_by=alice, best_of=1, seed=5,
                            deck_versions=[version(make_deck(alice, "tempofront")),
                                           version(make_deck(bob, "tempofront", index=1))])
    run_match.apply(args=[match.pk])
    actions = match.games.get().actions
    page = APIClient().get(f"/api/matches/{match.pk}/replay/?game=1&from=999999&count=3").json()
    assert page["from"] == actions and page["count"] == 1 and page["next_from"] is None
    assert page["frames"][0]["index"] == actions - 1


@pytest.mark.parametrize(("query", "field", "fragment"), [
    ("count=201", "count", "between 1 and 200"),
    ("count=0", "count", "between 1 and 200"),
    ("from=-1", "from", "whole number"),
    ("from=x", "from", "whole number"),
    ("count=" + "9" * 5000, "count", "whole number"),
    ("download=2", "download", "between 0 and 1"),
])
def test_bad_page_parameters_are_400_naming_the_bound(alice, bob, effects_recorded, query, field, fragment):
    match = match_challenge(created_by=alice, best_of=1, seed=5,
                            deck_versions=[version(make_deck(alice, "tempofront")),
                                           version(make_deck(bob, "tempofront", index=1))])
    run_match.apply(args=[match.pk])
    response = APIClient().get(f"/api/matches/{match.pk}/replay/?game=1&{query}")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "validation_error" and fragment in error["fields"][field][0]
