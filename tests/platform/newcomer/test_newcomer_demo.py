"""The demo account: a deck per game and finished matches of its own; a player's page
lists only the matches one of their decks played."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from decks.demo import DEMO_DECK_NAMES
from decks.models import Deck
from matches.models import Match


@pytest.mark.django_db
def test_load_demo_gives_demo_a_deck_per_game_and_finished_matches(settings, django_capture_on_commit_callbacks):
    settings.DEBUG = True
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=out)
    demo = User.objects.get(username="demo")
    decks = Deck.objects.filter(owner=demo)
    assert sorted(d.name for d in decks) == sorted(DEMO_DECK_NAMES.values())
    assert {d.game for d in decks} == {"tempofront", "conquest"}
    own = Match.objects.filter(seats__deck_version__deck__owner=demo).distinct()
    assert own.count() == 4
    assert all(m.status == Match.Status.DONE for m in own), out.getvalue()
    # Idempotent: a second run adds no deck and no match.
    before = Match.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=io.StringIO())
    assert Deck.objects.filter(owner=demo).count() == 2 and Match.objects.count() == before


@pytest.mark.django_db
def test_a_player_page_lists_only_matches_their_decks_played(client, settings):
    settings.DEBUG = True
    call_command("load_demo", stdout=io.StringIO())
    demo = User.objects.get(username="demo")
    showcase = Match.objects.filter(best_of=3)
    assert showcase.count() == 2 and all(m.created_by == demo for m in showcase)
    html = client.get("/players/demo/").content.decode()
    for match in showcase:  # queued by demo between other players' decks: not demo's matches
        assert f'href="/matches/{match.pk}/"' not in html
    for match in Match.objects.filter(seats__deck_version__deck__owner=demo):
        assert f'href="/matches/{match.pk}/"' in html
