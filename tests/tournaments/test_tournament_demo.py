"""The demo: after ``load_demo`` a newcomer sees a finished Swiss with a top cut (standings,
a bracket, replays), a finished Conquest pod event, and an open event starting a few
minutes later. Loading it twice changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from matches.models import Match
from tournaments import demo
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def load(messages: list[str]) -> None:
    from decks.demo import load_demo_data as decks_demo
    from web.demo import load_demo_data as web_demo

    web_demo(log=messages.append)
    decks_demo(log=messages.append)
    demo.load_demo_data(log=messages.append)


def test_demo_has_finished_events_with_standings_bracket_and_replays_and_an_open_one(sent):
    messages: list[str] = []
    load(messages)
    swiss = Tournament.objects.get(name=demo.SWISS)
    pods = Tournament.objects.get(name=demo.PODS)
    upcoming = Tournament.objects.get(name=demo.OPEN)
    assert swiss.state == pods.state == "finished" and swiss.winner and pods.winner
    assert upcoming.state == "open" and upcoming.entries.count() == 6
    assert len(swiss.cut_entries) == 4
    html = Client().get(f"/tournaments/{swiss.pk}/").content.decode()
    assert "data-bracket" in html and "data-standings" in html and "Champion:" in html
    match = Match.objects.filter(tournament_pairings__round__tournament=swiss).first()
    assert match.games.exists()
    assert Client().get(f"/api/matches/{match.pk}/replay/?game=1").status_code == 200
    index = Client().get("/tournaments/").content.decode()
    assert demo.OPEN in index and "data-countdown" in index

    counts = (Tournament.objects.count(), Match.objects.count())
    load(messages)
    assert (Tournament.objects.count(), Match.objects.count()) == counts
