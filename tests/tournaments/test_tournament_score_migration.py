"""Migration 0005 moves the stored event score to the neutral key ``score``, and back.

A table decided before the rename kept its score under ``conquest`` (in ``Pairing.result``
and in each game of a live series); after the migration the standings read it as
``score``, and unapplying the migration puts the old key back.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [("tournaments", "0004_live_events")]
AFTER = [("tournaments", "0005_neutral_score")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_a_stored_conquest_score_is_read_as_score_after_the_migration_and_as_conquest_after_unapplying():
    apps = _migrate(BEFORE)
    try:
        User = apps.get_model("auth", "User")
        Tournament = apps.get_model("tournaments", "Tournament")
        Round = apps.get_model("tournaments", "Round")
        Pairing = apps.get_model("tournaments", "Pairing")
        organiser = User.objects.create(username="organiser")
        event = Tournament.objects.create(name="Old pods", game="conquest", format="conquest_pods",
                                          organiser=organiser, starts_at=timezone.now(), players_per_game=4, seed=1)
        rnd = Round.objects.create(tournament=event, number=1, stage="swiss")
        old = Pairing.objects.create(
            round=rnd, table=1, entries=[11, 12, 13, 14], status="done",
            result={"places": [1, 2, 3, 4], "game_wins": [1, 0, 0, 0], "games": 1, "conquest": [12, 9, 4, 0]},
            series=[{"match": 5, "places": [1, 2, 3, 4], "forfeit": [], "adjudicated": False,
                     "conquest": [12, 9, 4, 0]}])
        bye = Pairing.objects.create(round=rnd, table=2, entries=[15], status="done",
                                     result={"places": [1], "game_wins": [2], "games": 2, "conquest": None,
                                             "bye": True})
        untouched = Pairing.objects.create(round=rnd, table=3, entries=[16, 17], status="playing")

        apps = _migrate(AFTER)
        Pairing = apps.get_model("tournaments", "Pairing")
        after = Pairing.objects.get(pk=old.pk)
        assert after.result == {"places": [1, 2, 3, 4], "game_wins": [1, 0, 0, 0], "games": 1,
                                "score": [12, 9, 4, 0]}
        assert after.series[0]["score"] == [12, 9, 4, 0] and "conquest" not in after.series[0]
        assert Pairing.objects.get(pk=bye.pk).result == {"places": [1], "game_wins": [2], "games": 2,
                                                         "score": None, "bye": True}
        assert Pairing.objects.get(pk=untouched.pk).result is None

        apps = _migrate(BEFORE)
        Pairing = apps.get_model("tournaments", "Pairing")
        back = Pairing.objects.get(pk=old.pk)
        assert back.result["conquest"] == [12, 9, 4, 0] and "score" not in back.result
        assert back.series[0]["conquest"] == [12, 9, 4, 0] and "score" not in back.series[0]
    finally:
        _latest()
