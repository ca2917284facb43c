"""Bots run by their owners in events (docs/bots-api.md): an organiser of a mixed live event
may let them enter (``external_bots``); a bot's program then plays its tables live as a
person does. Any other event refuses them, naming why."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from tournament_helpers import make_deck, make_event, make_player

from accounts.services import bot_create, bot_token_create
from live.models import LiveMatch
from tournaments.models import Entry, Tournament
from tournaments.services import tournament_enter, tournament_start

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "platform" / "live"))


def external_bot(owner, name="Sparky", game="tempofront"):
    bot = bot_create(owner=owner, name=name, games=[game])
    return bot, bot_token_create(bot=bot, owner=owner, name="event")[1]


def live_event(organiser, **values):
    values.setdefault("check_in_minutes", 0)
    values.setdefault("starts_at", timezone.now() + timedelta(minutes=30))
    return make_event(organiser, **values)


@pytest.mark.django_db
@pytest.mark.parametrize(("entrants", "allowed"), [("bots", False), ("people", False), ("mixed", False),
                                                   ("mixed", True)])
def test_a_bot_run_by_its_owner_enters_only_a_mixed_event_that_takes_them(organiser, entrants, allowed):
    event = live_event(organiser, entrants=entrants, external_bots=allowed) if entrants == "mixed" else \
        live_event(organiser, entrants=entrants)
    bot, _ = external_bot(make_player("ada"))
    deck = make_deck(bot.user, "tempofront")
    if allowed:
        entry = tournament_enter(tournament_id=event.pk, player=bot.user, deck_id=deck.pk)
        assert entry.plays == Entry.Plays.PERSON
        with pytest.raises(ValidationError, match="plays its tables itself"):
            tournament_enter(tournament_id=live_event(organiser, entrants="mixed", external_bots=True).pk,
                             player=bot.user, deck_id=deck.pk, plays="bot")
    else:
        with pytest.raises(ValidationError, match="does not take bots run by their owners"):
            tournament_enter(tournament_id=event.pk, player=bot.user, deck_id=deck.pk)
        assert not Entry.objects.filter(tournament=event).exists()


@pytest.mark.django_db
def test_only_a_mixed_event_can_take_bots_run_by_their_owners(organiser):
    with pytest.raises(ValidationError) as refused:
        live_event(organiser, entrants="people", external_bots=True)
    assert "mixed event" in refused.value.message_dict["external_bots"][0]
    assert not Tournament.objects.exists()


def test_a_bots_program_plays_its_table_of_a_mixed_live_event_to_the_end(asgi_server, celery_worker_process,
                                                                          organiser):
    """The reference client, online, is told of its table when the round is paired and plays
    it over its socket against a person; the table's result is the event's."""
    from test_bot_client import TIMEOUT, ClientThread, wait_for
    from test_live_sockets import open_socket, receive_view, send_act

    from botclient import BotClient
    from botclient.examples.tempofront import choose
    from engine.core import Rng

    event = live_event(organiser, entrants="mixed", external_bots=True, rounds=1, no_show_minutes=10)
    bot, secret = external_bot(make_player("ada"))
    tournament_enter(tournament_id=event.pk, player=bot.user, deck_id=make_deck(bot.user, "tempofront", index=1).pk)
    alice = make_player("alice")
    tournament_enter(tournament_id=event.pk, player=alice, deck_id=make_deck(alice, "tempofront", index=0).pk)
    program = BotClient(url=asgi_server.origin, token=secret, choose=choose, max_games=1)
    with ClientThread(program):
        assert program.online.wait(TIMEOUT)
        tournament_start(tournament_id=event.pk, now=event.starts_at)
        pairing = event.round_set.get(number=1).pairings.get()
        live = LiveMatch.objects.get(match=pairing.match)
        assert {s.user.username for s in live.seats.all()} == {"alice", "Sparky"}
        rng = Rng(3)
        with open_socket(asgi_server, live.match_id, alice) as socket:
            view, acted = receive_view(socket), -1
            while view["status"] != "done":
                # One action per position, as the board does: the opening frame and a move's
                # broadcast may show the same one (docs/live.md), and acting twice on it is
                # refused as stale.
                if view["legal"] and view["index"] > acted:
                    send_act(socket, rng.choice(view["legal"]), view["index"])
                    acted = view["index"]
                view = receive_view(socket)
        wait_for(lambda: live.match_id in program.finished, "the program to see the end")
    assert program.errors == []
    # The worker records the table's result and ends the one-round event.
    wait_for(lambda: Tournament.objects.get(pk=event.pk).state == Tournament.State.FINISHED, "the event to end")
    pairing.refresh_from_db()
    assert pairing.result and sorted(pairing.result["places"]) in ([1, 2], [1, 1])
