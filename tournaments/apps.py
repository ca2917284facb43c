"""App configuration of the tournaments app: connects the match signals on start-up."""

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # In ready(): models and receivers load once the app registry is.
        from matches.models import Match
        from matches.signals import match_failed, match_finished
        from tournaments import receivers

        match_finished.connect(receivers.on_match_finished, sender=Match, dispatch_uid="tournaments.match_finished")
        match_failed.connect(receivers.on_match_failed, sender=Match, dispatch_uid="tournaments.match_failed")
