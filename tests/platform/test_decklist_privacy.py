"""An event's decklists stay hidden until it publishes them, on every page, endpoint and
message that names a deck.

A live event with ``publish_at`` two hours ahead starts, and its round 1 is being played.
The walk GETs every route of the URLconf (its deck, match, event, round, player and game
arguments filled with this event's, and the list filters that name a deck) as an
anonymous visitor, another player, the deck's owner, the organiser and staff, and checks
that the owner's deck (its id, name, version and list) shows only to the last three. Then
the publication time passes and every visitor sees it. A route added later is walked too:
only routes that cannot name a deck are left out, by name, below.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from decks.models import Deck
from decks.permissions import deck_visibility
from decks.services import deck_register
from engine import games
from matches.models import Match
from matches.serializers import MatchDetailSerializer
from tournaments.models import Tournament
from tournaments.services import tournament_create, tournament_enter, tournament_start

pytestmark = pytest.mark.django_db

#: Routes that cannot name an entered deck (or only refuse a GET), skipped by the walk.
SKIPPED_NAMESPACES = {"admin"}
SKIPPED_NAMES = {"logout", "healthz", "project-doc", "schema", "docs", "redoc"}
#: Query strings tried on list routes that take them (a deck's owner, game, a search).
LIST_QUERIES = ["", "?owner={owner}", "?owner={owner}&game=tempofront", "?q={name}", "?deck={deck}",
                "?player={owner}"]

SECRET_NAME = "Zephyr Hidden Brew"


def starter_text(index: int) -> str:
    engine_game = games["tempofront"]
    decks = list(engine_game.starter_decks().values())
    return decks[index % len(decks)].to_text(engine_game.commander_label)


@pytest.fixture
def event(db):
    organiser = User.objects.create_user("orga", password="pw-orga-123")
    owner = User.objects.create_user("alice", password="pw-alice-123")
    rival = User.objects.create_user("bob", password="pw-bob-123")
    User.objects.create_user("carol", password="pw-carol-123")
    User.objects.create_user("staff", password="pw-staff-123", is_staff=True)
    secret = deck_register(owner=owner, game="tempofront", name=SECRET_NAME, decklist=starter_text(0),
                           pilot="random")
    rival_deck = deck_register(owner=rival, game="tempofront", name="Bob Open Deck", decklist=starter_text(1),
                               pilot="random")
    tournament = tournament_create(organiser=organiser, game="tempofront", name="Secret lists cup",
                                   starts_at=timezone.now() + timedelta(minutes=30), format="swiss", best_of=1,
                                   entrants="people", check_in_minutes=0,
                                   publish_at=timezone.now() + timedelta(hours=2))
    tournament_enter(tournament_id=tournament.pk, player=owner, deck_id=secret.pk)
    tournament_enter(tournament_id=tournament.pk, player=rival, deck_id=rival_deck.pk)
    tournament_start(tournament_id=tournament.pk, by=organiser)
    tournament.refresh_from_db()
    assert tournament.state == Tournament.State.RUNNING and tournament.current_round == 1
    match = Match.objects.get(tournament_pairings__round__tournament=tournament)
    return {"tournament": tournament, "deck": secret, "match": match, "owner": owner}


def client_for(username: str | None) -> Client:
    client = Client()
    if username:
        client.force_login(User.objects.get(username=username))
    return client


def routes() -> list[tuple[str, URLPattern]]:
    """Every named route of the URLconf with its namespaced name."""
    found = []

    def walk(patterns, namespace):
        for p in patterns:
            if isinstance(p, URLResolver):
                ns = namespace
                if p.namespace:
                    ns = f"{namespace}:{p.namespace}" if namespace else p.namespace
                if p.namespace in SKIPPED_NAMESPACES:
                    continue
                walk(p.url_patterns, ns)
            elif isinstance(p, URLPattern) and p.name and p.name not in SKIPPED_NAMES:
                found.append((f"{namespace}:{p.name}" if namespace else p.name, p))

    walk(get_resolver().url_patterns, "")
    return found


def urls_to_walk(data) -> list[str]:
    """Each route once, its arguments filled with the event's own, and each list route with
    the query strings that filter by the deck or its owner."""
    tournament, deck, match = data["tournament"], data["deck"], data["match"]
    values = {"deck_id": deck.pk, "match_id": match.pk, "tournament_id": tournament.pk, "number": 1,
              "username": data["owner"].username, "game": "tempofront", "pk": deck.pk}
    urls = []
    for name, pattern in routes():
        kwargs = dict(getattr(pattern.pattern, "converters", {}))
        if any(k not in values for k in kwargs):
            continue
        try:
            url = reverse(name, kwargs={k: values[k] for k in kwargs})
        except Exception:  # a route that takes a regex argument: none of these name a deck
            continue
        if kwargs:
            urls.append(url)
        else:
            urls.extend(url + q.format(owner=data["owner"].username, name=SECRET_NAME.split()[1], deck=deck.pk)
                        for q in LIST_QUERIES)
    return urls


def leaks(body: str, deck: Deck) -> list[str]:
    """What of ``deck`` the body shows: its name, a link to it, its id as a deck id, its list."""
    found = []
    if SECRET_NAME in body:
        found.append("name")
    if re.search(rf"/decks/{deck.pk}/", body):
        found.append("link")
    if re.search(rf'"deck_id":\s*{deck.pk}\b|"deck":\s*{deck.pk}\b|data-deck-id="{deck.pk}"', body):
        found.append("id")
    lines = [line for line in deck.latest_version.decklist.splitlines() if line.strip()]
    if "\n".join(lines) in body or json.dumps("\n".join(lines))[1:-1] in body:
        found.append("list")
    return found


def walk(data, username: str | None) -> dict[str, list[str]]:
    client = client_for(username)
    out = {}
    for url in urls_to_walk(data):
        response = client.get(url)
        if response.status_code >= 500:
            pytest.fail(f"{url} as {username or 'anonymous'}: {response.status_code}")
        body = b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()
        body = body.replace(url, "")  # an error page that repeats the address asked for tells nothing
        found = leaks(body, data["deck"])
        if found:
            out[url] = found
    return out


def test_the_walk_covers_every_route_that_names_a_deck(event):
    urls = urls_to_walk(event)
    d, m, t = event["deck"].pk, event["match"].pk, event["tournament"].pk
    for expected in (f"/decks/{d}/", f"/api/decks/{d}/", f"/api/decks/{d}/versions/", f"/api/matches/{m}/",
                     f"/matches/{m}/", f"/matches/{m}/replay/", f"/api/matches/{m}/replay/", f"/live/{m}/",
                     f"/tournaments/{t}/", f"/api/tournaments/{t}/entries/", f"/api/tournaments/{t}/standings/",
                     f"/api/tournaments/{t}/rounds/1/", "/players/alice/", "/api/decks/?owner=alice&game=tempofront",
                     "/decks/?q=Hidden", f"/api/matches/?deck={d}", "/ladder/tempofront/", "/"):
        assert expected in urls, expected


@pytest.mark.parametrize("username", [None, "bob", "carol"])
def test_nobody_else_sees_the_entered_deck_before_publication(event, username):
    assert walk(event, username) == {}


@pytest.mark.parametrize("username", ["alice", "orga", "staff"])
def test_owner_organiser_and_staff_still_see_it(event, username):
    seen = walk(event, username)
    d, m, t = event["deck"].pk, event["match"].pk, event["tournament"].pk
    for url in (f"/api/tournaments/{t}/entries/", f"/api/matches/{m}/", f"/matches/{m}/", f"/tournaments/{t}/"):
        assert "name" in seen.get(url, []), (url, seen.get(url))
    if username != "orga":  # the organiser sees the deck in their event; its page is the owner's and staff's
        assert set(seen.get(f"/decks/{d}/", [])) >= {"name", "list"}
        assert "list" in seen.get(f"/api/decks/{d}/versions/", [])


def test_hidden_answers_name_the_time_and_look_like_a_missing_deck(event):
    anonymous = Client()
    d, m, t = event["deck"].pk, event["match"].pk, event["tournament"].pk
    missing = anonymous.get("/api/decks/999999/")
    hidden = anonymous.get(f"/api/decks/{d}/")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"]["code"] == missing.json()["error"]["code"]
    assert anonymous.get(f"/decks/{d}/").status_code == 404
    seats = anonymous.get(f"/api/matches/{m}/").json()["seats"]
    until = event["tournament"].publish_at.strftime("%Y-%m-%d %H:%M")
    alice = next(s for s in seats if s["owner"] == "alice")
    assert alice["deck_id"] is None and alice["version"] is None
    assert alice["deck"] == f"Deck hidden until {until} UTC"
    entry = next(e for e in anonymous.get(f"/api/tournaments/{t}/entries/").json()["results"]
                 if e["player"] == "alice")
    assert (entry["deck_id"], entry["version"], entry["decklist"]) == (None, None, None)
    assert entry["deck"] == f"Deck hidden until {until} UTC"
    replay = anonymous.get(f"/api/matches/{m}/replay/")
    assert replay.status_code == 403 and "hidden until" in replay.json()["error"]["message"]
    assert f"Deck hidden until {until} UTC" in anonymous.get(f"/matches/{m}/").content.decode()


def test_broadcasts_and_sockets_name_decks_as_to_anyone(event):
    """What goes to a match's group (the same message for every watcher) hides the deck,
    even though the owner is watching too."""
    from live.models import LiveMatch
    from live.selectors import _hidden_decks, players_json

    _hidden_decks.clear()
    data = MatchDetailSerializer(event["match"]).data
    assert leaks(json.dumps(data, default=str), event["deck"]) == []
    live = LiveMatch.objects.get(match=event["match"])
    assert SECRET_NAME not in json.dumps(players_json(list(live.seats.all())))


def test_live_seat_names_follow_publication_within_the_stated_period(event, monkeypatch):
    """docs/security.md: a live board reads which decks are hidden at most every
    HIDDEN_DECKS_SECONDS per process; a hidden deck stays hidden until that period has
    passed after its publication, and is named once it has."""
    from live import selectors
    from live.models import LiveMatch

    clock = [1000.0]
    monkeypatch.setattr(selectors.time, "monotonic", lambda: clock[0])
    selectors._hidden_decks.clear()
    rows = list(LiveMatch.objects.get(match=event["match"]).seats.select_related("deck_version__deck"))
    names = lambda: [p["deck"] for p in selectors.players_json(rows)]  # noqa: E731
    assert SECRET_NAME not in names() and any(n.startswith("Deck hidden until") for n in names())
    tournament = event["tournament"]
    Tournament.objects.filter(pk=tournament.pk).update(publish_at=timezone.now() - timedelta(seconds=1))
    clock[0] += selectors.HIDDEN_DECKS_SECONDS - 1
    assert SECRET_NAME not in names()  # read less than the period ago: still hidden
    clock[0] += 2
    assert SECRET_NAME in names()


def test_an_entry_hides_its_deck_from_live_boards_of_the_same_process_at_once(event):
    """The process that records an entry reads which decks are hidden again at once, even
    within HIDDEN_DECKS_SECONDS of its last read (docs/security.md)."""
    from live.selectors import public_deck_names

    cup = tournament_create(organiser=User.objects.get(username="orga"), game="tempofront", name="Later cup",
                            starts_at=timezone.now() + timedelta(days=1), format="swiss", best_of=1)
    dave = User.objects.create_user("dave", password="pw-dave-123")
    dave_deck = deck_register(owner=dave, game="tempofront", name="Dave deck", decklist=starter_text(3),
                              pilot="random")
    assert public_deck_names([dave_deck.latest_version]) == ["Dave deck"]
    tournament_enter(tournament_id=cup.pk, player=dave, deck_id=dave_deck.pk)
    assert public_deck_names([dave_deck.latest_version])[0].startswith("Deck hidden until")


def can_view_deck(user, deck, *, now=None) -> bool:
    return deck_visibility(user, now=now).can_view(deck)


def test_a_deck_in_an_unpublished_event_is_hidden_everywhere_until_then(event):
    deck, owner = event["deck"], event["owner"]
    carol = User.objects.get(username="carol")
    assert not can_view_deck(carol, deck) and not can_view_deck(None, deck)
    assert can_view_deck(owner, deck)
    later = event["tournament"].publish_at + timedelta(minutes=1)
    assert can_view_deck(carol, deck, now=later)
    assert deck_visibility(None, now=later).hidden_ids() == set()
    # A challenge names the hidden deck as one that does not exist.
    client = client_for("carol")
    own = deck_register(owner=carol, game="tempofront", name="Carol deck", decklist=starter_text(2), pilot="random")
    response = client.post("/api/matches/", {"decks": [own.pk, deck.pk]}, content_type="application/json")
    assert response.status_code == 400 and f"no deck with id {deck.pk}" in json.dumps(response.json())
    assert Match.objects.filter(created_by=carol).count() == 0


def test_an_event_cancelled_before_its_start_withholds_nothing(event):
    other = Deck.objects.get(name="Bob Open Deck")
    cup = tournament_create(organiser=User.objects.get(username="orga"), game="tempofront", name="Later cup",
                            starts_at=timezone.now() + timedelta(days=1), format="swiss", best_of=1)
    dave = User.objects.create_user("dave", password="pw-dave-123")
    dave_deck = deck_register(owner=dave, game="tempofront", name="Dave deck", decklist=starter_text(3),
                              pilot="random")
    tournament_enter(tournament_id=cup.pk, player=dave, deck_id=dave_deck.pk)
    assert not can_view_deck(None, dave_deck)
    Tournament.objects.filter(pk=cup.pk).update(state=Tournament.State.CANCELLED)
    assert can_view_deck(None, dave_deck)
    assert not can_view_deck(None, other)  # still in the running, unpublished event


def test_after_publication_everyone_sees_the_deck(event):
    tournament = event["tournament"]
    Tournament.objects.filter(pk=tournament.pk).update(publish_at=timezone.now() - timedelta(seconds=1))
    from live.selectors import _hidden_decks

    _hidden_decks.clear()
    seen = walk(event, None)
    d, m, t = event["deck"].pk, event["match"].pk, tournament.pk
    for url in (f"/api/tournaments/{t}/entries/", f"/api/matches/{m}/", f"/matches/{m}/", f"/tournaments/{t}/",
                f"/api/decks/{d}/", "/api/decks/?owner=alice&game=tempofront", "/players/alice/"):
        assert "name" in seen.get(url, []), (url, seen.get(url))
    assert "list" in seen[f"/api/decks/{d}/versions/"]
    assert set(seen[f"/decks/{d}/"]) >= {"name", "list"}
    assert "link" in seen[f"/tournaments/{t}/"]
    entries = Client().get(f"/api/tournaments/{t}/entries/").json()["results"]
    alice = next(e for e in entries if e["player"] == "alice")
    assert alice["deck_id"] == d and alice["deck"] == SECRET_NAME and alice["decklist"]
