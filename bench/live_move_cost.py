"""What one live move and one opening view cost in the process that serves them: SQL
queries and wall time, with no server, socket or channel layer around them.

Plays ``--games`` TempoFront live matches between two people, ``--moves`` random legal
actions each, through the same calls a board socket makes (``opening_payload`` for each
seat's view, ``live_act`` inside ``web.effects.collecting``), counting the queries of each
call (``CaptureQueriesContext``) and timing it. Runs on a commit from before live play
was split by job as well (``live.services``), so two commits can be compared on one
machine::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/movecost python bench/live_move_cost.py

Creates two players per run in the database it is given (never flushed). Prints one line.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from decks.services import deck_register
    from engine import games

    try:
        from live import creation, moves, selectors
        from live.creation import SeatSpec
        from web import effects

        collecting, live_act = effects.collecting, moves.live_act
    except ImportError:  # a commit before live play was split by job
        from live.services import SeatSpec

        from live import selectors
        from live import services as creation

        collecting, live_act = creation.collect_broadcasts, creation.live_act

    call_command("migrate", verbosity=0)
    game = games["tempofront"]
    starters = list(game.starter_decks().values())
    run = str(int(time.time() * 1000) % 10**8)
    users = [User.objects.create_user(f"mc{run}-{i}") for i in range(2)]
    versions = [deck_register(owner=u, game="tempofront", name="cost", decklist=starters[i].to_text(
        game.commander_label), pilot="random").latest_version for i, u in enumerate(users)]
    rng = random.Random(1)
    move_queries, move_s, open_queries, open_s = [], [], [], []
    for _ in range(args.games):
        live = creation.live_create(seats=[SeatSpec(deck_version=versions[0], user=users[0]),
                                           SeatSpec(deck_version=versions[1], user=users[1])],
                                    initial_ms=3_600_000, increment_ms=0)
        for _ in range(args.moves):
            for seat in (0, 1):
                with CaptureQueriesContext(connection) as queries:
                    start = time.perf_counter()
                    view = selectors.opening_payload(match_id=live.match_id, seat=seat)
                    open_s.append(time.perf_counter() - start)
                open_queries.append(len(queries.captured_queries))
                if view["legal"] and view["status"] == "active":
                    with CaptureQueriesContext(connection) as queries:
                        start = time.perf_counter()
                        with collecting():
                            live_act(match_id=live.match_id, user=users[seat], action_json=rng.choice(view["legal"]),
                                     expected_index=view["index"])
                        move_s.append(time.perf_counter() - start)
                    move_queries.append(len(queries.captured_queries))
                    break
    print(f"moves {len(move_s)}: {statistics.mean(move_queries):.2f} queries, "
          f"p50 {1000 * statistics.median(move_s):.2f} ms, mean {1000 * statistics.mean(move_s):.2f} ms; "
          f"opening views {len(open_s)}: {statistics.mean(open_queries):.2f} queries, "
          f"p50 {1000 * statistics.median(open_s):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
