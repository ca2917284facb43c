"""Hidden information never leaves the server: a deck hidden by an event's unpublished
decklists (``decks.permissions.DeckVisibility``) is neither named nor counted in the
metagame while hidden; the event's own matches are deferred and counted once it
publishes. An archived deck is not named."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from meta_helpers import make_deck, record, starter_text
from meta_helpers import play as play_match

from decks.services import deck_archive, deck_register
from matches.models import Match
from matches.tasks import run_match
from meta.models import MetaSeen
from meta.selectors import card_figures, meta_filter, top_decks
from meta.services import meta_tick
from tournaments.models import Tournament
from tournaments.services import tournament_create, tournament_enter, tournament_start

pytestmark = pytest.mark.django_db

SECRET = "Zephyr Hidden Brew"


def pages(client: Client) -> str:
    """Every metagame page and API list of TempoFront, all periods, concatenated."""
    out = []
    for path in ("/meta/tempofront/?period=all", "/meta/tempofront/",
                 "/api/meta/tempofront/decks/?period=all", "/api/meta/tempofront/matchups/?period=all",
                 "/api/meta/tempofront/pilots/?period=all", "/api/meta/tempofront/cards/?period=all&page_size=100"):
        response = client.get(path)
        assert response.status_code == 200, path
        out.append(response.content.decode())
    return "\n".join(out)


def test_an_unpublished_events_matches_are_deferred_until_it_publishes(alice, bob, effects_recorded):
    organiser = User.objects.create_user("orga", password="pw-orga-123")
    secret = deck_register(owner=alice, game="tempofront", name=SECRET, decklist=starter_text("tempofront", 0),
                           pilot="random")
    rival = deck_register(owner=bob, game="tempofront", name="Bob Open Deck", decklist=starter_text("tempofront", 1),
                          pilot="random")
    event = tournament_create(organiser=organiser, game="tempofront", name="Secret lists cup",
                              starts_at=timezone.now() + timedelta(minutes=30), format="swiss", best_of=1,
                              entrants="bots", check_in_minutes=0, publish_at=timezone.now() + timedelta(hours=2))
    tournament_enter(tournament_id=event.pk, player=alice, deck_id=secret.pk)
    tournament_enter(tournament_id=event.pk, player=bob, deck_id=rival.pk)
    # Before the event starts its decks are hidden already: their ladder match waits too.
    record([secret, rival], [1, 2])
    tournament_start(tournament_id=event.pk, by=organiser)
    match = Match.objects.get(tournament_pairings__round__tournament=event)
    assert match.kind == Match.Kind.TOURNAMENT
    assert run_match.apply(args=[match.pk]).get().startswith("done")

    report = meta_tick()
    assert report.counted == {} and report.deferred == {"ladder": 1, "tournament": 1}
    f = meta_filter(game="tempofront", period="all", sources=[])
    assert top_decks(f) == [] and sum(c.games for c in card_figures(f)) == 0
    body = pages(Client())
    assert SECRET not in body and "Bob Open Deck" not in body
    assert str(secret.pk) not in {str(d.deck_id) for d in top_decks(f)}
    assert meta_tick().counted == {}  # still hidden: still deferred

    # The lists are published: the next tick counts both matches, and the page names the deck.
    Tournament.objects.filter(pk=event.pk).update(publish_at=timezone.now() - timedelta(minutes=1))
    assert meta_tick().counted == {"ladder": 1, "tournament": 1}
    assert not MetaSeen.objects.filter(state=MetaSeen.State.DEFERRED).exists()
    f = meta_filter(game="tempofront", period="all", sources=[])  # a new request: a new look at the events
    assert {d.name: d.matches for d in top_decks(f)} == {SECRET: 2, "Bob Open Deck": 2}
    assert sum(c.games for c in card_figures(f)) > 0
    assert SECRET in pages(Client())
    assert meta_tick().counted == {}


def test_a_deck_hidden_after_its_matches_were_counted_is_not_named_nor_counted_among_decks(alice, bob, carol,
                                                                                         effects_recorded):
    """Counted while public, then entered in an upcoming event: the deck's row, cells and
    "decks that include it" leave every page until the event publishes."""
    organiser = User.objects.create_user("orga", password="pw-orga-123")
    secret = make_deck(alice, index=0, name=SECRET)
    other = make_deck(bob, index=1, name="Bob Open Deck")
    third = make_deck(carol, index=1, name="Carol Open Deck")
    play_match([secret, other], seed=3)
    play_match([other, third], seed=4)
    meta_tick()
    f = meta_filter(game="tempofront", period="all", sources=[])
    before = {c.id: c.decks for c in card_figures(f)}
    assert SECRET in pages(Client())
    event = tournament_create(organiser=organiser, game="tempofront", name="Later cup",
                              starts_at=timezone.now() + timedelta(days=1), format="swiss", best_of=1,
                              entrants="people", check_in_minutes=0)
    tournament_enter(tournament_id=event.pk, player=alice, deck_id=secret.pk)
    f = meta_filter(game="tempofront", period="all", sources=[])
    assert [d.name for d in top_decks(f)] == ["Bob Open Deck", "Carol Open Deck"]
    after = {c.id: c.decks for c in card_figures(f)}
    # Starter deck 0 (the secret's list) has cards the two others do not: one deck fewer holds them.
    assert any(after[card] == before[card] - 1 for card in before)
    body = pages(Client())
    assert SECRET not in body and f'"deck_id":{secret.pk},' not in body.replace(" ", "")


def test_an_archived_deck_is_not_named(alice, bob, effects_recorded):
    gone = make_deck(alice, name="Gone Deck")
    kept = make_deck(bob, index=1, name="Kept Deck")
    record([gone, kept], [1, 2])
    meta_tick()
    deck_archive(deck=gone, actor=alice)
    f = meta_filter(game="tempofront", period="all", sources=[])
    assert [d.name for d in top_decks(f)] == ["Kept Deck"]
    body = pages(Client())
    assert "Gone Deck" not in body and "Kept Deck" in body
