"""App configuration of the ladder: ratings are recorded from ``matches.signals.match_finished``."""

from django.apps import AppConfig
from django.db import connections


class LadderConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder"
    verbose_name = "Ladder"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from ladder import receivers  # noqa: F401  (connects the signal receivers)

        post_migrate.connect(_ensure_triggers, sender=self, dispatch_uid="ladder.ensure_triggers")


def _ensure_triggers(sender, using: str = "default", **kwargs) -> None:
    """After ``migrate``: recreate the ``Rating.listed`` triggers if a migration dropped
    them (SQLite drops a table's triggers when it rebuilds the table)."""
    # Called after migrate (connected in ready()): models load once the app registry is.
    from decks.models import Deck
    from ladder.models import Rating
    from ladder.triggers import ensure_triggers

    connection = connections[using]
    tables = set(connection.introspection.table_names())
    if Deck._meta.db_table in tables and Rating._meta.db_table in tables and connection.vendor in (
            "postgresql", "sqlite"):
        columns = {c.name for c in connection.introspection.get_table_description(connection.cursor(),
                                                                                   Rating._meta.db_table)}
        if "listed" in columns:
            ensure_triggers(connection, deck_table=Deck._meta.db_table, rating_table=Rating._meta.db_table)
