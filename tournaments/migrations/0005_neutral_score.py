"""The event score a game adds up in standings is stored under a neutral key.

A table's result (``Pairing.result``) and each game of a live series (``Pairing.series``)
kept that score under the key ``conquest``; they keep it under ``score`` now, and the game
names it (``Game.standings_score_label``). Both directions rewrite the stored JSON.
"""

from django.db import migrations, models

BATCH = 500


def _renamed(data, old: str, new: str):
    """``data`` (a dict) with its key ``old`` as ``new``, in the same place; None: unchanged."""
    if not isinstance(data, dict) or old not in data:
        return None
    return {(new if key == old else key): value for key, value in data.items()}


def _rename_keys(apps, old: str, new: str) -> None:
    Pairing = apps.get_model("tournaments", "Pairing")
    changed = []
    for pairing in Pairing.objects.only("pk", "result", "series").iterator(chunk_size=BATCH):
        result = _renamed(pairing.result, old, new)
        games = [_renamed(game, old, new) for game in pairing.series or []]
        if result is None and not any(games):
            continue
        if result is not None:
            pairing.result = result
        pairing.series = [renamed or game for renamed, game in zip(games, pairing.series or [], strict=True)]
        changed.append(pairing)
        if len(changed) >= BATCH:
            Pairing.objects.bulk_update(changed, ["result", "series"])
            changed = []
    if changed:
        Pairing.objects.bulk_update(changed, ["result", "series"])


def forwards(apps, schema_editor) -> None:
    _rename_keys(apps, "conquest", "score")


def backwards(apps, schema_editor) -> None:
    _rename_keys(apps, "score", "conquest")


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0004_live_events'),
    ]

    operations = [
        migrations.AlterField(
            model_name='tournament',
            name='players_per_game',
            field=models.PositiveSmallIntegerField(default=2, help_text='2; 3 or 4 in pods, for a game that seats them'),
        ),
        migrations.AlterField(
            model_name='pairing',
            name='result',
            field=models.JSONField(blank=True, help_text='places, game_wins, games, score by entry (in the order of entries)', null=True),
        ),
        migrations.RunPython(forwards, backwards),
    ]
