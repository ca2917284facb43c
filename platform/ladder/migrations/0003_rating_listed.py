"""``Rating.listed``: whether a rating is on the leaderboard (false for an archived deck's),
so that a leaderboard page and a rank read one index and join nothing.

Database triggers keep it right however a deck is archived (``decks.services`` archives
with a queryset ``update``, which sends no signal): archiving (or restoring) a deck sets
its ratings' ``listed``, and a rating inserted for an archived deck starts unlisted. The
triggers (``ladder.triggers``) exist for PostgreSQL and SQLite.
"""

from django.conf import settings
from django.db import migrations, models


def _tables(apps) -> dict[str, str]:
    return {"deck_table": apps.get_model("decks", "Deck")._meta.db_table,
            "rating_table": apps.get_model("ladder", "Rating")._meta.db_table}


def create_triggers(apps, schema_editor):
    from ladder.triggers import ensure_triggers

    apps.get_model("ladder", "Rating").objects.filter(deck__archived=True).update(listed=False)
    ensure_triggers(schema_editor.connection, **_tables(apps))


def drop_triggers(apps, schema_editor):
    from ladder.triggers import drop_triggers

    drop_triggers(schema_editor.connection, **_tables(apps))


class Migration(migrations.Migration):

    dependencies = [
        ('decks', '0002_deck_ladder'),
        ('ladder', '0002_leaderboard_index'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='rating',
            name='rating_leaderboard',
        ),
        migrations.AddField(
            model_name='rating',
            name='listed',
            field=models.BooleanField(default=True, help_text="On the leaderboard: false for an archived deck's rating. Kept by database triggers on the decks table (migration 0003), whichever way a deck is archived."),
        ),
        migrations.AddIndex(
            model_name='rating',
            index=models.Index(fields=['game', 'pool', 'listed', '-ordinal', 'id'], name='rating_leaderboard'),
        ),
        migrations.RunPython(create_triggers, drop_triggers),
    ]
