"""App configuration of the ladder: ratings are recorded from ``matches.signals.match_finished``."""

from django.apps import AppConfig


class LadderConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder"
    verbose_name = "Ladder"

    def ready(self) -> None:
        from ladder import receivers  # noqa: F401  (connects the signal receivers)
