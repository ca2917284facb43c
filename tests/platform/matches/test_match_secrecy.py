"""Hidden information of matches: the seed is a secret until the match is over, behind a
public commitment (provable fairness), and a running match shows only public things.

- Issue 11: "while a match is queued or running, no response, page, socket message or
  log line that a non-staff user can reach carries the seed, a game's seed, or any action
  or event that is private to a seat";
- "the public replay of a finished game inside a running match shows only public views
  and public events: no actions list with face-down placements, no per-frame action that
  names a hidden card";
- "from creation, a match shows a commitment to its seed (SHA-256 of the seed with a salt,
  both secret), and when the match ends the seed and salt are revealed".
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from match_helpers import make_deck, version
from rest_framework.test import APIClient

from matches import fairness
from matches.models import Match
from matches.play import game_seed, play_game
from matches.services import group_name, match_broadcast, match_challenge, match_claim, match_record_game
from matches.tasks import run_match

ROOT = Path(__file__).resolve().parents[3]
#: A seed long enough that its digits cannot turn up in a page by chance.
SEED = 7_364_019_288_541_337

pytestmark = pytest.mark.django_db


def challenge(decks, *, best_of=3, seed=SEED) -> Match:
    return match_challenge(created_by=decks[0].owner, deck_versions=[version(d) for d in decks], best_of=best_of,
                           seed=seed)


def running_after_game_one(decks) -> Match:
    """A best-of-3 match whose game 1 is recorded while the match is still running."""
    match = challenge(decks)
    claimed = match_claim(match_id=match.pk, worker="w1")
    match_record_game(match_id=match.pk, worker="w1", game=play_game(claimed, 1, worker="w1"))
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING and match.games.count() == 1
    return match


def secrets_of(match: Match) -> list[str]:
    """Every number whose presence would give the deal away: the match seed and each game's."""
    return [str(match.seed)] + [str(game_seed(match.seed, n)) for n in range(1, 6)]


def replay_pages(client, match: Match, number: int = 1) -> list[dict]:
    pages, start = [], 0
    while start is not None:
        response = client.get(f"/api/matches/{match.pk}/replay/?game={number}&from={start}&count=200")
        assert response.status_code == 200, response.content
        for secret in secrets_of(match):
            assert secret not in response.content.decode(), f"seed {secret} leaked"
        pages.append(response.json())
        start = pages[-1]["next_from"]
    return pages


# --------------------------------------------------------------------------- the match itself


def test_a_new_challenge_shows_its_commitment_and_not_its_seed(alice, bob, effects_recorded):
    mine, theirs = make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)
    client = APIClient()
    client.force_authenticate(alice)
    response = client.post("/api/matches/", {"decks": [mine.pk, theirs.pk]}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["seed"] is None and body["seed_salt"] is None
    assert re.fullmatch(r"[0-9a-f]{64}", body["seed_commitment"])
    match = Match.objects.get(pk=body["id"])
    assert str(match.seed) not in response.content.decode()
    assert fairness.commitment_holds(seed=match.seed, salt=match.seed_salt, commitment=body["seed_commitment"])


@pytest.mark.parametrize("status", ["queued", "running"])
def test_anonymous_status_page_and_socket_message_keep_the_seed_secret(alice, bob, effects_recorded, status):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    Match.objects.filter(pk=match.pk).update(status=status)
    api = APIClient().get(f"/api/matches/{match.pk}/")
    page = APIClient().get(f"/matches/{match.pk}/")
    match_broadcast(match_id=match.pk)
    sent = effects_recorded.for_group(group_name(match.pk))
    assert api.status_code == page.status_code == 200
    assert api.json()["seed"] is None and api.json()["seed_salt"] is None
    assert sent and sent[0]["type"] == "match.update" and sent[0]["match"]["seed"] is None
    for text in (api.content.decode(), page.content.decode(), json.dumps(sent)):
        assert str(match.seed) not in text and match.seed_salt not in text
        assert match.seed_commitment in text


def test_the_seed_and_salt_are_revealed_when_the_match_is_over_and_match_the_commitment(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "tempofront"), make_deck(bob, "tempofront", index=1)], best_of=1)
    committed = APIClient().get(f"/api/matches/{match.pk}/").json()["seed_commitment"]
    run_match.apply(args=[match.pk])
    body = APIClient().get(f"/api/matches/{match.pk}/").json()
    assert body["status"] == "done"
    assert body["seed"] == SEED and body["seed_commitment"] == committed
    assert fairness.seed_commitment(seed=body["seed"], salt=body["seed_salt"]) == committed
    page = APIClient().get(f"/matches/{match.pk}/").content.decode()
    assert str(SEED) in page and body["seed_salt"] in page and f"/matches/{match.pk}/verify/" in page


def test_a_failed_match_reveals_its_seed_too(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FAILED, error="boom")
    assert APIClient().get(f"/api/matches/{match.pk}/").json()["seed"] == SEED


def test_the_commitment_is_sha256_of_the_salt_bytes_then_the_decimal_seed():
    """The byte layout docs/matches.md promises, on a value worked out by hand."""
    salt = "00" * 31 + "ff"
    expected = __import__("hashlib").sha256(bytes(31) + b"\xff" + b"1234").hexdigest()
    assert fairness.seed_commitment(seed=1234, salt=salt) == expected
    assert fairness.commitment_holds(seed=1234, salt=salt, commitment=expected.upper())
    assert not fairness.commitment_holds(seed=1235, salt=salt, commitment=expected)
    assert re.fullmatch(r"[0-9a-f]{64}", fairness.new_salt())


def test_bot_errors_of_a_running_match_do_not_name_the_illegal_action(alice, bob, effects_recorded):
    match = running_after_game_one([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    game = match.games.get()
    secret = "chose an illegal action Action(kind='place', params=(('card', 'sky-lantern'), ('location', 1)))"
    game.bot_errors = [{"seat": 0, "bot": "random", "action_number": 3, "error": secret,
                        "text": f"random {secret} at action 3"}]
    game.save(update_fields=["bot_errors"])
    text = APIClient().get(f"/api/matches/{match.pk}/").content.decode()
    assert "chose an illegal action" in text and "sky-lantern" not in text


# --------------------------------------------------------------------------- replays of a running match


@pytest.mark.parametrize(("game", "secret_kinds"), [("conquest", {"place"}), ("tempofront", {"prepare", "take"})])
def test_a_finished_game_of_a_running_match_replays_only_public_information(alice, bob, effects_recorded, game,
                                                                          secret_kinds):
    match = running_after_game_one([make_deck(alice, game), make_deck(bob, game, index=1)])
    pages = replay_pages(APIClient(), match)
    first = pages[0]
    assert first["all_seats"] is False and "actions" not in first
    assert first["seed"] is None and first["match_seed"] is None and first["seed_salt"] is None
    assert first["seed_commitment"] == match.seed_commitment
    frames = [frame for page in pages for frame in page["frames"]]
    assert len(frames) == first["total_frames"] == match.games.get().actions + 1
    real = match.games.get().load_replay().actions
    hidden = 0
    for frame, (_, action) in zip(frames[1:], real, strict=True):
        assert set(frame["views"]) == {"public"}
        assert not any("private_to" in event for event in frame["events"])
        if action.kind in secret_kinds:
            hidden += 1
            assert frame["action"]["hidden"] is True and "card" not in frame["action"], frame["action"]
            assert frame["action"] != action.to_json()
        else:
            assert frame["action"] == action.to_json()
    if game == "conquest":
        assert hidden > 0  # every Conquest battle starts with face-down picks


def test_the_replay_file_is_refused_until_the_match_is_over(alice, bob, effects_recorded):
    match = running_after_game_one([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)])
    response = APIClient().get(f"/api/matches/{match.pk}/replay/?game=1&download=1")
    assert response.status_code == 409 and response.json()["error"]["code"] == "match_not_over"
    assert str(match.seed) not in response.content.decode()


def test_once_over_the_replay_shows_every_seat_the_seeds_and_the_real_actions(alice, bob, effects_recorded):
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], best_of=1)
    run_match.apply(args=[match.pk])
    body = APIClient().get(f"/api/matches/{match.pk}/replay/?game=1&count=200").json()
    assert body["all_seats"] is True
    assert body["seed"] == game_seed(SEED, 1) and body["match_seed"] == SEED and body["seed_salt"]
    real = match.games.get().load_replay().actions
    assert [f["action"] for f in body["frames"][1:]] == [a.to_json() for _, a in real[:len(body["frames"]) - 1]]


# --------------------------------------------------------------------------- the verification recipe


def test_docs_and_verify_page_show_the_recipe_and_it_checks_a_real_match(alice, bob, effects_recorded, tmp_path):
    """docs/matches.md's recipe is the tested one; run on a finished match's replay file it
    accepts the commitment shown while the match ran, refuses another, and the engine's
    ``replay --verify`` reproduces the game from the revealed seed."""
    docs = (ROOT / "docs" / "matches.md").read_text(encoding="utf-8")
    assert fairness.VERIFY_SCRIPT in docs
    match = challenge([make_deck(alice, "conquest"), make_deck(bob, "conquest", index=1)], best_of=1)
    shown_while_running = APIClient().get(f"/api/matches/{match.pk}/").json()["seed_commitment"]
    page = APIClient().get(f"/matches/{match.pk}/verify/")
    assert page.status_code == 200 and shown_while_running in page.content.decode()
    run_match.apply(args=[match.pk])
    response = APIClient().get(f"/api/matches/{match.pk}/replay/?game=1&download=1")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    replay_file = tmp_path / "game1.json"
    replay_file.write_bytes(response.content)
    script = tmp_path / "check_seed.py"
    script.write_text(fairness.VERIFY_SCRIPT, encoding="utf-8")

    ok = subprocess.run([sys.executable, str(script), str(replay_file), shown_while_running],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("OK: seed") and str(SEED) in ok.stdout
    wrong = subprocess.run([sys.executable, str(script), str(replay_file), "0" * 64],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode != 0 and "not the one the match committed to" in wrong.stderr
    engine = subprocess.run([sys.executable, "-m", "engine", "replay", "--verify", str(replay_file)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert engine.returncode == 0, engine.stdout + engine.stderr
    assert "OK" in engine.stdout
    revealed = APIClient().get(f"/matches/{match.pk}/verify/").content.decode()
    assert str(SEED) in revealed and "download=1" in revealed
