"""The database triggers that keep ``Rating.listed`` right (PostgreSQL and SQLite).

A deck is archived by a queryset ``update`` (``decks.services.deck_archive``), which
sends no signal, so the database itself does it: changing ``decks_deck.archived`` sets
the deck's ratings' ``listed``, and a rating inserted for an archived deck starts
unlisted. Migration ``0003`` creates them; :func:`ensure_triggers` (run after every
``migrate``) creates any that are missing, because SQLite drops a table's triggers when a
later migration rebuilds that table.
"""

from __future__ import annotations

POSTGRESQL = {
    "ladder_rating_listed_on_archive": [
        """CREATE OR REPLACE FUNCTION ladder_rating_listed_on_archive() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE {rating} SET listed = NOT NEW.archived WHERE deck_id = NEW.id AND listed = NEW.archived;
            RETURN NULL;
        END $$""",
        """CREATE TRIGGER ladder_rating_listed_on_archive AFTER UPDATE OF archived ON {deck} FOR EACH ROW
        WHEN (OLD.archived IS DISTINCT FROM NEW.archived) EXECUTE FUNCTION ladder_rating_listed_on_archive()""",
    ],
    "ladder_rating_listed_on_insert": [
        """CREATE OR REPLACE FUNCTION ladder_rating_listed_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.deck_id IS NOT NULL THEN
                NEW.listed := NOT COALESCE((SELECT archived FROM {deck} WHERE id = NEW.deck_id), false);
            END IF;
            RETURN NEW;
        END $$""",
        """CREATE TRIGGER ladder_rating_listed_on_insert BEFORE INSERT ON {rating} FOR EACH ROW
        EXECUTE FUNCTION ladder_rating_listed_on_insert()""",
    ],
}
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_archive ON {deck}",
    "DROP FUNCTION IF EXISTS ladder_rating_listed_on_archive()",
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_insert ON {rating}",
    "DROP FUNCTION IF EXISTS ladder_rating_listed_on_insert()",
]
SQLITE = {
    "ladder_rating_listed_on_archive": [
        """CREATE TRIGGER ladder_rating_listed_on_archive AFTER UPDATE OF archived ON {deck} FOR EACH ROW
        WHEN OLD.archived IS NOT NEW.archived
        BEGIN UPDATE {rating} SET listed = NOT NEW.archived WHERE deck_id = NEW.id; END""",
    ],
    "ladder_rating_listed_on_insert": [
        """CREATE TRIGGER ladder_rating_listed_on_insert AFTER INSERT ON {rating} FOR EACH ROW
        WHEN NEW.deck_id IS NOT NULL
        BEGIN UPDATE {rating} SET listed = NOT COALESCE((SELECT archived FROM {deck} WHERE id = NEW.deck_id), 0)
        WHERE id = NEW.id; END""",
    ],
}
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_archive",
    "DROP TRIGGER IF EXISTS ladder_rating_listed_on_insert",
]


def _tables(connection, deck_table: str, rating_table: str) -> dict[str, str]:
    quote = connection.ops.quote_name
    return {"deck": quote(deck_table), "rating": quote(rating_table)}


def _existing(cursor, vendor: str) -> set[str]:
    if vendor == "postgresql":
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgname LIKE 'ladder_rating_listed_%'")
    else:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'ladder_rating_listed_%'")
    return {row[0] for row in cursor.fetchall()}


def ensure_triggers(connection, *, deck_table: str, rating_table: str) -> list[str]:
    """Create the triggers missing on ``connection``; return their names."""
    vendor = connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise RuntimeError(f"Rating.listed is kept by triggers written for PostgreSQL and SQLite, not {vendor}")
    statements = POSTGRESQL if vendor == "postgresql" else SQLITE
    tables = _tables(connection, deck_table, rating_table)
    with connection.cursor() as cursor:
        missing = [name for name in statements if name not in _existing(cursor, vendor)]
        for name in missing:
            for statement in statements[name]:
                cursor.execute(statement.format(**tables))
    return missing


def drop_triggers(connection, *, deck_table: str, rating_table: str) -> None:
    tables = _tables(connection, deck_table, rating_table)
    with connection.cursor() as cursor:
        for statement in POSTGRESQL_DROP if connection.vendor == "postgresql" else SQLITE_DROP:
            cursor.execute(statement.format(**tables))
