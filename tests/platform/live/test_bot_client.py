"""A bot that runs on its owner's machine (docs/bots-api.md), end to end: the reference
client (botclient) with its example bot, connected as its bot through the real ASGI server
with a token, hears a person's challenge, accepts it with its deck and plays the match to
the end over the live board's protocol; the replay verifies. Around it: who may challenge a
bot, what a bot's socket may do, and a revoked token closing its sockets at once."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from live_helpers import make_deck
from test_live_sockets import open_socket, receive, receive_view, send_act
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from accounts.models import BotToken
from accounts.services import bot_create, bot_token_create, bot_token_revoke, bot_update
from botclient import BotClient
from botclient.examples.tempofront import choose as tempofront_choose
from engine.core import Replay, Rng, replay_states, verify_replay
from live import challenges
from live.models import LiveChallenge, LiveMatch

TIMEOUT = 60.0


@pytest.fixture
def ada(db) -> User:
    return User.objects.create_user("ada", password="pw-ada-123456")


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", password="pw-alice-123")


def make_bot(owner: User, name: str = "Sparky", games=("tempofront",), **flags):
    bot = bot_create(owner=owner, name=name, games=list(games), **flags)
    _, secret = bot_token_create(bot=bot, owner=owner, name="test")
    return bot, secret


def bot_socket(server, path: str, secret: str):
    # A program's handshake: its token, and no Origin (it is no browser page).
    return connect(server.ws_url(path), open_timeout=10, additional_headers={"Authorization": f"Bearer {secret}"})


def wait_for(check, what: str, timeout: float = TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class ClientThread:
    """The reference client run as its author runs it, in a thread of its own."""

    def __init__(self, client: BotClient):
        self.client = client
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self.client.run())
        except BaseException as exc:  # noqa: BLE001 (reported to the test)
            self.error = exc

    def __enter__(self) -> BotClient:
        self.thread.start()
        return self.client

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:  # the test failed inside: stop the client and report the failure
            self.client.stop()
            self.thread.join(timeout=30)
            return
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the client did not stop"
        assert self.error is None, self.error


def test_the_reference_client_accepts_a_persons_challenge_and_plays_it_to_the_end(asgi_server, ada, alice):
    bot, secret = make_bot(ada)
    bot_deck = make_deck(bot.user, "tempofront", index=1)
    alice_deck = make_deck(alice, "tempofront", index=0)
    seen: list[dict] = []

    def choose(view, legal):
        seen.append(view)
        return tempofront_choose(view, legal)

    client = BotClient(url=asgi_server.origin, token=secret, choose=choose, max_games=1)
    with ClientThread(client):
        assert client.online.wait(TIMEOUT), "the bot never came online"
        challenge = challenges.live_challenge(challenger=alice, challenged_username="sparky",
                                              deck_version=alice_deck.latest_version)
        accepted = wait_for(lambda: LiveChallenge.objects.filter(pk=challenge.pk, status="accepted")
                            .exclude(match=None).first(), "the bot to accept")
        live = LiveMatch.objects.get(match_id=accepted.match_id)
        seats = {s.seat: s for s in live.seats.all()}
        assert seats[0].user == alice and seats[1].user == bot.user
        assert seats[1].deck_version == bot_deck.latest_version
        rng = Rng(5)
        with open_socket(asgi_server, live.match_id, alice) as socket:
            view, acted = receive_view(socket), -1
            while view["status"] != "done":
                # One action per position: the opening frame and a move's broadcast may show
                # the same one (docs/live.md), and acting twice on it is refused as stale.
                if view["legal"] and view["index"] > acted:
                    send_act(socket, rng.choice(view["legal"]), view["index"])
                    acted = view["index"]
                view = receive_view(socket)
        wait_for(lambda: live.match_id in client.finished, "the client to see the end")
    live.refresh_from_db()
    assert live.status == "done" and verify_replay(Replay.from_json(live.replay)) == []
    assert client.errors == [] and seen, client.errors
    # What the bot was sent is its seat's view and nothing more: its own seat, never the
    # match's seed while it was being played, and at every position exactly the engine's
    # view for seat 1 (so no card of alice's hand, no deck order).
    assert {frame["seat"] for frame in seen} == {1}
    assert all("seed" not in json.dumps(frame) for frame in seen)
    replay = Replay.from_json(live.replay)
    views = {index + 1: json.loads(json.dumps(state.view(1))) for index, state, _ in replay_states(replay)
             if index + 1 in {frame["index"] for frame in seen}}
    assert all(frame["view"] == views[frame["index"]] for frame in seen)
    alice_cards = {card["name"] for _, state, _ in replay_states(replay) for card in state.view(0).get("hand", [])}
    only_alice = alice_cards - set(bot_deck.latest_version.to_engine().counts())
    seen_by_bot = {card["name"] for frame in seen for card in frame["view"].get("hand", [])}
    assert only_alice and seen_by_bot and not (only_alice & seen_by_bot)


def test_a_bot_is_challenged_only_as_its_owner_allows(ada, alice):
    bot, _ = make_bot(ada, accepts_people=False)
    deck = make_deck(alice, "tempofront")
    with pytest.raises(ValidationError, match="does not take challenges from people"):
        challenges.live_challenge(challenger=alice, challenged_username="Sparky", deck_version=deck.latest_version)
    bot_update(bot=bot, owner=ada, accepts_people=True, games=["conquest"])
    with pytest.raises(ValidationError, match="does not play TempoFront"):
        challenges.live_challenge(challenger=alice, challenged_username="Sparky", deck_version=deck.latest_version)
    other, _ = make_bot(ada, "Other", accepts_bots=False)
    other_deck = make_deck(other.user, "tempofront")
    bot_update(bot=bot, owner=ada, games=["tempofront"])
    with pytest.raises(ValidationError, match="from bots"):
        # Sparky challenges Other, which takes no challenges from bots.
        challenges.live_challenge(challenger=bot.user, challenged_username="Other",
                                  deck_version=make_deck(bot.user, "tempofront").latest_version)
    assert not LiveChallenge.objects.exists()
    # Other challenging Sparky is fine: Sparky takes challenges from bots.
    made = challenges.live_challenge(challenger=other.user, challenged_username="Sparky",
                                     deck_version=other_deck.latest_version)
    assert made.challenged == bot.user


def test_a_bots_socket_needs_a_good_token_and_closes_when_it_is_revoked(asgi_server, ada):
    bot, secret = make_bot(ada)
    for header in ("Bearer bot_unknown", "Bearer bot_", "Bearer " + "bot_" + "x" * 5000):
        with pytest.raises(InvalidStatus) as refused:
            with connect(asgi_server.ws_url("/ws/notify/"), open_timeout=10,
                         additional_headers={"Authorization": header}):
                pass
        assert refused.value.response.status_code == 403
    with bot_socket(asgi_server, "/ws/notify/", secret) as notify:
        assert receive(notify)["type"] == "notify.matches"
        notify.send(json.dumps({"type": "ping"}))
        assert receive(notify) == {"type": "pong"}
        bot_token_revoke(token=BotToken.objects.get(), owner=ada)
        frame = receive(notify)
        assert frame["type"] == "error" and frame["code"] == "token_revoked"
        with pytest.raises(ConnectionClosed) as closed:
            notify.recv(timeout=10)
        assert closed.value.rcvd.code == 4401
    with pytest.raises(InvalidStatus):
        with bot_socket(asgi_server, "/ws/notify/", secret):
            pass


def test_a_bot_token_acts_for_its_bot_alone_on_a_match(asgi_server, ada, alice):
    """Bot A's token in bot B's match is a spectator there: its acts are refused."""
    first, first_secret = make_bot(ada, "First")
    second, _ = make_bot(ada, "Second")
    deck = make_deck(alice, "tempofront")
    challenge = challenges.live_challenge(challenger=alice, challenged_username="Second",
                                          deck_version=deck.latest_version)
    accepted = challenges.live_challenge_answer(challenge_id=challenge.pk, user=second.user, accept=True,
                                                deck_version=make_deck(second.user, "tempofront").latest_version)
    with bot_socket(asgi_server, f"/ws/live/{accepted.match_id}/", first_secret) as socket:
        opening = receive_view(socket)
        assert opening["seat"] is None and opening["legal"] == []
        socket.send(json.dumps({"type": "act", "action": {"kind": "keep"}}))
        frame = receive(socket)
        assert frame["type"] == "error" and frame["code"] == "not_seated"
    assert LiveMatch.objects.get(match_id=accepted.match_id).log == []


def test_two_external_bots_play_each_other_on_the_clock_through_the_client(asgi_server, ada):
    """Bot-versus-bot between two programs: one challenges the other from the client
    (``--challenge``), the other accepts, and both play the match to the end with a clock."""
    first, first_secret = make_bot(ada, "First", games=("conquest",))
    second, second_secret = make_bot(ada, "Second", games=("conquest",))
    make_deck(first.user, "conquest", index=0)
    make_deck(second.user, "conquest", index=1)
    from botclient.examples.conquest import choose

    answering = BotClient(url=asgi_server.origin, token=second_secret, choose=choose, max_games=1)
    challenging = BotClient(url=asgi_server.origin, token=first_secret, choose=choose, max_games=1,
                            challenges=[("Second", "conquest")])
    with ClientThread(answering):
        assert answering.online.wait(TIMEOUT)
        with ClientThread(challenging):
            wait_for(lambda: challenging.finished and answering.finished, "both bots to finish", timeout=240)
    (match_id,) = challenging.finished
    assert set(answering.finished) == {match_id}
    live = LiveMatch.objects.get(match_id=match_id)
    assert live.status == "done" and verify_replay(Replay.from_json(live.replay)) == []
    assert {s.user.username for s in live.seats.all()} == {"First", "Second"}
    assert all(s.remaining_ms < live.initial_ms + 10**9 for s in live.seats.all())  # a clock ran for both
    assert challenging.errors == [] and answering.errors == []


def test_the_owner_reads_a_bots_games_errors_and_record_and_nobody_else_does(asgi_server, ada, alice, client):
    """Errors answered to a bot's frames are kept for its owner, with its games and its
    record against each opponent; the bot is online while its events socket is open."""
    from accounts.models import BotAccount, BotError
    from accounts.selectors import bot_is_online

    bot, secret = make_bot(ada)
    make_deck(bot.user, "tempofront")
    deck = make_deck(alice, "tempofront")
    assert not bot_is_online(bot)
    with bot_socket(asgi_server, "/ws/notify/", secret) as notify:
        assert receive(notify)["type"] == "notify.matches"
        assert bot_is_online(BotAccount.objects.get(pk=bot.pk))
        challenge = challenges.live_challenge(challenger=alice, challenged_username="Sparky",
                                              deck_version=deck.latest_version)
        notice = receive(notify)
        assert notice["type"] == "notify.challenge" and notice["challenge"]["id"] == challenge.pk
        assert notice["challenge"]["challenger"] == "alice" and notice["challenge"]["challenger_is_bot"] is False
    wait_for(lambda: not bot_is_online(BotAccount.objects.get(pk=bot.pk)), "the bot to be offline")
    accepted = challenges.live_challenge_answer(
        challenge_id=challenge.pk, user=bot.user, accept=True,
        deck_version=bot.user.decks.get().latest_version)
    with bot_socket(asgi_server, f"/ws/live/{accepted.match_id}/", secret) as socket:
        receive_view(socket)
        socket.send(json.dumps({"type": "act", "action": {"kind": "fly"}}))
        assert receive(socket)["code"] in ("malformed_action", "illegal_action", "not_your_turn")
        socket.send("not json")
        assert receive(socket)["code"] == "malformed_json"
    wait_for(lambda: BotError.objects.filter(bot=bot).count() == 2, "the errors to be kept")
    assert {e.match_id for e in BotError.objects.all()} == {accepted.match_id}
    client.force_login(ada)
    page = client.get(f"/live/bots/{bot.pk}/")
    text = page.content.decode()
    assert page.status_code == 200 and "malformed_json" in text and f"#{accepted.match_id}" in text
    assert "alice" in text and "Offline" in text
    games = client.get(f"/api/live/bots/{bot.pk}/games/").json()
    assert games["count"] == 1 and games["results"][0]["errors"] == 2
    assert games["results"][0]["opponents"] == [{"name": "alice", "is_bot": False}]
    assert games["results"][0]["result"] == "playing"
    record = client.get(f"/api/live/bots/{bot.pk}/record/").json()
    assert record["online"] is False and len(record["errors"]) == 2 and record["head_to_head"] == []
    # Another player sees none of it; nor does the bot's own token.
    client.force_login(alice)
    assert client.get(f"/live/bots/{bot.pk}/").status_code == 404
    assert client.get(f"/api/live/bots/{bot.pk}/record/").status_code == 404
    from rest_framework.test import APIClient

    as_bot = APIClient()
    as_bot.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert as_bot.get(f"/api/live/bots/{bot.pk}/games/").status_code == 404


def test_a_bot_that_keeps_failing_is_taken_offline(asgi_server, ada):
    from accounts.models import BotAccount
    from accounts.services import FAILURES_OFFLINE

    bot, secret = make_bot(ada)
    with bot_socket(asgi_server, "/ws/notify/", secret) as notify:
        receive(notify)
        frames = []
        for _ in range(FAILURES_OFFLINE):
            notify.send(json.dumps({"type": "dance"}))
            frames.append(receive(notify))
            time.sleep(0.11)  # under the socket's rate: these are failures, not a flood
        last = receive(notify)
        assert last["code"] == "offline" and "refused frames in a row" in last["message"]
        with pytest.raises(ConnectionClosed) as closed:
            notify.recv(timeout=10)
        assert closed.value.rcvd.code == 4429
    assert all(f["code"] == "unknown_type" for f in frames)
    bot = BotAccount.objects.get(pk=bot.pk)
    assert bot.offline_since is not None and "refused frames in a row" in bot.offline_reason


def test_a_bot_that_takes_only_unrated_games_takes_no_live_challenge(ada, alice):
    make_bot(ada, accepts_rated=False)
    deck = make_deck(alice, "tempofront")
    with pytest.raises(ValidationError, match="a live challenge is rated"):
        challenges.live_challenge(challenger=alice, challenged_username="Sparky", deck_version=deck.latest_version)
    assert not LiveChallenge.objects.exists()


def test_an_online_bots_ladder_deck_plays_a_ladder_deck_live_and_the_result_is_rated(
        asgi_server, celery_worker_process, ada):
    """The bot ladder with an external bot: its ladder deck is paired with a ladder deck of
    the site's pilots while it is online, the program plays its seat over its socket, the
    other seat is played by that deck's pilot on the worker, and both decks are rated in
    the bots pool, as any ladder match. Offline, it is skipped."""
    from ladder.models import Pool, RatingChange
    from live.ladder import live_ladder_bots
    from matches.models import Match

    bot, secret = make_bot(ada)
    mine = make_deck(bot.user, "tempofront", index=0)
    mine.ladder = True
    mine.save(update_fields=["ladder"])
    house = make_deck(User.objects.create_user("house", password="pw-house-12345"), "tempofront", index=1,
                      pilot="random")
    house.ladder = True
    house.save(update_fields=["ladder"])
    assert live_ladder_bots() == []  # offline: skipped, nothing made, nothing forfeited
    client = BotClient(url=asgi_server.origin, token=secret, choose=tempofront_choose, max_games=1)
    with ClientThread(client):
        assert client.online.wait(TIMEOUT)
        (match_id,) = live_ladder_bots()
        assert live_ladder_bots() == []  # both decks busy now
        wait_for(lambda: match_id in client.finished, "the ladder match to end", timeout=240)
    match = Match.objects.get(pk=match_id)
    assert match.ladder and match.kind == "live" and match.status == "done"
    live = LiveMatch.objects.get(match_id=match_id)
    assert verify_replay(Replay.from_json(live.replay)) == []
    changes = RatingChange.objects.filter(match_id=match_id)
    assert {c.rating.deck_id for c in changes} == {mine.pk, house.pk}
    assert {c.rating.pool for c in changes} == {Pool.BOTS}
    assert client.errors == []


def test_a_bots_oversized_and_flooding_frames_are_refused_as_a_persons(asgi_server, ada, alice):
    """The same bounds as for people: a frame over 16 KiB is refused by name, a flood is
    cut off with 4429, and neither changes the match."""
    from live.consumers import ABUSE_LIMIT

    bot, secret = make_bot(ada)
    deck = make_deck(alice, "tempofront")
    challenge = challenges.live_challenge(challenger=alice, challenged_username="Sparky",
                                          deck_version=deck.latest_version)
    accepted = challenges.live_challenge_answer(challenge_id=challenge.pk, user=bot.user, accept=True,
                                                deck_version=make_deck(bot.user, "tempofront").latest_version)
    with bot_socket(asgi_server, f"/ws/live/{accepted.match_id}/", secret) as socket:
        receive_view(socket)
        socket.send(json.dumps({"type": "act", "action": {"kind": "keep", "pad": "x" * 20_000}}))
        assert receive(socket)["code"] == "frame_too_large"
        for _ in range(ABUSE_LIMIT + 25):
            socket.send(json.dumps({"type": "ping"}))
        codes = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                frame = receive(socket, skip=("presence", "pong"))
                codes.append(frame.get("code"))
        assert closed.value.rcvd.code == 4429 and "rate_limited" in codes
    assert LiveMatch.objects.get(match_id=accepted.match_id).log == []
