"""The pages of live events (people, or people and bots): the organiser's form with its
"Live rounds" settings, the badge that says who plays (by the title, in the enter box and
on the round page), the choice of who plays an entry in a mixed event, the check-in box and
its action (in the window, refused outside it with the reason), the entrant's "Your match"
panel in each state, each live table's players, clocks and watch link, and the results
decided by a forfeit, the time limit or a seed, marked on the tables and listed under the
standings. Driven through the services in this process; the browser test of a player's
live round is tests/tournaments/test_live_event_browser.py."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.test import Client
from django.utils import timezone
from tournament_helpers import make_deck, make_event, make_player

from live.models import LiveSeat
from live.moves import live_resign, live_seat_present
from tournaments.models import Entry, Pairing, Tournament
from tournaments.services import tournament_advance, tournament_drop, tournament_enter, tournament_start

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def people_event(organiser, **values) -> Tournament:
    values.setdefault("entrants", "people")
    values.setdefault("check_in_minutes", 0)
    values.setdefault("starts_at", timezone.now() + timedelta(minutes=30))
    return make_event(organiser, **values)


def enter(event, name: str, *, index: int = 0, plays: str | None = None, pilot: str = "random") -> Entry:
    player = make_player(name)
    deck = make_deck(player, event.game, index=index, pilot=pilot)
    return tournament_enter(tournament_id=event.pk, player=player, deck_id=deck.pk, plays=plays)


def page_of(event, user=None) -> str:
    client = logged_in(user) if user is not None else Client()
    response = client.get(f"/tournaments/{event.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def text_of(html: str) -> str:
    """The words of a page, tags removed and spaces squeezed, as a reader sees them."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def section(html: str, marker: str) -> str:
    """The element that starts at the tag carrying ``marker``, up to the next ``</section>``
    (or the end of its row for a table row)."""
    start = html.index(marker)
    start = html.rindex("<", 0, start)
    end_tag = "</tr>" if html[start:].startswith("<tr") else "</section>"
    return html[start:html.index(end_tag, start)]


def row_with(html: str, marker: str) -> str:
    """The table row that holds ``marker``."""
    at = html.index(marker)
    return html[html.rindex("<tr", 0, at):html.index("</tr>", at)]


def header_of(html: str) -> str:
    """The event's own header: its title and what is said by it."""
    start = html.index("<h1>")
    return html[start:html.index("</header>", start)]


def messages_after(client: Client, response) -> str:
    assert response.status_code == 302
    return text_of(client.get(response["Location"]).content.decode())


# --------------------------------------------------------------------------- the form


def test_the_form_asks_who_plays_first_and_groups_the_live_settings(organiser):
    client = logged_in(organiser)
    html = client.get("/tournaments/new/").content.decode()
    assert html.index('name="entrants"') < html.index('name="game"') < html.index('name="clock_minutes"')
    live = html[html.index("data-live-settings"):html.index("</fieldset>", html.index("data-live-settings"))]
    for label in ("Clock: minutes", "and seconds", "Increment (seconds)", "Check-in (minutes before the start)",
                  "Rounds start", "Minutes between round starts", "No-show (minutes)", "Round limit (minutes)",
                  "Spectator delay (seconds)", "Strongest bot allowed", "Decklists public from"):
        assert label in live, label
    assert "data-mixed-only" in live and "data-scheduled-only" in live

    starts = (timezone.now() + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
    response = client.post("/tournaments/new/", {
        "entrants": "mixed", "game": "tempofront", "name": "Live form cup", "format": "swiss", "starts_at": starts,
        "best_of": 1, "min_entries": 2, "top_cut": 0, "players_per_game": 2, "late_entry_rounds": 0,
        "publish": "on", "clock_minutes": 2, "clock_seconds": 30, "clock_increment": 3, "check_in_minutes": 20,
        "round_start": "scheduled", "round_minutes": 45, "no_show_minutes": 4, "round_limit_minutes": 40,
        "spectator_delay": 30, "bot_cap": "greedy",
    })
    event = Tournament.objects.get(name="Live form cup")
    assert response.status_code == 302
    assert (event.entrants, event.clock_initial, event.clock_increment, event.check_in_minutes) == ("mixed", 150, 3, 20)
    assert (event.round_start, event.round_minutes, event.no_show_minutes, event.round_limit_minutes) == (
        "scheduled", 45, 4, 40)
    assert (event.spectator_delay, event.bot_cap) == (30, "greedy")
    # The edit form starts from the event's own settings.
    edit = client.get(f"/tournaments/{event.pk}/edit/").content.decode()
    assert re.search(r'name="clock_minutes" value="2"', edit) and re.search(r'name="clock_seconds" value="30"', edit)
    assert re.search(r'value="mixed"[^>]*checked', edit)


def test_the_services_refusals_are_shown_by_the_field_they_concern(organiser):
    client = logged_in(organiser)
    starts = (timezone.now() + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
    response = client.post("/tournaments/new/", {
        "entrants": "people", "game": "tempofront", "name": "Bad live cup", "format": "swiss", "starts_at": starts,
        "best_of": 1, "min_entries": 2, "top_cut": 0, "players_per_game": 2, "late_entry_rounds": 0,
        "clock_minutes": 0, "clock_seconds": 5, "no_show_minutes": 10, "round_limit_minutes": 10,
    })
    assert response.status_code == 200
    html = response.content.decode()
    assert not Tournament.objects.filter(name="Bad live cup").exists()
    clock = html[html.index('name="clock_minutes"'):]
    clock = clock[:clock.index("</div>", clock.index("field-errors"))]
    assert "clock_initial must be a whole number from 10 to 7200, not 5" in clock
    limit = html[html.index('name="round_limit_minutes"'):]
    limit = limit[:limit.index("</ul>")]
    assert "must be longer than the no-show time (10 minutes)" in limit


# --------------------------------------------------------------------------- who plays


def test_a_mixed_event_says_so_and_offers_to_play_or_let_the_bot_play(organiser):
    event = people_event(organiser, entrants="mixed", bot_cap="greedy", name="Mixed night")
    owner = make_player("owner")
    weak = make_deck(owner, "tempofront", pilot="greedy")
    strong = make_deck(owner, "tempofront", index=1, pilot="search:strong")
    html = page_of(event, owner)
    badge = "Mixed: people and bots (bots up to greedy)"
    header = header_of(html)
    assert badge in header
    entries = section(html, 'data-state-part="entries"')
    assert badge in entries and "Play it myself" in entries and "Let its bot pilot play" in entries
    assert entries.index(badge) < entries.index("data-enter>")

    client = logged_in(owner)
    said = messages_after(client, client.post(f"/tournaments/{event.pk}/action/",
                                              {"action": "enter", "deck": strong.pk, "plays": "bot"}))
    assert "piloted by 'search:strong', stronger than this event's cap 'greedy'" in said
    assert not Entry.objects.filter(tournament=event).exists()
    said = messages_after(client, client.post(f"/tournaments/{event.pk}/action/",
                                              {"action": "enter", "deck": weak.pk, "plays": "bot"}))
    assert "Your deck's bot pilot (greedy) plays your games." in said
    entry = Entry.objects.get(tournament=event, player=owner)
    assert entry.plays == "bot"
    table = section(page_of(event, organiser), 'data-state-part="entries"')
    row = row_with(table, f'href="/players/{owner.username}/"')
    assert "bot" in text_of(row) and "(greedy)" in text_of(row)


def test_a_people_event_has_its_badge_and_no_bot_choice_and_a_bot_event_neither(organiser):
    people = people_event(organiser, name="People cup")
    bots = make_event(organiser, name="Bots cup")
    player = make_player("reader")
    make_deck(player, "tempofront")
    html = page_of(people, player)
    assert "Live event: people play" in header_of(html)
    entries = section(html, 'data-state-part="entries"')
    assert "Live event: people play" in entries and "You play your games yourself, live on the board" in entries
    assert 'name="plays"' not in entries
    bot_page = page_of(bots, player)
    assert "data-entrants-badge" not in bot_page and 'name="plays"' not in bot_page
    # The settings say how the live rounds are played.
    settings = text_of(section(html, 'data-state-part="settings"'))
    assert "5 min each, + 5 s per action" in settings and "decided then" in settings


# --------------------------------------------------------------------------- check-in


def test_check_in_from_the_event_page_in_its_window_and_refused_outside(organiser):
    start = timezone.now() + timedelta(minutes=60)
    event = people_event(organiser, check_in_minutes=15, starts_at=start)
    ann = enter(event, "ann").player
    enter(event, "bob", index=1)
    client = logged_in(ann)

    early = section(page_of(event, ann), "data-my-match")
    assert "Check-in opens at" in early and "data-check-in-button" not in early
    assert "data-refresh-at" in early  # the page re-reads the panel when the window opens
    said = messages_after(client, client.post(f"/tournaments/{event.pk}/action/", {"action": "check_in"}))
    assert "Check-in opens at" in said and "15 minutes before the start" in said
    assert Entry.objects.get(tournament=event, player=ann).checked_in is None

    Tournament.objects.filter(pk=event.pk).update(starts_at=timezone.now() + timedelta(minutes=5))
    event.refresh_from_db()
    open_box = section(page_of(event, ann), "data-my-match")
    assert "data-check-in-button" in open_box and "data-countdown" in open_box
    said = messages_after(client, client.post(f"/tournaments/{event.pk}/action/", {"action": "check_in"}))
    assert "You are checked in" in said
    assert Entry.objects.get(tournament=event, player=ann).checked_in is not None
    done = text_of(section(page_of(event, ann), "data-my-match"))
    assert "Checked in ✓" in done and "Check in " not in done

    # The organiser sees who has not checked in; everyone sees how many have.
    entries = section(page_of(event, organiser), 'data-state-part="entries"')
    assert "1 of 2 players checked in." in text_of(entries)
    assert text_of(row_with(entries, 'href="/players/ann/"')).count("Checked in ✓") == 1
    assert "Not checked in" in text_of(row_with(entries, 'href="/players/bob/"'))
    assert "Not checked in" not in page_of(event, make_player("visitor"))

    # Someone with no entry is refused with the reason.
    stranger = logged_in(make_player("stranger"))
    said = messages_after(stranger, stranger.post(f"/tournaments/{event.pk}/action/", {"action": "check_in"}))
    assert "You have no entry in this event to check in." in said


# --------------------------------------------------------------------------- your match


def test_your_match_panel_says_where_each_entrant_stands(organiser):
    event = people_event(organiser, rounds=2, best_of=3, clock_initial=240, spectator_delay=20)
    entries = [enter(event, name, index=i) for i, name in enumerate(("ann", "bob", "cat"))]
    before = text_of(section(page_of(event, entries[0].player), "data-my-match"))
    assert "You are entered. Round 1 starts" in before
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    event.refresh_from_db()
    rnd = event.round_set.get(number=1)
    (table,) = [p for p in rnd.pairings.all() if not p.is_bye]
    (bye,) = [p for p in rnd.pairings.all() if p.is_bye]
    players = {e.pk: e.player for e in entries}
    first, second = (players[e] for e in table.entries)

    panel = section(page_of(event, first), "data-my-match")
    assert 'data-status="playing"' in panel
    words = text_of(panel)
    assert f"Round 1, table {table.table}: your game is on — Open your board" in words
    assert f"Against {second.username}" in words and "game 1 of 3" in words
    assert f'href="/live/{table.match_id}/"' in panel and "data-my-board" in panel
    assert "you have a bye" in text_of(section(page_of(event, players[bye.entries[0]]), "data-my-match"))

    # The live table: both players, their clocks, presence, and a link to watch.
    live_section = Client().get(f"/tournaments/{event.pk}/live/").content.decode()
    row = section(live_section, f'data-pairing="{table.table}"')
    # As spectators see it, 20 s behind: then the game had not started, and no clock ran yet.
    assert row.count("data-clock ") == 2 and "4:00" in row and row.count('data-running="0"') == 2
    assert row.count('data-presence="0"') == 2
    assert f'href="/live/{table.match_id}/"' in row and "(20 s behind)" in text_of(row)
    assert "playing game 1 of 3" in text_of(row)
    # An arrival is told as spectators hear it, 20 s later.
    live_seat_present(match_id=table.match_id, user=first)
    row = section(Client().get(f"/tournaments/{event.pk}/live/").content.decode(), f'data-pairing="{table.table}"')
    assert row.count('data-presence="1"') == 0
    LiveSeat.objects.filter(live__match_id=table.match_id, user=first).update(
        connected_at=timezone.now() - timedelta(seconds=30))
    row = section(Client().get(f"/tournaments/{event.pk}/live/").content.decode(), f'data-pairing="{table.table}"')
    assert row.count('data-presence="1"') == 1

    # A player who dropped reads why.
    tournament_drop(entry_id=Entry.objects.get(player=second, tournament=event).pk, by=second)
    panel = text_of(section(page_of(event, second), "data-my-match"))
    assert "Your entry dropped" in panel
    # Nobody else has the panel.
    assert "data-my-match" not in page_of(event, make_player("visitor"))
    assert "data-my-match" not in page_of(event)


def test_a_bot_pilots_entry_is_watched_not_played(organiser):
    event = people_event(organiser, entrants="mixed", rounds=1)
    person = enter(event, "ann")
    bot = enter(event, "botowner", index=1, plays="bot", pilot="greedy")
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    panel = section(page_of(event, bot.player), "data-my-match")
    assert "Watch your bot's game" in panel and "Open your board" not in panel
    row = text_of(section(Client().get(f"/tournaments/{event.pk}/live/").content.decode(), 'data-pairing="1"'))
    assert "bot: greedy" in row and person.player.username in row


# --------------------------------------------------------------------------- results decided by the rules


def test_a_no_show_forfeit_is_marked_on_the_table_the_round_page_and_under_the_standings(organiser):
    event = people_event(organiser, rounds=2, no_show_minutes=3)
    entries = [enter(event, name, index=i) for i, name in enumerate(("ann", "bob"))]
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    event.refresh_from_db()
    (pairing,) = event.round_set.get(number=1).pairings.all()
    present = entries[0].player
    live_seat_present(match_id=pairing.match_id, user=present)
    started = event.round_set.get(number=1).starts_at
    tournament_advance(tournament_id=event.pk, now=started + timedelta(minutes=3, seconds=1))
    pairing.refresh_from_db()
    assert pairing.status == Pairing.Status.DONE and pairing.result["forfeit"] == [entries[1].pk]

    round_page = logged_in(organiser).get(f"/tournaments/{event.pk}/rounds/1/").content.decode()
    assert "forfeit (no-show): bob" in text_of(section(round_page, 'data-pairing="1"'))
    assert "Live event: people play" in round_page
    html = page_of(event, organiser)
    note = text_of(html[html.index("data-decided-note"):])
    players = " vs ".join(Entry.objects.get(pk=e).player.username for e in pairing.entries)
    assert f"Round 1, table 1 ({players}): forfeit (no-show): bob" in note
    # Round 2 is on: bob, absent once, reads the result of round 1 nowhere else than there.
    panel = text_of(section(page_of(event, entries[1].player), "data-my-match"))
    assert "Round 2, table 1: your game is on" in panel


def test_an_entry_dropped_for_absence_shows_why_in_the_standings(organiser):
    event = people_event(organiser, rounds=3, no_show_minutes=3)
    entries = [enter(event, name, index=i) for i, name in enumerate(("ann", "bob", "cat", "dan"))]
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    absent = entries[0]
    for number in (1, 2):
        event.refresh_from_db()
        rnd = event.round_set.get(number=number)
        for pairing in rnd.pairings.all():
            seated = [Entry.objects.get(pk=e) for e in pairing.seat_entries]
            for entry in seated:
                if entry.pk != absent.pk:
                    live_seat_present(match_id=pairing.match_id, user=entry.player)
            if absent.pk not in pairing.entries:
                live_resign(match_id=pairing.match_id, user=seated[1].player)
        tournament_advance(tournament_id=event.pk, now=rnd.starts_at + timedelta(minutes=3, seconds=1))
    absent.refresh_from_db()
    assert absent.dropped and absent.drop_reason == "absent 2 rounds in a row"
    html = page_of(event)
    standings = text_of(section(html, "data-standings"))
    assert "ann (dropped: absent 2 rounds in a row)" in standings
    assert "Dropped after round 2 (absent 2 rounds in a row)" in text_of(section(html, 'data-state-part="entries"'))
    panel = text_of(section(page_of(event, absent.player), "data-my-match"))
    assert "Your entry dropped: absent 2 rounds in a row." in panel


def test_a_game_decided_at_the_time_limit_says_so(organiser):
    event = people_event(organiser, rounds=1, round_limit_minutes=10)
    entries = [enter(event, name, index=i) for i, name in enumerate(("ann", "bob"))]
    tournament_start(tournament_id=event.pk, now=event.starts_at)
    event.refresh_from_db()
    (pairing,) = event.round_set.get(number=1).pairings.all()
    for entry in entries:
        live_seat_present(match_id=pairing.match_id, user=entry.player)
    running = page_of(event)
    assert "(the round's limit) are decided then" in text_of(running)
    assert "decided at the time limit" not in running
    tournament_advance(tournament_id=event.pk, now=event.round_set.get(number=1).deadline + timedelta(seconds=1))
    html = page_of(event)
    assert "decided at the time limit" in text_of(section(html, 'data-pairing="1"'))
    players = " vs ".join(Entry.objects.get(pk=e).player.username for e in pairing.entries)
    assert f"Round 1, table 1 ({players}): decided at the time limit" in text_of(html[html.index("data-decided-note"):])
    round_page = Client().get(f"/tournaments/{event.pk}/rounds/1/").content.decode()
    assert "decided at the time limit" in text_of(section(round_page, 'data-pairing="1"'))


def test_the_seed_mark_names_who_went_through():
    from tournaments.views import result_marks

    entries = [{"id": 7, "player": "ann"}, {"id": 9, "player": "bob"}]
    assert result_marks({"places": [2, 1], "forfeit": [7, 9], "decided_by": "seed"}, entries) == [
        "forfeit (no-show): ann, bob", "bob went through on seed"]
    assert result_marks({"places": [1, 1], "adjudicated": True}, entries) == ["decided at the time limit"]
    assert result_marks({"places": [1, 2]}, entries) == []
