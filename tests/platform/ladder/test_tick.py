"""The bot ladder's pairing tick: similar ratings meet, uncertain decks go first, nobody
meets the same opponent twice in a row, the in-flight cap holds, matches go to the
ladder queue with no creator; and decks opt in through the API and the deck form."""

from __future__ import annotations

import random

import pytest
from ladder_helpers import finish, make_deck

from ladder.models import Pool, Rating
from ladder.services import ladder_tick
from matches.models import Match

pytestmark = pytest.mark.django_db


def set_rating(deck, mu: float, sigma: float, games: int = 20) -> None:
    Rating.objects.update_or_create(pool=Pool.BOTS, game=deck.game, deck=deck,
                                    defaults={"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma, "games": games})


def pairs(match_ids) -> set[frozenset[str]]:
    return {frozenset(s.deck_version.deck.name for s in Match.objects.get(pk=m).seats.all()) for m in match_ids}


def test_the_tick_pairs_decks_of_similar_rating_on_the_ladder_queue(alice, settings, effects_recorded,
                                                                    django_capture_on_commit_callbacks):
    settings.LADDER_MAX_IN_FLIGHT = 10
    decks = {name: make_deck(alice, index=i, name=name, ladder=True) for i, name in enumerate("ABCD")}
    for name, mu in zip("ABCD", (40.0, 39.0, 10.0, 11.0), strict=True):
        set_rating(decks[name], mu, 1.0)
    make_deck(alice, index=4, name="not on the ladder")
    with django_capture_on_commit_callbacks(execute=True):
        report = ladder_tick(rng=random.Random(1))
    assert pairs(report.created) == {frozenset("AB"), frozenset("CD")}
    matches = Match.objects.filter(pk__in=report.created)
    assert {m.kind for m in matches} == {"ladder"} and {m.created_by for m in matches} == {None}
    assert sorted(effects_recorded.tasks) == sorted(("matches.run_match", [m], "ladder", None) for m in report.created)


def test_new_and_uncertain_decks_are_paired_first(alice, settings, effects_recorded):
    settings.LADDER_MAX_IN_FLIGHT = 1
    settled = [make_deck(alice, index=i, name=f"settled {i}", ladder=True) for i in range(3)]
    for deck in settled:
        set_rating(deck, 25.0, 1.0)
    new = make_deck(alice, index=3, name="new", ladder=True)  # no rating yet: sigma 8.3
    report = ladder_tick(rng=random.Random(2))
    assert len(report.created) == 1 and "new" in next(iter(pairs(report.created)))
    assert Rating.objects.filter(deck=new).count() == 0


def test_the_in_flight_cap_holds_and_busy_decks_wait(alice, settings, effects_recorded):
    settings.LADDER_MAX_IN_FLIGHT = 2
    for i in range(8):
        make_deck(alice, index=i, name=f"deck {i}", ladder=True)
    first = ladder_tick(rng=random.Random(3))
    assert len(first.created) == 2
    again = ladder_tick(rng=random.Random(3))
    assert again.created == [] and again.in_flight == 2
    Match.objects.filter(pk=first.created[0]).update(status=Match.Status.DONE)
    third = ladder_tick(rng=random.Random(3))
    assert len(third.created) == 1
    busy = {s.deck_version.deck_id for s in Match.objects.get(pk=first.created[1]).seats.all()}
    new_seats = {s.deck_version.deck_id for s in Match.objects.get(pk=third.created[0]).seats.all()}
    assert not busy & new_seats  # a deck still playing is not idle
    assert Match.objects.filter(kind="ladder", status__in=("queued", "running")).count() == 2


def test_no_deck_meets_the_same_opponent_twice_in_a_row(alice, settings, effects_recorded):
    settings.LADDER_MAX_IN_FLIGHT = 1
    a, b, c = (make_deck(alice, index=i, name=n, ladder=True) for i, n in enumerate("ABC"))
    for deck, mu in ((a, 30.0), (b, 30.0), (c, 10.0)):
        set_rating(deck, mu, 1.0)
    seen = []
    for _ in range(6):
        report = ladder_tick(rng=random.Random(4))
        assert len(report.created) == 1
        match = Match.objects.get(pk=report.created[0])
        seen.append(frozenset(s.deck_version.deck.name for s in match.seats.all()))
        Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
    assert seen[0] == frozenset("AB")  # the closest ratings first
    for before, after in zip(seen, seen[1:], strict=False):
        assert before != after, seen  # never the same pairing twice in a row


def test_two_decks_alone_on_the_ladder_do_not_play_each_other_twice_in_a_row(alice, settings, effects_recorded):
    settings.LADDER_MAX_IN_FLIGHT = 4
    make_deck(alice, name="A", ladder=True), make_deck(alice, index=1, name="B", ladder=True)
    assert len(ladder_tick().created) == 1
    Match.objects.update(status=Match.Status.DONE)
    assert ladder_tick().created == []


def test_ladder_results_are_rated_and_archived_decks_leave_the_ladder(alice, bob, settings, effects_recorded):
    settings.LADDER_MAX_IN_FLIGHT = 4
    a, b = make_deck(alice, name="A", ladder=True), make_deck(bob, index=1, name="B", ladder=True)
    finish([a, b], [1, 2], kind="ladder")
    assert Rating.objects.filter(pool=Pool.BOTS).count() == 2
    from decks.services import deck_archive

    deck_archive(deck=b, actor=bob)
    assert ladder_tick().created == []


def test_a_deck_opts_in_through_the_api_and_the_form(alice, client):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(alice)
    deck = make_deck(alice)
    assert api.get(f"/api/decks/{deck.pk}/").json()["ladder"] is False
    response = api.patch(f"/api/decks/{deck.pk}/", {"ladder": True}, format="json")
    assert response.status_code == 200 and response.json()["ladder"] is True
    deck.refresh_from_db()
    assert deck.ladder and deck.latest_version.number == 1  # no new version for opting in
    bad = api.patch(f"/api/decks/{deck.pk}/", {"ladder": "perhaps"}, format="json")
    assert bad.status_code == 400 and "ladder" in bad.json()["error"]["fields"]
    deck.refresh_from_db()
    assert deck.ladder

    client.force_login(alice)
    page = client.get(f"/decks/{deck.pk}/edit/")
    assert b'name="ladder"' in page.content and b"checked" in page.content
    data = {"name": deck.name, "pilot": "random", "commander": "", "decklist": deck.latest_version.decklist}
    client.post(f"/decks/{deck.pk}/edit/", data)  # the box left unticked: off the ladder
    deck.refresh_from_db()
    assert deck.ladder is False
    client.post(f"/decks/{deck.pk}/edit/", {**data, "ladder": "on"})
    deck.refresh_from_db()
    assert deck.ladder is True


def test_the_demo_data_puts_the_starter_decks_on_the_ladder(db):
    from decks.demo import load_demo_data as decks_demo
    from decks.models import Deck
    from ladder.demo import load_demo_data

    decks_demo(log=lambda line: None)
    load_demo_data(log=lambda line: None)
    load_demo_data(log=lambda line: None)  # idempotent
    starters = Deck.objects.filter(is_starter=True)
    assert starters.count() == 9 and all(d.ladder for d in starters)
