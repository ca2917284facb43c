"""``Rating.listed``: whether a rating is on the leaderboard (false for an archived deck's),
so that a leaderboard page and a rank read one index and join nothing.

Database triggers keep it right however a deck is archived (``decks.services`` archives
with a queryset ``update``, which sends no signal): archiving (or restoring) a deck sets
its ratings' ``listed``, and a rating inserted for an archived deck starts unlisted. The
triggers exist for PostgreSQL and SQLite.
"""

from django.conf import settings
from django.db import migrations, models

POSTGRESQL = [
    """CREATE OR REPLACE FUNCTION ladder_rating_listed_on_archive() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE {rating} SET listed = NOT NEW.archived WHERE deck_id = NEW.id AND listed = NEW.archived;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER ladder_rating_listed_on_archive AFTER UPDATE OF archived ON {deck} FOR EACH ROW
    WHEN (OLD.archived IS DISTINCT FROM NEW.archived) EXECUTE FUNCTION ladder_rating_listed_on_archive()""",
    """CREATE OR REPLACE FUNCTION ladder_rating_listed_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.deck_id IS NOT NULL THEN
            NEW.listed := NOT COALESCE((SELECT archived FROM {deck} WHERE id = NEW.deck_id), false);
        END IF;
        RETURN NEW;
    END $$""",
    """CREATE TRIGGER ladder_rating_listed_on_insert BEFORE INSERT ON {rating} FOR EACH ROW
    EXECUTE FUNCTION ladder_rating_listed_on_insert()""",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_archive ON {deck}",
    "DROP FUNCTION IF EXISTS ladder_rating_listed_on_archive()",
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_insert ON {rating}",
    "DROP FUNCTION IF EXISTS ladder_rating_listed_on_insert()",
]
SQLITE = [
    """CREATE TRIGGER ladder_rating_listed_on_archive AFTER UPDATE OF archived ON {deck} FOR EACH ROW
    WHEN OLD.archived IS NOT NEW.archived
    BEGIN UPDATE {rating} SET listed = NOT NEW.archived WHERE deck_id = NEW.id; END""",
    """CREATE TRIGGER ladder_rating_listed_on_insert AFTER INSERT ON {rating} FOR EACH ROW
    WHEN NEW.deck_id IS NOT NULL
    BEGIN UPDATE {rating} SET listed = NOT COALESCE((SELECT archived FROM {deck} WHERE id = NEW.deck_id), 0)
    WHERE id = NEW.id; END""",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_archive",
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_insert",
]


def _run(apps, schema_editor, statements):
    tables = {
        "deck": schema_editor.quote_name(apps.get_model("decks", "Deck")._meta.db_table),
        "rating": schema_editor.quote_name(apps.get_model("ladder", "Rating")._meta.db_table),
    }
    for statement in statements:
        schema_editor.execute(statement.format(**tables), params=None)


def create_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise RuntimeError(f"the ladder keeps Rating.listed by triggers written for PostgreSQL and SQLite, not {vendor}")
    Rating = apps.get_model("ladder", "Rating")
    Rating.objects.filter(deck__archived=True).update(listed=False)
    _run(apps, schema_editor, POSTGRESQL if vendor == "postgresql" else SQLITE)


def drop_triggers(apps, schema_editor):
    _run(apps, schema_editor, POSTGRESQL_DROP if schema_editor.connection.vendor == "postgresql" else SQLITE_DROP)


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
