"""Rating updates: the numbers are openskill's own Plackett-Luce calculation, in the
transaction that records the result; pools; what is not rated; the rebuild command."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from ladder_helpers import finish, make_deck
from openskill.models import PlackettLuce

from ladder.models import Pool, Rating, RatingChange
from ladder.selectors import ratings_for_decks

pytestmark = pytest.mark.django_db


def rating(deck) -> Rating:
    return Rating.objects.get(pool=Pool.BOTS, deck=deck)


def test_a_two_player_result_moves_both_ratings_exactly_as_openskill_computes(alice, bob):
    a, b = make_deck(alice), make_deck(bob, index=1)
    finish([a, b], [1, 2])
    finish([b, a], [1, 2])
    finish([a, b], [1, 2])

    model = PlackettLuce()  # openskill's defaults, independent of the ladder's own constants
    ra, rb = model.rating(), model.rating()
    for first, second in ((ra, rb), (rb, ra), (ra, rb)):
        [[new_first], [new_second]] = model.rate([[first], [second]], ranks=[1, 2])
        first.mu, first.sigma, second.mu, second.sigma = new_first.mu, new_first.sigma, new_second.mu, new_second.sigma
    assert (rating(a).mu, rating(a).sigma) == (ra.mu, ra.sigma)
    assert (rating(b).mu, rating(b).sigma) == (rb.mu, rb.sigma)
    assert rating(a).ordinal == ra.ordinal()
    assert (rating(a).games, rating(a).wins, rating(a).losses, rating(a).form) == (3, 2, 1, "WLW")


def test_a_four_player_conquest_ranking_with_a_tie_is_rated_by_the_same_model(alice, bob, carol, dave):
    decks = [make_deck(p, "conquest", index=i) for i, p in enumerate((alice, bob, carol, dave))]
    places = [2, 1, 4, 2]  # entries 0 and 3 tie for second
    finish(decks, places)

    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in decks], ranks=places)
    for deck, [team] in zip(decks, expected, strict=True):
        assert (rating(deck).mu, rating(deck).sigma) == (team.mu, team.sigma)
    assert rating(decks[0]).mu == rating(decks[3]).mu  # tied places, equal priors: equal updates
    assert [rating(d).form for d in decks] == ["L", "W", "L", "L"]
    changes = RatingChange.objects.filter(match__isnull=False).order_by("entry")
    assert [c.place for c in changes] == places and {c.entries for c in changes} == {4}


def test_a_drawn_match_is_a_tie_and_counts_as_a_draw(alice, bob):
    a, b = make_deck(alice), make_deck(bob, index=1)
    finish([a, b], [1, 1])
    model = PlackettLuce()
    [[ea], [eb]] = model.rate([[model.rating()], [model.rating()]], ranks=[1, 1])
    assert rating(a).mu == ea.mu and rating(b).mu == eb.mu
    assert rating(a).draws == rating(b).draws == 1 and rating(a).form == "D"


def test_a_deck_keeps_its_rating_across_versions_and_the_history_names_each_version(alice, bob):
    from decks.services import deck_update

    a, b = make_deck(alice), make_deck(bob, index=1)
    finish([a, b], [1, 2])
    deck_update(deck=a, actor=alice, pilot="greedy")  # version 2
    a.refresh_from_db()
    finish([a, b], [2, 1])
    assert Rating.objects.filter(deck=a).count() == 1 and rating(a).games == 2
    versions = list(RatingChange.objects.filter(rating=rating(a)).order_by("id").values_list("deck_version__number",
                                                                                           flat=True))
    assert versions == [1, 2]


def test_live_matches_rate_the_players_in_the_humans_pool_and_bot_seats_are_left_out(alice, bob, carol):
    a, b, c = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1), make_deck(carol, "conquest", index=2)
    finish([a, b, c], [2, 1, 3], kind="live", pilots=["human", "human", "greedy"])
    humans = Rating.objects.filter(pool=Pool.HUMANS)
    assert {r.player.username for r in humans} == {"alice", "bob"}
    assert not Rating.objects.filter(pool=Pool.BOTS).exists()
    model = PlackettLuce()
    [[ea], [eb]] = model.rate([[model.rating()], [model.rating()]], ranks=[2, 1])
    assert humans.get(player=alice).mu == ea.mu and humans.get(player=bob).mu == eb.mu


def test_a_deck_playing_itself_or_a_live_match_with_one_human_is_not_rated(alice, bob):
    a, b = make_deck(alice), make_deck(bob, index=1)
    finish([a, a], [1, 2])
    finish([a, b], [1, 2], kind="live", pilots=["human", "greedy"])
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_match_is_never_rated_twice(alice, bob):
    from ladder.services import rating_record_match

    a, b = make_deck(alice), make_deck(bob, index=1)
    match = finish([a, b], [1, 2])
    before = (rating(a).mu, rating(a).games)
    assert rating_record_match(match=match) == []
    assert (rating(a).mu, rating(a).games) == before


def test_ratings_for_decks_gives_every_deck_its_ordinal_and_new_decks_the_starting_one(alice, bob, carol):
    a, b, c = make_deck(alice), make_deck(bob, index=1), make_deck(carol, index=2)
    finish([a, b], [1, 2])
    seeds = ratings_for_decks([a.pk, b.pk, c.pk])
    assert seeds == {a.pk: rating(a).ordinal, b.pk: rating(b).ordinal, c.pk: 0.0}
    assert seeds[a.pk] > seeds[c.pk] > seeds[b.pk]


def test_the_rebuild_command_reproduces_the_stored_ratings_exactly(alice, bob, carol, dave, capsys):
    tf = [make_deck(p, index=i) for i, p in enumerate((alice, bob, carol))]
    cq = [make_deck(p, "conquest", index=i) for i, p in enumerate((alice, bob, carol, dave))]
    import random

    rng = random.Random(7)
    for _ in range(25):
        first, second = rng.sample(tf, 2)
        finish([first, second], rng.choice([[1, 2], [2, 1], [1, 1]]))
        entries = rng.sample(cq, rng.choice([2, 3, 4]))
        finish(entries, [rng.randint(1, len(entries)) for _ in entries])
    finish([tf[0], tf[1]], [1, 2], kind="live", pilots=["human", "human"])
    stored = {r.pk: (r.mu, r.sigma, r.ordinal, r.games, r.form, r.recent) for r in Rating.objects.all()}

    call_command("ladder_rebuild", "--check")
    assert "exactly the recomputed ones" in capsys.readouterr().out

    Rating.objects.update(mu=1.0, sigma=1.0, games=0)  # damage every rating
    with pytest.raises(CommandError, match="difference"):
        call_command("ladder_rebuild", "--check")
    call_command("ladder_rebuild")
    rebuilt = {r.pk: (r.mu, r.sigma, r.ordinal, r.games, r.form, r.recent) for r in Rating.objects.all()}
    assert rebuilt == stored
    call_command("ladder_rebuild", "--check")


def test_human_rating_is_the_players_live_ordinal_or_the_starting_one(alice, bob):
    from ladder.selectors import human_rating

    a, b = make_deck(alice), make_deck(bob, index=1)
    assert human_rating(user_id=alice.pk, game="tempofront") == 0.0
    finish([a, b], [1, 2], kind="live", pilots=["human", "human"])
    mine = Rating.objects.get(pool=Pool.HUMANS, player=alice)
    assert human_rating(user_id=alice.pk, game="tempofront") == mine.ordinal
    assert human_rating(user_id=alice.pk, game="conquest") == 0.0
