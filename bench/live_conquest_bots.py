"""Live Conquest against bots, many games in a row: zero task errors expected.

Plays ``--games`` live Conquest matches (two and four seats in turn) of a scripted person
against bots (``random`` and ``greedy`` in turn), through the real live services
(``live_play_bot``, ``live_act``) and the ``live.bot_act`` task code, with the views of
every move computed as they are sent. Only the transport is replaced: the tasks the
services send after commit are run here in order instead of by a worker, and the views
are counted instead of going out on the channel layer. The person plays a random legal
move whenever it is to act. A task or a move that raises, a match where nobody is to act
and no bot move is pending, or a match that does not end, is an error.

    python bench/live_conquest_bots.py --games 300                 # SQLite, in memory
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/NAME python bench/live_conquest_bots.py --games 300

It creates a throwaway database (in memory on SQLite, ``<NAME>_live_conquest_bots`` on
PostgreSQL) and drops it at the end. Prints one JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: The most actions one match may take before it counts as not ending.
MAX_ACTIONS = 5000


def _starter(index: int) -> str:
    from engine import games

    game = games["conquest"]
    return list(game.starter_decks().values())[index].to_text(game.commander_label)


def _decks(owner, *, starter: bool) -> list:
    from decks.services import deck_register
    from engine import games

    count = len(games["conquest"].starter_decks())
    return [deck_register(owner=owner, game="conquest", name=f"{owner.username} {i}", decklist=_starter(i),
                          pilot="random", is_starter=starter).latest_version for i in range(count)]


def play_games(*, games: int, seats: Sequence[int] = (2, 4), bots: Sequence[str] = ("random", "greedy"),
               seed: int = 1, progress: Callable[[str], None] | None = None) -> dict:
    """Play ``games`` live Conquest matches against bots and return the tally; needs a
    database with the project's tables (the bench's throwaway one, or a test's)."""
    from django.contrib.auth.models import User

    from decks.models import Deck
    from live import broadcasts, challenges, engine_state, tasks
    from live import moves as live_moves
    from live.models import LiveMatch
    from web import effects

    rng = random.Random(seed)
    site, _ = User.objects.get_or_create(username="bench-live-site")
    person, _ = User.objects.get_or_create(username="bench-live-person")
    if not Deck.objects.filter(game="conquest", is_starter=True, archived=False).exists():
        _decks(site, starter=True)
    mine = _decks(person, starter=False)
    pending: deque[list] = deque()
    counts = {"games": 0, "finished": 0, "actions": 0, "bot_tasks": 0, "person_moves": 0, "views": 0,
              "by_seats": {}, "errors": []}

    seen = {"tasks": 0, "sends": 0}

    def take(record) -> None:
        """Queue the bot moves asked since the last look; count the views sent meanwhile."""
        for task, args, _, _ in record.tasks[seen["tasks"]:]:
            if task == broadcasts.BOT_ACT:
                pending.append(list(args))
        for _, message in record.sends[seen["sends"]:]:
            if message.get("type") == "live.views":
                counts["views"] += len(message["views"])
        seen["tasks"], seen["sends"] = len(record.tasks), len(record.sends)

    def error(match_id: int, what: str) -> None:
        counts["errors"].append(f"match {match_id}: {what}")
        if progress:
            progress(f"error in match {match_id}: {what.splitlines()[-1]}")

    started = time.perf_counter()
    with effects.recording() as record:
        for number in range(games):
            n, bot = seats[number % len(seats)], bots[(number // len(seats)) % len(bots)]
            take(record)
            pending.clear()
            live = challenges.live_play_bot(user=person, deck_version=mine[number % len(mine)], bot=bot, seats=n,
                                            initial_ms=3_600_000, increment_ms=0)
            match_id = live.match_id
            counts["games"] += 1
            stalls = 0
            while True:
                take(record)
                if pending:
                    args = pending.popleft()
                    counts["bot_tasks"] += 1
                    try:
                        tasks.bot_act(*args)
                    except Exception:
                        error(match_id, traceback.format_exc())
                    continue
                live = LiveMatch.objects.select_related("match").get(match_id=match_id)
                if live.is_over:
                    counts["finished"] += 1
                    counts["actions"] += len(live.log)
                    tally = counts["by_seats"].setdefault(str(n), {"games": 0, "actions": 0})
                    tally["games"] += 1
                    tally["actions"] += len(live.log)
                    break
                if len(live.log) > MAX_ACTIONS:
                    error(match_id, f"no end after {len(live.log)} actions")
                    break
                with engine_state.state_of(live) as state:
                    to_act = list(state.to_act())
                    legal = state.legal_actions(0) if 0 in to_act else []
                if legal:
                    stalls = 0
                    try:
                        live_moves.live_act(match_id=match_id, user=person, action_json=rng.choice(legal).to_json(),
                                            expected_index=len(live.log))
                        counts["person_moves"] += 1
                    except Exception:
                        error(match_id, traceback.format_exc())
                        break
                    continue
                # A bot is to act but no move of it is pending: what a lost message looks
                # like (live.tick would send it again after 30 s). An error here.
                stalls += 1
                error(match_id, f"stalled: seats {to_act} to act after {len(live.log)} actions, no bot move sent")
                if stalls > 1:
                    break
                pending.extend([match_id, seat, len(live.log)] for seat in to_act)
            if progress and (number + 1) % 10 == 0:
                progress(f"{number + 1}/{games} games, {len(counts['errors'])} errors, "
                         f"{time.perf_counter() - started:.0f} s")
    counts["seconds"] = round(time.perf_counter() - started, 1)
    counts["error_count"] = len(counts["errors"])
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    if connection.vendor == "postgresql":
        settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = \
            f"{settings.DATABASES['default']['NAME']}_live_conquest_bots"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        say = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
        result = play_games(games=args.games, seed=args.seed, progress=say)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    result["errors"] = result["errors"][:20]
    print(json.dumps({"command": "python bench/live_conquest_bots.py " + " ".join(argv or sys.argv[1:]),
                      "database": connection.vendor, **result}, indent=2))
    return 1 if result["error_count"] else 0


if __name__ == "__main__":
    sys.exit(main())
