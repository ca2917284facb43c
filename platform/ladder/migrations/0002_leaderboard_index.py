"""The leaderboard's index carries ``deck_id`` (deep pages in an index-only scan), and on
PostgreSQL trigram indexes serve the leaderboard's search by deck or player name."""

from django.conf import settings
from django.db import migrations, models

#: ``icontains`` compares ``UPPER(column) LIKE UPPER(pattern)``: the indexes are on that expression.
TRIGRAM_INDEXES = [
    ("ladder_search_deck_name", "decks", "Deck", "name"),
    ("ladder_search_username", None, None, "username"),
]


def _table(apps, app_label, model_name):
    if app_label is None:
        app_label, model_name = settings.AUTH_USER_MODEL.split(".")
    return apps.get_model(app_label, model_name)._meta.db_table


def create_trigram_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":  # SQLite (make run): a scan is fine there
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    for name, app_label, model_name, column in TRIGRAM_INDEXES:
        table = schema_editor.quote_name(_table(apps, app_label, model_name))
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING gin (UPPER({schema_editor.quote_name(column)}) "
            f"gin_trgm_ops)"
        )


def drop_trigram_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, *_ in TRIGRAM_INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):

    dependencies = [
        ('decks', '0002_deck_ladder'),
        ('ladder', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='rating',
            name='rating_leaderboard',
        ),
        migrations.AddIndex(
            model_name='rating',
            index=models.Index(fields=['game', 'pool', '-ordinal', 'id'], include=('deck',), name='rating_leaderboard'),
        ),
        migrations.RunPython(create_trigram_indexes, drop_trigram_indexes),
    ]
